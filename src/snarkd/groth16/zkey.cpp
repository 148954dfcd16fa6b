#include "snarkd/groth16/zkey.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <span>
#include <utility>
#include <vector>

#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/binary_io.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::groth16 {

namespace {

namespace io = r1cs::io;

constexpr uint32_t kZkeyVersion = 1;
constexpr uint32_t kGroth16Protocol = 1;
constexpr uint32_t kMaxSection = 10;

// The sizes that follow from the curve: n8q = Fp's bytes (48 or 32), n8r = Fr's (32).
template <class E>
struct Sizes {
  static constexpr uint32_t kN8q = uint32_t(E::Fp::kBytes);
  static constexpr uint32_t kN8r = uint32_t(E::Fr::kBytes);
  static constexpr uint64_t kCoef = 12 + kN8r;  // u32 matrix, u32 constraint, u32 signal, value
  // Section 2: n8q, q, n8r, r, nVars, nPublic, domainSize, then α₁ β₁ β₂ γ₂ δ₁ δ₂.
  static constexpr uint64_t kGroth16Header = 4 + kN8q + 4 + kN8r + 12 + 3 * E::kG1LemSize + 3 * E::kG2LemSize;
};
static_assert(Sizes<Bls12_381>::kGroth16Header == 964 && Sizes<Bn254>::kGroth16Header == 660);

enum SectionId : uint32_t { kHeader = 1, kGroth16Header, kIc, kCoeffs, kA, kB1, kB2, kC, kH, kContributions };

const char* section_name(uint32_t id) {
  static const char* const names[] = {"?", "header", "groth16 header", "IC", "coeffs", "A",
                                      "B1", "B2", "C", "H", "contributions"};
  return id <= kMaxSection ? names[id] : "?";
}
std::string section_label(uint32_t id) {
  return "section " + std::to_string(id) + " (" + section_name(id) + ")";
}

struct Section {
  uint64_t offset = 0, size = 0;
  bool present = false;
};
using Sections = std::array<Section, kMaxSection + 1>;

// Walks the binfile container; sections of other types are skipped (snarkjs ignores them too).
Sections read_sections(io::FileReader& r) {
  char magic[4];
  r.read(magic, 4, "magic");
  if (std::memcmp(magic, "zkey", 4) != 0) r.fail("bad magic (not a snarkjs .zkey file)");
  if (const uint32_t v = r.u32("version"); v != kZkeyVersion)
    r.fail("unsupported version " + std::to_string(v) + " (expected " + std::to_string(kZkeyVersion) + ")");
  const uint32_t n = r.u32("nSections");
  Sections s;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string what = "section header " + std::to_string(i);
    const uint32_t type = r.u32(what + " (type)");
    const uint64_t size = r.u64(what + " (size)");
    if (size > r.remaining())
      r.fail("truncated: section " + std::to_string(type) + " declares " + std::to_string(size) + " bytes, only " +
             std::to_string(r.remaining()) + " remain");
    if (type >= 1 && type <= kMaxSection) {
      if (s[type].present) r.fail("more than one " + section_label(type));
      s[type] = {r.position(), size, true};
    }
    r.seek(r.position() + size);
  }
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " bytes after the last section");
  for (uint32_t id = kHeader; id < kContributions; ++id)
    if (!s[id].present) r.fail("missing " + section_label(id));
  return s;
}

// The section's bytes, which must be exactly `expected` long.
std::vector<uint8_t> read_exact(io::FileReader& r, const Sections& s, uint32_t id, uint64_t expected,
                                const std::string& why) {
  if (s[id].size != expected)
    r.fail(section_label(id) + ": " + std::to_string(s[id].size) + " bytes, expected " + std::to_string(expected) +
           " (" + why + ")");
  return r.read_block(s[id].offset, expected, section_label(id));
}

template <class Point>
Point decode_one(io::ByteCursor& c, const char* name, Point (*decode)(std::span<const uint8_t>), size_t size) {
  const uint8_t* p = c.take(size, name);
  try {
    return decode(std::span<const uint8_t>(p, size));
  } catch (const DecodeError& e) {
    c.fail(std::string(name) + ": " + e.what());
  }
}

