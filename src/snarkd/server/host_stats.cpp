#include "snarkd/server/host_stats.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace snarkd::server {
namespace {

std::string slurp(const char* path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

uint64_t leading_u64(std::string_view s) {
  s = trim_left(s);
  uint64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// The value after "key:" on the line that starts with it ("" when absent).
std::string_view line_value(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':')
      return line.substr(key.size() + 1);
    pos = end + 1;
  }
  return {};
}

uint64_t count_open_fds() {
  std::error_code ec;
  uint64_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n > 0 ? n - 1 : 0;  // less the descriptor the iteration itself holds open
}

}  // namespace

uint64_t parse_status_kib(std::string_view text, std::string_view key) {
  return leading_u64(line_value(text, key)) * 1024;
}

HostMemory parse_meminfo(std::string_view text) {
  return {parse_status_kib(text, "MemTotal"), parse_status_kib(text, "MemAvailable")};
}

double parse_boot_time(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    if (line.substr(0, 6) == "btime ") return double(leading_u64(line.substr(6)));
    pos = end + 1;
  }
  return 0;
}

// proc(5): "pid (comm) state ppid …"; comm may hold spaces and parentheses, so the fields are
// counted from the last ')'. 1-based field numbers: 14 utime, 15 stime, 20 num_threads,
// 22 starttime (ticks after boot), 23 vsize (bytes), 24 rss (pages).
bool parse_proc_stat(std::string_view text, double ticks_per_s, uint64_t page_bytes, double boot_unix_s,
                     ProcessStats& out) {
  const size_t close = text.rfind(')');
  if (close == std::string_view::npos || ticks_per_s <= 0) return false;
  std::vector<std::string_view> f;  // f[0] is field 3 (state)
  std::string_view rest = text.substr(close + 1);
  while (!(rest = trim_left(rest)).empty() && rest.front() != '\n') {
    const size_t end = std::min(rest.find_first_of(" \n"), rest.size());
    f.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  if (f.size() < 22) return false;
  auto field = [&](int n) { return leading_u64(f[size_t(n - 3)]); };
  out.cpu_seconds = double(field(14) + field(15)) / ticks_per_s;
  out.threads = uint32_t(field(20));
  out.start_time_unix_s = boot_unix_s > 0 ? boot_unix_s + double(field(22)) / ticks_per_s : 0;
  out.virtual_bytes = field(23);
  out.resident_bytes = field(24) * page_bytes;
  return true;
}

HostMemory read_host_memory() { return parse_meminfo(slurp("/proc/meminfo")); }

ProcessStats read_process_stats() {
  ProcessStats p;
  const long ticks = ::sysconf(_SC_CLK_TCK), page = ::sysconf(_SC_PAGESIZE);
  parse_proc_stat(slurp("/proc/self/stat"), ticks > 0 ? double(ticks) : 0, page > 0 ? uint64_t(page) : 4096,
                  parse_boot_time(slurp("/proc/stat")), p);
  const std::string status = slurp("/proc/self/status");
  if (const uint64_t rss = parse_status_kib(status, "VmRSS")) p.resident_bytes = rss;
  p.peak_resident_bytes = parse_status_kib(status, "VmHWM");
  p.open_fds = count_open_fds();
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) p.max_fds = uint64_t(lim.rlim_cur);
  return p;
}

}  // namespace snarkd::server
