// Point decoders (ec/encoding.hpp). Byte 0 picks the decoder, the rest is its input. A decoded
// point must re-encode to the very same bytes (every accepted encoding is canonical), and a
// checked decoder's point must be on the curve.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz_common.hpp"
#include "snarkd/ec/encoding.hpp"

namespace {

using namespace snarkd::ec;

template <class Point, size_t N>
void round_trip(std::span<const uint8_t> in, Point (*decode)(std::span<const uint8_t>),
                std::array<uint8_t, N> (*encode)(const Point&), bool checked) {
  const auto p = snarkd::fuzz::try_read([&] { return decode(in); });
  if (!p) return;
  const auto again = encode(*p);
  if (in.size() != N || !std::equal(again.begin(), again.end(), in.begin()))
    snarkd::fuzz::violated("decoded point does not re-encode to its input");
  if (checked && !p->is_on_curve()) snarkd::fuzz::violated("checked decoder returned a point off the curve");
}

// decode_many rethrows a worker thread's error on the caller: fuzz that path too.
template <class Point, size_t N>
void many(std::span<const uint8_t> in, Point (*decode)(std::span<const uint8_t>),
          std::array<uint8_t, N> (*encode)(const Point&)) {
  const auto ps = snarkd::fuzz::try_read([&] { return decode_many(in, N, decode); });
  if (!ps) return;
  if (ps->size() * N != in.size()) snarkd::fuzz::violated("decode_many returned the wrong count");
  for (size_t i = 0; i < ps->size(); ++i) {
    const auto again = encode((*ps)[i]);
    if (!std::equal(again.begin(), again.end(), in.begin() + i * N))
      snarkd::fuzz::violated("decode_many point does not re-encode to its input");
  }
}

// Selector values; scripts/fuzz.sh writes the curve-vector seeds with them.
void dispatch(uint8_t selector, std::span<const uint8_t> in) {
  switch (selector % 14) {
    case 0: return round_trip(in, decode_g1_compressed, encode_g1_compressed, true);
    case 1: return round_trip(in, decode_g1_uncompressed, encode_g1_uncompressed, true);
    case 2: return round_trip(in, decode_g1_lem, encode_g1_lem, true);
    case 3: return round_trip(in, decode_g2_compressed, encode_g2_compressed, true);
    case 4: return round_trip(in, decode_g2_uncompressed, encode_g2_uncompressed, true);
    case 5: return round_trip(in, decode_g2_lem, encode_g2_lem, true);
    case 6: return round_trip(in, decode_g1_compressed_unchecked, encode_g1_compressed, false);
    case 7: return round_trip(in, decode_g1_uncompressed_unchecked, encode_g1_uncompressed, false);
    case 8: return round_trip(in, decode_g1_lem_unchecked, encode_g1_lem, false);
    case 9: return round_trip(in, decode_g2_compressed_unchecked, encode_g2_compressed, false);
    case 10: return round_trip(in, decode_g2_uncompressed_unchecked, encode_g2_uncompressed, false);
    case 11: return round_trip(in, decode_g2_lem_unchecked, encode_g2_lem, false);
    case 12: return many(in, decode_g1_compressed, encode_g1_compressed);
    default: return many(in, decode_g2_lem_unchecked, encode_g2_lem);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0) dispatch(data[0], std::span<const uint8_t>(data + 1, size - 1));
  return 0;
}
