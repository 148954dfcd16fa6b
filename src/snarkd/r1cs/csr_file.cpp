#include "snarkd/r1cs/csr_file.hpp"

#include <cstring>
#include <vector>

#include "snarkd/r1cs/binary_io.hpp"
#include "snarkd/r1cs/checksum.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::r1cs {

namespace {

using u128 = unsigned __int128;

struct Header {
  uint64_t num_constraints, num_inputs, num_aux, nnz[3], dict_size;
};

constexpr size_t kHeaderChecksumOffset = 72;

uint64_t padded(uint64_t n) { return (n + 7) / 8 * 8; }

// Calls fn(id, name, array) for sections 2..10, the nine matrix arrays, in file order; works on
// a const circuit (writing) and a mutable one (reading).
template <class CircuitT, class Fn>
void for_each_matrix_section(CircuitT& c, Fn&& fn) {
  uint32_t id = 2;
  for (Matrix which : {Matrix::A, Matrix::B, Matrix::C}) {
    auto& m = c.matrix(which);
    const std::string n = matrix_name(which);
    fn(id++, n + " row_ptr", m.row_ptr);
    fn(id++, n + " col", m.col);
    fn(id++, n + " coeff", m.coeff);
  }
}

template <class V>
uint64_t byte_size(const V& v) {
  return v.size() * sizeof(v[0]);
}

void write_section(io::FileWriter& w, uint32_t id, const void* data, uint64_t bytes) {
  static const uint8_t zeros[8] = {};
  w.u32(id);
  w.u32(0);
  w.u64(bytes);
  w.u64(checksum64(data, bytes));
  w.write(data, bytes);
  w.write(zeros, padded(bytes) - bytes);
}

void read_section(io::FileReader& r, uint32_t id, const std::string& name, void* data, uint64_t bytes) {
  const std::string where = "section " + std::to_string(id) + " (" + name + ")";
  if (uint32_t got = r.u32(where + " id"); got != id) r.fail(where + ": id is " + std::to_string(got));
  if (r.u32(where + " reserved") != 0) r.fail(where + ": reserved field is not 0");
  if (uint64_t len = r.u64(where + " length"); len != bytes)
    r.fail(where + ": length is " + std::to_string(len) + ", header implies " + std::to_string(bytes));
  const uint64_t sum = r.u64(where + " checksum");
  r.read(data, bytes, where);
  if (checksum64(data, bytes) != sum) r.fail(where + ": checksum mismatch");
  uint8_t pad[8] = {};
  const uint64_t npad = padded(bytes) - bytes;
  r.read(pad, npad, where + " padding");
  for (uint64_t i = 0; i < npad; ++i)
    if (pad[i]) r.fail(where + ": padding is not zero");
}

// Counts that can be checked without the payloads, then the total size they imply against
// the actual file size (before anything is allocated from them).
void check_counts(const io::FileReader& r, const Header& h) {
  if (h.num_inputs == 0) r.fail("num_inputs is 0 (it counts ONE)");
  if (h.num_inputs > kMaxVariables || h.num_aux > kMaxVariables - h.num_inputs)
    r.fail("num_inputs " + std::to_string(h.num_inputs) + " + num_aux " + std::to_string(h.num_aux) +
           " exceeds 2^32 variables");
  if (h.dict_size < 2 || h.dict_size > UINT32_MAX)
    r.fail("dict_size " + std::to_string(h.dict_size) + " is outside [2, 2^32 - 1]");
  const u128 payloads[10] = {u128(h.dict_size) * 32,
                             (u128(h.num_constraints) + 1) * 8, u128(h.nnz[0]) * 4, u128(h.nnz[0]) * 4,
                             (u128(h.num_constraints) + 1) * 8, u128(h.nnz[1]) * 4, u128(h.nnz[1]) * 4,
                             (u128(h.num_constraints) + 1) * 8, u128(h.nnz[2]) * 4, u128(h.nnz[2]) * 4};
  u128 total = kCsrHeaderBytes;
  for (u128 p : payloads) total += kCsrSectionHeaderBytes + (p + 7) / 8 * 8;
  if (total != r.size()) {
    const std::string implied = total >> 64 ? std::string("more than 2^64") : std::to_string(uint64_t(total));
    r.fail(std::string(total > r.size() ? "truncated" : "trailing bytes") + ": the header implies " +
           implied + " bytes, the file has " + std::to_string(r.size()));
  }
}

Header read_header(io::FileReader& r) {
  uint8_t raw[kCsrHeaderBytes];
  r.read(raw, 8, "magic");
  if (std::memcmp(raw, kCsrMagic, 8) != 0) r.fail("bad magic (not a snarkd CSR file)");
  r.read(raw + 8, kCsrHeaderBytes - 8, "header");
  uint32_t version, reserved;
  std::memcpy(&version, raw + 8, 4);
  std::memcpy(&reserved, raw + 12, 4);
  if (version == 1)
    r.fail("CSR version 1, whose checksums this snarkd no longer computes (version 2 uses XXH3): "
           "re-create the file with `snarkd synth`");
  if (version != kCsrVersion)
    r.fail("unsupported version " + std::to_string(version) + " (expected " + std::to_string(kCsrVersion) + ")");
  if (reserved != 0) r.fail("reserved header field is not 0");
  uint64_t sum;
  std::memcpy(&sum, raw + kHeaderChecksumOffset, 8);
  if (checksum64(raw, kHeaderChecksumOffset) != sum) r.fail("header checksum mismatch");
  Header h;
  uint64_t f[7];
  std::memcpy(f, raw + 16, sizeof f);
  h = {f[0], f[1], f[2], {f[3], f[4], f[5]}, f[6]};
  check_counts(r, h);
  return h;
}

}  // namespace

