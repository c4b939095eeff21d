// The packed operands of the wgmma kernel: their sizes and the pack's build options.
#include "plan/operand_packing.hpp"

#include <cstdint>

#include "plan/workspace_limit.hpp"

namespace clgemm::detail {

namespace {
std::uint64_t whole_blocks(std::int64_t extent, std::int64_t block) {
  return std::uint64_t((extent + block - 1) / block);
}
}  // namespace

std::optional<std::size_t> PackedOperand::floats_per_product() const {
  const auto bytes = float_bytes(whole_blocks(rows, tile_rows) * std::uint64_t(tile_rows),
                                 whole_blocks(depth, slice_depth()) * std::uint64_t(tile_k));
  if (!bytes) return std::nullopt;
  return *bytes / sizeof(float);
}

std::size_t PackedOperand::work_items_per_product() const {
  return *floats_per_product() / std::size_t(parts) / 4;
}

std::string PackedOperand::build_options(int precision) const {
  return "-D TILE_R=" + std::to_string(tile_rows) + " -D TILE_K=" + std::to_string(tile_k) +
         " -D PRECISION=" + std::to_string(precision) +
         " -D ROWS_ALONG_K=" + (rows_along_k ? "1" : "0") +
         " -D OPERAND_B=" + (operand_b ? "1" : "0") + " -D FRAGMENTS=" + (fragments ? "1" : "0") +
         " -D PAIRED_K=" + (paired_k ? "1" : "0");
}

Packing packing(const KernelSpec& spec, const KernelCall& call, const KernelOptions& options,
                Precision precision) {
  const long parts = precision == Precision::TF32x3 ? 2 : 1;
  Packing out;
  out.a_packed = !reads_stored_a(spec, options);
  // op(A)(i, k) is A[i * lda + k], or A[k * lda + i] when A is transposed.
  const auto registers = options.find("A_REGISTERS");
  out.a = {call.m,
           call.k,
           options.at("TILE_M"),
           options.at("TILE_K"),
           parts,
           !call.a.transposed,
           false,
           registers != options.end() && registers->second != 0};
  // op(B)^T(j, k) = op(B)(k, j) is B[k * ldb + j], or B[j * ldb + k] when B is transposed.
  out.b = {call.n, call.k, options.at("TILE_N"), options.at("TILE_K"), parts, call.b.transposed,
           true,   false,  !out.a_packed};
  const auto bytes = [&call](const PackedOperand& operand) {
    const auto per_product = operand.floats_per_product();
    const auto all =
        per_product ? float_bytes(*per_product, std::uint64_t(call.batch)) : std::nullopt;
    return all.value_or(SIZE_MAX);
  };
  out.a_bytes = out.a_packed ? bytes(out.a) : 0;
  out.b_bytes = bytes(out.b);
  return out;
}

}  // namespace clgemm::detail
