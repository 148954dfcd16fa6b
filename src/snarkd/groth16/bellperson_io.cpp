#include "snarkd/groth16/bellperson_io.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <new>

#include "snarkd/ec/encoding.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/binary_io.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/free_vector.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {
namespace {

using r1cs::io::FileReader;
using r1cs::io::FileWriter;

// Points per read/decode (or encode/write) round: 64 MiB is ~700k G1 points, enough work for
// every pool thread, and small next to the key itself (a 2^27 key is ~50 GB).
constexpr uint64_t kChunkBytes = uint64_t{64} << 20;

template <class Point>
struct Uncompressed;
template <>
struct Uncompressed<G1Affine> {
  static constexpr size_t kSize = ec::kG1UncompressedSize;
  static G1Affine decode(std::span<const uint8_t> b, PointCheck c) {
    return c == PointCheck::kFull ? ec::decode_g1_uncompressed(b) : ec::decode_g1_uncompressed_unchecked(b);
  }
  static auto encode(const G1Affine& p) { return ec::encode_g1_uncompressed(p); }
};
template <>
struct Uncompressed<G2Affine> {
  static constexpr size_t kSize = ec::kG2UncompressedSize;
  static G2Affine decode(std::span<const uint8_t> b, PointCheck c) {
    return c == PointCheck::kFull ? ec::decode_g2_uncompressed(b) : ec::decode_g2_uncompressed_unchecked(b);
  }
  static auto encode(const G2Affine& p) { return ec::encode_g2_uncompressed(p); }
};

// The five sections after the vk, in file order (bellperson params.rs, Parameters::write).
enum Section : size_t { kH, kL, kA, kBG1, kBG2, kNumSections };
constexpr const char* kSectionName[kNumSections] = {"h", "l", "a", "b_g1", "b_g2"};
constexpr size_t kSectionPointSize[kNumSections] = {ec::kG1UncompressedSize, ec::kG1UncompressedSize,
                                                    ec::kG1UncompressedSize, ec::kG1UncompressedSize,
                                                    ec::kG2UncompressedSize};

template <class Point>
Point decode_key_point(std::span<const uint8_t> bytes, PointCheck check) {
  Point p = Uncompressed<Point>::decode(bytes, check);
  if (p.is_infinity()) throw DecodeError("point at infinity (bellperson keys never hold one)");
  return p;
}

// A u32 big-endian count, compared with the bytes left before anyone allocates from it.
uint64_t read_count(FileReader& f, const std::string& section, size_t point_size) {
  uint8_t b[4];
  f.read(b, 4, "section " + section + " (count)");
  const uint64_t n = (uint64_t{b[0]} << 24) | (uint64_t{b[1]} << 16) | (uint64_t{b[2]} << 8) | b[3];
  if (n * point_size > f.remaining())
    f.fail("section " + section + ": count " + std::to_string(n) + " needs " + std::to_string(n * point_size) +
           " bytes, " + std::to_string(f.remaining()) + " left");
  return n;
}

// n points (count already checked against the file size when it has one), read in chunks and
// decoded in parallel. The vector is reserved (untouched pages) and grows per chunk, so a pipe's
// unchecked count costs memory only for the bytes that arrive.
template <class Point>
std::vector<Point> read_points(FileReader& f, const std::string& section, uint64_t n, PointCheck check) {
  constexpr size_t kSize = Uncompressed<Point>::kSize;
  const uint64_t per_chunk = kChunkBytes / kSize;
  std::vector<Point> out;
  try {
    out.reserve(n);
  } catch (const std::bad_alloc&) {
    f.fail("section " + section + ": " + std::to_string(n) + " points do not fit in memory");
  }
  std::vector<uint8_t> buf(std::min(n, per_chunk) * kSize);
  for (uint64_t base = 0; base < n; base += per_chunk) {
    const uint64_t m = std::min(per_chunk, n - base);
    f.read(buf.data(), m * kSize, "section " + section);
    out.resize(base + m);
    parallel_for(m, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        try {
          out[base + i] = decode_key_point<Point>({buf.data() + i * kSize, kSize}, check);
        } catch (const DecodeError& e) {
          f.fail("section " + section + ": point " + std::to_string(base + i) + ": " + e.what());
        }
      }
    });
  }
  return out;
}

template <class Point>
Point read_vk_point(FileReader& f, const char* name) {
  std::array<uint8_t, Uncompressed<Point>::kSize> b;
  const std::string field = std::string("section vk: ") + name;
  f.read(b.data(), b.size(), field);
  try {
    return decode_key_point<Point>(b, PointCheck::kFull);
  } catch (const DecodeError& e) {
    f.fail(field + ": " + e.what());
  }
}

