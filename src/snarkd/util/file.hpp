// Opening files that users name: only regular files are read. A directory or a FIFO passed
// where a file belongs gets its own message instead of an empty read or a reader that blocks
// forever on a FIFO without a writer (the open never waits: O_NONBLOCK, then fstat).
#pragma once
#include <string>
#include <string_view>

namespace snarkd {

// A read-only descriptor of the regular file at path (O_CLOEXEC, blocking mode restored), for
// the caller to close. Throws DecodeError "<path>: cannot open: <strerror>", "<path>: is a
// directory, not a file" or "<path>: is not a regular file (a FIFO, socket or device)".
int open_regular_file(const std::string& path);

// The whole file, opened as above; read errors are DecodeError naming the path.
std::string read_regular_file(const std::string& path);

// Creates or truncates path and writes bytes; std::runtime_error "<path>: ..." on any error.
void write_file(const std::string& path, std::string_view bytes);

}  // namespace snarkd
