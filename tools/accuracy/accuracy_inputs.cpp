// Random inputs of clgemm-accuracy and their dump for cuBLAS (see accuracy_inputs.hpp).
#include "accuracy/accuracy_inputs.hpp"

#include <random>

#include "clgemm/clgemm.hpp"
#include "common/cli_support.hpp"

namespace clgemm::accuracy {

std::vector<float> draw_matrix(std::size_t elements, unsigned seed,
                               const std::string& distribution) {
  if (distribution == "uniform") return clgemm::random_matrix(elements, seed);
  std::mt19937 generator(seed);
  std::vector<float> out(elements);
  if (distribution == "normal") {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (auto& x : out) x = normal(generator);
  } else {
    std::uniform_real_distribution<float> positive(0.0f, 1.0f);
    for (auto& x : out) x = positive(generator);
  }
  return out;
}

std::string distribution_text(const std::string& distribution) {
  if (distribution == "uniform") return "uniform [-1, 1)";
  if (distribution == "normal") return "normal (0, 1)";
  return "uniform [0, 1) (positive)";
}

namespace {

// Raw little-endian float32, row-major (the host is little-endian: x86-64 or AArch64).
void write_floats(const std::filesystem::path& path, const std::vector<float>& values) {
  cli::write_output(
      "--dump", path.string(),
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

}  // namespace

nlohmann::json dump_inputs(const std::filesystem::path& dir, const Inputs& in) {
  const std::string suffix =
      "m" + std::to_string(in.m) + "_n" + std::to_string(in.n) + "_k" + std::to_string(in.k);
  const std::string a_file = "a_" + suffix + ".f32", b_file = "b_" + suffix + ".f32";
  write_floats(dir / a_file, in.a);
  write_floats(dir / b_file, in.b);
  return {{"m", in.m},
          {"n", in.n},
          {"k", in.k},
          {"a_file", a_file},
          {"a_shape", {in.m, in.k}},
          {"b_file", b_file},
          {"b_shape", {in.k, in.n}}};
}

}  // namespace clgemm::accuracy
