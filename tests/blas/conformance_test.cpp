// Conformance of libclgemm_blas with the reference SGEMM, through sgemm_ and cblas_sgemm (both
// orders): every transpose letter in both cases, quick returns, alpha = 0 with NaN operands,
// beta = 0 with NaN in C, padded leading dimensions, 1x1x1 and tall, wide and thin shapes of
// no round size, checked against a double-accumulated product; and every error exit, caught by
// this program's own xerbla_ and cblas_xerbla, with the parameter number the reference gives
// and C untouched. ctest runs it with CLGEMM_BLAS_MODE=device and =cpu (tests/blas/CMakeLists).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "blas/blas_prototypes.h"

// The error handlers: this program's own, which libclgemm_blas must call instead of any other.
namespace {
int fortran_error_count = 0, fortran_error_position = 0;
std::string fortran_error_name;
int cblas_error_count = 0, cblas_error_position = 0;
std::string cblas_error_routine;
}  // namespace

extern "C" void xerbla_(const char* name, const int* position, size_t name_length) {
  ++fortran_error_count;
  fortran_error_position = *position;
  fortran_error_name.assign(name, name_length);
}

extern "C" void cblas_xerbla(int position, const char* routine, const char*, ...) {
  ++cblas_error_count;
  cblas_error_position = position;
  cblas_error_routine = routine;
}

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// A column-major matrix of `rows` x `cols` with leading dimension `ld`, its padding filled with
// a marker that must survive.
struct Matrix {
  int rows = 0, cols = 0, ld = 1;
  std::vector<float> data;
  Matrix(int r, int c, int pad, std::mt19937& random, float fill = 0)
      : rows(r), cols(c), ld(std::max(1, r + pad)), data(std::size_t(ld) * std::max(1, c), -7.5f) {
    std::uniform_real_distribution<float> value(-1, 1);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = fill == 0 ? value(random) : fill;
  }
  float& at(int i, int j) { return data[std::size_t(j) * ld + i]; }
  float at(int i, int j) const { return data[std::size_t(j) * ld + i]; }
};

// The expected column-major C = alpha op(A) op(B) + beta C, in double, with its error bound.
void expect_product(char ta, char tb, int m, int n, int k, float alpha, const Matrix& a,
                    const Matrix& b, float beta, const Matrix& c_before, const Matrix& c,
                    const std::string& what) {
  const bool trans_a = ta != 'N' && ta != 'n', trans_b = tb != 'N' && tb != 'n';
  int bad = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0, magnitude = 0;
      for (int l = 0; alpha != 0 && l < k; ++l) {  // alpha = 0: A and B may hold NaN
        const double x = trans_a ? a.at(l, i) : a.at(i, l);
        const double y = trans_b ? b.at(j, l) : b.at(l, j);
        sum += x * y;
        magnitude += std::fabs(x * y);
      }
      double expected = double(alpha) * sum, scaled_c = 0;  // beta = 0: C may hold NaN
      if (beta != 0) scaled_c = double(beta) * c_before.at(i, j);
      expected += scaled_c;
      const double bound =
          4.0 * (k + 2) * 6e-8 * (std::fabs(alpha) * magnitude + std::fabs(scaled_c)) + 1e-30;
      if (!(std::fabs(c.at(i, j) - expected) <= bound) && bad++ < 3)
        ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << c.at(i, j) << ", expected "
                      << expected << " (bound " << bound << ")";
    }
  // The padding between columns is never written.
  for (int j = 0; j < n; ++j)
    for (int i = m; i < c.ld; ++i)
      if (c.data[std::size_t(j) * c.ld + i] != -7.5f && bad++ < 3)
        ADD_FAILURE() << what << ": padding C(" << i << "," << j << ") written";
}

// Which interface a case goes through: sgemm_, or cblas_sgemm column- or row-major. A
// row-major call of C (m x n) is checked as the column-major C^T (n x m) it stores.
enum class Entry { Fortran, CblasColumn, CblasRow };
const char* entry_name(Entry entry) {
  return entry == Entry::Fortran       ? "sgemm_"
         : entry == Entry::CblasColumn ? "cblas col"
                                       : "cblas row";
}
int cblas_transpose(char t) {
  return t == 'N' || t == 'n'   ? TestCblasNoTrans
         : t == 'T' || t == 't' ? TestCblasTrans
                                : TestCblasConjTrans;
}

struct Case {
  char ta = 'N', tb = 'N';
  int m = 1, n = 1, k = 1;
  float alpha = 1, beta = 0;
  int pad = 0;
  float a_fill = 0, b_fill = 0, c_fill = 0;  // 0: random values; else every element
};

