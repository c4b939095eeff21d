// Mapping a GemmProblem onto the row-major call the kernels compute (plan/kernel_call.hpp).
#include "plan/kernel_call.hpp"

#include <cstring>

#include "catalog/kernel_spec.hpp"

namespace clgemm::detail {

Bias transposed_bias(Bias bias) {
  return bias == Bias::PerRow ? Bias::PerColumn : bias == Bias::PerColumn ? Bias::PerRow : bias;
}

CallLayout call_layout(const KernelCall& call) {
  return {call.m, call.n, call.k, call.a.transposed, call.b.transposed, call.batched()};
}

KernelCall row_major_call(const GemmProblem& p) {
  KernelCall call;
  call.alpha = p.alpha;
  call.beta = p.beta;
  const bool table = p.products.given();
  call.c = {nullptr, p.c_offset, p.ldc, false, 0, p.stride_c, table};
  const Operand a{nullptr, p.a_offset, p.lda, is_transposed(p.trans_a), 0, p.stride_a, table};
  const Operand b{nullptr, p.b_offset, p.ldb, is_transposed(p.trans_b), 0, p.stride_b, table};
  call.batch = p.batch;
  call.table = table;
  call.products_offset = p.products.offset;
  call.epilogue = p.epilogue;
  call.epilogue.bias_data = nullptr;
  if (p.layout == Layout::RowMajor) {
    call.m = p.m, call.n = p.n, call.k = p.k;
    call.a = a, call.b = b;
  } else {
    // Column-major X is row-major X^T: C^T (n x m) = op(B)^T * op(A)^T.
    call.column_major = true;
    call.m = p.n, call.n = p.m, call.k = p.k;
    call.a = b, call.b = a;
    call.epilogue.bias = transposed_bias(p.epilogue.bias);
  }
  return call;
}

bool operand_aligned(const Operand& x, long vec) {
  return x.base_alignment >= std::size_t(vec) * sizeof(float) && x.ld % vec == 0 &&
         x.offset % std::size_t(vec) == 0 && x.stride % vec == 0 && !x.table_offsets;
}

void write_call_key(CacheKey& key, const KernelCall& call) {
  for (std::int64_t v : {std::int64_t(call.column_major), call.m, call.n, call.k, call.batch,
                         std::int64_t(call.table), std::int64_t(call.products_offset)})
    key.number(v);
  for (const Operand* x : {&call.a, &call.b, &call.c})
    for (std::int64_t v :
         {std::int64_t(x->offset), x->ld, std::int64_t(x->transposed),
          std::int64_t(x->base_alignment), x->stride, std::int64_t(x->table_offsets)})
      key.number(v);
  const Epilogue& e = call.epilogue;
  for (std::int64_t v : {std::int64_t(e.bias), std::int64_t(e.activation),
                         std::int64_t(e.bias_offset), e.bias_stride})
    key.number(v);
  // The clamp's bounds are the kernel's arguments, but the record describes them.
  for (float bound : {e.clamp_low, e.clamp_high}) {
    std::uint32_t bits;
    std::memcpy(&bits, &bound, sizeof bits);
    key.number(bits);
  }
}

}  // namespace clgemm::detail
