#include "snarkd/server/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace snarkd::server {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

std::optional<std::string> real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (!::realpath(p.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<Fd> open_regular_file(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) return std::nullopt;
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  // Reads of a regular file never block on O_NONBLOCK; clear it so readers see plain semantics.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) return std::nullopt;
  return fd;
}

std::optional<std::string> resolve_under(const std::string& path, const std::vector<std::string>& dirs) {
  if (path.empty() || path[0] != '/' || path.size() >= PATH_MAX) return std::nullopt;
  const std::optional<std::string> real = real_path(path);
  if (!real) return std::nullopt;
  for (const std::string& d : dirs) {
    const std::optional<std::string> root = real_path(d);
    if (!root) continue;
    const std::string prefix = *root == "/" ? "/" : *root + "/";
    if (real->size() > prefix.size() && real->compare(0, prefix.size(), prefix) == 0) return real;
  }
  return std::nullopt;
}

std::optional<OpenedFile> open_under(const std::string& path, const std::vector<std::string>& dirs) {
  std::optional<std::string> real = resolve_under(path, dirs);
  if (!real) return std::nullopt;
  std::optional<Fd> fd = open_regular_file(*real);
  if (!fd) return std::nullopt;
  return OpenedFile{std::move(*fd), std::move(*real)};
}

void make_private_dir(const std::string& path) {
  std::filesystem::path p(path);
  std::filesystem::path built;
  for (const auto& part : p) {
    built /= part;
    const std::string s = built.string();
    if (::mkdir(s.c_str(), 0700) == 0) {
      if (::chmod(s.c_str(), 0700) != 0) fail("cannot chmod", s);
    } else if (errno != EEXIST) {
      fail("cannot create", s);
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) fail("cannot stat", path);
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(path + " exists and is not a directory");
  if ((st.st_mode & 07777) != 0700 && ::chmod(path.c_str(), 0700) != 0) fail("cannot chmod", path);
}

void write_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
  const std::string tmp = path + ".tmp";
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd) fail("cannot create", tmp);
  if (::fchmod(fd.get(), mode) != 0) fail("cannot chmod", tmp);
  for (size_t off = 0; off < content.size();) {
    const ssize_t n = ::write(fd.get(), content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", tmp);
    off += size_t(n);
  }
  if (::fsync(fd.get()) != 0) fail("cannot fsync", tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename " + tmp + " to", path);
}

void ensure_file_mode(const std::string& path, mode_t mode) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd) fail("cannot open", path);
  if (::fchmod(fd.get(), mode) != 0) fail("cannot chmod", path);
}

}  // namespace snarkd::server
