// clgemm-ptx-rewrite IN OUT: applies the library's PTX rewrite to sm_90a (ptx_rewrite.hpp) to
// the PTX file IN and writes the result to OUT, so a check without an NVIDIA GPU can hand
// the rewritten PTX to ptxas (tests/wgmma_ptxas_check.cmake). Not installed.
#include <fstream>
#include <iostream>
#include <sstream>

#include "clgemm/errors.hpp"
#include "runtime/ptx_rewrite.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: clgemm-ptx-rewrite IN.ptx OUT.ptx\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "clgemm-ptx-rewrite: cannot read '" << argv[1] << "'\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    const auto out = clgemm::detail::rewrite_ptx(text.str(), clgemm::detail::PtxRewrite::Sm90a);
    std::ofstream file(argv[2], std::ios::binary);
    file << out.text;
    if (!file.flush()) {
      std::cerr << "clgemm-ptx-rewrite: cannot write '" << argv[2] << "'\n";
      return 2;
    }
    std::cout << "clgemm-ptx-rewrite: " << out.markers << " marked statements\n";
  } catch (const clgemm::Error& error) {
    std::cerr << "clgemm-ptx-rewrite: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
