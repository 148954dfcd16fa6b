// A stand-in for libnvidia-ml.so.1 (the entry points GpuMonitor calls, as nvml.h declares
// them), so the monitor's whole path runs in CI without a driver: one GPU at PCI bus id
// 0000:17:00.0 whose utilisation goes up by one percent per query (a fresh sample is visible),
// power not supported (NVML_ERROR_NOT_SUPPORTED = 3), and nvmlInit failing with
// NVML_ERROR_DRIVER_NOT_LOADED (9) while SNARKD_FAKE_NVML_INIT_FAIL is set.
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {
int the_gpu;
std::atomic<unsigned> queries{0};
int copy(const char* text, char* out, unsigned n) {
  if (std::strlen(text) + 1 > n) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::strcpy(out, text);
  return 0;
}
}  // namespace

extern "C" {
struct FakeUtilization {
  unsigned gpu, memory;
};
struct FakeMemory {
  unsigned long long total, free, used;
};

int nvmlInit_v2() { return std::getenv("SNARKD_FAKE_NVML_INIT_FAIL") ? 9 : 0; }
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 3:
      return "Not Supported";
    case 6:
      return "Not Found";
    case 9:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}
int nvmlSystemGetDriverVersion(char* out, unsigned n) { return copy("999.1-fake", out, n); }
int nvmlDeviceGetHandleByPciBusId_v2(const char* bus, void** device) {
  if (std::strcmp(bus, "0000:17:00.0") != 0 && std::strcmp(bus, "00000000:17:00.0") != 0) return 6;
  *device = &the_gpu;
  return 0;
}
int nvmlDeviceGetName(void* d, char* out, unsigned n) { return d == &the_gpu ? copy("Fake H200", out, n) : 2; }
int nvmlDeviceGetUtilizationRates(void* d, FakeUtilization* u) {
  if (d != &the_gpu) return 2;
  u->gpu = queries.fetch_add(1) % 101;
  u->memory = 40;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* d, FakeMemory* m) {
  if (d != &the_gpu) return 2;
  m->total = 141ull << 30;
  m->used = 20ull << 30;
  m->free = m->total - m->used;
  return 0;
}
int nvmlDeviceGetTemperature(void* d, int sensor, unsigned* t) {
  if (d != &the_gpu || sensor != 0) return 2;
  *t = 55;
  return 0;
}
int nvmlDeviceGetPowerUsage(void*, unsigned*) { return 3; }
}
