#include "snarkd/server/spool.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace snarkd::server {

namespace {

// A spool file written with write(2); close() starts its writeback (sync_file_range WRITE: the
// disk works while the RPC thread decodes the witness) so that the journal's fsync of it at
// commit (Journal::commit_spool) has less left to wait for — measured on the dev VM, the two
// fsyncs of a 2-partition job's 2 MiB files took ≈ 10 ms of its first Submit's ≈ 40 ms.
class SpoolWriter {
 public:
  explicit SpoolWriter(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd_ < 0) throw std::runtime_error("spool: cannot create " + path_ + ": " + std::strerror(errno));
    ::fchmod(fd_, 0600);  // private inputs: whatever the umask
  }
  ~SpoolWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;

  void write(const char* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        throw std::runtime_error("spool: cannot write " + path_ + ": " + std::strerror(errno) + " (disk full?)");
      p += w;
      n -= size_t(w);
    }
  }
  void close() {
    ::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint: the fsync at commit is the guarantee
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) throw std::runtime_error("spool: cannot write " + path_ + ": " + std::strerror(errno));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

void spool_write(const std::string& path, std::string_view bytes) {
  SpoolWriter out(path);
  out.write(bytes.data(), bytes.size());
  out.close();
}

std::string spool_copy(int src_fd, const std::string& src_label, const std::string& path, Sha256& h) {
  SpoolWriter out(path);
  std::vector<char> buf(1 << 20);
  std::string head;
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(src_fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("cannot read " + src_label + ": " + std::strerror(errno));
    if (n == 0) break;
    if (head.size() < 8) head.append(buf.data(), std::min<size_t>(size_t(n), 8 - head.size()));
    h.update(buf.data(), size_t(n));
    out.write(buf.data(), size_t(n));
    total += uint64_t(n);
  }
  out.close();
  h.update_u64(total);
  return head;
}

}  // namespace snarkd::server