// Whether the n8 bytes at p are F's modulus (its limbs are little-endian u64s: the file's order).
template <class F>
bool is_modulus(uint32_t n8, const uint8_t* p) {
  return n8 == F::kBytes && std::memcmp(p, F::kModulus.limb, F::kBytes) == 0;
}

// u32 n8 and the prime, which must be F's, the `curve`'s q or r.
template <class F>
void check_prime(io::ByteCursor& c, const char* n8_name, const char* name, const char* curve) {
  constexpr uint32_t want = uint32_t(F::kBytes);
  if (const uint32_t n8 = c.u32(n8_name); n8 != want)
    c.fail(std::string(n8_name) + " is " + std::to_string(n8) + ", expected " + std::to_string(want) + " (" + curve +
           ")");
  if (!is_modulus<F>(want, c.take(want, name)))
    c.fail(std::string(name) + " is not " + curve + "'s (only bls12381 and bn128 zkeys are supported)");
}

// The curve whose base field section 2's n8q and q name (snarkjs's getCurveFromQ), if any; none
// also when the section is too short to hold them (the size checks then report it).
std::optional<CurveId> peek_curve(io::FileReader& r, const Sections& s) {
  const Section& g = s[kGroth16Header];
  if (g.size < 4) return std::nullopt;
  uint32_t n8q;
  const auto head = r.read_block(g.offset, 4, section_label(kGroth16Header));
  std::memcpy(&n8q, head.data(), 4);
  if (n8q > 64 || g.size < 4 + uint64_t(n8q)) return std::nullopt;
  const auto q = r.read_block(g.offset + 4, n8q, section_label(kGroth16Header));
  return find_curve([&](auto e) { return is_modulus<typename decltype(e)::Fp>(n8q, q.data()); });
}

template <class E>
struct Header {
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  VerifyingKeyT<E> vk;  // every field but ic
};

// A zkey for the other curve is named as such before the section's size, which depends on the
// curve, is compared with E's.
template <class E>
void require_curve(io::FileReader& r, const Sections& s) {
  const auto id = peek_curve(r, s);
  if (!id || *id == E::kId) return;
  const char* js = with_curve(*id, [](auto e) { return decltype(e)::kSnarkjsName; });
  r.fail(section_label(kGroth16Header) + ": q is " + r1cs::curve_name(*id) + "'s (a " + js + " zkey), expected " +
         E::kName + "'s");
}

template <class E>
Header<E> read_header(io::FileReader& r, const Sections& s) {
  const auto h1 = read_exact(r, s, kHeader, 4, "u32 protocol");
  uint32_t protocol;
  std::memcpy(&protocol, h1.data(), 4);
  if (protocol != kGroth16Protocol)
    r.fail(section_label(kHeader) + ": protocol " + std::to_string(protocol) + " is not Groth16 (1)");
  require_curve<E>(r, s);
  const auto h2 = read_exact(r, s, kGroth16Header, Sizes<E>::kGroth16Header, std::string(E::kName) + " Groth16 header");
  io::ByteCursor c(h2, r.path() + ": " + section_label(kGroth16Header));
  check_prime<typename E::Fp>(c, "n8q", "q", E::kName);
  check_prime<typename E::Fr>(c, "n8r", "r", E::kName);
  Header<E> h;
  h.n_vars = c.u32("nVars");
  h.n_public = c.u32("nPublic");
  h.domain_size = c.u32("domainSize");
  if (uint64_t(h.n_public) + 1 > h.n_vars)
    c.fail("nPublic " + std::to_string(h.n_public) + " + 1 exceeds nVars " + std::to_string(h.n_vars));
  if (h.domain_size < 2 || !std::has_single_bit(h.domain_size))
    c.fail("domainSize " + std::to_string(h.domain_size) + " is not a power of two ≥ 2");
  // The H query lives on the coset of the 2n-th roots of unity: Fr must have those.
  if (const size_t max_log = E::Fr::kTwoAdicity - 1; std::countr_zero(h.domain_size) > int(max_log))
    c.fail("domainSize " + std::to_string(h.domain_size) + " exceeds 2^" + std::to_string(max_log) +
           ", the largest " + E::kName + "'s Fr supports");
  h.vk.alpha_g1 = decode_one(c, "alpha_1", E::decode_g1_lem, E::kG1LemSize);
  h.vk.beta_g1 = decode_one(c, "beta_1", E::decode_g1_lem, E::kG1LemSize);
  h.vk.beta_g2 = decode_one(c, "beta_2", E::decode_g2_lem, E::kG2LemSize);
  h.vk.gamma_g2 = decode_one(c, "gamma_2", E::decode_g2_lem, E::kG2LemSize);
  h.vk.delta_g1 = decode_one(c, "delta_1", E::decode_g1_lem, E::kG1LemSize);
  h.vk.delta_g2 = decode_one(c, "delta_2", E::decode_g2_lem, E::kG2LemSize);
  return h;
}

