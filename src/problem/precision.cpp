// Names of the precision modes, for the CLI, the tuning database and error messages.
#include "clgemm/precision.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "clgemm/errors.hpp"

namespace clgemm {

const char* precision_name(Precision precision) {
  switch (precision) {
    case Precision::FP32:
      return "fp32";
    case Precision::TF32:
      return "tf32";
    case Precision::TF32x3:
      return "3xtf32";
  }
  return "unknown";
}

float round_to_tf32(float x) {
  if (std::isnan(x)) return x;
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

Precision parse_precision(const std::string& name) {
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::TF32x3})
    if (name == precision_name(p)) return p;
  throw Error(ErrorCode::InvalidArgument,
              "unknown precision '" + name + "'; valid precisions are: fp32, tf32, 3xtf32",
              Argument::Precision);
}

}  // namespace clgemm
