// Internal: a GEMM as the kernels see it. Every kernel computes the row-major
// C = alpha * op(A) * op(B) + beta * C; a column-major problem is the row-major problem
// C^T = op(B)^T * op(A)^T on the same memory, so it is mapped by swapping the operands.
// The call is computed once per call (row_major_call), and every later layer reads it.
#pragma once

#include <cstdint>

#include "clgemm/gemm.hpp"
#include "support/bounded_cache.hpp"
#include "support/opencl.hpp"

namespace clgemm::detail {

struct Operand {
  cl_mem buffer = nullptr;
  std::size_t offset = 0;  // elements
  std::int64_t ld = 0;
  bool transposed = false;
  std::size_t base_alignment = 0;  // bytes the buffer's first element is known aligned to
  // A batch's products: `stride` elements apart, or at offsets from a product table.
  std::int64_t stride = 0;
  bool table_offsets = false;
};

struct KernelCall {
  bool column_major = false;  // the problem's M and N are this call's n and m
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1, beta = 0;
  Operand a, b, c;
  // The batch: `batch` products, strided (each operand's stride) or from a product table in
  // `products` (entries from products_offset on).
  std::int64_t batch = 1;
  bool table = false;  // the products come from a table
  cl_mem products = nullptr;
  std::size_t products_offset = 0;
  // The epilogue in the call's terms: a column-major problem's per-row bias is the call's
  // per-column one. bias_buffer is the vector's cl_mem (bias_data is not used).
  Epilogue epilogue;

  bool has_table() const { return table; }
  bool batched() const { return batch > 1 || has_table(); }
};

// Products per launch: the third grid dimension holds them, and NVIDIA's devices take at
// most 65535 work-groups there. Larger batches are enqueued in several launches.
constexpr std::int64_t kProductsPerLaunch = 65535;
// The launches that enqueue a batch of `batch` products.
constexpr std::int64_t product_launches(std::int64_t batch) {
  return (batch + kProductsPerLaunch - 1) / kProductsPerLaunch;
}

// A per-row bias of C is a per-column bias of C^T, and the other way round.
Bias transposed_bias(Bias bias);

// What a kernel's fit and copy rules see of the call (catalog/kernel_spec.hpp): its m, n, k and
// which operands it reads transposed.
struct CallLayout;
CallLayout call_layout(const KernelCall& call);

// The row-major call computing `problem`; buffers (the operands', the table's and the bias's)
// are filled in by the caller.
KernelCall row_major_call(const GemmProblem& problem);

// Whether every row of the operand starts VEC-aligned, so a kernel may load it with aligned
// vector loads: the buffer's base, the offset, the leading dimension and the stride between
// a batch's products all allow it (offsets from a product table are not assumed aligned).
bool operand_aligned(const Operand& x, long vec);

// Writes every field of `call` but its cl_mem objects and its scalars (alpha, beta) into `key`:
// what planning and preparing a call read of it.
void write_call_key(CacheKey& key, const KernelCall& call);

}  // namespace clgemm::detail