// Sections 5–9 must hold exactly the points the header's counts promise. Checked before the
// circuit is built: its row count is bounded only by domainSize, so a 10 KB file claiming
// domainSize = 2^31 would otherwise reserve gigabytes (tests/groth16/fixtures/regress/zkey-domainsize-alloc).
template <class E>
void check_point_sections(io::FileReader& r, const Sections& s, const Header<E>& h) {
  const uint64_t n_aux = uint64_t(h.n_vars) - h.n_public - 1;
  const std::pair<uint32_t, uint64_t> want[] = {{kA, h.n_vars * E::kG1LemSize},
                                                {kB1, h.n_vars * E::kG1LemSize},
                                                {kB2, h.n_vars * E::kG2LemSize},
                                                {kC, n_aux * E::kG1LemSize},
                                                {kH, h.domain_size * E::kG1LemSize}};
  for (auto [id, bytes] : want)
    if (s[id].size != bytes)
      r.fail(section_label(id) + ": " + std::to_string(s[id].size) + " bytes, the header's counts need " +
             std::to_string(bytes));
}

// Bytes of a point section read and decoded at a time: the section passes through one reused
// buffer instead of a copy of all of it (a 2^16 BN254 key's sections are 27 MB; allocating,
// faulting in and copying that twice was a fifth of `snarkd prove`'s time), and each chunk is
// still large enough to keep the pool's threads busy.
constexpr uint64_t kPointChunkBytes = uint64_t{1} << 20;

template <class Point>
std::vector<Point> read_points(io::FileReader& r, const Sections& s, uint32_t id, uint64_t count, size_t point_size,
                               Point (*decode)(std::span<const uint8_t>), const std::string& count_name) {
  if (s[id].size != count * point_size)
    r.fail(section_label(id) + ": " + std::to_string(s[id].size) + " bytes, expected " +
           std::to_string(count * point_size) + " (" + count_name + " = " + std::to_string(count) + " points of " +
           std::to_string(point_size) + " bytes)");
  std::vector<Point> out(count);
  std::vector<uint8_t> chunk;
  const uint64_t per_chunk = std::max<uint64_t>(1, kPointChunkBytes / point_size);
  r.seek(s[id].offset);
  for (uint64_t first = 0; first < count; first += per_chunk) {
    const uint64_t n = std::min(per_chunk, count - first);
    chunk.resize(n * point_size);
    r.read(chunk.data(), chunk.size(), section_label(id));
    try {  // parallel_for rethrows the first error a worker hit: a bad point of the first bad chunk
      parallel_for(n, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          try {
            out[first + i] = decode(std::span<const uint8_t>(chunk).subspan(i * point_size, point_size));
          } catch (const DecodeError& e) {
            throw DecodeError("point " + std::to_string(first + i) + ": " + e.what());
          }
        }
      });
    } catch (const DecodeError& e) {
      r.fail(section_label(id) + ": " + e.what());
    }
  }
  return out;
}

template <class E>
VerifyingKeyT<E> read_vk_sections(io::FileReader& r, const Sections& s, Header<E>& h) {
  h = read_header<E>(r, s);
  VerifyingKeyT<E> vk = h.vk;
  vk.ic = read_points(r, s, kIc, uint64_t(h.n_public) + 1, E::kG1LemSize, E::decode_g1_lem, "nPublic + 1");
  if (const std::string d = find_vk_defect(vk); !d.empty()) r.fail("degenerate verifying key: " + d);
  return vk;
}

