// A named pipe that a thread fills with given bytes: the writer's open blocks until a reader
// opens the other end, as when another process streams a key. SIGPIPE is ignored process-wide
// (a reader that stops early then costs the writer an EPIPE, not the test binary its life).
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace snarkd::test {

// Lets a writer that waits to open the FIFO at path (its reader refused the pipe or never came),
// or that is blocked on a full pipe, through until it sets `done`: each round opens and closes
// the read end, so its open returns and its writes fail with EPIPE. Repeated, since the writer
// may not have reached its open yet.
inline void release_fifo_writer(const std::string& path, const std::atomic<bool>& done) {
  while (!done) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (fd >= 0) ::close(fd);
  }
}

class FifoWriter {
 public:
  FifoWriter(std::string path, std::vector<uint8_t> bytes) : path_(std::move(path)) {
    std::signal(SIGPIPE, SIG_IGN);
    ::unlink(path_.c_str());
    if (::mkfifo(path_.c_str(), 0600) != 0)
      throw std::runtime_error(path_ + ": mkfifo: " + std::strerror(errno));
    thread_ = std::thread([this, b = std::move(bytes)] {
      const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) {
        done_ = true;
        return;
      }
      while (written_ < b.size()) {
        const ssize_t n = ::write(fd, b.data() + written_, b.size() - written_);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written_ += size_t(n);
      }
      ::close(fd);
      done_ = true;
    });
  }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;
  ~FifoWriter() {
    unblock();
    if (thread_.joinable()) thread_.join();
    ::unlink(path_.c_str());
  }

  const std::string& path() const { return path_; }
  // Waits for the writer (a reader that never opened the pipe lets it wait 10 s, then unblocks
  // it, so a test fails instead of hanging); the bytes it got into the pipe.
  size_t join() {
    for (int ms = 0; !done_ && ms < 10000; ++ms) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    unblock();
    if (thread_.joinable()) thread_.join();
    return written_;
  }

 private:
  void unblock() {
    if (thread_.joinable()) release_fifo_writer(path_, done_);
  }

  std::string path_;
  size_t written_ = 0;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace snarkd::test
