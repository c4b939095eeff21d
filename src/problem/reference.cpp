// The double-accumulated host reference and the element-wise check of a device result.
#include "clgemm/reference.hpp"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "clgemm/errors.hpp"
#include "support/error_boundary.hpp"
#include "support/helper_threads.hpp"

namespace clgemm {
namespace {

// The least magnitude that rounds to infinity in float (round to nearest): FLT_MAX plus half
// its last place, 2^128 - 2^103.
const double kFloatOverflow = std::ldexp(1.0, 128) - std::ldexp(1.0, 103);

// A dot product over k in double, in order of k, and the sum of its products' magnitudes (the
// scale of the tolerance).
struct DotSum {
  double dot = 0, magnitude = 0;
  void add(double product) {
    dot += product;
    magnitude += std::fabs(product);
  }
};

struct Checker {
  const GemmProblem& p;
  const float *a, *b, *c_before, *c_after;
  double gamma;
  Verification& result;
  std::string where;  // "product p: " in a batch

  // The products summed: none when alpha = 0, so A and B are not even read.
  std::int64_t depth() const { return p.alpha != 0.0f ? p.k : 0; }

  // Element (i, k) of op(A) and (k, j) of op(B), whatever the layout and transposes.
  float a_at(std::int64_t i, std::int64_t k) const {
    return a[index(p.a_offset, p.lda, i, k, p.trans_a)];
  }
  float b_at(std::int64_t k, std::int64_t j) const {
    return b[index(p.b_offset, p.ldb, k, j, p.trans_b)];
  }
  std::size_t index(std::size_t offset, std::int64_t ld, std::int64_t r, std::int64_t c,
                    Transpose trans) const {
    if (is_transposed(trans)) std::swap(r, c);
    const bool row_major = p.layout == Layout::RowMajor;
    return offset + std::size_t(row_major ? r : c) * std::size_t(ld) +
           std::size_t(row_major ? c : r);
  }

  // Compares one element given its exact dot product and the sum of |a_ik * b_kj|.
  void check(std::int64_t i, std::int64_t j, const DotSum& sum) {
    const double dot = sum.dot, magnitude = sum.magnitude;
    const std::size_t index = p.c_index(i, j);
    // BLAS: with alpha = 0, A and B are not read, so NaN or Inf there do not reach C.
    double v = p.alpha != 0.0f ? double(p.alpha) * dot : 0.0;
    double scale = p.alpha != 0.0f ? std::fabs(double(p.alpha)) * magnitude : 0.0;
    if (p.beta != 0.0f) {
      v += double(p.beta) * double(c_before[index]);
      scale += std::fabs(double(p.beta) * double(c_before[index]));
    }
    const Epilogue& e = p.epilogue;
    if (e.bias != Bias::None) {
      const double bias = e.bias_data[e.bias_offset + std::size_t(e.bias == Bias::PerRow ? i : j)];
      v += bias;
      scale += std::fabs(bias);
    }
    const double expected = apply_activation(e, v);
    const double got = c_after[index];
    // The activations change an error by at most 1.13 times (GELU's steepest slope), and
    // GELU's own evaluation (exp, a division) adds a few roundings of its result.
    const bool activated = e.activation != Activation::None;
    const double tolerance = (activated ? 1.13 : 1.0) * (gamma * scale + double(FLT_MIN)) +
                             (activated ? 8.0 * FLT_EPSILON * std::fabs(expected) : 0.0);
    // Every element's ratio counts towards the worst (an element that fails has a ratio above
    // 1, infinite where no finite error describes it), so the worst and the failures agree.
    bool ok;
    double ratio = 0;
    if (!std::isfinite(v) || !std::isfinite(expected)) {
      // Infinite or NaN before the activation: the activation's exact answer (GELU(-inf) = -0,
      // a clamped infinity, NaN kept) is expected.
      ok = (std::isnan(expected) && std::isnan(got)) || got == expected;
      ratio = ok ? 0.0 : HUGE_VAL;
    } else if (std::isinf(got) && (got > 0) == (expected > 0) &&
               std::fabs(expected) + tolerance >= kFloatOverflow) {
      // Overflow: a result within the tolerance of the reference rounds to this infinity, the
      // correctly rounded float of a value at or beyond FLT_MAX + half its last place.
      ok = true;
      ratio = std::max(0.0, (kFloatOverflow - std::fabs(expected)) / tolerance);
    } else {
      ratio = std::fabs(got - expected) / tolerance;
      if (!std::isfinite(got) || std::isnan(ratio)) ratio = HUGE_VAL;
      ok = ratio <= 1.0;
    }
    ++result.checked;
    result.worst_ratio = std::max(result.worst_ratio, ratio);
    if (ok) return;
    if (result.failures++ == 0) {
      std::ostringstream text;
      text.precision(9);
      text << where << "C[" << i << "][" << j << "] = " << got << ", expected " << expected
           << " (tolerance " << tolerance << ")";
      result.first_failure = text.str();
    }
  }

