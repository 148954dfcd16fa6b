// The host's memory and this process's resources, read from Linux's /proc (proc(5)) for Status
// and for the process_* metrics every Prometheus client library exports
// (https://prometheus.io/docs/instrumenting/writing_clientlibs/#process-metrics): CPU seconds,
// resident and virtual memory, open and maximum file descriptors, start time.
//
// Best effort: a file that cannot be read or parsed leaves its fields 0 (a container may hide
// parts of /proc); nothing here throws. The parsers take the file's text, so tests feed them
// fixed inputs.
#pragma once
#include <cstdint>
#include <string_view>

namespace snarkd::server {

struct HostMemory {
  uint64_t total_bytes = 0;      // MemTotal
  uint64_t available_bytes = 0;  // MemAvailable: what new allocations can get without swapping
};

struct ProcessStats {
  double cpu_seconds = 0;  // user + system
  uint64_t resident_bytes = 0, peak_resident_bytes = 0, virtual_bytes = 0;
  uint64_t open_fds = 0, max_fds = 0;
  uint32_t threads = 0;
  double start_time_unix_s = 0;
};

HostMemory read_host_memory();
ProcessStats read_process_stats();

// /proc/meminfo's text.
HostMemory parse_meminfo(std::string_view text);
// A "Key:   N kB" line of /proc/self/status (VmRSS, VmHWM) in bytes; 0 when absent.
uint64_t parse_status_kib(std::string_view text, std::string_view key);
// /proc/self/stat's text into cpu_seconds, threads, virtual_bytes, resident_bytes and
// start_time_unix_s, given the clock ticks per second, the page size and the boot time (unix s,
// /proc/stat's btime). False when the line does not parse (the fields are left as they were).
bool parse_proc_stat(std::string_view text, double ticks_per_s, uint64_t page_bytes, double boot_unix_s,
                     ProcessStats& out);
// /proc/stat's "btime N" (boot time, unix seconds); 0 when absent.
double parse_boot_time(std::string_view text);

}  // namespace snarkd::server