// α₁ β₁ β₂ γ₂ δ₁ δ₂, |ic|, ic (bellperson verifying_key.rs, VerifyingKey::read).
VerifyingKey read_vk_part(FileReader& f) {
  VerifyingKey vk;
  vk.alpha_g1 = read_vk_point<G1Affine>(f, "alpha_g1");
  vk.beta_g1 = read_vk_point<G1Affine>(f, "beta_g1");
  vk.beta_g2 = read_vk_point<G2Affine>(f, "beta_g2");
  vk.gamma_g2 = read_vk_point<G2Affine>(f, "gamma_g2");
  vk.delta_g1 = read_vk_point<G1Affine>(f, "delta_g1");
  vk.delta_g2 = read_vk_point<G2Affine>(f, "delta_g2");
  const uint64_t n = read_count(f, "ic", ec::kG1UncompressedSize);
  if (n == 0) f.fail("section ic: 0 points, but ic[0] (the constant ONE) must be present");
  vk.ic = read_points<G1Affine>(f, "ic", n, PointCheck::kFull);
  if (const std::string d = find_vk_defect(vk); !d.empty()) f.fail("degenerate verifying key: " + d);
  return vk;
}

// Reads the count of section s and checks it against the file size and the counts before it
// (counts[s] is filled in). Returns log2(|h| + 1) for kH, 0 otherwise.
uint32_t read_params_count(FileReader& f, Section s, std::array<uint64_t, kNumSections>& counts,
                           uint64_t num_ic) {
  const std::string name = kSectionName[s];
  const uint64_t n = counts[s] = read_count(f, name, kSectionPointSize[s]);
  const auto where = "section " + name + ": ";
  if (s == kH && !std::has_single_bit(n + 1))
    f.fail(where + std::to_string(n) + " points, but |h| + 1 = " + std::to_string(n + 1) + " is not a power of two");
  if (s == kA && n > num_ic + counts[kL])
    f.fail(where + std::to_string(n) + " points, more than the " + std::to_string(num_ic + counts[kL]) +
           " variables (|ic| + |l|)");
  if (s == kBG2 && n != counts[kBG1])
    f.fail(where + std::to_string(n) + " points, but b_g1 has " + std::to_string(counts[kBG1]));
  return s == kH ? uint32_t(std::countr_zero(n + 1)) : 0;
}

void expect_end(FileReader& f, const char* last_section) {
  if (f.at_end()) return;
  f.fail((f.sized() ? std::to_string(f.remaining()) + " trailing bytes" : std::string("trailing bytes")) +
         " after section " + last_section);
}

// --- writing

void write_be32(FileWriter& w, uint64_t n, const char* what) {
  if (n > std::numeric_limits<uint32_t>::max())
    throw InvalidArgument(std::string(what) + ": " + std::to_string(n) + " points do not fit a u32 count");
  const uint8_t b[4] = {uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n)};
  w.write(b, 4);
}

template <class Point>
void require_finite(std::span<const Point> pts, const char* what) {
  for (size_t i = 0; i < pts.size(); ++i)
    if (pts[i].is_infinity())
      throw InvalidArgument(std::string(what) + ": point " + std::to_string(i) +
                            " is the point at infinity, which bellperson refuses to read");
}

void require_finite_vk(const VerifyingKey& vk) {
  require_finite<G1Affine>(std::array{vk.alpha_g1, vk.beta_g1, vk.delta_g1}, "vk alpha_g1/beta_g1/delta_g1");
  require_finite<G2Affine>(std::array{vk.beta_g2, vk.gamma_g2, vk.delta_g2}, "vk beta_g2/gamma_g2/delta_g2");
  require_finite<G1Affine>(vk.ic, "vk ic");
  if (vk.ic.empty()) throw InvalidArgument("vk ic: empty, but ic[0] (the constant ONE) must be present");
}

