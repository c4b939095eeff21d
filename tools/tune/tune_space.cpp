// clgemm-tune's search space: default candidate lists, --space overrides, enumeration with
// pruning, and neighbours. The candidate values, work-group shape, local memory and registers
// of a candidate come from the public kernel catalogue, so the rules hold for any kernel.
#include "tune/tune_space.hpp"

#include <algorithm>
#include <sstream>

#include "clgemm/errors.hpp"
#include "clgemm/kernels.hpp"

namespace clgemm::tune {
namespace {

// Powers of two from a quarter to four times the derived value, for a parameter of a long range
// the catalogue gives no candidates.
std::vector<long> powers_around(long derived) {
  std::vector<long> values;
  for (long v = std::max(1L, derived / 4); v <= derived * 4; v *= 2) values.push_back(v);
  return values;
}

void sort_unique(std::vector<long>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

long get(const KernelOptions& o, const char* name, long otherwise) {
  const auto it = o.find(name);
  return it == o.end() ? otherwise : it->second;
}

std::int64_t round_up(std::int64_t v, long multiple) {
  return (v + multiple - 1) / multiple * multiple;
}

// Position of `value` in an ascending list, or where it would be inserted.
std::size_t position(const std::vector<long>& list, long value) {
  return std::size_t(std::lower_bound(list.begin(), list.end(), value) - list.begin());
}

}  // namespace

ValueLists default_value_lists(const std::string& kernel, const KernelOptions& derived,
                               const DeviceLimits& limits) {
  ValueLists lists;
  for (const auto& p : find_kernel(kernel).parameters) {
    const long value = get(derived, p.name.c_str(), p.minimum);
    std::vector<long> list;
    if (!p.candidates.empty()) {  // the catalogue's, whatever the range (wgmma's A_REGISTERS {0,1})
      for (long v : p.candidates)
        if (v >= p.minimum && v <= p.maximum) list.push_back(v);
    } else if (p.maximum - p.minimum < 16) {  // a switch or a short range (UNROLL 0..1): all of it
      for (long v = p.minimum; v <= p.maximum; ++v) list.push_back(v);
    } else {
      for (long v : powers_around(value))
        if (v >= p.minimum && v <= p.maximum) list.push_back(v);
    }
    list.push_back(value);  // the derived value, in or out of the candidates
    sort_unique(list);
    // Values that need what the device lacks (cp.async) would only multiply the combinations
    // that are then refused one by one.
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](long v) {
                                return v != value &&
                                       !parameter_value_runs_on(kernel, p.name, v, limits);
                              }),
               list.end());
    lists[p.name] = list;
  }
  return lists;
}

void apply_space_override(ValueLists& lists, const std::string& kernel, const std::string& text) {
  const auto eq = text.find('=');
  const std::string name = text.substr(0, eq);
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(ErrorCode::InvalidOption,
                "--space expects NAME=v1,v2,... (e.g. TILE_K=8,16), got '" + text + "'");
  if (!lists.count(name)) {
    std::string valid;
    for (const auto& [parameter, values] : lists) valid += (valid.empty() ? "" : ", ") + parameter;
    throw Error(ErrorCode::InvalidOption, "--space: kernel '" + kernel + "' has no parameter '" +
                                              name + "'; its parameters are: " + valid);
  }
  std::vector<long> values;
  std::istringstream in(text.substr(eq + 1) + ",");  // the comma: "TILE=4," ends with ""
  for (std::string item; std::getline(in, item, ',');) {
    try {  // each value read as -D NAME=value is, strictly
      values.push_back(parse_option_assignment(name + "=" + item).second);
    } catch (const Error& error) {
      throw Error(ErrorCode::InvalidOption, "--space " + text + ": " + error.what());
    }
  }
  sort_unique(values);
  lists[name] = values;
}

PruneContext prune_context(const DeviceLimits& limits, std::int64_t m, std::int64_t n,
                           Precision precision) {
  PruneContext c;
  c.precision = precision;
  c.limits = limits;
  c.m = m;
  c.n = n;
  const bool gpu = limits.type == DeviceType::GPU;
  c.min_work_items = gpu ? 32 : 0;
  // A GPU work-item has at most 255 32-bit registers, some taken by addresses and counters;
  // a CPU work-item's "registers" are a private array PoCL keeps in L1 (32 KiB and more).
  c.register_budget = gpu ? 192 : 1024;
  return c;
}