// Runs `c` through `entry` and checks the result against the double-accumulated product.
void check_case(Entry entry, const Case& cs, unsigned seed = 1) {
  std::mt19937 random(seed);
  const std::string what = std::string(entry_name(entry)) + " " + cs.ta + cs.tb +
                           " m=" + std::to_string(cs.m) + " n=" + std::to_string(cs.n) +
                           " k=" + std::to_string(cs.k) + " alpha=" + std::to_string(cs.alpha) +
                           " beta=" + std::to_string(cs.beta) + " pad=" + std::to_string(cs.pad);
  const bool trans_a = cs.ta != 'N' && cs.ta != 'n', trans_b = cs.tb != 'N' && cs.tb != 'n';
  if (entry != Entry::CblasRow) {
    Matrix a(trans_a ? cs.k : cs.m, trans_a ? cs.m : cs.k, cs.pad, random, cs.a_fill);
    Matrix b(trans_b ? cs.n : cs.k, trans_b ? cs.k : cs.n, cs.pad, random, cs.b_fill);
    Matrix c(cs.m, cs.n, cs.pad, random, cs.c_fill);
    const Matrix before = c;
    if (entry == Entry::Fortran)
      sgemm_(&cs.ta, &cs.tb, &cs.m, &cs.n, &cs.k, &cs.alpha, a.data.data(), &a.ld, b.data.data(),
             &b.ld, &cs.beta, c.data.data(), &c.ld, 1, 1);
    else
      cblas_sgemm(TestCblasColMajor, cblas_transpose(cs.ta), cblas_transpose(cs.tb), cs.m, cs.n,
                  cs.k, cs.alpha, a.data.data(), a.ld, b.data.data(), b.ld, cs.beta, c.data.data(),
                  c.ld);
    expect_product(cs.ta, cs.tb, cs.m, cs.n, cs.k, cs.alpha, a, b, cs.beta, before, c, what);
    return;
  }
  // Row-major: A (m x k, or k x m transposed) stored by rows is the column-major matrix of the
  // transposed shape; C^T = op(B)^T op(A)^T.
  Matrix a_t(trans_a ? cs.m : cs.k, trans_a ? cs.k : cs.m, cs.pad, random, cs.a_fill);
  Matrix b_t(trans_b ? cs.k : cs.n, trans_b ? cs.n : cs.k, cs.pad, random, cs.b_fill);
  Matrix c_t(cs.n, cs.m, cs.pad, random, cs.c_fill);
  const Matrix before = c_t;
  cblas_sgemm(TestCblasRowMajor, cblas_transpose(cs.ta), cblas_transpose(cs.tb), cs.m, cs.n, cs.k,
              cs.alpha, a_t.data.data(), a_t.ld, b_t.data.data(), b_t.ld, cs.beta, c_t.data.data(),
              c_t.ld);
  expect_product(cs.tb, cs.ta, cs.n, cs.m, cs.k, cs.alpha, b_t, a_t, cs.beta, before, c_t, what);
}

const Entry kEntries[] = {Entry::Fortran, Entry::CblasColumn, Entry::CblasRow};

TEST(BlasConformance, EveryTransposeLetterInBothCases) {
  for (Entry entry : kEntries)
    for (char ta : std::string("NnTtCc"))
      for (char tb : std::string("NnTtCc")) {
        if (entry != Entry::Fortran &&
            (ta == 'n' || ta == 't' || ta == 'c' || tb == 'n' || tb == 't' || tb == 'c'))
          continue;  // CBLAS has no letters: its three values are covered by the capitals
        Case cs;
        cs.ta = ta;
        cs.tb = tb;
        cs.m = 13;
        cs.n = 7;
        cs.k = 11;
        cs.alpha = 1.5f;
        cs.beta = -0.5f;
        cs.pad = 3;
        check_case(entry, cs);
      }
}

TEST(BlasConformance, ShapesOfNoRoundSize) {
  const int shapes[][3] = {{1, 1, 1},     {257, 3, 5}, {3, 257, 5}, {5, 4, 300},
                           {129, 65, 33}, {1, 70, 40}, {70, 1, 40}, {64, 64, 64}};
  for (Entry entry : kEntries)
    for (const auto& shape : shapes)
      for (const char* ops : {"NN", "TN", "NT", "TT"}) {
        Case cs;
        cs.ta = ops[0];
        cs.tb = ops[1];
        cs.m = shape[0];
        cs.n = shape[1];
        cs.k = shape[2];
        cs.alpha = 0.75f;
        cs.beta = shape[0] % 2 ? 0.0f : 2.0f;
        cs.pad = shape[1] % 3;
        check_case(entry, cs, unsigned(shape[0] * 7 + shape[1]));
      }
}

