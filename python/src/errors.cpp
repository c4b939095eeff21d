// Exception translation: a clgemm::Error leaving any bound call becomes the Python exception
// clgemm.Error (defined in clgemm/_errors.py) with the library's code name, the argument at
// fault and the message; BuildError and OpenCLError keep their extra fields.
#include "clgemm/errors.hpp"

#include <nanobind/stl/string.h>

#include <exception>
#include <utility>

#include "bindings.hpp"

namespace nb = nanobind;

namespace clgemm::python {
namespace {

// Raises clgemm.<class_name>(message, code, argument, **extra) as the pending Python error.
template <typename... Extra>
void raise_as(const char* class_name, const Error& error, Extra&&... extra) {
  const nb::object type = nb::module_::import_("clgemm._errors").attr(class_name);
  const char* argument = argument_name(error.argument());
  const nb::object instance =
      type(error.what(), error_code_name(error.code()), *argument ? nb::cast(argument) : nb::none(),
           std::forward<Extra>(extra)...);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void translate(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const BuildError& error) {
    raise_as("BuildError", error, nb::arg("kernel") = error.kernel(),
             nb::arg("device") = error.device(), nb::arg("options") = error.options(),
             nb::arg("log") = error.log());
  } catch (const OpenCLError& error) {
    raise_as("OpenCLError", error, nb::arg("status") = error.status());
  } catch (const Error& error) {
    raise_as("Error", error);
  }
}

}  // namespace

void bind_errors(nb::module_&) {
  nb::register_exception_translator(translate);
}

}  // namespace clgemm::python
