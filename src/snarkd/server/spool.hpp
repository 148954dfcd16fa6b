// The witness spool's file I/O (the journal owns its directories: journal.hpp): one partition's
// witness written from the received bytes, or copied from a witness file the client named, into
// a submission's staging directory — files 0600, written with write(2) and their writeback
// started at close (sync_file_range), so the journal's fsync at commit has less left to wait for.
#pragma once
#include <string>
#include <string_view>

#include "snarkd/server/digest.hpp"

namespace snarkd::server {

// Writes `bytes` to `path` (created 0600, truncated). Throws std::runtime_error naming the path
// (disk full, I/O error).
void spool_write(const std::string& path, std::string_view bytes);

// Copies the open regular file `src_fd` (read from its current offset to its end) to `path`
// (created 0600), hashing the bytes into h and then their count; returns the first 8 bytes
// (format detection). Throws std::runtime_error naming `path` (or `src_label` for read errors).
std::string spool_copy(int src_fd, const std::string& src_label, const std::string& path, Sha256& h);

}  // namespace snarkd::server
