// Opening files that users name: only regular files are read, unless a reader opts into named
// pipes (FileSource::kFileOrFifo). A directory or a FIFO passed where a file belongs gets its
// own message instead of an empty read or a reader that blocks forever on a FIFO without a
// writer (the open never waits: O_NONBLOCK, then fstat).
#pragma once
#include <string>
#include <string_view>

namespace snarkd {

// A read-only descriptor of the regular file at path (O_CLOEXEC, blocking mode restored), for
// the caller to close. Throws DecodeError "<path>: cannot open: <strerror>", "<path>: is a
// directory, not a file" or "<path>: is not a regular file (a FIFO, socket or device)".
int open_regular_file(const std::string& path);

// What a reader of user-named paths accepts: regular files only (a daemon's paths: a FIFO without
// a writer would block it), or also a named pipe (create_SRS: a key another process streams).
enum class FileSource { kRegularFile, kFileOrFifo };

// Whether path names a FIFO, by stat, not by a probing open: opening a FIFO's read end lets a
// waiting writer's open return, and closing it again would hand that writer EPIPE.
bool is_fifo(const std::string& path);

// The same for a reader that also takes a named pipe (a key streamed by another process, which
// never touches the disk): a regular file opens as above; a FIFO is reopened in blocking mode,
// so this waits until a writer opens the other end, and *fifo is set. Directories, sockets
// and devices are refused with open_regular_file's messages.
int open_file_or_fifo(const std::string& path, bool* fifo);

// The whole file, opened as above; read errors are DecodeError naming the path.
std::string read_regular_file(const std::string& path);

// Creates or truncates path and writes bytes; std::runtime_error "<path>: ..." on any error.
void write_file(const std::string& path, std::string_view bytes);

}  // namespace snarkd