  // Whether op(A)'s rows and op(B)'s columns run along contiguous memory (their k index is the
  // stored one with stride 1): row-major untransposed A, column-major transposed A, and the
  // converse for B.
  bool a_contiguous_in_k() const {
    return (p.layout == Layout::RowMajor) != is_transposed(p.trans_a);
  }
  bool b_contiguous_in_k() const {
    return (p.layout == Layout::RowMajor) == is_transposed(p.trans_b);
  }

  // op(B) packed by columns (column j is `depth()` contiguous floats from j * depth()), made
  // when it fits in `limit` floats: row_sums() then runs every dot product over two
  // contiguous streams with its sums in registers, four columns at a time.
  std::vector<float> op_b_columns{};
  void pack_b_columns(std::size_t limit = std::size_t(64) << 20) {
    if (depth() == 0 || double(depth()) * double(p.n) > double(limit)) return;
    const std::size_t k_count = std::size_t(depth());
    op_b_columns.resize(k_count * std::size_t(p.n));
    for (std::int64_t k = 0; k < depth(); ++k)
      for (std::int64_t j = 0; j < p.n; ++j)
        op_b_columns[std::size_t(j) * k_count + std::size_t(k)] = b_at(k, j);
  }

  // The sums of row i's elements j0 .. j1 - 1 into out[0 .. j1 - j0). Every sum runs over k in
  // order, whichever loop reads the operands along their stored lines, so the sums are the
  // same bits as column_sums() finds for the same element.
  void row_sums(std::int64_t i, std::int64_t j0, std::int64_t j1, DotSum* out) const {
    const std::size_t k_count = std::size_t(depth());
    if (!op_b_columns.empty()) {
      std::vector<float> a_row(k_count);
      for (std::size_t k = 0; k < k_count; ++k) a_row[k] = a_at(i, std::int64_t(k));
      constexpr std::int64_t kColumns = 4;
      std::int64_t j = j0;
      for (; j + kColumns <= j1; j += kColumns) {
        const float* column[kColumns];
        for (std::int64_t c = 0; c < kColumns; ++c)
          column[c] = op_b_columns.data() + std::size_t(j + c) * k_count;
        DotSum* sum = out + (j - j0);
        for (std::size_t k = 0; k < k_count; ++k) {
          const double a_ik = a_row[k];
          for (std::int64_t c = 0; c < kColumns; ++c) sum[c].add(a_ik * double(column[c][k]));
        }
      }
      for (; j < j1; ++j) {
        const float* column = op_b_columns.data() + std::size_t(j) * k_count;
        for (std::size_t k = 0; k < k_count; ++k)
          out[j - j0].add(double(a_row[k]) * double(column[k]));
      }
    } else if (b_contiguous_in_k()) {
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t k = 0; k < depth(); ++k)
          out[j - j0].add(double(a_at(i, k)) * double(b_at(k, j)));
    } else {
      // op(B)'s rows are contiguous: along them, all the row's sums advancing together.
      for (std::int64_t k = 0; k < depth(); ++k) {
        const double a_ik = a_at(i, k);
        for (std::int64_t j = j0; j < j1; ++j) out[j - j0].add(a_ik * double(b_at(k, j)));
      }
    }
  }

