// A program built against an installed clgemm (find_package): the same product computed both
// ways in, from host arrays and on OpenCL buffers on the program's own queue, each checked
// against a plain loop. Exit status 0 when both match, 1 when one does not, 2 on an error.
#include <clgemm/clgemm.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

// Largest |c - a * b| over C, all row-major and unpadded.
double max_error(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& c, int m, int n, int k) {
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p) sum += double(a[i * k + p]) * double(b[p * n + j]);
      worst = std::fmax(worst, std::fabs(sum - c[i * n + j]));
    }
  return worst;
}

// C = A * B on buffers the program owns, on a queue it owns, in the Context's OpenCL context.
void on_buffers(clgemm::Context& context, const clgemm::GemmProblem& problem,
                const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) {
  cl_int err = CL_SUCCESS;
  cl_context cl = context.opencl_context();
  cl_command_queue queue = clCreateCommandQueue(cl, context.opencl_device(), 0, &err);
  if (err != CL_SUCCESS) throw clgemm::OpenCLError("clCreateCommandQueue", err);
  auto buffer = [&](cl_mem_flags flags, std::size_t floats, const float* data) {
    cl_mem mem = clCreateBuffer(cl, flags | (data ? CL_MEM_COPY_HOST_PTR : 0),
                                floats * sizeof(float), const_cast<float*>(data), &err);
    if (err != CL_SUCCESS) throw clgemm::OpenCLError("clCreateBuffer", err);
    return mem;
  };
  cl_mem a_buf = buffer(CL_MEM_READ_ONLY, a.size(), a.data());
  cl_mem b_buf = buffer(CL_MEM_READ_ONLY, b.size(), b.data());
  cl_mem c_buf = buffer(CL_MEM_READ_WRITE, c.size(), nullptr);

  cl_event done = nullptr;  // enqueued, not waited for: the read below waits on the event
  context.sgemm(problem, a_buf, b_buf, c_buf, queue, &done);
  err = clEnqueueReadBuffer(queue, c_buf, CL_TRUE, 0, c.size() * sizeof(float), c.data(), 1, &done,
                            nullptr);
  clReleaseEvent(done);
  for (cl_mem buf : {a_buf, b_buf, c_buf}) clReleaseMemObject(buf);
  clReleaseCommandQueue(queue);
  if (err != CL_SUCCESS) throw clgemm::OpenCLError("clEnqueueReadBuffer", err);
}

}  // namespace

int main() {
  const int m = 70, n = 50, k = 30;
  std::vector<float> a(m * k), b(k * n), c_host(m * n), c_buffers(m * n);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.25f - 0.5f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.5f - 1.0f;

  try {
    clgemm::Context context;  // first GPU, else accelerator, else CPU (or $CLGEMM_PLATFORM/DEVICE)
    const auto problem = clgemm::GemmProblem::packed(m, n, k);  // row-major, alpha 1, beta 0

    // Host arrays: uploads, runs and downloads; C is written when the call returns.
    context.sgemm(problem, a.data(), b.data(), c_host.data());

    // OpenCL buffers on the caller's queue: nothing is copied or waited for.
    on_buffers(context, problem, a, b, c_buffers);

    const double host_error = max_error(a, b, c_host, m, n, k);
    const double buffer_error = max_error(a, b, c_buffers, m, n, k);
    std::printf("%s: host arrays max error %g, buffers max error %g\n",
                context.device().name.c_str(), host_error, buffer_error);
    return host_error < 1e-4 && buffer_error < 1e-4 ? 0 : 1;
  } catch (const clgemm::Error& e) {
    std::fprintf(stderr, "clgemm error (%s): %s\n", clgemm::error_code_name(e.code()), e.what());
    return 2;
  }
}
