#include "snarkd/server/build_info.hpp"

#ifndef SNARKD_VERSION
#define SNARKD_VERSION "dev"
#endif
#ifndef SNARKD_GIT_COMMIT
#define SNARKD_GIT_COMMIT "unknown"
#endif
#ifndef SNARKD_BUILD_CUDA
#define SNARKD_BUILD_CUDA 0
#endif
#ifndef SNARKD_BUILD_COMPILE_CHECK
#define SNARKD_BUILD_COMPILE_CHECK 0
#endif

namespace snarkd::server {

const BuildInfo& build_info() {
  static const BuildInfo info{SNARKD_VERSION, SNARKD_GIT_COMMIT, SNARKD_BUILD_CUDA != 0,
                              SNARKD_BUILD_COMPILE_CHECK != 0};
  return info;
}

}  // namespace snarkd::server