template <class F>
struct Term {
  uint32_t row, col;
  F value;
};

// Section 4 → the terms of A and B, validated. The stored value is c = v·R² mod r (see
// zkey.hpp): from_montgomery_bytes_le gives c·R⁻¹, one more reduction gives v.
template <class E>
std::array<std::vector<Term<typename E::Fr>>, 2> read_coeffs(io::FileReader& r, const Sections& s,
                                                             const Header<E>& h) {
  using F = typename E::Fr;
  const std::string where = r.path() + ": " + section_label(kCoeffs);
  if (s[kCoeffs].size < 4) r.fail(section_label(kCoeffs) + ": truncated in nCoef");
  const auto bytes = r.read_block(s[kCoeffs].offset, s[kCoeffs].size, section_label(kCoeffs));
  io::ByteCursor c(bytes, where);
  const uint32_t n = c.u32("nCoef");
  constexpr uint64_t coef_size = Sizes<E>::kCoef;
  if (c.remaining() != uint64_t(n) * coef_size)
    c.fail(std::to_string(c.remaining()) + " bytes after nCoef, expected nCoef " + std::to_string(n) + " × " +
           std::to_string(coef_size) + " = " + std::to_string(uint64_t(n) * coef_size));
  std::array<std::vector<Term<F>>, 2> terms;  // n was checked against the bytes present
  for (uint32_t i = 0; i < n; ++i) {
    const auto idx = [i] { return "coefficient " + std::to_string(i); };  // built only on error
    const uint32_t m = c.u32("matrix"), row = c.u32("constraint"), col = c.u32("signal");
    const uint8_t* value = c.take(Sizes<E>::kN8r, "value");
    if (m > 1) c.fail(idx() + " has matrix " + std::to_string(m) + ", expected 0 (A) or 1 (B)");
    if (row >= h.domain_size)
      c.fail(idx() + " has constraint " + std::to_string(row) + ", not below domainSize " +
             std::to_string(h.domain_size));
    if (col >= h.n_vars)
      c.fail(idx() + " has signal " + std::to_string(col) + ", not below nVars " + std::to_string(h.n_vars));
    F x;
    if (!F::from_montgomery_bytes_le(value, x)) c.fail(idx() + " has a value that is not below r");
    terms[m].push_back({row, col, F::from_montgomery(x.to_repr())});
  }
  return terms;
}

// Sorted terms → CSR rows (0..rows−1): same signal in a row summed, zero sums dropped.
template <class F>
r1cs::CsrMatrix build_csr(std::vector<Term<F>>& terms, uint64_t rows, r1cs::CoeffDictionaryT<F>& dict) {
  std::sort(terms.begin(), terms.end(),
            [](const Term<F>& x, const Term<F>& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; });
  r1cs::CsrMatrix m;
  m.row_ptr.reserve(rows + 1);
  size_t k = 0;
  for (uint64_t row = 0; row < rows; ++row) {
    while (k < terms.size() && terms[k].row == row) {
      F sum = F::zero();
      const uint32_t col = terms[k].col;
      for (; k < terms.size() && terms[k].row == row && terms[k].col == col; ++k) sum += terms[k].value;
      if (sum.is_zero()) continue;
      m.col.push_back(col);
      m.coeff.push_back(dict.intern(sum));
    }
    m.row_ptr.push_back(m.col.size());
  }
  return m;
}

template <class E>
r1cs::CircuitT<typename E::Fr> build_circuit(std::array<std::vector<Term<typename E::Fr>>, 2>& terms,
                                             const Header<E>& h, const std::string& path) {
  using F = typename E::Fr;
  uint64_t rows = 0;
  for (const auto& t : terms)
    for (const Term<F>& x : t) rows = std::max<uint64_t>(rows, uint64_t(x.row) + 1);
  r1cs::CircuitT<F> circuit;
  circuit.num_inputs = uint64_t(h.n_public) + 1;
  circuit.num_aux = uint64_t(h.n_vars) - circuit.num_inputs;
  r1cs::CoeffDictionaryT<F> dict;
  circuit.a = build_csr(terms[0], rows, dict);
  circuit.b = build_csr(terms[1], rows, dict);
  circuit.c.row_ptr.assign(rows + 1, 0);
  circuit.coeffs = std::move(dict).take();
  if (auto e = r1cs::find_structure_error(circuit))  // cannot happen after the checks above
    throw DecodeError(path + ": " + section_label(kCoeffs) + ": " + *e);
  return circuit;
}