// Gives the whole pages inside [p, p + bytes) back to the kernel (they read as zeros after).
void release_pages(const void* p, size_t bytes) {
  static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (uintptr_t(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (uintptr_t(p) + bytes) & ~(page - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

// Count, then the points, encoded in parallel one chunk at a time. release: each chunk's pages
// go back to the kernel once written (the caller discards the points after), so a key streamed
// through a pipe is held about once, not once plus its largest section (b_g2: ≈ 22 GiB at 2^27).
template <class Point>
void write_points(FileWriter& w, std::span<const Point> pts, const char* section, bool release = false) {
  constexpr size_t kSize = Uncompressed<Point>::kSize;
  const uint64_t per_chunk = kChunkBytes / kSize;
  write_be32(w, pts.size(), section);
  std::vector<uint8_t> buf(std::min<uint64_t>(pts.size(), per_chunk) * kSize);
  for (uint64_t base = 0; base < pts.size(); base += per_chunk) {
    const uint64_t m = std::min<uint64_t>(per_chunk, pts.size() - base);
    parallel_for(m, [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        const auto e = Uncompressed<Point>::encode(pts[base + i]);
        std::memcpy(buf.data() + i * kSize, e.data(), kSize);
      }
    });
    w.write(buf.data(), m * kSize);
    if (release) release_pages(pts.data() + base, m * sizeof(Point));
  }
}

template <class Point>
void write_point(FileWriter& w, const Point& p) {
  const auto e = Uncompressed<Point>::encode(p);
  w.write(e.data(), e.size());
}

void write_vk_part(FileWriter& w, const VerifyingKey& vk) {
  write_point(w, vk.alpha_g1);
  write_point(w, vk.beta_g1);
  write_point(w, vk.beta_g2);
  write_point(w, vk.gamma_g2);
  write_point(w, vk.delta_g1);
  write_point(w, vk.delta_g2);
  write_points<G1Affine>(w, vk.ic, "ic");
}

void check_params_shape(const ProvingKey& pk) {
  if (pk.flavour != KeyFlavour::kBellperson)
    throw InvalidArgument(std::string("write_params: a ") + flavour_name(pk.flavour) +
                          " key has no bellperson .params form (its H query is another basis)");
  if (pk.h.size() + 1 != pk.domain_size())
    throw InvalidArgument("write_params: |h| = " + std::to_string(pk.h.size()) + ", expected domain size − 1 = " +
                          std::to_string(pk.domain_size() - 1));
  if (pk.b_g1.size() != pk.b_g2.size())
    throw InvalidArgument("write_params: |b_g1| = " + std::to_string(pk.b_g1.size()) + " but |b_g2| = " +
                          std::to_string(pk.b_g2.size()));
  if (pk.a.size() > pk.num_vars() || pk.b_g1.size() > pk.num_vars())
    throw InvalidArgument("write_params: a or b query longer than the " + std::to_string(pk.num_vars()) +
                          " variables");
  require_finite_vk(pk.vk);
  require_finite<G1Affine>(pk.h, "h");
  require_finite<G1Affine>(pk.l, "l");
  require_finite<G1Affine>(pk.a, "a");
  require_finite<G1Affine>(pk.b_g1, "b_g1");
  require_finite<G2Affine>(pk.b_g2, "b_g2");
}

// The sections in file order. release (the rvalue overload): each chunk's pages go back to the
// kernel once written.
void write_params_sections(const std::string& path, const ProvingKey& pk, bool release) {
  check_params_shape(pk);
  FileWriter w(path);
  write_vk_part(w, pk.vk);
  write_points<G1Affine>(w, pk.h, "h", release);
  write_points<G1Affine>(w, pk.l, "l", release);
  write_points<G1Affine>(w, pk.a, "a", release);
  write_points<G1Affine>(w, pk.b_g1, "b_g1", release);
  write_points<G2Affine>(w, pk.b_g2, "b_g2", release);
  w.close();
}

// --- proofs

template <class Point>
Point decode_proof_part(const uint8_t* p, size_t size, const char* name,
                        Point (*decode)(std::span<const uint8_t>)) {
  try {
    return decode({p, size});
  } catch (const DecodeError& e) {
    throw DecodeError(std::string(name) + ": " + e.what());
  }
}

// 192 bytes A ‖ B ‖ C (bellperson proof.rs, Proof::write); errors name the part.
Proof decode_proof_parts(const uint8_t* p) {
  Proof out;
  out.a = decode_proof_part(p, ec::kG1CompressedSize, "A", ec::decode_g1_compressed);
  out.b = decode_proof_part(p + ec::kG1CompressedSize, ec::kG2CompressedSize, "B", ec::decode_g2_compressed);
  out.c = decode_proof_part(p + ec::kG1CompressedSize + ec::kG2CompressedSize, ec::kG1CompressedSize, "C",
                            ec::decode_g1_compressed);
  return out;
}

}  // namespace

VerifyingKey read_vk(const std::string& path) {
  FileReader f(path);
  VerifyingKey vk = read_vk_part(f);
  expect_end(f, "ic");
  return vk;
}

void write_vk(const std::string& path, const VerifyingKey& vk) {
  require_finite_vk(vk);
  FileWriter w(path);
  write_vk_part(w, vk);
  w.close();
}

ProvingKey read_params(const std::string& path, PointCheck check, FileSource source) {
  FileReader f(path, source);
  ProvingKey pk;
  pk.flavour = KeyFlavour::kBellperson;
  pk.vk = read_vk_part(f);
  std::array<uint64_t, kNumSections> counts{};
  pk.log_domain = read_params_count(f, kH, counts, pk.vk.ic.size());
  pk.h = read_points<G1Affine>(f, "h", counts[kH], check);
  read_params_count(f, kL, counts, pk.vk.ic.size());
  pk.l = read_points<G1Affine>(f, "l", counts[kL], check);
  read_params_count(f, kA, counts, pk.vk.ic.size());
  pk.a = read_points<G1Affine>(f, "a", counts[kA], check);
  read_params_count(f, kBG1, counts, pk.vk.ic.size());
  pk.b_g1 = read_points<G1Affine>(f, "b_g1", counts[kBG1], check);
  read_params_count(f, kBG2, counts, pk.vk.ic.size());
  pk.b_g2 = read_points<G2Affine>(f, "b_g2", counts[kBG2], check);
  expect_end(f, "b_g2");
  return pk;
}

void write_params(const std::string& path, const ProvingKey& pk) { write_params_sections(path, pk, false); }

void write_params(const std::string& path, ProvingKey&& pk) {
  write_params_sections(path, pk, true);
  // Their pages are the kernel's already; the zero-filled sections go too.
  free_vector(pk.h), free_vector(pk.l), free_vector(pk.a), free_vector(pk.b_g1), free_vector(pk.b_g2);
}

VerifyingKey read_vk_or_params(const std::string& path) {
  FileReader f(path);
  VerifyingKey vk = read_vk_part(f);
  if (f.remaining() == 0) return vk;
  std::array<uint64_t, kNumSections> counts{};
  for (size_t s = 0; s < kNumSections; ++s) {
    read_params_count(f, Section(s), counts, vk.ic.size());
    f.seek(f.position() + counts[s] * kSectionPointSize[s]);
  }
  expect_end(f, "b_g2");
  return vk;
}

std::array<uint8_t, kBellpersonProofSize> encode_proof(const Proof& proof) {
  std::array<uint8_t, kBellpersonProofSize> out;
  const auto a = ec::encode_g1_compressed(proof.a);
  const auto b = ec::encode_g2_compressed(proof.b);
  const auto c = ec::encode_g1_compressed(proof.c);
  std::copy(c.begin(), c.end(), std::copy(b.begin(), b.end(), std::copy(a.begin(), a.end(), out.begin())));
  return out;
}

Proof decode_proof(std::span<const uint8_t> bytes) {
  if (bytes.size() != kBellpersonProofSize)
    throw DecodeError("proof: expected " + std::to_string(kBellpersonProofSize) + " bytes, got " +
                      std::to_string(bytes.size()));
  try {
    return decode_proof_parts(bytes.data());
  } catch (const DecodeError& e) {
    throw DecodeError(std::string("proof: ") + e.what());
  }
}

std::vector<Proof> read_proofs(const std::string& path) {
  FileReader f(path);
  if (f.size() == 0 || f.size() % kBellpersonProofSize != 0)
    f.fail("size " + std::to_string(f.size()) + " is not a positive multiple of " +
           std::to_string(kBellpersonProofSize) + " (one proof = A ‖ B ‖ C compressed)");
  const std::vector<uint8_t> bytes = f.read_block(0, f.size(), "proofs");
  std::vector<Proof> out(bytes.size() / kBellpersonProofSize);
  parallel_for(out.size(), [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      try {
        out[i] = decode_proof_parts(bytes.data() + i * kBellpersonProofSize);
      } catch (const DecodeError& e) {
        f.fail("proof " + std::to_string(i) + ": " + e.what());
      }
    }
  });
  return out;
}

void write_proofs(const std::string& path, std::span<const Proof> proofs) {
  if (proofs.empty()) throw InvalidArgument("write_proofs: no proofs (a proof file holds k ≥ 1)");
  FileWriter w(path);
  for (const Proof& p : proofs) {
    const auto bytes = encode_proof(p);
    w.write(bytes.data(), bytes.size());
  }
  w.close();
}

}  // namespace snarkd::groth16
