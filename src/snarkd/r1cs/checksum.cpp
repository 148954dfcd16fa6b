#include "snarkd/r1cs/checksum.hpp"

// Inline (xxHash's header-only mode): no link dependency for this library or its static archive.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace snarkd::r1cs {

uint64_t checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

}  // namespace snarkd::r1cs
