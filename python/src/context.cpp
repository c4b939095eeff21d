// clgemm.Context's native half: opening a device (or adopting a caller's OpenCL context) and
// the two sgemm paths. The package has already checked the operands' types, layouts and
// shapes; here each host array (the bias vector included) is checked to hold what the problem
// reads (so that no call can read or write past an array), the bias is put into the problem's
// epilogue (bias_data on the host path, bias_buffer on the buffer path), the kernel text and
// precision go through the library's own parsers, and the GIL is released while the library
// works. The first call of a kernel variant that takes longer than a moment (its build: 30 s
// for `blocked` on PoCL with a cold cache) says on sys.stderr what it is building, once; and a
// Ctrl-C that arrived during a call is raised as KeyboardInterrupt as soon as the call returns.
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "clgemm/epilogue.hpp"
#include "clgemm/gemm.hpp"
#include "clgemm/kernels.hpp"
#include "clgemm/precision.hpp"
#include "clgemm/warm.hpp"
#include "support/delayed_notice.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace clgemm::python {
namespace {

using HostOperand = nb::ndarray<const float, nb::device::cpu>;
using HostResult = nb::ndarray<float, nb::device::cpu>;

// Elements from an array's first element to its last, inclusive (0 when it has none).
template <typename Array>
std::size_t elements_spanned(const Array& array, const char* name) {
  if (array.size() == 0) return 0;
  std::size_t last = 0;
  for (std::size_t i = 0; i < array.ndim(); ++i) {
    if (array.stride(i) < 0 && array.shape(i) > 1)
      throw nb::value_error((std::string(name) + " has a negative stride").c_str());
    last += std::size_t(array.shape(i) - 1) * std::size_t(array.stride(i));
  }
  return last + 1;
}

// An empty problem (M, N or the batch 0) reads and writes nothing.
template <typename Array>
void check_holds(const GemmProblem& problem, const Array& array, std::size_t needed,
                 const char* name) {
  if (problem.is_empty()) return;
  const std::size_t spanned = elements_spanned(array, name);
  if (spanned < needed)
    throw nb::value_error((std::string(name) + " spans " + std::to_string(spanned) +
                           " floats, but the problem reads " + std::to_string(needed))
                              .c_str());
}

// The kernel as users write it ("auto", "tile", "coarsened:TILE=16,ITEM=4") and the
// precision's name ("fp32", "tf32", "3xtf32"); the library's errors name what is wrong.
RunSettings run_settings(const std::string& kernel, const std::string& precision) {
  const KernelSelection selection = parse_kernel_selection(kernel);
  RunSettings settings;
  settings.kernel = selection.kernel;
  settings.overrides = selection.overrides;
  settings.precision = parse_precision(precision);
  return settings;
}

// The largest power of two dividing `value`, up to 16 (16 for 0): how aligned a size is.
long alignment(long value) {
  long a = 1;
  while (a < 16 && value % (2 * a) == 0) a *= 2;
  return a;
}

// The seconds a call waits before saying what it builds: $CLGEMM_BUILD_NOTICE (a number of
// seconds, 0 for at once, or "off"), else 1 as in the command-line tools. Negative is "off".
double notice_delay() {
  const char* text = std::getenv("CLGEMM_BUILD_NOTICE");
  if (!text || !*text) return 1.0;
  if (std::string(text) == "off") return -1.0;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return end && *end == 0 ? seconds : 1.0;
}

// What a DelayedNotice (support/delayed_notice.hpp) around a call that may build a program
// says: `message` on Python's sys.stderr, flushed (nothing for an empty message). It takes the
// GIL to write, so the notice must be made and destroyed while the GIL is released.
std::function<void()> writing_to_stderr(std::string message) {
  if (message.empty()) return {};
  return [message = std::move(message)] {
    const nb::gil_scoped_acquire locked;
    PySys_FormatStderr("%s\n", message.c_str());
    PyObject* stderr_file = PySys_GetObject("stderr");  // borrowed
    if (stderr_file && stderr_file != Py_None) {
      PyObject* flushed = PyObject_CallMethod(stderr_file, "flush", nullptr);
      Py_XDECREF(flushed);
    }
    PyErr_Clear();  // a notice never fails the call
  };
}

// The notice for a call of `problem` with `settings`: empty unless this is the process's first
// call of its program variant (the kernel chosen for it, its overrides, precision, epilogue,
// layout, transposes and the alignment of its sizes, which the kernels compile in), so that
// each build is announced once and later calls start no watchdog.
std::string build_notice(Context& context, const GemmProblem& problem,
                         const RunSettings& settings) {
  if (problem.is_empty()) return "";
  const KernelChoice choice = context.choose(problem, settings);
  if (choice.kernel == "none" || choice.kernel == "scale_c") return "";
  const std::string device = context.device().name;
  std::string key = device + "|" + choice.kernel + "|" + format_build_options(choice.overrides) +
                    "|" + precision_name(settings.precision) + "|" +
                    describe_epilogue(problem.epilogue) + "|" +
                    std::to_string(int(problem.layout)) + std::to_string(int(problem.trans_a)) +
                    std::to_string(int(problem.trans_b)) + "|" + std::to_string(problem.batch > 1);
  for (long size : {long(problem.m), long(problem.n), long(problem.k), long(problem.lda),
                    long(problem.ldb), long(problem.ldc)})
    key += "," + std::to_string(alignment(size));
  static std::mutex mutex;
  static std::set<std::string> announced;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!announced.insert(key).second) return "";
  }
  const char* cache = std::getenv("CLGEMM_CACHE_DIR");
  const bool cache_off = cache && std::string(cache) == "off";
  std::string what = "kernel '" + choice.kernel + "' (" + precision_name(settings.precision);
  if (!problem.epilogue.is_identity()) what += ", " + describe_epilogue(problem.epilogue);
  return "clgemm: building " + what + ") for '" + device + "' on its first call ... (" +
         (cache_off ? "compiled each time: the disk cache is off, CLGEMM_CACHE_DIR=off"
                    : "compiled once, then cached on disk for next time") +
         "; CLGEMM_BUILD_NOTICE=off silences this)";
}

