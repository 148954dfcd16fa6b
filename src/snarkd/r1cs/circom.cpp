#include "snarkd/r1cs/circom.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "snarkd/r1cs/binary_io.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::r1cs {

namespace {

constexpr uint32_t kN8 = 32;
constexpr uint32_t kR1csVersion = 1;
constexpr uint32_t kWtnsVersion = 2;
constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kBodySection = 2;  // r1cs: constraints, wtns: values
constexpr uint32_t kMapSection = 3;

struct SectionRef {
  uint32_t type;
  uint64_t offset, size;
};

// Walks the container: every section's size is checked against the bytes that remain. Reader:
// io::FileReader (the .r1cs, streamed) or io::ByteCursor (a .wtns already in memory).
template <class Reader>
std::vector<SectionRef> read_sections(Reader& r, const char (&magic)[5], uint32_t version) {
  char m[4];
  r.read(m, 4, "magic");
  if (std::memcmp(m, magic, 4) != 0) r.fail(std::string("bad magic (not a circom .") + magic + " file)");
  if (uint32_t v = r.u32("version"); v != version)
    r.fail("unsupported version " + std::to_string(v) + " (expected " + std::to_string(version) + ")");
  const uint32_t n = r.u32("nSections");
  std::vector<SectionRef> refs;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string what = "section " + std::to_string(i);
    const uint32_t type = r.u32(what + " type");
    const uint64_t size = r.u64(what + " size");
    if (size > r.remaining())
      r.fail("truncated: " + what + " (type " + std::to_string(type) + ") declares " + std::to_string(size) +
             " bytes, only " + std::to_string(r.remaining()) + " remain");
    refs.push_back({type, r.position(), size});
    r.seek(r.position() + size);
  }
  if (r.remaining() != 0) r.fail(std::to_string(r.remaining()) + " bytes after the last section");
  return refs;
}

// The section of `type`, or nullptr if absent and optional; duplicates are an error.
template <class Reader>
const SectionRef* find_section(const Reader& r, const std::vector<SectionRef>& refs, uint32_t type,
                               const char* name, bool required) {
  const SectionRef* found = nullptr;
  for (const SectionRef& s : refs) {
    if (s.type != type) continue;
    if (found) r.fail(std::string("more than one ") + name + " section (type " + std::to_string(type) + ")");
    found = &s;
  }
  if (!found && required) r.fail(std::string("missing ") + name + " section (type " + std::to_string(type) + ")");
  return found;
}

std::string hex_be(const uint8_t* le, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = n; i-- > 0;) {
    if (s.empty() && le[i] == 0) continue;
    s += digits[le[i] >> 4];
    s += digits[le[i] & 15];
  }
  return "0x" + (s.empty() ? std::string("0") : s);
}

template <class F>
void modulus_bytes(uint8_t out[kN8]) {
  static_assert(F::kBytes == kN8);
  for (size_t i = 0; i < kN8; ++i) out[i] = uint8_t(F::kModulus.limb[i / 8] >> (8 * (i % 8)));
}

// Whether an n8-byte prime is F's modulus.
template <class F>
bool is_modulus_of(uint32_t n8, const uint8_t* prime) {
  uint8_t r[kN8];
  modulus_bytes<F>(r);
  return n8 == kN8 && std::memcmp(prime, r, kN8) == 0;
}

// The curve whose r an n8-byte prime is, if any.
std::optional<CurveId> curve_of_prime(uint32_t n8, const uint8_t* prime) {
  if (is_modulus_of<ff::Fr>(n8, prime)) return CurveId::kBls12_381;
  if (is_modulus_of<ff::bn254::Fr>(n8, prime)) return CurveId::kBn254;
  return std::nullopt;
}

std::string circom_prime_name(CurveId c) {
  return c == CurveId::kBn254 ? FieldTraits<ff::bn254::Fr>::kCircomPrime : FieldTraits<ff::Fr>::kCircomPrime;
}

// u32 n8 and the prime: must be 32 and F's modulus. A file for the other curve says so.
template <class F>
void read_prime(io::ByteCursor& c) {
  const uint32_t n8 = c.u32("n8");
  const uint8_t* prime = c.take(n8, "prime");
  if (is_modulus_of<F>(n8, prime)) return;
  uint8_t r[kN8];
  modulus_bytes<F>(r);
  const CurveId want = FieldTraits<F>::kCurve;
  const auto other = curve_of_prime(n8, prime);
  c.fail("prime " + (n8 <= 64 ? hex_be(prime, n8) : "of " + std::to_string(n8) + " bytes") + " is not " +
         curve_name(want) + "'s r " + hex_be(r, kN8) +
         (other ? std::string(" (it is ") + curve_name(*other) + "'s: a circom --prime " + circom_prime_name(*other) +
                      " file where a " + curve_name(want) + " one is needed)"
                : " (compile with circom --prime " + circom_prime_name(want) + ")"));
}