std::string prune_reason(const std::string& kernel, const KernelOptions& options,
                         const PruneContext& context) {
  try {
    validate_options(kernel, options, context.limits);
  } catch (const Error&) {
    return "invalid";
  }
  const auto wg = kernel_work_group(kernel, options);
  if (wg[0] * wg[1] < context.min_work_items) return "few-work-items";
  if (kernel_registers_per_work_item(kernel, options, context.precision) > context.register_budget)
    return "register-budget";
  const long rows = get(options, "TILE_M", get(options, "TILE", 1));
  const long cols = get(options, "TILE_N", get(options, "TILE", 1));
  if (context.m > 0 && context.n > 0 &&
      double(round_up(context.m, rows)) * double(round_up(context.n, cols)) >
          2.0 * double(context.m) * double(context.n))
    return "padding";
  return "";
}

double combinations(const ValueLists& lists) {
  double product = 1;
  for (const auto& [name, values] : lists) product *= double(values.size());
  return product;
}

Space build_space(const std::string& kernel, const ValueLists& lists, const PruneContext& context) {
  Space space;
  space.kernel = kernel;
  space.lists = lists;
  const double product = combinations(lists);
  if (product > kMaxCombinations)
    throw Error(ErrorCode::InvalidArgument,
                "the search space has " + std::to_string(std::int64_t(product)) +
                    " combinations; narrow it with --space NAME=v1,v2,...");
  space.combinations = std::size_t(product);
  std::vector<std::pair<std::string, const std::vector<long>*>> axes;
  for (const auto& [name, values] : lists) axes.push_back({name, &values});
  std::vector<std::size_t> index(axes.size(), 0);
  for (std::size_t count = 0; count < space.combinations; ++count) {
    KernelOptions o;
    for (std::size_t a = 0; a < axes.size(); ++a) o[axes[a].first] = (*axes[a].second)[index[a]];
    const auto reason = prune_reason(kernel, o, context);
    if (reason.empty()) {
      space.candidates.push_back(o);
      space.members.insert(o);
    } else {
      ++space.pruned[reason];
    }
    for (std::size_t a = axes.size(); a-- > 0;) {  // odometer
      if (++index[a] < axes[a].second->size()) break;
      index[a] = 0;
    }
  }
  return space;
}

std::vector<KernelOptions> neighbours(const Space& space, const KernelOptions& options) {
  // One step of parameter `name` in direction `dir` (+1/-1), or false at the end of its list.
  auto step = [&](KernelOptions& o, const std::string& name, int dir) {
    const auto it = space.lists.find(name);
    if (it == space.lists.end() || it->second.empty()) return false;
    const auto& list = it->second;
    const std::size_t p = position(list, o[name]);
    const bool present = p < list.size() && list[p] == o[name];
    if (dir > 0) {
      const std::size_t next = present ? p + 1 : p;
      if (next >= list.size()) return false;
      o[name] = list[next];
    } else {
      if (p == 0) return false;
      o[name] = list[p - 1];
    }
    return true;
  };
  std::vector<KernelOptions> out;
  std::set<KernelOptions> seen;
  auto add = [&](const KernelOptions& o) {
    if (space.members.count(o) && o != options && seen.insert(o).second) out.push_back(o);
  };
  std::vector<std::string> names;
  for (const auto& [name, values] : space.lists) names.push_back(name);
  for (const auto& name : names)
    for (int dir : {+1, -1}) {
      KernelOptions o = options;
      if (step(o, name, dir)) add(o);
    }
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1; j < names.size(); ++j)
      for (int di : {+1, -1})
        for (int dj : {+1, -1}) {
          KernelOptions o = options;
          if (step(o, names[i], di) && step(o, names[j], dj)) add(o);
        }
  return out;
}

std::string describe(const KernelOptions& options) {
  std::string out;
  for (const auto& [name, value] : options)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out;
}

}  // namespace clgemm::tune