// ---- writing ----

// Section `id`: its header, then what fill writes, which must be exactly `size` bytes.
template <class Fill>
void write_section(io::FileWriter& w, uint32_t id, uint64_t size, Fill&& fill) {
  w.u32(id);
  w.u64(size);
  const uint64_t start = w.position();
  fill();
  if (w.position() - start != size)
    throw std::logic_error("write_zkey: " + section_label(id) + " came out " + std::to_string(w.position() - start) +
                           " bytes, not " + std::to_string(size));
}

template <class Point, class Encode>
void write_points(io::FileWriter& w, std::span<const Point> points, Encode encode) {
  for (const Point& p : points) {
    const auto bytes = encode(p);
    w.write(bytes.data(), bytes.size());
  }
}

template <class E>
void write_header_sections(io::FileWriter& w, const ProvingKeyT<E>& pk) {
  using Z = Sizes<E>;
  write_section(w, kHeader, 4, [&] { w.u32(kGroth16Protocol); });
  write_section(w, kGroth16Header, Z::kGroth16Header, [&] {
    w.u32(Z::kN8q);
    w.write(E::Fp::kModulus.limb, Z::kN8q);
    w.u32(Z::kN8r);
    w.write(E::Fr::kModulus.limb, Z::kN8r);
    for (uint64_t v : {pk.num_vars(), pk.vk.num_public(), pk.domain_size()}) w.u32(uint32_t(v));
    const VerifyingKeyT<E>& vk = pk.vk;
    write_points<typename E::G1Affine>(w, {{vk.alpha_g1, vk.beta_g1}}, E::encode_g1_lem);
    write_points<typename E::G2Affine>(w, {{vk.beta_g2, vk.gamma_g2}}, E::encode_g2_lem);
    write_points<typename E::G1Affine>(w, {{vk.delta_g1}}, E::encode_g1_lem);
    write_points<typename E::G2Affine>(w, {{vk.delta_g2}}, E::encode_g2_lem);
  });
}

// Section 4: for each row, its A terms then its B terms (zkey_new.js's order), each value as the
// canonical bytes of v·R² mod r (the reader's inverse).
template <class E>
void write_coeffs(io::FileWriter& w, const r1cs::CircuitT<typename E::Fr>& c) {
  using F = typename E::Fr;
  const uint64_t n = c.a.nnz() + c.b.nnz();
  const F r2 = F::from_repr_unchecked(F::kR2);  // the value R² mod r
  write_section(w, kCoeffs, 4 + n * Sizes<E>::kCoef, [&] {
    w.u32(uint32_t(n));
    uint8_t value[Sizes<E>::kN8r];
    for (uint64_t row = 0; row < c.num_constraints(); ++row)
      for (uint32_t m : {0u, 1u}) {
        const r1cs::CsrMatrix& mat = m == 0 ? c.a : c.b;
        for (uint64_t k = mat.row_ptr[row]; k < mat.row_ptr[row + 1]; ++k) {
          w.u32(m);
          w.u32(uint32_t(row));
          w.u32(mat.col[k]);
          (c.coeffs[mat.coeff[k]] * r2).to_bytes_le(value);
          w.write(value, sizeof value);
        }
      }
  });
}

