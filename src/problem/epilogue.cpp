// The epilogue's names and its host formulas (clgemm/epilogue.hpp), the reference the kernels'
// store (kernels/gemm_common.clh) is checked against.
#include "clgemm/epilogue.hpp"

#include <cmath>
#include <cstdio>

namespace clgemm {

const char* bias_name(Bias bias) {
  switch (bias) {
    case Bias::None:
      return "none";
    case Bias::PerRow:
      return "per-row";
    case Bias::PerColumn:
      return "per-column";
  }
  return "unknown";
}

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::None:
      return "none";
    case Activation::ReLU:
      return "relu";
    case Activation::GELU:
      return "gelu";
    case Activation::Clamp:
      return "clamp";
  }
  return "unknown";
}

std::string describe_epilogue(const Epilogue& e) {
  if (e.is_identity()) return "none";
  std::string out;
  if (e.bias != Bias::None) out = std::string(bias_name(e.bias)) + " bias";
  if (e.activation != Activation::None) {
    if (!out.empty()) out += ", ";
    if (e.activation == Activation::Clamp) {
      char bounds[80];
      std::snprintf(bounds, sizeof bounds, "clamp to [%g, %g]", double(e.clamp_low),
                    double(e.clamp_high));
      out += bounds;
    } else {
      out += activation_name(e.activation);
    }
  }
  return out;
}

double apply_activation(const Epilogue& epilogue, double v) {
  switch (epilogue.activation) {
    case Activation::None:
      return v;
    case Activation::ReLU:
      return v < 0.0 ? 0.0 : v;
    case Activation::GELU: {
      // 0.5 v (1 + tanh(u)) = v / (1 + exp(-2u)); its limit at -inf is -0.
      if (v == -INFINITY) return -0.0;
      const double u = std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v);
      return v / (1.0 + std::exp(-2.0 * u));
    }
    case Activation::Clamp:
      if (v < double(epilogue.clamp_low)) return epilogue.clamp_low;
      if (v > double(epilogue.clamp_high)) return epilogue.clamp_high;
      return v;
  }
  return v;
}

}  // namespace clgemm
