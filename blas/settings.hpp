// The settings of libclgemm_blas: environment variables, then the optional configuration file
// named by CLGEMM_BLAS_CONFIG (`key = value` lines), then the defaults. Read once, at the first
// SGEMM call. A bad value is reported once on stderr, naming the variable or the file's line,
// and the default is used instead (a BLAS call cannot return an error); so is a line that is
// not `key = value`, an unknown key (the line is ignored), a key given twice (the last line
// wins) and a file that cannot be read (not used). An empty value is as if it were not set.
// docs/BLAS.md has the table.
#pragma once

#include <optional>
#include <string>

#include "clgemm/precision.hpp"

namespace clgemm::blas {

enum class Mode { Auto, Device, Cpu };
const char* mode_name(Mode mode);

struct Settings {
  Mode mode = Mode::Auto;                 // CLGEMM_BLAS_MODE / mode
  std::optional<double> min_flops;        // CLGEMM_BLAS_MIN_FLOPS / min_flops
  std::string cpu_library;                // CLGEMM_BLAS_CPU_LIBRARY / cpu_library
  Precision precision = Precision::FP32;  // CLGEMM_BLAS_PRECISION / precision
  bool trace = false;                     // CLGEMM_BLAS_TRACE / trace
  std::string platform, device;           // CLGEMM_PLATFORM, CLGEMM_DEVICE / platform, device
  std::string calibration_file;           // CLGEMM_BLAS_CALIBRATION_FILE / calibration_file
};

// The settings of this process, read on the first call.
const Settings& settings();

}  // namespace clgemm::blas