template <class F>
void write_prime(io::FileWriter& w) {
  uint8_t r[kN8];
  modulus_bytes<F>(r);
  w.u32(kN8);
  w.write(r, kN8);
}

struct R1csHeader {
  uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, m_constraints;
  uint64_t n_labels;
};

template <class F>
R1csHeader parse_r1cs_header(std::span<const uint8_t> bytes, const std::string& path) {
  io::ByteCursor c(bytes, path);
  read_prime<F>(c);
  R1csHeader h;
  h.n_wires = c.u32("nWires");
  h.n_pub_out = c.u32("nPubOut");
  h.n_pub_in = c.u32("nPubIn");
  h.n_prv_in = c.u32("nPrvIn");
  h.n_labels = c.u64("nLabels");
  h.m_constraints = c.u32("mConstraints");
  if (c.remaining() != 0) c.fail("header section has " + std::to_string(c.remaining()) + " extra bytes");
  if (uint64_t(h.n_pub_out) + h.n_pub_in + h.n_prv_in + 1 > h.n_wires)
    c.fail("nWires " + std::to_string(h.n_wires) + " is less than 1 + nPubOut + nPubIn + nPrvIn");
  return h;
}

// Appends one LC as a CSR row: wires sorted, repeated wires merged, zero sums dropped.
template <class F>
void append_row(CsrMatrix& m, CoeffDictionaryT<F>& dict, std::vector<std::pair<uint32_t, F>>& terms) {
  std::sort(terms.begin(), terms.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (size_t i = 0; i < terms.size();) {
    F sum = F::zero();
    size_t j = i;
    for (; j < terms.size() && terms[j].first == terms[i].first; ++j) sum += terms[j].second;
    if (!sum.is_zero()) {
      m.col.push_back(terms[i].first);
      m.coeff.push_back(dict.intern(sum));
    }
    i = j;
  }
  m.row_ptr.push_back(m.col.size());
}

template <class F>
void parse_constraints(std::span<const uint8_t> bytes, const std::string& path, const R1csHeader& h,
                       CircuitT<F>& circuit) {
  io::ByteCursor c(bytes, path);
  const uint64_t min_bytes = 12;  // three empty LCs
  if (uint64_t(h.m_constraints) * min_bytes > bytes.size())
    c.fail("mConstraints " + std::to_string(h.m_constraints) + " does not fit in the constraints section (" +
           std::to_string(bytes.size()) + " bytes)");
  for (Matrix which : {Matrix::A, Matrix::B, Matrix::C}) circuit.matrix(which).row_ptr.reserve(uint64_t(h.m_constraints) + 1);
  CoeffDictionaryT<F> dict;
  std::vector<std::pair<uint32_t, F>> terms;
  for (uint32_t i = 0; i < h.m_constraints; ++i) {
    for (Matrix which : {Matrix::A, Matrix::B, Matrix::C}) {
      const std::string where = "constraint " + std::to_string(i) + " " + matrix_name(which);
      const uint32_t n = c.u32(where + " nTerms");
      if (n > c.remaining() / (4 + kN8))
        c.fail(where + ": nTerms " + std::to_string(n) + " exceeds the bytes left in the section");
      terms.clear();
      for (uint32_t t = 0; t < n; ++t) {
        const uint32_t wire = c.u32(where + " wire");
        if (wire >= h.n_wires)
          c.fail(where + ": wire " + std::to_string(wire) + " is not below nWires " + std::to_string(h.n_wires));
        F v;
        if (!F::from_bytes_le(c.take(kN8, where + " coefficient"), v))
          c.fail(where + ": coefficient of wire " + std::to_string(wire) + " is not below r");
        terms.emplace_back(wire, v);
      }
      append_row(circuit.matrix(which), dict, terms);
    }
  }
  if (c.remaining() != 0) c.fail("constraints section has " + std::to_string(c.remaining()) + " extra bytes");
  circuit.coeffs = std::move(dict).take();
}

std::vector<uint64_t> parse_map(std::span<const uint8_t> bytes, const io::FileReader& r, uint32_t n_wires) {
  if (bytes.size() != uint64_t(n_wires) * 8)
    r.fail("wire-to-label section has " + std::to_string(bytes.size()) + " bytes, nWires " +
           std::to_string(n_wires) + " needs " + std::to_string(uint64_t(n_wires) * 8));
  std::vector<uint64_t> map(n_wires);
  std::memcpy(map.data(), bytes.data(), bytes.size());
  return map;
}

uint64_t lc_bytes(const CsrMatrix& m, uint64_t row) { return 4 + (m.row_ptr[row + 1] - m.row_ptr[row]) * (4 + kN8); }

template <class F>
void write_lc(io::FileWriter& w, const CircuitT<F>& c, const CsrMatrix& m, uint64_t row) {
  w.u32(uint32_t(m.row_ptr[row + 1] - m.row_ptr[row]));
  uint8_t bytes[kN8];
  for (uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) {
    w.u32(m.col[k]);
    c.coeffs[m.coeff[k]].to_bytes_le(bytes);
    w.write(bytes, kN8);
  }
}

template <class F>
void check_circom_shape(const CircuitT<F>& c, const CircomR1csInfo& info) {
  if (auto e = find_structure_error(c)) throw InvalidArgument("cannot write a circom .r1cs: " + *e);
  if (uint64_t(info.n_pub_out) + info.n_pub_in + 1 != c.num_inputs)
    throw InvalidArgument("cannot write a circom .r1cs: 1 + nPubOut + nPubIn must equal num_inputs " +
                          std::to_string(c.num_inputs));
  if (info.n_prv_in > c.num_aux) throw InvalidArgument("cannot write a circom .r1cs: nPrvIn exceeds num_aux");
  if (c.num_vars() > UINT32_MAX || c.num_constraints() > UINT32_MAX)
    throw InvalidArgument("cannot write a circom .r1cs: more than 2^32 - 1 wires or constraints");
  if (!info.wire_to_label.empty() && info.wire_to_label.size() != c.num_vars())
    throw InvalidArgument("cannot write a circom .r1cs: wire_to_label needs one entry per wire");
}

template <class F>
void write_wtns_as(const std::string& path, std::span<const F> witness) {
  if (witness.size() > UINT32_MAX) throw InvalidArgument("cannot write a .wtns: more than 2^32 - 1 values");
  io::FileWriter w(path);
  w.write("wtns", 4);
  w.u32(kWtnsVersion);
  w.u32(2);
  w.u32(kHeaderSection);
  w.u64(4 + kN8 + 4);
  write_prime<F>(w);
  w.u32(uint32_t(witness.size()));
  w.u32(kBodySection);
  w.u64(uint64_t(witness.size()) * kN8);
  uint8_t bytes[kN8];
  for (const F& v : witness) {
    v.to_bytes_le(bytes);
    w.write(bytes, kN8);
  }
  w.close();
}

}  // namespace

