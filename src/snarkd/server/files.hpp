// The daemon's file-system rules in one place:
//   - what a client names (PreloadKey's key files, Submit's witness paths) is opened only if it
//     resolves (realpath) under a configured directory and is a regular file, opened without
//     blocking (a FIFO or a device is refused, never waited on); every way of failing gives the
//     same answer, so a client cannot probe what exists outside those directories;
//   - what the daemon creates holds private inputs (witnesses, the journal) or says where it
//     listens: directories 0700 and files 0600 whatever the umask; logs 0640.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snarkd::server {

// An owned file descriptor (closed on destruction).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

// path opened read-only (O_NONBLOCK: a FIFO or device does not block the open) if it is a
// regular file; nullopt when it is missing, unreadable or anything but a regular file.
std::optional<Fd> open_regular_file(const std::string& path);

// The canonical path of `path` (absolute, symlinks and .. resolved) if it lies strictly below
// one of `dirs` (themselves resolved; a directory that does not exist matches nothing).
std::optional<std::string> resolve_under(const std::string& path, const std::vector<std::string>& dirs);

// A client-named file: `path` resolved under `dirs` and opened as a regular file. Returns the
// open file and its canonical path, or nullopt for every failure (outside, missing, not a
// regular file, unreadable) alike.
struct OpenedFile {
  Fd fd;
  std::string real_path;
};
std::optional<OpenedFile> open_under(const std::string& path, const std::vector<std::string>& dirs);

// Creates `path` and its missing parents with mode 0700 (chmod'ed, so the umask cannot widen or
// narrow it); an existing `path` gets 0700 too (the daemon owns its state directories). Throws
// std::runtime_error naming the path.
void make_private_dir(const std::string& path);

// Creates (or truncates) `path` with exactly `mode` (fchmod after open: the umask does not
// apply), writes `content`, fsyncs, and renames it into place via `path`.tmp. Throws naming the
// path.
void write_file_atomically(const std::string& path, std::string_view content, mode_t mode);

// Creates `path` if missing and sets its mode to exactly `mode` (an existing file is tightened
// or widened to it). Throws naming the path.
void ensure_file_mode(const std::string& path, mode_t mode);

}  // namespace snarkd::server