// A Ctrl-C during a call cannot stop the library (an OpenCL build or kernel is not
// cancelled), so it is raised as KeyboardInterrupt once the call has returned.
void raise_pending_signals() {
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

// `bias`, when given, becomes the epilogue's bias_data (problem.epilogue says its kind, offset
// and stride); without it the problem's own epilogue goes to the library unchanged.
GemmRecord sgemm_host(Context& context, GemmProblem problem, const HostOperand& a,
                      const HostOperand& b, const HostResult& c, const std::string& kernel,
                      const std::string& precision, const std::optional<HostOperand>& bias) {
  check_holds(problem, a, problem.a_elements(), "a");
  check_holds(problem, b, problem.b_elements(), "b");
  check_holds(problem, c, problem.c_elements(), "c");
  if (bias) {
    check_holds(problem, *bias, problem.bias_elements(), "bias");
    problem.epilogue.bias_data = bias->data();
  }
  const RunSettings settings = run_settings(kernel, precision);
  const double delay = notice_delay();
  GemmRecord record;
  {
    nb::gil_scoped_release unlocked;
    const detail::DelayedNotice notice(
        writing_to_stderr(delay < 0 ? "" : build_notice(context, problem, settings)), delay);
    record = context.sgemm(problem, a.data(), b.data(), c.data(), settings);
  }
  raise_pending_signals();  // C holds the result
  return record;
}

// The OpenCL objects come as the integer handles PyOpenCL's int_ptr gives; the returned event
// (0 when nothing was launched) is the caller's to release. A non-zero `bias` is the cl_mem
// of the epilogue's vector (the library checks its size, like the operands').
std::tuple<GemmRecord, std::uintptr_t> sgemm_buffers(
    Context& context, GemmProblem problem, std::uintptr_t a, std::uintptr_t b, std::uintptr_t c,
    std::uintptr_t queue, const std::string& kernel, const std::string& precision,
    const std::vector<std::uintptr_t>& wait_for, std::uintptr_t bias) {
  if (bias) problem.epilogue.bias_buffer = reinterpret_cast<cl_mem>(bias);
  const RunSettings settings = run_settings(kernel, precision);
  std::vector<cl_event> wait_list;
  for (std::uintptr_t event : wait_for) wait_list.push_back(reinterpret_cast<cl_event>(event));
  cl_event done = nullptr;
  GemmRecord record;
  const double delay = notice_delay();
  {
    nb::gil_scoped_release unlocked;
    const detail::DelayedNotice notice(
        writing_to_stderr(delay < 0 ? "" : build_notice(context, problem, settings)), delay);
    record = context.sgemm(problem, reinterpret_cast<cl_mem>(a), reinterpret_cast<cl_mem>(b),
                           reinterpret_cast<cl_mem>(c), reinterpret_cast<cl_command_queue>(queue),
                           &done, settings, wait_list);
  }
  if (PyErr_CheckSignals() != 0) {  // the work stays enqueued; its event is not handed out
    if (done) clReleaseEvent(done);
    throw nb::python_error();
  }
  return {record, reinterpret_cast<std::uintptr_t>(done)};
}

// Context.warm_up: the library's warm_up with the progress reported to a Python callable
// (under the GIL), the report as a dict.
nb::dict warm_up(Context& context, const std::string& kernel, const std::string& precision,
                 nb::object progress) {
  const KernelSelection selection = parse_kernel_selection(kernel);
  RunSettings settings;
  settings.kernel = selection.kernel;
  settings.overrides = selection.overrides;
  settings.precision = parse_precision(precision);
  WarmUpCallback callback;
  if (!progress.is_none())
    callback = [&progress](const WarmUpProgress& step) {
      nb::gil_scoped_acquire locked;
      nb::dict item;
      item["index"] = step.index;
      item["total"] = step.total;
      item["kernel"] = step.kernel;
      item["build_options"] = step.build_options;
      item["outcome"] = warm_outcome_name(step.outcome);
      item["seconds"] = step.seconds;
      item["error"] = step.error;
      progress(item);
    };
  WarmUpReport report;
  {
    nb::gil_scoped_release unlocked;
    report = context.warm_up(settings, callback);
  }
  nb::dict out;
  out["programs"] = report.programs;
  out["compiled"] = report.compiled;
  out["on_disk"] = report.on_disk;
  out["in_memory"] = report.in_memory;
  out["failed"] = report.failed;
  out["seconds"] = report.seconds;
  out["first_error"] = report.first_error;
  return out;
}

}  // namespace

