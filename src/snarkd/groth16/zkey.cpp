#include "snarkd/groth16/zkey.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "snarkd/ec/encoding.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/r1cs/binary_io.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::groth16 {

namespace {

namespace io = r1cs::io;

constexpr uint32_t kZkeyVersion = 1;
constexpr uint32_t kGroth16Protocol = 1;
constexpr uint32_t kN8q = 48;
constexpr uint32_t kN8r = 32;
constexpr uint64_t kCoefSize = 12 + kN8r;  // u32 matrix, u32 constraint, u32 signal, value
constexpr uint32_t kMaxSection = 10;
// Section 2: n8q, q, n8r, r, nVars, nPublic, domainSize, then α₁ β₁ β₂ γ₂ δ₁ δ₂.
constexpr uint64_t kGroth16HeaderSize =
    4 + kN8q + 4 + kN8r + 12 + 3 * ec::kG1LemSize + 3 * ec::kG2LemSize;

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

void check_prime(io::ByteCursor& c, const char* n8_name, uint32_t want_n8, const char* name, const uint64_t* limbs) {
  if (const uint32_t n8 = c.u32(n8_name); n8 != want_n8)
    c.fail(std::string(n8_name) + " is " + std::to_string(n8) + ", expected " + std::to_string(want_n8) +
           " (BLS12-381)");
  const uint8_t* p = c.take(want_n8, name);
  if (std::memcmp(p, limbs, want_n8) != 0)  // limbs are little-endian u64s: the file's byte order
    c.fail(std::string(name) + " is not BLS12-381's (only bls12381 zkeys are supported)");
}

struct Header {
  uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  VerifyingKey vk;  // every field but ic
};

Header read_header(io::FileReader& r, const Sections& s) {
  const auto h1 = read_exact(r, s, kHeader, 4, "u32 protocol");
  uint32_t protocol;
  std::memcpy(&protocol, h1.data(), 4);
  if (protocol != kGroth16Protocol)
    r.fail(section_label(kHeader) + ": protocol " + std::to_string(protocol) + " is not Groth16 (1)");
  const auto h2 = read_exact(r, s, kGroth16Header, kGroth16HeaderSize, "BLS12-381 Groth16 header");
  io::ByteCursor c(h2, r.path() + ": " + section_label(kGroth16Header));
  check_prime(c, "n8q", kN8q, "q", ff::Fp::kModulus.limb);
  check_prime(c, "n8r", kN8r, "r", ff::Fr::kModulus.limb);
  Header h;
  h.n_vars = c.u32("nVars");
  h.n_public = c.u32("nPublic");
  h.domain_size = c.u32("domainSize");
  if (uint64_t(h.n_public) + 1 > h.n_vars)
    c.fail("nPublic " + std::to_string(h.n_public) + " + 1 exceeds nVars " + std::to_string(h.n_vars));
  if (h.domain_size < 2 || !std::has_single_bit(h.domain_size))
    c.fail("domainSize " + std::to_string(h.domain_size) + " is not a power of two ≥ 2");
  h.vk.alpha_g1 = decode_one(c, "alpha_1", &ec::decode_g1_lem, ec::kG1LemSize);
  h.vk.beta_g1 = decode_one(c, "beta_1", &ec::decode_g1_lem, ec::kG1LemSize);
  h.vk.beta_g2 = decode_one(c, "beta_2", &ec::decode_g2_lem, ec::kG2LemSize);
  h.vk.gamma_g2 = decode_one(c, "gamma_2", &ec::decode_g2_lem, ec::kG2LemSize);
  h.vk.delta_g1 = decode_one(c, "delta_1", &ec::decode_g1_lem, ec::kG1LemSize);
  h.vk.delta_g2 = decode_one(c, "delta_2", &ec::decode_g2_lem, ec::kG2LemSize);
  return h;
}

// Sections 5–9 must hold exactly the points the header's counts promise. Checked before the
// circuit is built: its row count is bounded only by domainSize, so a 10 KB file claiming
// domainSize = 2^31 would otherwise reserve gigabytes (tests/groth16/fixtures/regress/zkey-domainsize-alloc).
void check_point_sections(io::FileReader& r, const Sections& s, const Header& h) {
  const uint64_t n_aux = uint64_t(h.n_vars) - h.n_public - 1;
  const std::pair<uint32_t, uint64_t> want[] = {{kA, h.n_vars * ec::kG1LemSize},
                                                {kB1, h.n_vars * ec::kG1LemSize},
                                                {kB2, h.n_vars * ec::kG2LemSize},
                                                {kC, n_aux * ec::kG1LemSize},
                                                {kH, h.domain_size * ec::kG1LemSize}};
  for (auto [id, bytes] : want)
    if (s[id].size != bytes)
      r.fail(section_label(id) + ": " + std::to_string(s[id].size) + " bytes, the header's counts need " +
             std::to_string(bytes));
}

template <class Point>
std::vector<Point> read_points(io::FileReader& r, const Sections& s, uint32_t id, uint64_t count, size_t point_size,
                               Point (*decode)(std::span<const uint8_t>), const std::string& count_name) {
  const std::string why =
      count_name + " = " + std::to_string(count) + " points of " + std::to_string(point_size) + " bytes";
  const auto bytes = read_exact(r, s, id, count * point_size, why);
  try {
    return ec::decode_many<Point>(bytes, point_size, decode);
  } catch (const DecodeError& e) {
    r.fail(section_label(id) + ": " + e.what());
  }
}

VerifyingKey read_vk_sections(io::FileReader& r, const Sections& s, Header& h) {
  h = read_header(r, s);
  VerifyingKey vk = h.vk;
  vk.ic = read_points(r, s, kIc, uint64_t(h.n_public) + 1, ec::kG1LemSize, &ec::decode_g1_lem, "nPublic + 1");
  if (const std::string d = find_vk_defect(vk); !d.empty()) r.fail("degenerate verifying key: " + d);
  return vk;
}

struct Term {
  uint32_t row, col;
  Fr value;
};

// Section 4 → the terms of A and B, validated. The stored value is c = v·R² mod r (see
// zkey.hpp): from_montgomery_bytes_le gives c·R⁻¹, one more reduction gives v.
std::array<std::vector<Term>, 2> read_coeffs(io::FileReader& r, const Sections& s, const Header& h) {
  const std::string where = r.path() + ": " + section_label(kCoeffs);
  if (s[kCoeffs].size < 4) r.fail(section_label(kCoeffs) + ": truncated in nCoef");
  const auto bytes = r.read_block(s[kCoeffs].offset, s[kCoeffs].size, section_label(kCoeffs));
  io::ByteCursor c(bytes, where);
  const uint32_t n = c.u32("nCoef");
  if (c.remaining() != uint64_t(n) * kCoefSize)
    c.fail(std::to_string(c.remaining()) + " bytes after nCoef, expected nCoef " + std::to_string(n) + " × " +
           std::to_string(kCoefSize) + " = " + std::to_string(uint64_t(n) * kCoefSize));
  std::array<std::vector<Term>, 2> terms;  // n was checked against the bytes present
  for (uint32_t i = 0; i < n; ++i) {
    const auto idx = [i] { return "coefficient " + std::to_string(i); };  // built only on error
    const uint32_t m = c.u32("matrix"), row = c.u32("constraint"), col = c.u32("signal");
    const uint8_t* value = c.take(kN8r, "value");
    if (m > 1) c.fail(idx() + " has matrix " + std::to_string(m) + ", expected 0 (A) or 1 (B)");
    if (row >= h.domain_size)
      c.fail(idx() + " has constraint " + std::to_string(row) + ", not below domainSize " +
             std::to_string(h.domain_size));
    if (col >= h.n_vars)
      c.fail(idx() + " has signal " + std::to_string(col) + ", not below nVars " + std::to_string(h.n_vars));
    Fr x;
    if (!Fr::from_montgomery_bytes_le(value, x)) c.fail(idx() + " has a value that is not below r");
    terms[m].push_back({row, col, Fr::from_montgomery(x.to_repr())});
  }
  return terms;
}

// Sorted terms → CSR rows (0..rows−1): same signal in a row summed, zero sums dropped.
r1cs::CsrMatrix build_csr(std::vector<Term>& terms, uint64_t rows, r1cs::CoeffDictionary& dict) {
  std::sort(terms.begin(), terms.end(),
            [](const Term& x, const Term& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; });
  r1cs::CsrMatrix m;
  m.row_ptr.reserve(rows + 1);
  size_t k = 0;
  for (uint64_t row = 0; row < rows; ++row) {
    while (k < terms.size() && terms[k].row == row) {
      Fr sum = Fr::zero();
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

r1cs::Circuit build_circuit(std::array<std::vector<Term>, 2>& terms, const Header& h, const std::string& path) {
  uint64_t rows = 0;
  for (const auto& t : terms)
    for (const Term& x : t) rows = std::max<uint64_t>(rows, uint64_t(x.row) + 1);
  r1cs::Circuit circuit;
  circuit.num_inputs = uint64_t(h.n_public) + 1;
  circuit.num_aux = uint64_t(h.n_vars) - circuit.num_inputs;
  r1cs::CoeffDictionary dict;
  circuit.a = build_csr(terms[0], rows, dict);
  circuit.b = build_csr(terms[1], rows, dict);
  circuit.c.row_ptr.assign(rows + 1, 0);
  circuit.coeffs = std::move(dict).take();
  if (auto e = r1cs::find_structure_error(circuit))  // cannot happen after the checks above
    throw DecodeError(path + ": " + section_label(kCoeffs) + ": " + *e);
  return circuit;
}

}  // namespace

Zkey read_zkey(const std::string& path, PointCheck check) {
  io::FileReader r(path);
  const Sections s = read_sections(r);
  Header h;
  Zkey z;
  ProvingKey& pk = z.pk;
  pk.flavour = KeyFlavour::kSnarkjs;
  pk.vk = read_vk_sections(r, s, h);
  pk.log_domain = uint32_t(std::countr_zero(h.domain_size));
  check_point_sections(r, s, h);
  auto terms = read_coeffs(r, s, h);
  z.circuit = build_circuit(terms, h, path);

  const bool full = check == PointCheck::kFull;
  const auto g1 = full ? &ec::decode_g1_lem : &ec::decode_g1_lem_unchecked;
  const auto g2 = full ? &ec::decode_g2_lem : &ec::decode_g2_lem_unchecked;
  const uint64_t n_vars = h.n_vars, n_aux = uint64_t(h.n_vars) - h.n_public - 1;
  pk.a = read_points(r, s, kA, n_vars, ec::kG1LemSize, g1, "nVars");
  pk.b_g1 = read_points(r, s, kB1, n_vars, ec::kG1LemSize, g1, "nVars");
  pk.b_g2 = read_points(r, s, kB2, n_vars, ec::kG2LemSize, g2, "nVars");
  pk.l = read_points(r, s, kC, n_aux, ec::kG1LemSize, g1, "nVars - nPublic - 1");
  pk.h = read_points(r, s, kH, h.domain_size, ec::kG1LemSize, g1, "domainSize");
  return z;
}

VerifyingKey read_zkey_vk(const std::string& path) {
  io::FileReader r(path);
  const Sections s = read_sections(r);
  Header h;
  return read_vk_sections(r, s, h);
}

}  // namespace snarkd::groth16
