// Shared by the fuzz targets: the input as a file for readers that take a path, and the one
// rule for exceptions (malformed input is expected, anything else is a finding).
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "snarkd/util/error.hpp"

namespace snarkd::fuzz {

// Writes the input to <per-process dir in /dev/shm>/<name> (tmpfs: the write is a memcpy, so
// the reader's own file code is fuzzed at full speed) and returns the path. The directory is
// removed at exit; after a crash it stays, with the crashing input in it.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
    std::filesystem::path d = std::filesystem::path(base) / ("snarkd-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    static const std::filesystem::path to_remove = d;
    std::atexit([] { std::filesystem::remove_all(to_remove); });
    return d;
  }();
  const std::string path = (dir / name).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) std::abort();
  return path;
}

// True when the file at `path` holds exactly the bytes [data, data + size).
inline bool file_equals(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  std::string bytes(size + 1, '\0');
  const size_t got = std::fread(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return got == size && std::equal(data, data + size, bytes.begin(), [](uint8_t a, char b) { return a == uint8_t(b); });
}

// Runs the reader fn. The library's documented errors for bad input (DecodeError,
// InvalidArgument) give nullopt; anything else (std::bad_alloc, std::out_of_range, a stray
// std::runtime_error) escapes and libFuzzer reports it as a crash. Checks on what a reader
// accepted run outside, so an InvalidArgument from a writer fed the reader's output is a crash.
template <class Fn>
auto try_read(Fn&& fn) -> std::optional<decltype(fn())> {
  try {
    return fn();
  } catch (const DecodeError&) {
  } catch (const InvalidArgument&) {
  }
  return std::nullopt;
}

// A property of a successfully decoded value does not hold: a finding, with a message.
[[noreturn]] inline void violated(const char* what) {
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

}  // namespace snarkd::fuzz