template <class F>
CircomR1csT<F> read_circom_r1cs(const std::string& path) {
  io::FileReader r(path);
  const std::vector<SectionRef> refs = read_sections(r, "r1cs", kR1csVersion);
  for (uint32_t custom : {4u, 5u})
    if (find_section(r, refs, custom, "custom gates", false))
      r.fail("uses custom gates (section type " + std::to_string(custom) + "), which have no R1CS form");
  const SectionRef* hs = find_section(r, refs, kHeaderSection, "header", true);
  const SectionRef* cs = find_section(r, refs, kBodySection, "constraints", true);
  const SectionRef* ms = find_section(r, refs, kMapSection, "wire-to-label", false);
  const R1csHeader h = parse_r1cs_header<F>(r.read_block(hs->offset, hs->size, "header section"), path);
  CircomR1csT<F> out;
  out.circuit.num_inputs = 1 + uint64_t(h.n_pub_out) + h.n_pub_in;
  out.circuit.num_aux = h.n_wires - out.circuit.num_inputs;
  parse_constraints(r.read_block(cs->offset, cs->size, "constraints section"), path, h, out.circuit);
  out.info = {h.n_pub_out, h.n_pub_in, h.n_prv_in, h.n_labels, {}};
  if (ms) out.info.wire_to_label = parse_map(r.read_block(ms->offset, ms->size, "wire-to-label section"), r, h.n_wires);
  return out;
}

