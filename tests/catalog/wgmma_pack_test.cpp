// The wgmma kernel's operand pack (kernels/wgmma_pack.cl) on whatever device the tests run on:
// it is portable OpenCL C, so the layout the tensor cores read is checked here element by
// element against an independent host description (kernels/wgmma_layout.clh), without an H200.
// Cases: both orientations of the source, TF32 and 3xTF32 (high and low parts), block rows
// and depths of the kernel's catalogue, sizes that are and are not multiples of the blocks,
// padded leading dimensions and offsets, strided batches and a product table with an alpha = 0
// entry (not read: its blocks are zero), B in the paired column order of a kernel that reads A
// as stored (PAIRED_K), and the region after the last product untouched.
#include <gtest/gtest.h>

#include <CL/opencl.hpp>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace clgemm::testing {
namespace {

struct Layout {
  int tile_rows, tile_k, parts;
  bool fragments = false;  // A in the register fragment order (FRAGMENTS 1)
  bool paired_k = false;   // each 8-deep step's columns in the order 0, 2, 4, 6, 1, 3, 5, 7
  int depth() const { return tile_k / parts; }
};

struct Case {
  int rows, depth, ld;
  bool rows_along_k;
  Layout layout;
  int batch;
  bool table;
};

std::string describe(const Case& c) {
  return std::to_string(c.rows) + "x" + std::to_string(c.depth) + " ld " + std::to_string(c.ld) +
         (c.rows_along_k ? " rows along K" : " rows across K") + " blocks " +
         std::to_string(c.layout.tile_rows) + "x" + std::to_string(c.layout.tile_k) + " parts " +
         std::to_string(c.layout.parts) + (c.layout.fragments ? " fragments" : "") +
         (c.layout.paired_k ? " paired" : "") + " batch " + std::to_string(c.batch) +
         (c.table ? " (table)" : "");
}

// The packed operand the layout describes, for product `source` of the source matrix (null:
// a product that is not read).
std::vector<float> expected_pack(const Case& c, const float* source) {
  const Layout& l = c.layout;
  const int d = l.depth();
  const int row_blocks = (c.rows + l.tile_rows - 1) / l.tile_rows;
  const int slices = (c.depth + d - 1) / d;
  const int part_floats = l.tile_rows * d;
  std::vector<float> out(std::size_t(row_blocks) * slices * l.parts * part_floats);
  for (int rb = 0; rb < row_blocks; ++rb)
    for (int s = 0; s < slices; ++s)
      for (int r = 0; r < l.tile_rows; ++r)
        for (int k = 0; k < d; ++k) {
          // Paired: position c of an 8-deep step holds the step's column 2 c (c < 4), else
          // 2 (c - 4) + 1.
          const int c8 = k % 8;
          const int stored = l.paired_k ? k - c8 + (c8 < 4 ? 2 * c8 : 2 * (c8 - 4) + 1) : k;
          const int row = rb * l.tile_rows + r, col = s * d + stored;
          float x = 0.0f;
          if (source && row < c.rows && col < c.depth)
            x = c.rows_along_k ? source[std::size_t(row) * c.ld + col]
                               : source[std::size_t(col) * c.ld + row];
          // Core matrix (r / 8, k / 4) of 8 rows x 4 floats, those of one 8-row group along K;
          // or, in the fragment order, the run of work-item 32 w + 4 g + t for 64-row block q
          // and 8-deep step s8, whose 4 floats are rows g, g + 8 of warp w's 16 by columns t,
          // t + 4 of the step (the first row and column varying fastest).
          int at = ((r / 8) * (d / 4) + k / 4) * 32 + (r % 8) * 4 + k % 4;
          if (l.fragments) {
            const int q = r / 64, w = (r % 64) / 16, g = r % 8, s8 = k / 8, t = k % 4;
            const int run = (q * (d / 8) + s8) * 128 + 32 * w + 4 * g + t;
            at = run * 4 + (r % 16) / 8 + 2 * ((k % 8) / 4);
          }
          const std::size_t block = (std::size_t(rb) * slices + s) * l.parts * part_floats;
          const float high = round_to_tf32(x);
          out[block + at] = high;
          if (l.parts == 2) out[block + part_floats + at] = round_to_tf32(x - high);
        }
  return out;
}

// The table entry layout the kernels read (clgemm::BatchProduct).
struct Entry {
  std::uint64_t a_offset, b_offset, c_offset;
  float alpha, beta;
};

class WgmmaPack : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    context_ = cl::Context(shared_context().opencl_context(), true);
    device_ = cl::Device(shared_context().opencl_device(), true);
    queue_ = cl::CommandQueue(context_, device_);
  }

  // Builds the pack for `c`, runs it and compares every product's packed floats bit for bit.
  void check(const Case& c) {
    SCOPED_TRACE(describe(c));
    const Layout& l = c.layout;
    std::string directory;
    for (const auto& d : kernel_search_path())
      if (std::ifstream(d + "/wgmma_pack.cl")) {
        directory = d;
        break;
      }
    ASSERT_FALSE(directory.empty()) << "wgmma_pack.cl not found on the kernel search path";
    std::ifstream file(directory + "/wgmma_pack.cl");
    const std::string source((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
    cl::Program program(context_, source);
    const std::string options =
        "-I " + directory + " -D TILE_R=" + std::to_string(l.tile_rows) +
        " -D TILE_K=" + std::to_string(l.tile_k) + " -D PRECISION=" + (l.parts == 2 ? "2" : "1") +
        " -D ROWS_ALONG_K=" + (c.rows_along_k ? "1" : "0") + " -D OPERAND_B=1 -D WG_X=8 -D WG_Y=8" +
        " -D FRAGMENTS=" + (l.fragments ? "1" : "0") + " -D PAIRED_K=" + (l.paired_k ? "1" : "0");
    try {
      program.build({device_}, options.c_str());
    } catch (const cl::Error&) {
      FAIL() << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
    }
    cl::Kernel kernel(program, "wgmma_pack");

    const std::size_t extent = std::size_t(c.rows_along_k ? c.rows : c.depth) * c.ld;
    const std::size_t stride = extent + 5, offset = 3;
    const auto src = random_matrix(offset + stride * c.batch, 71);
    const std::vector<float> first = expected_pack(c, src.data() + offset);
    const std::size_t per_product = first.size() + 64, dst_offset = 32;
    const std::size_t dst_floats = dst_offset + per_product * c.batch + 64;
    const float sentinel = -1234.5f;
    std::vector<float> dst(dst_floats, sentinel);
    // The table gives product p the source of product batch - 1 - p; product 1 has alpha = 0.
    std::vector<Entry> entries(c.batch);
    for (int p = 0; p < c.batch; ++p)
      entries[p] = {0, offset + stride * (c.batch - 1 - p), 0, p == 1 ? 0.0f : 1.0f, 0.0f};

    cl::Buffer src_buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          src.size() * sizeof(float), const_cast<float*>(src.data()));
    cl::Buffer dst_buffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          dst.size() * sizeof(float), dst.data());
    cl::Buffer table(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                     entries.size() * sizeof(Entry), entries.data());
    int arg = 0;
    kernel.setArg(arg++, cl_int(c.rows));
    kernel.setArg(arg++, cl_int(c.depth));
    kernel.setArg(arg++, src_buffer);
    kernel.setArg(arg++, cl_ulong(offset));
    kernel.setArg(arg++, cl_int(c.ld));
    kernel.setArg(arg++, cl_uint(0));
    kernel.setArg(arg++, cl_ulong(stride));
    cl_mem no_table = nullptr;
    if (c.table)
      kernel.setArg(arg++, table);
    else
      kernel.setArg(arg++, sizeof(cl_mem), &no_table);
    kernel.setArg(arg++, cl_ulong(0));
    kernel.setArg(arg++, dst_buffer);
    kernel.setArg(arg++, cl_ulong(dst_offset));
    kernel.setArg(arg++, cl_ulong(per_product));
    const std::size_t items = first.size() / l.parts / 4;
    queue_.enqueueNDRangeKernel(kernel, cl::NullRange,
                                cl::NDRange((items + 63) / 64 * 64, 1, c.batch),
                                cl::NDRange(64, 1, 1));
    queue_.enqueueReadBuffer(dst_buffer, CL_TRUE, 0, dst.size() * sizeof(float), dst.data());

    for (std::size_t i = 0; i < dst_offset; ++i) ASSERT_EQ(dst[i], sentinel) << "before, at " << i;
    for (int p = 0; p < c.batch; ++p) {
      const std::size_t from = c.table ? entries[p].b_offset : offset + stride * p;
      const bool read = !c.table || entries[p].alpha != 0.0f;
      const auto expected = expected_pack(c, read ? src.data() + from : nullptr);
      const float* got = dst.data() + dst_offset + per_product * p;
      for (std::size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(bits_of(got[i]), bits_of(expected[i]))
            << "product " << p << ", packed float " << i << ": " << got[i] << " expected "
            << expected[i];
      for (std::size_t i = expected.size(); i < per_product; ++i)
        ASSERT_EQ(got[i], sentinel) << "product " << p << " wrote past its blocks, at " << i;
    }
    for (std::size_t i = dst_offset + per_product * c.batch; i < dst.size(); ++i)
      ASSERT_EQ(dst[i], sentinel) << "after the last product, at " << i;
  }

  static cl::Context context_;
  static cl::Device device_;
  static cl::CommandQueue queue_;
};
cl::Context WgmmaPack::context_;
cl::Device WgmmaPack::device_;
cl::CommandQueue WgmmaPack::queue_;

