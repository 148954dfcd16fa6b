#include "snarkd/util/proc_stats.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace snarkd {
namespace {

// The value of the "<key>:" line of /proc/self/status, which the kernel prints in kB
// ("VmRSS:\t   12345 kB"). 0 when the file or the line is missing or malformed.
uint64_t proc_status_kib(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  const size_t key_len = std::strlen(key);
  uint64_t kib = 0;
  char line[256];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, key_len) != 0 || line[key_len] != ':') continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(line + key_len + 1, &end, 10);
    if (end != line + key_len + 1 && std::strstr(end, "kB") != nullptr) kib = v;
    break;
  }
  std::fclose(f);
  return kib;
}

}  // namespace

uint64_t peak_rss_bytes() { return proc_status_kib("VmHWM") * 1024; }

uint64_t current_rss_bytes() { return proc_status_kib("VmRSS") * 1024; }

}  // namespace snarkd