template <class F>
std::vector<F> parse_wtns(std::span<const uint8_t> bytes, const std::string& name) {
  io::ByteCursor r(bytes, name);
  const std::vector<SectionRef> refs = read_sections(r, "wtns", kWtnsVersion);
  const SectionRef* hs = find_section(r, refs, kHeaderSection, "header", true);
  const SectionRef* vs = find_section(r, refs, kBodySection, "values", true);
  io::ByteCursor hc(bytes.subspan(hs->offset, hs->size), name);
  read_prime<F>(hc);
  const uint32_t n = hc.u32("nWitness");
  if (hc.remaining() != 0) hc.fail("header section has " + std::to_string(hc.remaining()) + " extra bytes");
  if (vs->size != uint64_t(n) * kN8)
    r.fail("values section has " + std::to_string(vs->size) + " bytes, nWitness " + std::to_string(n) +
           " needs " + std::to_string(uint64_t(n) * kN8));
  // reserve + push_back: no zero-fill of a vector every value overwrites (a 4 GB PoRep witness
  // would be written twice).
  std::vector<F> w;
  w.reserve(n);
  const uint8_t* values = bytes.data() + vs->offset;
  for (uint32_t i = 0; i < n; ++i) {
    F v;
    if (!F::from_bytes_le(values + uint64_t(i) * kN8, v)) r.fail("witness value " + std::to_string(i) + " is not below r");
    w.push_back(v);
  }
  return w;
}

template <class F>
std::vector<F> read_wtns(const std::string& path) {
  io::FileReader f(path);
  return parse_wtns<F>(f.read_block(0, f.size(), "file"), path);
}

CurveId circom_curve(const std::string& path) {
  io::FileReader r(path);
  char m[4];
  r.read(m, 4, "magic");
  r.seek(0);
  const bool is_wtns = std::memcmp(m, "wtns", 4) == 0;
  const std::vector<SectionRef> refs =
      is_wtns ? read_sections(r, "wtns", kWtnsVersion) : read_sections(r, "r1cs", kR1csVersion);
  const SectionRef* hs = find_section(r, refs, kHeaderSection, "header", true);
  const std::vector<uint8_t> header = r.read_block(hs->offset, hs->size, "header section");
  io::ByteCursor c(header, path);
  const uint32_t n8 = c.u32("n8");
  const uint8_t* prime = c.take(n8, "prime");
  if (const auto curve = curve_of_prime(n8, prime)) return *curve;
  c.fail("prime " + (n8 <= 64 ? hex_be(prime, n8) : "of " + std::to_string(n8) + " bytes") +
         " is neither BLS12-381's r nor BN254's r (compile with circom --prime bls12381 or bn128)");
}

template <class F>
void write_circom_r1cs(const std::string& path, const CircuitT<F>& c, const CircomR1csInfo& info) {
  check_circom_shape(c, info);
  uint64_t body = 0;
  for (uint64_t i = 0; i < c.num_constraints(); ++i) body += lc_bytes(c.a, i) + lc_bytes(c.b, i) + lc_bytes(c.c, i);
  io::FileWriter w(path);
  w.write("r1cs", 4);
  w.u32(kR1csVersion);
  w.u32(3);
  w.u32(kHeaderSection);
  w.u64(4 + kN8 + 4 * 4 + 8 + 4);
  write_prime<F>(w);
  for (uint32_t v : {uint32_t(c.num_vars()), info.n_pub_out, info.n_pub_in, info.n_prv_in}) w.u32(v);
  w.u64(info.n_labels);
  w.u32(uint32_t(c.num_constraints()));
  w.u32(kBodySection);
  w.u64(body);
  for (uint64_t i = 0; i < c.num_constraints(); ++i)
    for (Matrix which : {Matrix::A, Matrix::B, Matrix::C}) write_lc(w, c, c.matrix(which), i);
  w.u32(kMapSection);
  w.u64(c.num_vars() * 8);
  for (uint64_t i = 0; i < c.num_vars(); ++i) w.u64(info.wire_to_label.empty() ? i : info.wire_to_label[i]);
  w.close();
}

void write_wtns(const std::string& path, std::span<const Fr> witness) { write_wtns_as(path, witness); }
void write_wtns(const std::string& path, std::span<const ff::bn254::Fr> witness) { write_wtns_as(path, witness); }

#define SNARKD_CIRCOM_INSTANTIATE(F)                                                            \
  template CircomR1csT<F> read_circom_r1cs<F>(const std::string&);                             \
  template std::vector<F> read_wtns<F>(const std::string&);                                    \
  template std::vector<F> parse_wtns<F>(std::span<const uint8_t>, const std::string&);         \
  template void write_circom_r1cs<F>(const std::string&, const CircuitT<F>&, const CircomR1csInfo&);
SNARKD_CIRCOM_INSTANTIATE(ff::Fr)
SNARKD_CIRCOM_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_CIRCOM_INSTANTIATE

}  // namespace snarkd::r1cs