TEST_F(WgmmaPack, TF32BothOrientationsAndEdges) {
  for (const bool along : {true, false}) {
    check({1, 1, 1, along, {64, 8, 1}, 1, false});
    check({70, 13, along ? 17 : 75, along, {64, 16, 1}, 2, false});
    check({129, 40, along ? 41 : 131, along, {128, 8, 1}, 1, false});
    check({64, 32, 32 + (along ? 0 : 32), along, {64, 32, 1}, 1, false});  // whole blocks
    // Blocks of 192 rows (B for tiles of 192 columns): a ragged last block, and whole ones.
    check({200, 19, along ? 19 : 203, along, {192, 16, 1}, 2, false});
    check({384, 16, 16 + (along ? 0 : 384), along, {192, 8, 1}, 1, false});
  }
}

TEST_F(WgmmaPack, ThreeTF32HighAndLowParts) {
  for (const bool along : {true, false}) {
    check({70, 13, along ? 16 : 71, along, {64, 16, 2}, 2, false});
    check({200, 33, along ? 33 : 200, along, {256, 32, 2}, 1, false});
  }
}

TEST_F(WgmmaPack, FragmentOrderForAInRegisters) {
  for (const bool along : {true, false}) {
    check({1, 1, 1, along, {128, 8, 1, true}, 1, false});
    check({200, 37, along ? 37 : 203, along, {128, 16, 1, true}, 2, false});
    check({257, 70, along ? 73 : 260, along, {256, 32, 2, true}, 1, false});
    check({256, 64, 64 + (along ? 0 : 192), along, {256, 16, 1, true}, 1, false});  // whole
  }
  check({33, 9, 40, false, {128, 16, 2, true}, 3, true});
}

TEST_F(WgmmaPack, PairedColumnsForAKernelReadingAAsStored) {
  for (const bool along : {true, false}) {
    check({1, 1, 1, along, {64, 8, 1, false, true}, 1, false});
    check({70, 13, along ? 17 : 75, along, {128, 24, 1, false, true}, 2, false});
    check({129, 37, along ? 41 : 131, along, {64, 32, 2, false, true}, 1, false});
    check({64, 32, 32 + (along ? 0 : 32), along, {64, 16, 1, false, true}, 1, false});  // whole
  }
  check({33, 9, 40, false, {128, 16, 2, false, true}, 3, true});
}

TEST_F(WgmmaPack, ProductTableAndAlphaZero) {
  check({33, 9, 9, true, {64, 16, 1}, 3, true});
  check({33, 9, 40, false, {128, 16, 2}, 3, true});
}

}  // namespace
}  // namespace clgemm::testing