  // The sums of column j's elements i0 .. i1 - 1 into out[0 .. i1 - i0), op(B)'s column j read
  // once into contiguous floats (the sums run over k in order, as in row_sums()).
  void column_sums(std::int64_t j, std::int64_t i0, std::int64_t i1, DotSum* out) const {
    std::vector<float> column(std::size_t(std::max<std::int64_t>(depth(), 0)));
    for (std::int64_t k = 0; k < depth(); ++k) column[std::size_t(k)] = b_at(k, j);
    if (a_contiguous_in_k()) {
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t k = 0; k < depth(); ++k)
          out[i - i0].add(double(a_at(i, k)) * double(column[std::size_t(k)]));
    } else {
      // op(A)'s columns are contiguous: along them, all the column's sums advancing together.
      for (std::int64_t k = 0; k < depth(); ++k) {
        const double b_kj = column[std::size_t(k)];
        for (std::int64_t i = i0; i < i1; ++i) out[i - i0].add(double(a_at(i, k)) * b_kj);
      }
    }
  }

  // Marks the elements of C's array that this product writes: its m x n elements.
  void mark_written(std::vector<char>& written) const {
    const bool row_major = p.layout == Layout::RowMajor;
    const std::size_t lines = std::size_t(row_major ? p.m : p.n);
    const std::size_t length = std::size_t(row_major ? p.n : p.m);
    for (std::size_t line = 0; line < lines; ++line)
      std::fill_n(written.begin() + std::ptrdiff_t(p.c_offset + line * std::size_t(p.ldc)), length,
                  char(1));
  }
};

