#include "snarkd/engine/devices.hpp"

#include <charconv>

#include "snarkd/engine/cpu_device.hpp"
#include "snarkd/util/error.hpp"

#ifdef SNARKD_ENGINE_CUDA
#include "snarkd/engine/cuda_device.hpp"
#endif

namespace snarkd::engine {

namespace {

uint32_t parse_index(const std::string& spec, std::string_view s) {
  uint32_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    throw InvalidArgument("device spec '" + spec + "': '" + std::string(s) + "' is not a device number");
  return v;
}

std::vector<uint32_t> parse_list(const std::string& spec, std::string_view list) {
  std::vector<uint32_t> v;
  size_t start = 0;
  for (;;) {
    const size_t comma = list.find(',', start);
    v.push_back(parse_index(spec, list.substr(start, comma - start)));
    if (comma == std::string_view::npos) return v;
    start = comma + 1;
  }
}

// The GPU ordinals of a "cuda:…" spec, checked against the visible devices.
std::vector<uint32_t> cuda_ids(const std::string& spec) {
#ifdef SNARKD_ENGINE_CUDA
  const int count = CudaDevice::count();
  std::vector<uint32_t> ids;
  if (spec == "cuda:all") {
    for (int d = 0; d < count; ++d) ids.push_back(uint32_t(d));
  } else {
    ids = parse_list(spec, std::string_view(spec).substr(5));
  }
  if (ids.empty()) throw InvalidArgument("device spec '" + spec + "': no GPU is visible");
  for (uint32_t id : ids)
    if (int(id) >= count)
      throw InvalidArgument("device spec '" + spec + "': GPU " + std::to_string(id) + " does not exist (" +
                            std::to_string(count) + " visible)");
  return ids;
#else
  (void)parse_list;
  throw InvalidArgument("device spec '" + spec + "': this build has no CUDA backend");
#endif
}

// K of "sim" / "sim:K".
uint32_t sim_count(const std::string& spec) {
  const uint32_t n = spec == "sim" ? 1 : parse_index(spec, std::string_view(spec).substr(4));
  if (n == 0 || n > 64) throw InvalidArgument("device spec '" + spec + "': 1 to 64 simulated devices");
  return n;
}

bool is_sim(const std::string& spec) { return spec == "sim" || spec.rfind("sim:", 0) == 0; }

void check_family(const std::string& spec) {
  if (spec != "cpu" && !is_sim(spec) && spec.rfind("cuda:", 0) != 0)
    throw InvalidArgument("device spec '" + spec + "': expected cpu, sim, sim:K, cuda:N, cuda:N,M… or cuda:all");
}

}  // namespace

std::vector<std::string> device_list(const std::string& spec) {
  check_family(spec);
  std::vector<std::string> out;
  if (spec == "cpu") return {"cpu"};
  if (is_sim(spec)) {
    for (uint32_t d = 0, n = sim_count(spec); d < n; ++d) out.push_back("sim:" + std::to_string(d));
    return out;
  }
  for (uint32_t id : cuda_ids(spec)) out.push_back("cuda:" + std::to_string(id));
  return out;
}

std::string first_devices(const std::string& spec, uint32_t k) {
  const std::vector<std::string> all = device_list(spec);
  if (k == 0 || k > all.size())
    throw InvalidArgument("device spec '" + spec + "' has " + std::to_string(all.size()) + " devices, not " +
                          std::to_string(k));
  if (spec == "cpu") return spec;
  if (is_sim(spec)) return "sim:" + std::to_string(k);
  std::string out = "cuda:";
  for (uint32_t d = 0; d < k; ++d) {
    if (d) out += ',';
    out.append(all[d], 5);  // the ordinal after "cuda:"
  }
  return out;
}

int cuda_device_count() {
#ifdef SNARKD_ENGINE_CUDA
  return CudaDevice::count();
#else
  return 0;
#endif
}

std::shared_ptr<const void> keep_host_key_pinned(const CircuitEntry& c) {
#ifdef SNARKD_ENGINE_CUDA
  return CudaDevice::host_key(c);
#else
  (void)c;
  return nullptr;
#endif
}

uint64_t cuda_memory_used(uint32_t ordinal) {
#ifdef SNARKD_ENGINE_CUDA
  return CudaDevice::memory_used(ordinal);
#else
  (void)ordinal;
  return 0;
#endif
}

void cuda_profile(bool on) {
#ifdef SNARKD_ENGINE_CUDA
  CudaDevice::profile(on);
#else
  (void)on;
#endif
}

std::vector<std::unique_ptr<Device>> make_devices(const std::string& spec, const DeviceOptions& opt) {
  check_family(spec);
  std::vector<std::unique_ptr<Device>> out;
  if (is_sim(spec)) {
    for (uint32_t d = 0, n = sim_count(spec); d < n; ++d) {
      SimDeviceConfig c = opt.sim;
      c.index = d;
      c.vram_bytes = opt.vram_bytes ? opt.vram_bytes : uint64_t{1} << 30;
      out.push_back(std::make_unique<SimDevice>(c));
    }
    return out;
  }
  if (spec == "cpu") {
    out.push_back(std::make_unique<CpuDevice>(0, opt.vram_bytes ? opt.vram_bytes : uint64_t{16} << 30));
    return out;
  }
#ifdef SNARKD_ENGINE_CUDA
  for (uint32_t id : cuda_ids(spec)) out.push_back(std::make_unique<CudaDevice>(id, opt.vram_bytes));
#else
  cuda_ids(spec);  // throws: no CUDA backend
#endif
  return out;
}

}  // namespace snarkd::engine
