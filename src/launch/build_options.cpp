// A kernel's build options for a call, and the build variants calls can need
// (launch/build_options.hpp).
#include "launch/build_options.hpp"

#include <string>

namespace clgemm::detail {

KernelOptions compiled_options(const KernelSpec& spec, const KernelOptions& options) {
  KernelOptions compiled = options;
  for (const auto& parameter : spec.description.host_parameters) compiled.erase(parameter.name);
  return compiled;
}

BuildVariant build_variant(const KernelSpec& spec, const KernelOptions& options,
                           const KernelCall* call, bool sliced_k) {
  BuildVariant variant;
  const bool reads_as_stored = call && !spec.packs_operands;
  variant.trans_a =
      (reads_as_stored || (call && reads_stored_a(spec, options))) && call->a.transposed;
  variant.trans_b = reads_as_stored && call->b.transposed;
  if (spec.uses_alignment_hints && call) {
    const long vec = options.at("VEC");
    variant.a_aligned = operand_aligned(call->a, vec);
    variant.b_aligned = operand_aligned(call->b, vec);
  }
  variant.sliced_k = spec.slices_k && sliced_k;
  return variant;
}

std::vector<BuildVariant> build_variants(const KernelSpec& spec, const KernelOptions& options) {
  std::vector<BuildVariant> out;
  const auto both = [](bool varies) {
    return varies ? std::vector<bool>{false, true} : std::vector<bool>{false};
  };
  const bool transposes = !spec.packs_operands;
  const bool transposes_a = transposes || reads_stored_a(spec, options);
  // Aligned first: the common case of packed leading dimensions that are multiples of VEC.
  const std::vector<bool> aligned =
      spec.uses_alignment_hints ? std::vector<bool>{true, false} : std::vector<bool>{false};
  for (bool sliced : both(spec.slices_k))
    for (bool trans_a : both(transposes_a))
      for (bool trans_b : both(transposes))
        for (bool a_aligned : aligned)
          for (bool b_aligned : aligned)
            out.push_back({trans_a, trans_b, a_aligned, b_aligned, sliced});
  return out;
}

std::string variant_build_options(const KernelSpec& spec, const KernelOptions& options,
                                  const BuildVariant& variant, Precision precision) {
  std::string out = format_build_options(compiled_options(spec, options));
  out += std::string(" -D TRANS_A=") + (variant.trans_a ? "1" : "0");
  out += std::string(" -D TRANS_B=") + (variant.trans_b ? "1" : "0");
  if (spec.uses_alignment_hints) {
    out += std::string(" -D A_ALIGNED=") + (variant.a_aligned ? "1" : "0");
    out += std::string(" -D B_ALIGNED=") + (variant.b_aligned ? "1" : "0");
  }
  if (spec.description.precisions.size() > 1 || spec.description.precisions[0] != Precision::FP32)
    out += " -D PRECISION=" + std::to_string(int(precision));
  if (spec.slices_k && variant.sliced_k) out += " -D SLICED_K=1";
  return out;
}

std::string call_build_options(const KernelSpec& spec, const KernelOptions& options,
                               const KernelCall* call, Precision precision, bool sliced_k) {
  std::string out =
      variant_build_options(spec, options, build_variant(spec, options, call, sliced_k), precision);
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
