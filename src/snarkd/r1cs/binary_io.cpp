#include "snarkd/r1cs/binary_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "snarkd/util/error.hpp"
#include "snarkd/util/file.hpp"

namespace snarkd::r1cs::io {

FileReader::FileReader(std::string path, FileSource source) : path_(std::move(path)) {
  // A directory or (unless asked for) a FIFO gets its own message instead of blocking.
  bool fifo = false;
  const int fd = source == FileSource::kFileOrFifo ? open_file_or_fifo(path_, &fifo) : open_regular_file(path_);
  file_ = fdopen(fd, "rb");
  if (!file_) {
    ::close(fd);
    fail(std::string("cannot open: ") + std::strerror(errno));
  }
  if (fifo) {
    sized_ = false;
    size_ = std::numeric_limits<uint64_t>::max();
    return;
  }
  off_t end = -1;
  if (fseeko(file_, 0, SEEK_END) == 0) end = ftello(file_);
  if (end < 0 || fseeko(file_, 0, SEEK_SET) != 0) {
    std::fclose(file_);  // the destructor does not run when the constructor throws
    file_ = nullptr;
    fail("cannot determine the file size");
  }
  size_ = uint64_t(end);
}

FileReader::~FileReader() {
  if (file_) std::fclose(file_);
}

void FileReader::fail(const std::string& message) const { throw DecodeError(path_ + ": " + message); }

bool FileReader::at_end() {
  if (sized_) return pos_ == size_;
  const int c = std::fgetc(file_);
  if (c == EOF) return true;
  std::ungetc(c, file_);
  return false;
}

void FileReader::seek(uint64_t pos) {
  if (!sized_) fail("cannot seek in a pipe");
  if (pos > size_) fail("seek to " + std::to_string(pos) + " past the end (" + std::to_string(size_) + ")");
  if (fseeko(file_, off_t(pos), SEEK_SET) != 0) fail("cannot seek");
  pos_ = pos;
}

void FileReader::read(void* dst, uint64_t n, std::string_view field) {
  if (n > remaining()) fail("truncated in " + std::string(field));
  if (n && std::fread(dst, 1, n, file_) != n)
    fail((std::feof(file_) ? "truncated in " : "read error in ") + std::string(field));
  pos_ += n;
}

uint32_t FileReader::u32(std::string_view field) {
  uint32_t v;
  read(&v, 4, field);
  return v;
}

uint64_t FileReader::u64(std::string_view field) {
  uint64_t v;
  read(&v, 8, field);
  return v;
}

std::vector<uint8_t> FileReader::read_block(uint64_t offset, uint64_t n, std::string_view field) {
  if (offset > size_ || n > size_ - offset) fail("truncated in " + std::string(field));
  seek(offset);
  std::vector<uint8_t> out(n);
  read(out.data(), n, field);
  return out;
}

const uint8_t* ByteCursor::take(uint64_t n, std::string_view field) {
  if (n > remaining()) fail("truncated in " + std::string(field));
  const uint8_t* p = data_.data() + pos_;
  pos_ += n;
  return p;
}

void ByteCursor::seek(uint64_t pos) {
  if (pos > data_.size())
    fail("seek to " + std::to_string(pos) + " past the end (" + std::to_string(data_.size()) + ")");
  pos_ = pos;
}

void ByteCursor::read(void* dst, uint64_t n, std::string_view field) {
  const uint8_t* p = take(n, field);
  if (n) std::memcpy(dst, p, n);
}

uint32_t ByteCursor::u32(std::string_view field) {
  uint32_t v;
  std::memcpy(&v, take(4, field), 4);
  return v;
}

uint64_t ByteCursor::u64(std::string_view field) {
  uint64_t v;
  std::memcpy(&v, take(8, field), 8);
  return v;
}

void ByteCursor::fail(const std::string& message) const { throw DecodeError(path_ + ": " + message); }

FileWriter::FileWriter(std::string path) : path_(std::move(path)) {
  file_ = std::fopen(path_.c_str(), "wb");
  if (!file_) fail(std::string("cannot create: ") + std::strerror(errno));
}

FileWriter::~FileWriter() {
  if (file_) std::fclose(file_);  // only reached after an error; close() reports normal ones
}

void FileWriter::fail(const std::string& what) const { throw std::runtime_error(path_ + ": " + what); }

void FileWriter::write(const void* src, uint64_t n) {
  if (n && std::fwrite(src, 1, n, file_) != n) fail(std::string("write failed: ") + std::strerror(errno));
  pos_ += n;
}

void FileWriter::seek(uint64_t pos) {
  if (fseeko(file_, off_t(pos), SEEK_SET) != 0) fail("cannot seek");
  pos_ = pos;
}

void FileWriter::close() {
  std::FILE* f = file_;
  file_ = nullptr;
  if (!f) fail("already closed");
  if (std::fclose(f) != 0) fail(std::string("close failed: ") + std::strerror(errno));
}

}  // namespace snarkd::r1cs::io
