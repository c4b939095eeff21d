// Fuzzes the tuning-file reader, TuningDatabase::parse (clgemm/tuning.hpp), on arbitrary text.
// Oracle: only clgemm::Error (code InvalidArgument, "not a tuning file") may escape; otherwise
// every entry is usable (known kernel, shape class, precision and parameters in range) and
// find() returns it; to_json_text() parses back to the same entries with as many problems (the
// unusable entries are kept as they were) and is then a fixed point; a database holding only
// the usable entries parses back with no problems at all.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "clgemm/errors.hpp"
#include "clgemm/tuning.hpp"

namespace {

const std::string kOrigin = "fuzz.json";
std::string current_input;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_tuning_file: %s\n  input (%zu bytes):\n%s\n", what.c_str(),
               current_input.size(), current_input.c_str());
  std::abort();
}

// parse(), with anything but Error(InvalidArgument) a finding; false for "not a tuning file".
bool parse(const std::string& text, clgemm::TuningDatabase& out, const char* what) {
  try {
    out = clgemm::TuningDatabase::parse(text, kOrigin);
    return true;
  } catch (const clgemm::Error& error) {
    if (error.code() != clgemm::ErrorCode::InvalidArgument)
      fail(std::string(what) + ": clgemm::Error of code " + clgemm::error_code_name(error.code()) +
           ": " + error.what());
    return false;
  } catch (const std::exception& error) {
    fail(std::string(what) + ": a non-clgemm exception escaped: " + error.what());
  } catch (...) {
    fail(std::string(what) + ": something that is not a std::exception escaped");
  }
}

auto key(const clgemm::TunedEntry& e) {
  return std::tie(e.device, e.platform, e.shape_class, e.precision);
}

bool same(const clgemm::TunedEntry& a, const clgemm::TunedEntry& b) {
  // Doubles compare exactly: the JSON writer prints them so that they read back unchanged.
  return key(a) == key(b) && a.kernel == b.kernel && a.options == b.options &&
         a.gflops == b.gflops && a.m == b.m && a.n == b.n && a.k == b.k && a.tuned == b.tuned;
}

std::vector<clgemm::TunedEntry> sorted(std::vector<clgemm::TunedEntry> entries) {
  std::sort(
      entries.begin(), entries.end(),
      [](const clgemm::TunedEntry& a, const clgemm::TunedEntry& b) { return key(a) < key(b); });
  return entries;
}

void expect_same_entries(const clgemm::TuningDatabase& a, const clgemm::TuningDatabase& b,
                         const char* what) {
  const auto x = sorted(a.entries()), y = sorted(b.entries());
  if (x.size() != y.size())
    fail(std::string(what) + ": " + std::to_string(x.size()) + " entries became " +
         std::to_string(y.size()));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!same(x[i], y[i]))
      fail(std::string(what) + ": entry for '" + x[i].device + "' / " + x[i].shape_class +
           " changed");
}

void check_entry(const clgemm::TuningDatabase& db, const clgemm::TunedEntry& e) {
  const auto& classes = clgemm::shape_classes();
  if (std::find(classes.begin(), classes.end(), e.shape_class) == classes.end())
    fail("usable entry with unknown shape class '" + e.shape_class + "'");
  const clgemm::KernelDescription* kernel = nullptr;
  for (const auto& description : clgemm::kernel_catalog())
    if (description.name == e.kernel) kernel = &description;
  if (!kernel) fail("usable entry with unknown kernel '" + e.kernel + "'");
  if (!kernel->computes(e.precision))
    fail("usable entry whose kernel cannot compute its precision");
  for (const auto& option : e.options) {
    const std::string& name = option.first;
    const long value = option.second;
    const auto p = std::find_if(kernel->parameters.begin(), kernel->parameters.end(),
                                [&](const clgemm::KernelParameter& q) { return q.name == name; });
    if (p == kernel->parameters.end()) fail("usable entry with unknown parameter '" + name + "'");
    if (value < p->minimum || value > p->maximum)
      fail("usable entry with " + name + " = " + std::to_string(value) + " out of range");
  }
  if (!(e.gflops >= 0) || e.m < 0 || e.n < 0 || e.k < 0) fail("usable entry with negative figures");
  clgemm::DeviceLimits device;
  device.name = e.device;
  device.platform_name = e.platform;
  const auto found = db.find(device, e.shape_class, e.precision);
  if (!found || !same(*found, e)) fail("find() does not return the entry for its own key");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  current_input.assign(reinterpret_cast<const char*>(data), size);
  clgemm::TuningDatabase db;
  if (!parse(current_input, db, "parse")) return 0;
  for (const auto& e : db.entries()) check_entry(db, e);

  // The whole database, unusable entries included, round trips.
  const std::string text = db.to_json_text();
  clgemm::TuningDatabase again;
  if (!parse(text, again, "re-parse of to_json_text()"))
    fail("to_json_text() is not a tuning file:\n" + text);
  expect_same_entries(db, again, "re-parse of to_json_text()");
  if (again.problems().size() != db.problems().size())
    fail("re-parse of to_json_text(): " + std::to_string(db.problems().size()) +
         " problems became " + std::to_string(again.problems().size()) + "\n" + text);
  if (again.to_json_text() != text) fail("to_json_text() is not a fixed point:\n" + text);

  // Only the usable entries: no problems at all on the re-parse.
  clgemm::TuningDatabase usable;
  for (const auto& e : db.entries()) usable.put(e);
  clgemm::TuningDatabase usable_again;
  if (!parse(usable.to_json_text(), usable_again, "re-parse of the usable entries"))
    fail("the usable entries' to_json_text() is not a tuning file");
  expect_same_entries(db, usable_again, "re-parse of the usable entries");
  if (!usable_again.problems().empty())
    fail("re-parse of the usable entries has problems, the first: " +
         usable_again.problems().front());
  return 0;
}
