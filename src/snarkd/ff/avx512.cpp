#include "snarkd/ff/fr_avx512.hpp"

namespace snarkd::ff::avx512 {

bool ifma_supported() {
#ifdef SNARKD_HAVE_AVX512_IFMA_CODE
  static const bool ok = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512ifma");
  }();
  return ok;
#else
  return false;
#endif
}

}  // namespace snarkd::ff::avx512