// Evenly spread indices in [0, extent), always including the first and the last.
std::vector<std::int64_t> spread(std::int64_t extent, std::size_t count) {
  std::vector<std::int64_t> out;
  if (std::int64_t(count) >= extent) {
    for (std::int64_t i = 0; i < extent; ++i) out.push_back(i);
    return out;
  }
  for (std::size_t s = 0; s < count; ++s)
    out.push_back(std::int64_t(double(s) * double(extent - 1) / double(count - 1) + 0.5));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A stretch of one line of C whose sums are found together: row `index` over columns
// [from, to), or column `index` over rows [from, to).
struct Stretch {
  bool row;
  std::int64_t index, from, to;
  std::size_t length() const { return std::size_t(to - from); }
};

// Stretches are at most kStretch elements long, and one batch of them, whose sums are found in
// parallel before they are checked in order, holds at most kBatchSums sums (64 MiB).
constexpr std::int64_t kStretch = std::int64_t(1) << 16;
constexpr std::size_t kBatchSums = std::size_t(1) << 22;
// Below this many multiply-adds a batch is summed on the calling thread alone.
constexpr double kParallelWork = 1 << 20;

// The stretches of the lines of one product: `rows` over all of C's columns, then `columns`
// over all of its rows, in the order they are checked.
std::vector<Stretch> stretches_of(const GemmProblem& p, const std::vector<std::int64_t>& rows,
                                  const std::vector<std::int64_t>& columns) {
  std::vector<Stretch> out;
  auto add = [&out](bool row, std::int64_t index, std::int64_t extent) {
    for (std::int64_t from = 0; from < extent; from += kStretch)
      out.push_back({row, index, from, std::min(extent, from + kStretch)});
  };
  for (std::int64_t i : rows) add(true, i, p.n);
  for (std::int64_t j : columns) add(false, j, p.m);
  return out;
}

// Checks the stretches' elements in order, their sums found batch by batch on the process's
// helper threads (support/helper_threads.hpp): a sampled check of a large product reads whole rows
// and columns of the operands, seconds of one core's time.
void check_stretches(Checker& checker, const std::vector<Stretch>& stretches) {
  const unsigned threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<DotSum> sums;
  std::vector<std::size_t> starts;
  for (std::size_t first = 0; first < stretches.size();) {
    std::size_t last = first, total = 0;
    starts.clear();
    while (last < stretches.size() &&
           (last == first || total + stretches[last].length() <= kBatchSums)) {
      starts.push_back(total);
      total += stretches[last].length();
      ++last;
    }
    sums.assign(total, DotSum{});
    const bool parallel = double(total) * double(checker.depth()) >= kParallelWork;
    const unsigned tasks = parallel ? unsigned(std::min<std::size_t>(last - first, threads)) : 1;
    std::atomic<std::size_t> next{first};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    detail::run_parallel(tasks, [&](unsigned) {
      try {
        for (std::size_t s = next++; s < last; s = next++) {
          const Stretch& t = stretches[s];
          DotSum* out = sums.data() + starts[s - first];
          if (t.row)
            checker.row_sums(t.index, t.from, t.to, out);
          else
            checker.column_sums(t.index, t.from, t.to, out);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
    if (failure) std::rethrow_exception(failure);
    for (std::size_t s = first; s < last; ++s) {
      const Stretch& t = stretches[s];
      const DotSum* sum = sums.data() + starts[s - first];
      for (std::int64_t e = t.from; e < t.to; ++e)
        checker.check(t.row ? t.index : e, t.row ? e : t.index, sum[e - t.from]);
    }
    first = last;
  }
}

}  // namespace

std::vector<float> random_matrix(std::size_t elements, unsigned seed) try {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> out(elements);
  for (auto& x : out) x = uniform(generator);
  return out;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

double gemm_error_bound(std::int64_t k, Precision precision) {
  const double accumulation =
      (std::min(double(k), 16.0 * std::sqrt(double(k))) + 4.0) * double(FLT_EPSILON);
  // Rounding both operands to TF32 (unit roundoff 2^-11) perturbs each product by up to
  // 2^-10 of its magnitude; 3xTF32 leaves about 2^-21 (the dropped low * low term and the
  // bits the low parts miss). Both come on top of the FP32 accumulation.
  switch (precision) {
    case Precision::TF32:
      return accumulation + std::ldexp(1.0, -10);
    case Precision::TF32x3:
      return accumulation + std::ldexp(1.0, -21);
    case Precision::FP32:
      break;
  }
  return accumulation;
}

Verification verify_gemm(const GemmProblem& problem, const float* a, const float* b,
                         const float* c_before, const float* c_after, double full_check_limit,
                         std::size_t sample_lines, Precision precision) try {
  Verification result;
  if (problem.batch > 1 && problem.products.buffer && !problem.products.host)
    throw Error(ErrorCode::InvalidArgument,
                "verify_gemm needs the product table on the host (products.host)",
                Argument::Products);
  const double work =
      double(problem.batch) * double(problem.m) * double(problem.n) * double(problem.k);
  const bool full = work <= full_check_limit;
  result.sampled = !full;
  // A sampled check looks at a spread of products (the first and last among them) and, in
  // each, a spread of rows and columns.
  const std::size_t lines = std::max<std::size_t>(sample_lines, 2);
  const std::vector<std::int64_t> products =
      full ? spread(problem.batch, std::size_t(problem.batch)) : spread(problem.batch, 8);
  std::vector<char> written(problem.c_elements(), 0);
  for (std::int64_t index = 0; index < problem.batch; ++index) {
    const GemmProblem one = problem.product(index);
    Checker checker{one,     a,
                    b,       c_before,
                    c_after, gemm_error_bound(one.k, precision),
                    result,  problem.batch > 1 ? "product " + std::to_string(index) + ": " : ""};
    checker.mark_written(written);
    if (!std::binary_search(products.begin(), products.end(), index)) continue;
    if (double(one.m) * double(one.n) * double(one.k) * double(products.size()) <=
        full_check_limit) {
      checker.pack_b_columns();
      check_stretches(checker, stretches_of(one, spread(one.m, std::size_t(one.m)), {}));
    } else {
      result.sampled = true;
      check_stretches(checker, stretches_of(one, spread(one.m, lines), spread(one.n, lines)));
    }
  }
  // Everything in C's array that no product writes (before the offsets, the ldc padding,
  // between products) belongs to the caller: it must be untouched.
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (written[i] || std::memcmp(c_before + i, c_after + i, sizeof(float)) == 0) continue;
    if (result.failures++ == 0)
      result.first_failure =
          "element " + std::to_string(i) + " of C's array, which no product writes, was modified";
  }
  result.passed = result.failures == 0;
  return result;
} catch (...) {
  detail::rethrow_as_clgemm_error();
}

}  // namespace clgemm