TEST(BlasConformance, BetaZeroNeverReadsC) {
  for (Entry entry : kEntries) {
    Case cs;
    cs.m = 33;
    cs.n = 17;
    cs.k = 9;
    cs.c_fill = kNaN;
    check_case(entry, cs);  // the expected value ignores C: no NaN may come through
    cs.alpha = 0;
    check_case(entry, cs);  // alpha = 0 and beta = 0: zeros
  }
}

TEST(BlasConformance, AlphaZeroNeverReadsAOrB) {
  for (Entry entry : kEntries) {
    Case cs;
    cs.m = 21;
    cs.n = 19;
    cs.k = 8;
    cs.alpha = 0;
    cs.beta = 0.5f;
    cs.a_fill = kNaN;
    cs.b_fill = kNaN;
    check_case(entry, cs);  // C = 0.5 C, no NaN from A or B
  }
}

// Quick returns: C is left exactly as it was (bit for bit, NaN included), and A and B may be
// null since they are not read.
TEST(BlasConformance, QuickReturnsLeaveCAsItWas) {
  struct Quick {
    int m, n, k;
    float alpha, beta;
  };
  const Quick quick[] = {{0, 5, 5, 1, 0}, {5, 0, 5, 1, 0}, {5, 5, 0, 1, 1}, {5, 5, 5, 0, 1}};
  for (const Quick& q : quick) {
    std::vector<float> c(36, kNaN);
    c[3] = 2.0f;
    const std::vector<float> before = c;
    const int ld = 6;
    const char n = 'N';
    sgemm_(&n, &n, &q.m, &q.n, &q.k, &q.alpha, nullptr, &ld, nullptr, &ld, &q.beta, c.data(), &ld,
           1, 1);
    cblas_sgemm(TestCblasColMajor, TestCblasNoTrans, TestCblasNoTrans, q.m, q.n, q.k, q.alpha,
                nullptr, ld, nullptr, ld, q.beta, c.data(), ld);
    cblas_sgemm(TestCblasRowMajor, TestCblasNoTrans, TestCblasNoTrans, q.m, q.n, q.k, q.alpha,
                nullptr, ld, nullptr, ld, q.beta, c.data(), ld);
    EXPECT_EQ(0, std::memcmp(c.data(), before.data(), c.size() * sizeof(float)))
        << "m=" << q.m << " n=" << q.n << " k=" << q.k << " alpha=" << q.alpha;
  }
  EXPECT_EQ(0, fortran_error_count);
  EXPECT_EQ(0, cblas_error_count);
}

// K = 0 with beta != 1: C = beta C without reading A or B (beta = 0 writes zeros over NaN).
TEST(BlasConformance, KZeroScalesC) {
  for (Entry entry : kEntries) {
    Case cs;
    cs.m = 9;
    cs.n = 4;
    cs.k = 0;
    cs.beta = 3;
    check_case(entry, cs);
    cs.beta = 0;
    cs.c_fill = kNaN;
    check_case(entry, cs);
  }
}

// One bad argument through sgemm_: the handler gets "SGEMM " and `position`, C is untouched.
void expect_fortran_error(int position, char ta, char tb, int m, int n, int k, int lda, int ldb,
                          int ldc) {
  std::vector<float> a(400, 1), b(400, 1), c(400, 3);
  const float alpha = 1, beta = 0;
  const int before = fortran_error_count;
  sgemm_(&ta, &tb, &m, &n, &k, &alpha, a.data(), &lda, b.data(), &ldb, &beta, c.data(), &ldc, 1, 1);
  EXPECT_EQ(before + 1, fortran_error_count) << "expected parameter " << position;
  EXPECT_EQ(position, fortran_error_position);
  EXPECT_EQ("SGEMM ", fortran_error_name);
  for (float x : c) ASSERT_EQ(3.0f, x) << "C changed after an error (parameter " << position << ")";
}

TEST(BlasConformance, FortranErrorExitsNameTheReferenceParameter) {
  expect_fortran_error(1, 'X', 'N', 2, 2, 2, 2, 2, 2);
  expect_fortran_error(2, 'N', 'x', 2, 2, 2, 2, 2, 2);
  expect_fortran_error(1, 'X', 'x', -1, 2, 2, 2, 2, 2);  // the first bad one is reported
  expect_fortran_error(3, 'N', 'N', -1, 2, 2, 2, 2, 2);
  expect_fortran_error(4, 'N', 'N', 2, -1, 2, 2, 2, 2);
  expect_fortran_error(5, 'N', 'N', 2, 2, -1, 2, 2, 2);
  expect_fortran_error(8, 'N', 'N', 5, 2, 2, 4, 2, 5);   // lda < m
  expect_fortran_error(8, 'T', 'N', 2, 2, 5, 4, 5, 2);   // lda < k when transposed
  expect_fortran_error(8, 'N', 'N', 0, 2, 2, 0, 2, 1);   // lda < 1 even when m = 0
  expect_fortran_error(10, 'N', 'N', 2, 2, 5, 2, 4, 2);  // ldb < k
  expect_fortran_error(10, 'N', 'T', 2, 5, 2, 2, 4, 2);  // ldb < n when transposed
  expect_fortran_error(13, 'N', 'N', 5, 2, 2, 5, 2, 4);  // ldc < m
}