void write_csr_file(const std::string& path, const Circuit& circuit) {
  if (auto e = find_structure_error(circuit)) throw InvalidArgument("cannot write a CSR file: " + *e);
  uint8_t raw[kCsrHeaderBytes] = {};
  std::memcpy(raw, kCsrMagic, 8);
  std::memcpy(raw + 8, &kCsrVersion, 4);
  const uint64_t f[7] = {circuit.num_constraints(), circuit.num_inputs, circuit.num_aux, circuit.a.nnz(),
                         circuit.b.nnz(), circuit.c.nnz(), circuit.coeffs.size()};
  std::memcpy(raw + 16, f, sizeof f);
  const uint64_t sum = checksum64(raw, kHeaderChecksumOffset);
  std::memcpy(raw + kHeaderChecksumOffset, &sum, 8);

  std::vector<uint8_t> dict(circuit.coeffs.size() * 32);
  for (size_t i = 0; i < circuit.coeffs.size(); ++i) circuit.coeffs[i].to_bytes_le(&dict[32 * i]);

  io::FileWriter w(path);
  w.write(raw, sizeof raw);
  write_section(w, 1, dict.data(), dict.size());
  for_each_matrix_section(circuit, [&](uint32_t id, const std::string&, const auto& v) {
    write_section(w, id, v.data(), byte_size(v));
  });
  w.close();
}

Circuit read_csr_file(const std::string& path) {
  io::FileReader r(path);
  const Header h = read_header(r);  // sizes are now known to match the file
  Circuit c;
  c.num_inputs = h.num_inputs;
  c.num_aux = h.num_aux;
  std::vector<uint8_t> dict(h.dict_size * 32);
  read_section(r, 1, "dictionary", dict.data(), dict.size());
  c.coeffs.resize(h.dict_size);
  for (uint64_t i = 0; i < h.dict_size; ++i)
    if (!Fr::from_bytes_le(&dict[32 * i], c.coeffs[i]))
      r.fail("dictionary entry " + std::to_string(i) + " is not below r");
  for (int m = 0; m < 3; ++m) {
    CsrMatrix& x = c.matrix(Matrix(m));
    x.row_ptr.resize(h.num_constraints + 1);
    x.col.resize(h.nnz[m]);
    x.coeff.resize(h.nnz[m]);
  }
  for_each_matrix_section(c, [&](uint32_t id, const std::string& name, auto& v) {
    read_section(r, id, name, v.data(), byte_size(v));
  });
  if (auto e = find_structure_error(c)) r.fail(*e);
  return c;
}

}  // namespace snarkd::r1cs
