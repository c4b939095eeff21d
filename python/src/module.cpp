// The extension module clgemm._clgemm: registers the bound pieces (see bindings.hpp).
#include "bindings.hpp"

NB_MODULE(_clgemm, module) {
  module.doc() = "The clgemm library's C++ API, as the clgemm package uses it.";
  clgemm::python::bind_errors(module);
  clgemm::python::bind_values(module);
  clgemm::python::bind_context(module);
  clgemm::python::bind_library(module);
}