void expect_cblas_error(int position, int order, int ta, int tb, int m, int n, int k, int lda,
                        int ldb, int ldc) {
  std::vector<float> a(400, 1), b(400, 1), c(400, 3);
  const int before = cblas_error_count;
  cblas_sgemm(order, ta, tb, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), ldc);
  EXPECT_EQ(before + 1, cblas_error_count) << "expected parameter " << position;
  EXPECT_EQ(position, cblas_error_position) << "order " << order << " m=" << m << " n=" << n;
  EXPECT_EQ("cblas_sgemm", cblas_error_routine);
  for (float x : c) ASSERT_EQ(3.0f, x) << "C changed after an error (parameter " << position << ")";
}

TEST(BlasConformance, CblasErrorExitsNameTheReferenceParameter) {
  const int col = TestCblasColMajor, row = TestCblasRowMajor, no = TestCblasNoTrans,
            tr = TestCblasTrans;
  expect_cblas_error(1, 100, no, no, 2, 2, 2, 2, 2, 2);
  for (int order : {col, row}) {
    expect_cblas_error(2, order, 110, no, 2, 2, 2, 2, 2, 2);
    expect_cblas_error(3, order, no, 114, 2, 2, 2, 2, 2, 2);
    expect_cblas_error(4, order, no, no, -1, 2, 2, 2, 2, 2);
    expect_cblas_error(5, order, no, no, 2, -1, 2, 2, 2, 2);
    expect_cblas_error(6, order, no, no, 2, 2, -1, 2, 2, 2);
  }
  // Column-major: lda >= m (k transposed), ldb >= k (n transposed), ldc >= m.
  expect_cblas_error(9, col, no, no, 5, 2, 2, 4, 2, 5);
  expect_cblas_error(9, col, tr, no, 2, 2, 5, 4, 5, 2);
  expect_cblas_error(11, col, no, no, 2, 2, 5, 2, 4, 2);
  expect_cblas_error(11, col, no, tr, 2, 5, 2, 2, 4, 2);
  expect_cblas_error(14, col, no, no, 5, 2, 2, 5, 2, 4);
  // Row-major: lda >= k (m transposed), ldb >= n (k transposed), ldc >= n.
  expect_cblas_error(9, row, no, no, 2, 2, 5, 4, 2, 2);
  expect_cblas_error(9, row, tr, no, 5, 2, 2, 4, 2, 2);
  expect_cblas_error(11, row, no, no, 2, 5, 2, 2, 4, 5);
  expect_cblas_error(11, row, no, tr, 2, 2, 5, 5, 4, 2);
  expect_cblas_error(14, row, no, no, 2, 5, 2, 2, 5, 4);
  // Row-major reports in the swapped Fortran call's order: its M (the caller's N, 5) before its
  // N (the caller's M, 4), its LDA (the caller's ldb, 11) before its LDB (the caller's lda, 9).
  expect_cblas_error(5, row, no, no, -1, -1, 2, 2, 2, 2);
  expect_cblas_error(4, col, no, no, -1, -1, 2, 2, 2, 2);
  expect_cblas_error(11, row, no, no, 2, 5, 5, 4, 4, 5);
  expect_cblas_error(9, col, no, no, 5, 2, 5, 4, 4, 5);
}

// The trace says where each call ran: on the device in mode=device, on the CPU in mode=cpu.
TEST(BlasConformance, TraceSaysWhereTheCallRan) {
  const char* mode = std::getenv("CLGEMM_BLAS_MODE");
  if (!mode || !std::getenv("CLGEMM_BLAS_TRACE"))
    GTEST_SKIP() << "needs CLGEMM_BLAS_MODE and CLGEMM_BLAS_TRACE";
  char path[] = "/tmp/clgemm-blas-trace.XXXXXX";
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(file, STDERR_FILENO);
  Case cs;
  cs.m = 40;
  cs.n = 30;
  cs.k = 20;
  check_case(Entry::CblasRow, cs);
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string text(4096, '\0');
  text.resize(std::size_t(std::max<ssize_t>(0, pread(file, text.data(), text.size(), 0))));
  close(file);
  unlink(path);
  const std::string expected = std::string("cblas_sgemm RowMajor NN m=40 n=30 k=20: ") + mode;
  EXPECT_NE(std::string::npos, text.find(expected)) << "trace: " << text;
}

}  // namespace
