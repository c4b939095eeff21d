// A kernel's build options for a call (launch/build_options.hpp).
#include "launch/build_options.hpp"

namespace clgemm::detail {

KernelOptions compiled_options(const KernelSpec& spec, const KernelOptions& options) {
  KernelOptions compiled = options;
  for (const auto& parameter : spec.description.host_parameters) compiled.erase(parameter.name);
  return compiled;
}

std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision, bool sliced_k) {
  std::string out = format_build_options(compiled_options(spec, options));
  const bool reads_as_stored = call && !spec.packs_operands;
  out += std::string(" -D TRANS_A=") + (reads_as_stored && call->a.transposed ? "1" : "0");
  out += std::string(" -D TRANS_B=") + (reads_as_stored && call->b.transposed ? "1" : "0");
  if (spec.uses_alignment_hints) {
    const long vec = options.at("VEC");
    out += std::string(" -D A_ALIGNED=") + (call && operand_aligned(call->a, vec) ? "1" : "0");
    out += std::string(" -D B_ALIGNED=") + (call && operand_aligned(call->b, vec) ? "1" : "0");
  }
  if (spec.description.precisions.size() > 1 || spec.description.precisions[0] != Precision::FP32)
    out += " -D PRECISION=" + std::to_string(int(precision));
  if (spec.slices_k && sliced_k) out += " -D SLICED_K=1";
  if (call) out += batch_build_options(*call) + epilogue_build_options(call->epilogue);
  return out;
}

std::string batch_build_options(const KernelCall& call) {
  return call.has_table() ? " -D PRODUCT_TABLE=1" : "";
}

std::string epilogue_build_options(const Epilogue& epilogue) {
  if (epilogue.is_identity()) return "";
  // By the names kernels/gemm_common.clh defines, so the numbers live in one place per language.
  const char* bias = epilogue.bias == Bias::PerRow      ? "BIAS_PER_ROW"
                     : epilogue.bias == Bias::PerColumn ? "BIAS_PER_COLUMN"
                                                        : "BIAS_NONE";
  const char* activation = epilogue.activation == Activation::ReLU    ? "ACTIVATION_RELU"
                           : epilogue.activation == Activation::GELU  ? "ACTIVATION_GELU"
                           : epilogue.activation == Activation::Clamp ? "ACTIVATION_CLAMP"
                                                                      : "ACTIVATION_NONE";
  return std::string(" -D BIAS=") + bias + " -D ACTIVATION=" + activation;
}

}  // namespace clgemm::detail
