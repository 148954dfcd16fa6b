// The CLI's file-kind detection (apps/snarkd/file_kind.hpp) and the readers it dispatches to
// (apps/snarkd/loaders.hpp). Byte 0 (mod 4) picks what the file is asked to be: a verifying key,
// a proof, public inputs or a circuit; the rest is the file. Detection never throws on bytes and
// agrees between its two forms; a loader either reads the file or refuses it with a DecodeError
// naming it.
#include <cstddef>
#include <cstdint>
#include <span>

#include "file_kind.hpp"
#include "fuzz_common.hpp"
#include "loaders.hpp"

using namespace snarkd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> file(data + 1, size - 1);
  const std::string path = fuzz::write_input(file.data(), file.size(), "input.file");
  const cli::FileKind k = cli::detect_file_kind(file.first(std::min<size_t>(file.size(), 868)), file.size());
  if (cli::detect_file_kind(path) != k) fuzz::violated("detection from bytes and from the file differ");
  switch (data[0] % 4) {
    case 0: fuzz::try_read([&] { return cli::load_vk(path); }); break;
    case 1: fuzz::try_read([&] { return cli::load_proofs(path); }); break;
    case 2: fuzz::try_read([&] { return cli::load_publics(path); }); break;
    default: fuzz::try_read([&] { return cli::load_circuit(path); });
  }
  return 0;
}
