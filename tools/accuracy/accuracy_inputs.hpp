// clgemm-accuracy's inputs: random matrices of the chosen distribution, and their dump as raw
// float32 files with a manifest entry, for tools/device/cublas_accuracy.py.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "accuracy/accuracy_errors.hpp"

namespace clgemm::accuracy {

// "uniform": [-1, 1) (clgemm::random_matrix, the inputs of the other tools); "normal": mean 0,
// deviation 1; "positive": [0, 1), where no sum cancels and the relative error is well defined.
std::vector<float> draw_matrix(std::size_t elements, unsigned seed,
                               const std::string& distribution);
// The distribution as the report names it.
std::string distribution_text(const std::string& distribution);

// Writes A and B of one case into `dir` (raw little-endian float32, row-major; a failure names
// --dump) and returns the manifest entry that names them.
nlohmann::json dump_inputs(const std::filesystem::path& dir, const Inputs& in);

}  // namespace clgemm::accuracy
