// Enqueueing a prepared call (enqueue_call.hpp): scale_c alone, or the aligned copies (or the packs
// of a kernel that reads packed operands), the GEMM and the split-K reduction (which applies the
// epilogue) in that order, each launch waiting for the one before (in-order and out-of-order
// queues alike), the ones that use scratch memory inside the Context's workspace.
#include "launch/enqueue_call.hpp"

#include <algorithm>

#include "launch/kernel_launch.hpp"
#include "plan/aligned_copy.hpp"

namespace clgemm::detail {
namespace {

using Wait = std::vector<cl::Event>;

// scale_c: C = act(beta * C + bias) over the row-major call's m x n, for every product.
cl::Event enqueue_scale_c(const cl::CommandQueue& queue, const PreparedKernel& scale,
                          const KernelCall& call, const Wait& wait, bool wants_event) {
  const std::size_t x = scale.options.at("WG_X"), y = scale.options.at("WG_Y");
  return enqueue_products(queue, *scale.built, "scale_c", call,
                          {std::size_t(call.n), std::size_t(call.m)}, {x, y}, 1, wait, {},
                          wants_event);
}

// copy_padded: `shape` of `from` into the workspace at `to` with leading dimension `ld` (with
// TRANSPOSE, the copy's lines are `from`'s columns).
cl::Event enqueue_copy(const cl::CommandQueue& queue, const PreparedKernel& copy, bool transposing,
                       const Operand& from, StoredShape shape, const cl::Buffer& workspace,
                       std::size_t to, std::int64_t ld, const Wait& wait) {
  KernelPool::Lease lease(copy.built->kernels, copy.built->program, "copy_padded");
  cl::Kernel& kernel = lease.kernel();
  kernel.setArg(0, cl_int(shape.lines));
  kernel.setArg(1, cl_int(shape.length));
  kernel.setArg(2, sizeof(cl_mem), &from.buffer);
  kernel.setArg(3, cl_ulong(from.offset));
  kernel.setArg(4, cl_int(from.ld));
  kernel.setArg(5, workspace);
  kernel.setArg(6, cl_ulong(to));
  kernel.setArg(7, cl_int(ld));
  const std::size_t x = copy.options.at("WG_X"), y = copy.options.at("WG_Y");
  const std::int64_t block = transposing ? kTransposeBlock : 1;  // floats each way per work-item
  const auto items = [block](std::int64_t floats) {
    return std::size_t((floats + block - 1) / block);
  };
  return enqueue_kernel(queue, *copy.built, kernel, {items(shape.length), items(shape.lines), 1},
                        {x, y, 1}, wait);
}

// wgmma_pack: `layout` of every product of `from` into the workspace at `to`, one product's
// packed floats apart, in launches of at most kProductsPerLaunch products.
cl::Event enqueue_pack(const cl::CommandQueue& queue, const PreparedKernel& pack,
                       const PackedOperand& layout, const Operand& from, const KernelCall& call,
                       const cl::Buffer& workspace, std::size_t to, const Wait& wait) {
  KernelPool::Lease lease(pack.built->kernels, pack.built->program, "wgmma_pack");
  cl::Kernel& kernel = lease.kernel();
  int arg = 0;
  kernel.setArg(arg++, cl_int(layout.rows));
  kernel.setArg(arg++, cl_int(layout.depth));
  kernel.setArg(arg++, sizeof(cl_mem), &from.buffer);
  kernel.setArg(arg++, cl_ulong(from.offset));
  kernel.setArg(arg++, cl_int(from.ld));
  const int first_product_arg = arg++;
  kernel.setArg(arg++, cl_ulong(from.stride));
  kernel.setArg(arg++, sizeof(cl_mem), &call.products);
  kernel.setArg(arg++, cl_ulong(call.products_offset));
  kernel.setArg(arg++, workspace);
  kernel.setArg(arg++, cl_ulong(to));
  kernel.setArg(arg++, cl_ulong(*layout.floats_per_product()));
  const std::size_t local = pack.options.at("WG_X") * pack.options.at("WG_Y");
  const std::size_t items = (layout.work_items_per_product() + local - 1) / local * local;
  Wait before = wait;
  cl::Event last;
  for (std::int64_t first = 0; first < call.batch; first += kProductsPerLaunch) {
    const auto products = std::min(call.batch - first, kProductsPerLaunch);
    kernel.setArg(first_product_arg, cl_uint(first));
    last = enqueue_kernel(queue, *pack.built, kernel, {items, 1, std::size_t(products)},
                          {local, 1, 1}, before);
    before = {last};
  }
  return last;
}

// The operand the kernel reads after wgmma_pack wrote `layout` into the workspace at `at`:
// product p's blocks p * floats_per_product() further.
Operand packed_operand(const cl::Buffer& workspace, std::size_t at, const PackedOperand& layout) {
  Operand packed;
  packed.buffer = workspace();
  packed.offset = at;
  packed.stride = std::int64_t(*layout.floats_per_product());
  return packed;
}

// splitk_reduce: C = act(alpha * (sum of the slabs) + beta * C + bias).
cl::Event enqueue_reduce(const cl::CommandQueue& queue, const PreparedCall& prepared,
                         const KernelCall& call, const cl::Buffer& workspace, const Wait& wait) {
  const PreparedKernel& reduce = prepared.reduce;
  KernelPool::Lease lease(reduce.built->kernels, reduce.built->program, "splitk_reduce");
  cl::Kernel& kernel = lease.kernel();
  int arg = 0;
  kernel.setArg(arg++, cl_int(call.m));
  kernel.setArg(arg++, cl_int(call.n));
  kernel.setArg(arg++, cl_int(prepared.slices.slices));
  kernel.setArg(arg++, call.alpha);
  kernel.setArg(arg++, workspace);
  kernel.setArg(arg++, cl_ulong(prepared.partial_at));
  kernel.setArg(arg++, cl_int(prepared.partial_ld));
  kernel.setArg(arg++, cl_ulong(prepared.slab));
  kernel.setArg(arg++, call.beta);
  kernel.setArg(arg++, sizeof(cl_mem), &call.c.buffer);
  kernel.setArg(arg++, cl_ulong(call.c.offset));
  kernel.setArg(arg++, cl_int(call.c.ld));
  set_epilogue_arguments(kernel, arg, call.epilogue);
  const std::size_t x = reduce.options.at("WG_X"), y = reduce.options.at("WG_Y");
  return enqueue_kernel(queue, *reduce.built, kernel,
                        {std::size_t(call.n + 3) / 4, std::size_t(call.m), 1}, {x, y, 1}, wait);
}

// enqueue_prepared() for one part: the launches of `prepared` alone, its edges left out. A
// launch that uses no workspace gives an event only to a caller that asks for one (`event`).
void enqueue_launches(const cl::CommandQueue& queue, const PreparedCall& prepared,
                      const KernelCall& call, const Wait& wait, cl::Event* event,
                      const cl::Context& context, Workspace& workspace) {
  cl::Event last;
  if (!prepared.main.spec) {
    last = enqueue_scale_c(queue, prepared.main, call, wait, event != nullptr);
  } else if (prepared.workspace_bytes == 0) {
    last = enqueue_call(queue, *prepared.main.built, *prepared.main.spec, prepared.main.options,
                        call, wait, {}, event != nullptr);
  } else {
    workspace.use(
        context, prepared.workspace_bytes, [&](const cl::Buffer& buffer, const Wait& previous_use) {
          Wait before = wait;
          before.insert(before.end(), previous_use.begin(), previous_use.end());
          const auto then = [&](cl::Event launched) {
            before = {launched};
            return launched;
          };
          KernelCall gemm = call;
          if (prepared.copy_a) {
            const bool transposing = prepared.copy_a_transposed;
            then(enqueue_copy(queue, transposing ? prepared.transpose : prepared.copy, transposing,
                              call.a, stored_a(call), buffer, prepared.a_at, prepared.a_ld,
                              before));
            gemm.a = {buffer(), prepared.a_at, prepared.a_ld, call.a.transposed && !transposing, 0};
          }
          if (prepared.copy_b) {
            const bool transposing = prepared.copy_b_transposed;
            then(enqueue_copy(queue, transposing ? prepared.transpose : prepared.copy, transposing,
                              call.b, stored_b(call), buffer, prepared.b_at, prepared.b_ld,
                              before));
            gemm.b = {buffer(), prepared.b_at, prepared.b_ld, call.b.transposed && !transposing, 0};
          }
          if (prepared.packed) {
            // The kernel reads product p's packed operands p * per-product floats
            // in (a table then gives only C's offsets, A's where A is read as
            // stored, and the scalars).
            if (prepared.a_packed) {
              then(enqueue_pack(queue, prepared.pack_a, prepared.a_packing, call.a, call, buffer,
                                prepared.a_at, before));
              gemm.a = packed_operand(buffer, prepared.a_at, prepared.a_packing);
            }
            then(enqueue_pack(queue, prepared.pack_b, prepared.b_packing, call.b, call, buffer,
                              prepared.b_at, before));
            gemm.b = packed_operand(buffer, prepared.b_at, prepared.b_packing);
          }
          KSlicing slicing;
          if (prepared.slices.slices > 1) {
            // Partial products: alpha = 1, beta = 0 into the slabs; alpha, beta and C
            // are the reduction's.
            gemm.alpha = 1.0f, gemm.beta = 0.0f;
            gemm.c = {buffer(), prepared.partial_at, prepared.partial_ld, false, 0};
            slicing = {prepared.slices.slices, prepared.slices.k_slice, prepared.slab};
          }
          last = then(enqueue_call(queue, *prepared.main.built, *prepared.main.spec,
                                   prepared.main.options, gemm, before, slicing));
          if (prepared.slices.slices > 1)
            last = then(enqueue_reduce(queue, prepared, call, buffer, before));
          return last;
        });
  }
  if (event) *event = last;
}

}  // namespace

void enqueue_prepared(const cl::CommandQueue& queue, const PreparedCall& prepared,
                      const KernelCall& call, const Wait& wait, cl::Event* event,
                      const cl::Context& context, Workspace& workspace) {
  if (!prepared.whole_tiles)
    return enqueue_launches(queue, prepared, call, wait, event, context, workspace);
  // The parts write disjoint blocks of C; each waits for the one before: on an in-order queue
  // by its order alone, on an out-of-order one through the previous part's event.
  const bool in_order =
      !(queue.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl::Event last;
  Wait before = wait;
  const auto enqueue_part = [&](const PreparedCall& part, const Region& region, bool final_part) {
    const bool wants_event = final_part ? event != nullptr : !in_order;
    enqueue_launches(queue, part, sub_call(call, region), before, wants_event ? &last : nullptr,
                     context, workspace);
    before = wants_event ? Wait{last} : Wait{};
  };
  enqueue_part(prepared, *prepared.whole_tiles, prepared.edges.empty());
  for (std::size_t e = 0; e < prepared.edges.size(); ++e)
    enqueue_part(prepared.edges[e].prepared, prepared.edges[e].region,
                 e + 1 == prepared.edges.size());
  if (event) *event = last;
}

}  // namespace clgemm::detail
