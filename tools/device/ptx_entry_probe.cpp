// ptx_entry_probe: what limits a kernel's work-group size on an NVIDIA OpenCL device. Builds an
// OpenCL C kernel from source, prints what the driver reports for it (CL_KERNEL_WORK_GROUP_SIZE,
// private memory, the compiler's log with -cl-nv-verbose) and the entry directives of its PTX,
// then builds the PTX again from binary, once as compiled and once with each directive that
// bounds the work-group or the registers written into the entry, and prints the same for each.
// Marked statements ("//@", src/runtime/ptx_rewrite.hpp) are turned into code and the target
// changed to sm_90a when the PTX holds any. A measuring tool for the device machine:
//   ptx_entry_probe KERNEL.cl ENTRY THREADS OUT_PREFIX [BUILD OPTIONS...]
// writes OUT_PREFIX.ptx (as compiled) and OUT_PREFIX-<variant>.ptx.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what, cl_int code) {
  std::fprintf(stderr, "ptx_entry_probe: %s failed (%d)\n", what.c_str(), code);
  std::exit(2);
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Builds `program` and prints what the driver says about `entry` in it.
void report(const std::string& label, cl_program program, cl_device_id device,
            const std::string& entry, const std::string& options) {
  const cl_int built = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  std::printf("== %s: build %s\n%s\n", label.c_str(), built == CL_SUCCESS ? "ok" : "FAILED",
              build_log(program, device).c_str());
  if (built != CL_SUCCESS) return;
  cl_int code = 0;
  cl_kernel kernel = clCreateKernel(program, entry.c_str(), &code);
  if (code != CL_SUCCESS) {
    std::printf("   clCreateKernel failed (%d)\n", code);
    return;
  }
  std::size_t group = 0, reqd[3] = {0, 0, 0};
  cl_ulong private_bytes = 0, local_bytes = 0;
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof group, &group,
                           nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof reqd, reqd,
                           nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof private_bytes,
                           &private_bytes, nullptr);
  clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local_bytes,
                           &local_bytes, nullptr);
  std::printf(
      "   CL_KERNEL_WORK_GROUP_SIZE %zu, compile size %zu x %zu x %zu, private %llu B, "
      "local %llu B\n",
      group, reqd[0], reqd[1], reqd[2], (unsigned long long)private_bytes,
      (unsigned long long)local_bytes);
  clReleaseKernel(kernel);
}

std::string program_ptx(cl_program program) {
  std::size_t size = 0;
  clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::string ptx(size, '\0');
  unsigned char* pointer = reinterpret_cast<unsigned char*>(ptx.data());
  clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

// Marked statements into code and the target to sm_90a, where the PTX holds markers.
std::string unmarked(const std::string& ptx) {
  if (ptx.find("//@") == std::string::npos) return ptx;
  std::string text = std::regex_replace(ptx, std::regex(R"(//@[ \t]+)"), "");
  return std::regex_replace(text, std::regex(R"(\.target sm_90\b)"), ".target sm_90a");
}

// The PTX with `directive` as the entry's only bound: any .maxntid, .reqntid or .maxnreg the
// compiler wrote is dropped, and `directive` goes just before the body's opening brace.
std::string with_directive(const std::string& ptx, const std::string& directive) {
  std::string text =
      std::regex_replace(ptx, std::regex(R"(\n[ \t]*\.(maxntid|reqntid|maxnreg)[^\n]*)"), "");
  const std::size_t entry = text.find(".entry");
  const std::size_t brace = text.find("\n{", entry);
  if (entry == std::string::npos || brace == std::string::npos) return text;
  return text.insert(brace, "\n" + directive);
}

void save(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: ptx_entry_probe KERNEL.cl ENTRY THREADS OUT_PREFIX [OPTIONS...]\n");
    return 2;
  }
  const std::string source_path = argv[1], entry = argv[2], prefix = argv[4];
  const int threads = std::stoi(argv[3]);
  std::string options;
  for (int i = 5; i < argc; ++i) options += std::string(argv[i]) + " ";

  std::stringstream source;
  source << std::ifstream(source_path).rdbuf();
  const std::string text = source.str();

  cl_platform_id platforms[8];
  cl_uint platform_count = 0;
  clGetPlatformIDs(8, platforms, &platform_count);
  cl_device_id device = nullptr;
  for (cl_uint p = 0; p < platform_count && !device; ++p)
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, nullptr) != CL_SUCCESS)
      device = nullptr;
  if (!device) die("finding a GPU", -1);
  std::size_t device_group = 0;
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_group, &device_group,
                  nullptr);
  std::printf("CL_DEVICE_MAX_WORK_GROUP_SIZE %zu\n", device_group);

  cl_int code = 0;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &code);
  if (code != CL_SUCCESS) die("clCreateContext", code);
  const char* sources[] = {text.c_str()};
  cl_program compiled = clCreateProgramWithSource(context, 1, sources, nullptr, &code);
  if (code != CL_SUCCESS) die("clCreateProgramWithSource", code);
  report("from source", compiled, device, entry, options + "-cl-nv-verbose");

  const std::string ptx = program_ptx(compiled);
  save(prefix + ".ptx", ptx);
  for (const std::string pattern : {R"(\.(maxntid|reqntid|maxnreg|minnctapersm)[^\n]*)",
                                    R"(\.target[^\n]*)", R"(\.version[^\n]*)"}) {
    const std::regex directive(pattern);
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), directive);
         it != std::sregex_iterator(); ++it)
      std::printf("   PTX directive: %s\n", it->str().c_str());
  }

  const std::string base = unmarked(ptx);
  const std::string t = std::to_string(threads);
  const std::vector<std::pair<std::string, std::string>> variants = {
      {"as-compiled", base},
      {"maxntid", with_directive(base, ".maxntid " + t + ", 1, 1")},
      {"reqntid", with_directive(base, ".reqntid " + t + ", 1, 1")},
      {"maxnreg", with_directive(base, ".maxnreg " + std::to_string(65536 / threads))},
  };
  for (const auto& [label, variant] : variants) {
    save(prefix + "-" + label + ".ptx", variant);
    const unsigned char* binary = reinterpret_cast<const unsigned char*>(variant.c_str());
    const std::size_t size = variant.size() + 1;
    cl_int status = 0;
    cl_program program =
        clCreateProgramWithBinary(context, 1, &device, &size, &binary, &status, &code);
    if (code != CL_SUCCESS) {
      std::printf("== %s: clCreateProgramWithBinary failed (%d, %d)\n", label.c_str(), code,
                  status);
      continue;
    }
    report(label, program, device, entry, "-cl-nv-verbose");
    clReleaseProgram(program);
  }
  report("from source, -cl-nv-maxrregcount=" + std::to_string(65536 / threads),
         clCreateProgramWithSource(context, 1, sources, nullptr, &code), device, entry,
         options + "-cl-nv-verbose -cl-nv-maxrregcount=" + std::to_string(65536 / threads));
  return 0;
}