// What write_zkey can write: a snarkjs-flavour key whose circuit has no C (bind checked the rest).
template <class E>
void check_writable(const BoundKeyT<E>& key) {
  if (key.flavour() != KeyFlavour::kSnarkjs)
    throw InvalidArgument("write_zkey: a " + std::string(flavour_name(key.flavour())) +
                          " key has no zkey form (its H query and domain differ)");
  if (key.circuit().c.nnz() != 0)
    throw InvalidArgument("write_zkey: the circuit has C non-zeros, which a zkey cannot hold");
  if (key.num_vars() > UINT32_MAX || key.pk().domain_size() > UINT32_MAX ||
      key.circuit().a.nnz() + key.circuit().b.nnz() > UINT32_MAX)
    throw InvalidArgument("write_zkey: the key exceeds the zkey's u32 counts");
}

}  // namespace

template <class E>
ZkeyT<E> read_zkey(const std::string& path, PointCheck check) {
  io::FileReader r(path);
  const Sections s = read_sections(r);
  Header<E> h;
  ZkeyT<E> z;
  ProvingKeyT<E>& pk = z.pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.vk = read_vk_sections(r, s, h);
  pk.log_domain = uint32_t(std::countr_zero(h.domain_size));
  check_point_sections(r, s, h);
  auto terms = read_coeffs(r, s, h);
  z.circuit = build_circuit(terms, h, path);

  const bool full = check == PointCheck::kFull;
  const auto g1 = full ? E::decode_g1_lem : E::decode_g1_lem_unchecked;
  const auto g2 = full ? E::decode_g2_lem : E::decode_g2_lem_unchecked;
  const uint64_t n_vars = h.n_vars, n_aux = uint64_t(h.n_vars) - h.n_public - 1;
  pk.a = read_points(r, s, kA, n_vars, E::kG1LemSize, g1, "nVars");
  pk.b_g1 = read_points(r, s, kB1, n_vars, E::kG1LemSize, g1, "nVars");
  pk.b_g2 = read_points(r, s, kB2, n_vars, E::kG2LemSize, g2, "nVars");
  pk.l = read_points(r, s, kC, n_aux, E::kG1LemSize, g1, "nVars - nPublic - 1");
  pk.h = read_points(r, s, kH, h.domain_size, E::kG1LemSize, g1, "domainSize");
  return z;
}

template <class E>
VerifyingKeyT<E> read_zkey_vk(const std::string& path) {
  io::FileReader r(path);
  const Sections s = read_sections(r);
  Header<E> h;
  return read_vk_sections(r, s, h);
}

CurveId zkey_curve(const std::string& path) {
  io::FileReader r(path);
  const Sections s = read_sections(r);
  if (const auto id = peek_curve(r, s)) return *id;
  r.fail(section_label(kGroth16Header) +
         ": q is neither BLS12-381's nor BN254's (only bls12381 and bn128 zkeys are supported)");
}

template <class E>
void write_zkey(const std::string& path, const BoundKeyT<E>& key) {
  check_writable(key);
  const ProvingKeyT<E>& pk = key.pk();
  io::FileWriter w(path);
  w.write("zkey", 4);
  w.u32(kZkeyVersion);
  w.u32(9);
  write_header_sections(w, pk);
  write_coeffs<E>(w, key.circuit());
  const auto g1 = [&](uint32_t id, const std::vector<typename E::G1Affine>& v) {
    write_section(w, id, v.size() * E::kG1LemSize, [&] { write_points<typename E::G1Affine>(w, v, E::encode_g1_lem); });
  };
  g1(kIc, pk.vk.ic);
  g1(kA, pk.a);
  g1(kB1, pk.b_g1);
  write_section(w, kB2, pk.b_g2.size() * E::kG2LemSize,
                [&] { write_points<typename E::G2Affine>(w, pk.b_g2, E::encode_g2_lem); });
  g1(kC, pk.l);
  g1(kH, pk.h);
  w.close();
}

#define SNARKD_ZKEY_INSTANTIATE(E)                                             \
  template ZkeyT<E> read_zkey<E>(const std::string&, PointCheck);             \
  template VerifyingKeyT<E> read_zkey_vk<E>(const std::string&);              \
  template void write_zkey<E>(const std::string&, const BoundKeyT<E>&);
SNARKD_ZKEY_INSTANTIATE(Bls12_381)
SNARKD_ZKEY_INSTANTIATE(Bn254)
#undef SNARKD_ZKEY_INSTANTIATE

}  // namespace snarkd::groth16
