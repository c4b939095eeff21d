// The clgemm-unfused peer (bench_unfused.hpp): a plain clgemm call, then the bias and activation
// pass of tools/bench/bench_bias_activation.cl, which the build embeds here.
#include "bench/bench_unfused.hpp"

#include <memory>
#include <string>

#include "bench_bias_activation_source.hpp"  // kBiasActivationSource, from tools/CMakeLists.txt
#include "clgemm/errors.hpp"
#include "clgemm/gemm.hpp"

namespace clgemm::bench {
namespace {

constexpr std::size_t kGroupWidth = 64;  // work-items along a line in one work-group

void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) throw OpenCLError(call, status);
}

// The pass's kernel, built once for the context of the queue it is first enqueued on.
class BiasActivationPass {
 public:
  ~BiasActivationPass() {
    if (kernel_) clReleaseKernel(kernel_);
    if (program_) clReleaseProgram(program_);
  }

  // C = act(C + bias) over every product of `p` (its epilogue and placements), C and the bias
  // in `c` and `bias` (nullptr without a bias).
  void enqueue(const GemmProblem& p, cl_mem c, cl_mem bias, cl_command_queue queue) {
    build_for(queue);
    const bool row_major = p.layout == Layout::RowMajor;
    const cl_ulong c_offset = p.c_offset, ldc = cl_ulong(p.ldc);
    const cl_ulong stride_c = p.batch > 1 ? cl_ulong(p.stride_c) : 0;
    const cl_int line_length = cl_int(row_major ? p.n : p.m), lines = cl_int(row_major ? p.m : p.n);
    const cl_int is_row_major = row_major, bias_kind = cl_int(p.epilogue.bias);
    const cl_int activation = cl_int(p.epilogue.activation);
    const cl_ulong bias_offset = p.epilogue.bias_offset;
    const cl_ulong bias_stride = cl_ulong(p.epilogue.bias_stride);
    const cl_float low = p.epilogue.clamp_low, high = p.epilogue.clamp_high;
    cl_uint arg = 0;
    auto set = [&](std::size_t size, const void* value) {
      check(clSetKernelArg(kernel_, arg++, size, value), "clSetKernelArg");
    };
    set(sizeof c, &c);
    set(sizeof c_offset, &c_offset);
    set(sizeof ldc, &ldc);
    set(sizeof stride_c, &stride_c);
    set(sizeof line_length, &line_length);
    set(sizeof is_row_major, &is_row_major);
    set(sizeof bias, &bias);
    set(sizeof bias_offset, &bias_offset);
    set(sizeof bias_stride, &bias_stride);
    set(sizeof bias_kind, &bias_kind);
    set(sizeof activation, &activation);
    set(sizeof low, &low);
    set(sizeof high, &high);
    const std::size_t global[3] = {
        (std::size_t(line_length) + kGroupWidth - 1) / kGroupWidth * kGroupWidth,
        std::size_t(lines), std::size_t(p.batch)};
    const std::size_t local[3] = {kGroupWidth, 1, 1};
    check(clEnqueueNDRangeKernel(queue, kernel_, 3, nullptr, global, local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  }

 private:
  void build_for(cl_command_queue queue) {
    if (kernel_) return;
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    check(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr),
          "clGetCommandQueueInfo");
    check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr),
          "clGetCommandQueueInfo");
    cl_int status = CL_SUCCESS;
    const char* source = kBiasActivationSource;
    program_ = clCreateProgramWithSource(context, 1, &source, nullptr, &status);
    check(status, "clCreateProgramWithSource");
    if (clBuildProgram(program_, 1, &device, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS) {
      std::size_t size = 0;
      clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      throw Error(ErrorCode::BuildFailed,
                  "clgemm-unfused: tools/bench/bench_bias_activation.cl did not build:\n" + log);
    }
    kernel_ = clCreateKernel(program_, "bias_activation", &status);
    check(status, "clCreateKernel");
  }

  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
};

}  // namespace

Peer unfused_peer() {
  auto pass = std::make_shared<BiasActivationPass>();
  Peer peer;
  peer.name = peer.family = "clgemm-unfused";
  peer.enqueue = [pass](Operands& o, std::vector<float>&) {
    GemmProblem plain = o.problem;
    plain.epilogue = Epilogue{};
    o.context->sgemm(plain, o.a_mem, o.b_mem, o.c_mem, o.queue);
    pass->enqueue(o.problem, o.c_mem, o.bias_mem, o.queue);
  };
  peer.applies = [](const GemmProblem& p) { return !p.epilogue.is_identity(); };
  return peer;
}

}  // namespace clgemm::bench
