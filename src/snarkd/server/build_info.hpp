// What this binary is: Status (build), the snarkd_build_info metric and the start-up log line.
// The values are fixed when CMake configures the build (src/snarkd/server/CMakeLists.txt): the
// git commit is the checkout's then ("unknown" outside git, e.g. a source tarball), so a build
// that was not reconfigured after a commit reports the earlier one.
#pragma once
#include <string>

namespace snarkd::server {

struct BuildInfo {
  std::string version;     // the CMake project version
  std::string git_commit;  // abbreviated hash, "+dirty" when the tree had changes; or "unknown"
  bool cuda = false;                // built with the CUDA backend
  bool cuda_compile_check = false;  // SNARKD_CUDA_COMPILE_CHECK: PTX at -O0, not for GPU timings
};

const BuildInfo& build_info();

}  // namespace snarkd::server
