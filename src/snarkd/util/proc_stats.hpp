// The process's resident memory, read from /proc/self/status (Linux), for the bench's tables
// and the server's metrics.
#pragma once
#include <cstdint>

namespace snarkd {

// Peak resident set size ("VmHWM", high-water mark) in bytes; 0 if /proc is unreadable.
uint64_t peak_rss_bytes();

// Current resident set size ("VmRSS") in bytes; 0 if /proc is unreadable.
uint64_t current_rss_bytes();

}  // namespace snarkd
