#include "snarkd/util/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "snarkd/util/error.hpp"

namespace snarkd {

namespace {

// O_NONBLOCK open, then fstat: neither step waits on a FIFO without a writer. Returns the
// descriptor with its file type in *mode, or throws DecodeError naming the path.
int open_nonblocking(const std::string& path, mode_t* mode) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw DecodeError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw DecodeError(path + ": cannot read its file status");
  }
  *mode = st.st_mode;
  return fd;
}

}  // namespace

int open_regular_file(const std::string& path) {
  mode_t mode = 0;
  const int fd = open_nonblocking(path, &mode);
  const char* wrong = nullptr;
  if (S_ISDIR(mode))
    wrong = "is a directory, not a file";
  else if (!S_ISREG(mode))
    wrong = "is not a regular file (a FIFO, socket or device)";
  else if (const int flags = ::fcntl(fd, F_GETFL); flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    wrong = "cannot clear O_NONBLOCK";
  if (wrong) {
    ::close(fd);
    throw DecodeError(path + ": " + wrong);
  }
  return fd;
}

int open_file_or_fifo(const std::string& path, bool* is_fifo) {
  // stat, not a probing open: opening a FIFO's read end lets a writer's open return, and
  // closing it again before the real open would hand that writer EPIPE.
  struct stat st {};
  *is_fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  if (!*is_fifo) return open_regular_file(path);
  // Blocking: a FIFO opened O_NONBLOCK reads as end-of-file while no writer is connected, which
  // would look like an empty key.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DecodeError(path + ": cannot open: " + std::strerror(errno));
  // Best effort: a 1 MiB pipe (Linux's default limit for unprivileged callers) instead of
  // 64 KiB moved 2.9–3.3 GB/s instead of 1.5–1.7 on the dev VM (a 72.6 GB key: ≈ 24 s, not 45).
  (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  return fd;
}

std::string read_regular_file(const std::string& path) {
  const int fd = open_regular_file(path);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw DecodeError(path + ": read error: " + std::strerror(err));
    }
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return out;
}

void write_file(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error(path + ": write failed: " + std::strerror(err));
    }
    done += size_t(n);
  }
  if (::close(fd) != 0) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

}  // namespace snarkd