void bind_context(nb::module_& module) {
  // The package says on sys.stderr what a call builds (writing_to_stderr), where Jupyter shows it;
  // the library's own notice on the process's stderr would repeat it.
  set_compile_notices(false);
  nb::class_<Context>(module, "Context", "One OpenCL device and the programs built for it.")
      .def(
          "__init__",
          [](Context* self, const std::string& platform, const std::string& device) {
            nb::gil_scoped_release unlocked;
            new (self) Context(DeviceRequest{platform, device});
          },
          "platform"_a = "", "device"_a = "",
          "Opens the device chosen by the selectors (an index or a name's substring; empty: "
          "$CLGEMM_PLATFORM / $CLGEMM_DEVICE, then the first GPU, accelerator, CPU).")
      .def_static(
          "from_opencl",
          [](std::uintptr_t context, std::uintptr_t device) {
            return Context(reinterpret_cast<cl_context>(context),
                           reinterpret_cast<cl_device_id>(device));
          },
          "context"_a, "device"_a,
          "Works inside the caller's cl_context (retained, not taken over), given as integers.")
      .def_prop_ro("device", [](const Context& context) { return context.device(); })
      .def("has_tensor_cores",
           [](Context& context) {
             nb::gil_scoped_release unlocked;
             return context.has_tensor_cores();
           })
      .def_prop_ro("cl_context",
                   [](const Context& context) {
                     return reinterpret_cast<std::uintptr_t>(context.opencl_context());
                   })
      .def_prop_ro("cl_device",
                   [](const Context& context) {
                     return reinterpret_cast<std::uintptr_t>(context.opencl_device());
                   })
      .def("sgemm_host", &sgemm_host, "problem"_a, "a"_a.noconvert(), "b"_a.noconvert(),
           "c"_a.noconvert(), "kernel"_a, "precision"_a, "bias"_a.noconvert() = nb::none(),
           "Computes on host arrays, blocking; C is written only when the call succeeds.")
      .def("sgemm_buffers", &sgemm_buffers, "problem"_a, "a"_a, "b"_a, "c"_a, "queue"_a, "kernel"_a,
           "precision"_a, "wait_for"_a, "bias"_a = 0,
           "Enqueues on cl_mem buffers on the caller's queue; returns (record, event).")
      .def("warm_up", &warm_up, "kernel"_a, "precision"_a, "progress"_a = nb::none(),
           "Builds ahead every program a call with the kernel and precision may need; returns "
           "the report as a dict.")
      .def_prop_ro("warming_in_background", &Context::warming_in_background);
}

}  // namespace clgemm::python
