// Little-endian binary files with errors that name the file and the field. Used by the CSR and
// circom readers/writers; every read is bounds-checked, so a reader can only allocate after it
// has compared a count with the bytes actually present.
#pragma once
#include <bit>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snarkd/util/file.hpp"

namespace snarkd::r1cs::io {

// Arrays are read and written as raw memory, which is the file's byte order only here.
static_assert(std::endian::native == std::endian::little, "file formats are little-endian");

// Streaming reader over a file of known size, or (FileSource::kFileOrFifo) over a named pipe, whose
// size is unknown until its writer closes it. Errors: DecodeError("<path>: <message>").
class FileReader {
 public:
  explicit FileReader(std::string path, FileSource source = FileSource::kRegularFile);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  const std::string& path() const { return path_; }
  // A pipe's size is unknown: size() and remaining() are then an upper bound (UINT64_MAX), so
  // a count is checked against the bytes present only when sized(); readers of pipes allocate
  // as bytes arrive instead, and truncation shows as "truncated in <field>".
  bool sized() const { return sized_; }
  uint64_t size() const { return size_; }
  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return size_ - pos_; }
  bool at_end();            // no byte left (a pipe: its writer closed it)
  void seek(uint64_t pos);  // a pipe: DecodeError "cannot seek in a pipe"

  // Reads n bytes or throws "<path>: truncated in <field>".
  void read(void* dst, uint64_t n, std::string_view field);
  uint32_t u32(std::string_view field);
  uint64_t u64(std::string_view field);
  // The bytes [offset, offset + n) into memory (bounds-checked against the file size).
  std::vector<uint8_t> read_block(uint64_t offset, uint64_t n, std::string_view field);

  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
  uint64_t pos_ = 0;
  bool sized_ = true;
};

// Reader over bytes already in memory (a whole file, or one section of it); errors name `path`.
class ByteCursor {
 public:
  ByteCursor(std::span<const uint8_t> data, std::string path) : data_(data), path_(std::move(path)) {}

  uint64_t size() const { return data_.size(); }
  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return data_.size() - pos_; }
  void seek(uint64_t pos);
  // Pointer to the next n bytes, or throws "<path>: truncated in <field>".
  const uint8_t* take(uint64_t n, std::string_view field);
  // FileReader's interface, so a container walk serves files and bytes alike.
  void read(void* dst, uint64_t n, std::string_view field);
  uint32_t u32(std::string_view field);
  uint64_t u64(std::string_view field);

  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::span<const uint8_t> data_;
  uint64_t pos_ = 0;
  std::string path_;
};

// Buffered writer; errors throw std::runtime_error("<path>: ...").
class FileWriter {
 public:
  explicit FileWriter(std::string path);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(const void* src, uint64_t n);
  void u32(uint32_t v) { write(&v, 4); }
  void u64(uint64_t v) { write(&v, 8); }
  uint64_t position() const { return pos_; }
  void seek(uint64_t pos);  // to patch a size written earlier
  void close();             // flushes and reports any error

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t pos_ = 0;
};

}  // namespace snarkd::r1cs::io
