// snarkjs .zkey reader against the fixtures made by snarkjs 0.7.6 and circom 2.2.3 (see
// fixtures/README.md): the circuit read from the zkey is compared with circom's .r1cs and
// checked against circom's witness; the key is checked against snarkjs's exported
// verification_key.json and against a snarkjs proof (pairing equation written out here).
// Malformed files are made by editing the fixture's sections and rebuilding the container.
#include "snarkd/groth16/zkey.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "common/decode_error.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "snarkd/ec/encoding.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/pairing/pairing.hpp"
#include "snarkd/r1cs/circom.hpp"

namespace {

using namespace snarkd;
using groth16::PointCheck;
using groth16::Zkey;

std::string fixture(const std::string& circuit, const std::string& file) {
  return std::string(SNARKD_GROTH16_FIXTURES) + "/" + circuit + "/" + file;
}

using snarkd::test::decode_error;

// Row r of m as (column → coefficient).
std::map<uint32_t, ff::Fr> row_terms(const r1cs::Circuit& c, const r1cs::CsrMatrix& m, uint64_t r) {
  std::map<uint32_t, ff::Fr> out;
  for (uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) out[m.col[k]] = c.coeffs[m.coeff[k]];
  return out;
}

class ZkeyFixture : public ::testing::TestWithParam<const char*> {
 protected:
  std::string name() const { return GetParam(); }
  std::string zkey_path() const { return fixture(name(), name() + ".zkey"); }
};

TEST_P(ZkeyFixture, CircuitMatchesCircomR1csAndInputRows) {
  const Zkey z = groth16::read_zkey(zkey_path(), PointCheck::kFull);
  const r1cs::CircomR1cs circom = r1cs::read_circom_r1cs(fixture(name(), name() + ".r1cs"));
  const r1cs::Circuit& c = z.circuit;
  const uint64_t m = circom.circuit.num_constraints();
  ASSERT_EQ(c.num_inputs, circom.circuit.num_inputs);
  ASSERT_EQ(c.num_aux, circom.circuit.num_aux);
  // circom's constraints, then one "x_s · 0 = 0" row per input (zkey_new.js).
  ASSERT_EQ(c.num_constraints(), m + c.num_inputs);
  ASSERT_EQ(c.c.nnz(), 0u);
  ASSERT_EQ(c.c.num_rows(), c.num_constraints());
  for (uint64_t r = 0; r < m; ++r) {
    EXPECT_EQ(row_terms(c, c.a, r), row_terms(circom.circuit, circom.circuit.a, r)) << "A row " << r;
    EXPECT_EQ(row_terms(c, c.b, r), row_terms(circom.circuit, circom.circuit.b, r)) << "B row " << r;
  }
  for (uint64_t s = 0; s < c.num_inputs; ++s) {
    EXPECT_EQ(row_terms(c, c.a, m + s), (std::map<uint32_t, ff::Fr>{{uint32_t(s), ff::Fr::one()}}));
    EXPECT_TRUE(row_terms(c, c.b, m + s).empty());
  }
  EXPECT_LE(c.num_constraints(), z.pk.domain_size());
}

TEST_P(ZkeyFixture, WitnessSatisfiesAcircuitTimesBEqualsCircomC) {
  const Zkey z = groth16::read_zkey(zkey_path(), PointCheck::kFull);
  const r1cs::CircomR1cs circom = r1cs::read_circom_r1cs(fixture(name(), name() + ".r1cs"));
  std::vector<ff::Fr> w = r1cs::read_wtns(fixture(name(), name() + ".wtns"));
  ASSERT_EQ(w.size(), z.circuit.num_vars());
  const uint64_t rows = z.circuit.num_constraints(), m = circom.circuit.num_constraints();
  auto check = [&](bool want_ok) {
    std::vector<ff::Fr> a(rows), b(rows), c(m);
    r1cs::evaluate(z.circuit, r1cs::Matrix::A, w, a);
    r1cs::evaluate(z.circuit, r1cs::Matrix::B, w, b);
    r1cs::evaluate(circom.circuit, r1cs::Matrix::C, w, c);
    bool ok = true;
    for (uint64_t r = 0; r < rows; ++r) ok = ok && a[r] * b[r] == (r < m ? c[r] : ff::Fr::zero());
    EXPECT_EQ(ok, want_ok);
  };
  check(true);
  w.back() += ff::Fr::one();  // the last intermediate signal: some constraint must break
  check(false);
}

TEST_P(ZkeyFixture, KeyShapeAndVkMatchSnarkjsExport) {
  const Zkey z = groth16::read_zkey(zkey_path(), PointCheck::kFull);
  const groth16::ProvingKey& pk = z.pk;
  EXPECT_EQ(pk.flavour, groth16::KeyFlavour::kSnarkjs);
  EXPECT_EQ(pk.a.size(), z.circuit.num_vars());
  EXPECT_EQ(pk.b_g1.size(), z.circuit.num_vars());
  EXPECT_EQ(pk.b_g2.size(), z.circuit.num_vars());
  EXPECT_EQ(pk.l.size(), z.circuit.num_aux);
  EXPECT_EQ(pk.h.size(), pk.domain_size());
  EXPECT_EQ(pk.num_inputs(), z.circuit.num_inputs);
  EXPECT_EQ(pk.a_density.num_bits, 0u);

  const groth16::VerifyingKey vk = groth16::read_zkey_vk(zkey_path());
  EXPECT_EQ(vk, pk.vk);
  const groth16::VerifyingKey js = groth16::read_snarkjs_vk(fixture(name(), "verification_key.json"));
  EXPECT_EQ(vk.alpha_g1, js.alpha_g1);
  EXPECT_EQ(vk.beta_g2, js.beta_g2);
  EXPECT_EQ(vk.gamma_g2, js.gamma_g2);
  EXPECT_EQ(vk.delta_g2, js.delta_g2);
  EXPECT_EQ(vk.ic, js.ic);
  // β₁/δ₁ are not in the JSON; they must be the G1 twins of β₂/δ₂: e(β₁, G2) = e(G1, β₂).
  EXPECT_EQ(pairing::pairing(vk.beta_g1, ec::kG2Generator), pairing::pairing(ec::kG1Generator, vk.beta_g2));
  EXPECT_EQ(pairing::pairing(vk.delta_g1, ec::kG2Generator), pairing::pairing(ec::kG1Generator, vk.delta_g2));
  // Our export of the zkey's vk is byte-for-byte snarkjs's (field order, GT nesting, layout).
  std::ifstream f(fixture(name(), "verification_key.json"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(groth16::vk_to_snarkjs_json(vk).dump(1), text);
}

TEST_P(ZkeyFixture, TrustedReadGivesTheSameKey) {
  const Zkey full = groth16::read_zkey(zkey_path(), PointCheck::kFull);
  const Zkey trusted = groth16::read_zkey(zkey_path(), PointCheck::kTrusted);
  EXPECT_EQ(full.pk.a, trusted.pk.a);
  EXPECT_EQ(full.pk.b_g2, trusted.pk.b_g2);
  EXPECT_EQ(full.pk.l, trusted.pk.l);
  EXPECT_EQ(full.pk.h, trusted.pk.h);
}

// e(A, B) = e(α, β)·e(X, γ)·e(C, δ), X = IC₀ + Σ xᵢ·ICᵢ₊₁.
bool pairing_check(const groth16::VerifyingKey& vk, const groth16::Proof& p, const std::vector<ff::Fr>& x) {
  ec::G1Jacobian acc = ec::G1Jacobian::from_affine(vk.ic[0]);
  for (size_t i = 0; i < x.size(); ++i) acc += ec::G1Jacobian::from_affine(vk.ic[i + 1]).mul_scalar(x[i]);
  const std::vector<pairing::G1G2Pair> pairs = {
      {p.a, p.b}, {-vk.alpha_g1, vk.beta_g2}, {-acc.to_affine(), vk.gamma_g2}, {-p.c, vk.delta_g2}};
  return pairing::pairing_product_is_one(pairs);
}

TEST_P(ZkeyFixture, SnarkjsProofVerifiesUnderTheZkeyVk) {
  const groth16::VerifyingKey vk = groth16::read_zkey_vk(zkey_path());
  const groth16::Proof proof = groth16::read_snarkjs_proof(fixture(name(), "proof.json"));
  std::vector<ff::Fr> x = groth16::read_snarkjs_public(fixture(name(), "public.json"));
  ASSERT_EQ(x.size(), vk.num_public());
  // The public inputs are the witness's columns 1..nPublic.
  const std::vector<ff::Fr> w = r1cs::read_wtns(fixture(name(), name() + ".wtns"));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], w[i + 1]);
  EXPECT_TRUE(pairing_check(vk, proof, x));
  x[0] += ff::Fr::one();
  EXPECT_FALSE(pairing_check(vk, proof, x));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ZkeyFixture, ::testing::Values("multiplier", "lincomb"));

// ---- malformed files: the fixture's sections, edited, in a rebuilt container ----

struct RawZkey {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> sections;  // file order

  static RawZkey load(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    const std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    RawZkey z;
    uint32_t n;
    std::memcpy(&n, &b[8], 4);
    size_t pos = 12;
    for (uint32_t i = 0; i < n; ++i) {
      uint32_t type;
      uint64_t size;
      std::memcpy(&type, &b[pos], 4);
      std::memcpy(&size, &b[pos + 4], 8);
      pos += 12;
      z.sections.emplace_back(type, std::vector<uint8_t>(b.begin() + long(pos), b.begin() + long(pos + size)));
      pos += size;
    }
    EXPECT_EQ(pos, b.size());
    return z;
  }
  std::vector<uint8_t>& section(uint32_t type) {
    for (auto& s : sections)
      if (s.first == type) return s.second;
    throw std::runtime_error("no section");
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out;
    auto put = [&](const void* p, size_t n) {
      out.resize(out.size() + n);
      std::memcpy(out.data() + out.size() - n, p, n);
    };
    const uint32_t version = 1;
    put("zkey", 4);
    put(&version, 4);
    const uint32_t n = uint32_t(sections.size());
    put(&n, 4);
    for (const auto& [type, data] : sections) {
      const uint64_t size = data.size();
      put(&type, 4);
      put(&size, 8);
      put(data.data(), data.size());
    }
    return out;
  }
};

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

class BadZkey : public ::testing::Test {
 protected:
  void SetUp() override { raw_ = RawZkey::load(fixture("multiplier", "multiplier.zkey")); }
  std::string write(const std::vector<uint8_t>& bytes) {
    std::ofstream(path_, std::ios::binary).write((const char*)bytes.data(), std::streamsize(bytes.size()));
    return path_;
  }
  // The error of reading the edited file; every message must start with the path.
  std::string error_of(PointCheck check = PointCheck::kFull) {
    write(raw_.bytes());
    const std::string e = decode_error([&] { groth16::read_zkey(path_, check); });
    EXPECT_EQ(e.rfind(path_ + ": ", 0), 0u) << e;
    return e;
  }
  RawZkey raw_;
  const std::string path_ = ::testing::TempDir() + "/bad.zkey";
  static constexpr size_t kCoef = 44;  // bytes per coefficient entry
};

TEST_F(BadZkey, UneditedCopyReads) { EXPECT_NO_THROW(groth16::read_zkey(write(raw_.bytes()), PointCheck::kFull)); }

TEST_F(BadZkey, TruncatedInEachSection) {
  const std::vector<uint8_t> full = raw_.bytes();
  size_t pos = 12;
  for (const auto& [type, data] : raw_.sections) {
    const std::vector<uint8_t> cut(full.begin(), full.begin() + long(pos + 12 + data.size() / 2));
    const std::string e = decode_error([&] { groth16::read_zkey(write(cut), PointCheck::kFull); });
    EXPECT_NE(e.find(path_ + ": truncated: section " + std::to_string(type) + " declares"), std::string::npos) << e;
    pos += 12 + data.size();
  }
  const std::vector<uint8_t> cut(full.begin(), full.begin() + 10);
  EXPECT_EQ(decode_error([&] { groth16::read_zkey(write(cut), PointCheck::kFull); }), path_ + ": truncated in nSections");
}

TEST_F(BadZkey, WrongPrimes) {
  raw_.section(2)[4] ^= 1;  // q
  EXPECT_EQ(error_of(), path_ + ": section 2 (groth16 header): q is not BLS12-381's (only bls12381 zkeys are supported)");
  raw_.section(2)[4] ^= 1;
  raw_.section(2)[4 + 48 + 4] ^= 1;  // r
  EXPECT_EQ(error_of(), path_ + ": section 2 (groth16 header): r is not BLS12-381's (only bls12381 zkeys are supported)");
  raw_.section(2)[4 + 48 + 4] ^= 1;
  put_u32(raw_.section(2), 0, 32);
  EXPECT_EQ(error_of(), path_ + ": section 2 (groth16 header): n8q is 32, expected 48 (BLS12-381)");
}

TEST_F(BadZkey, HeaderFields) {
  put_u32(raw_.section(1), 0, 2);
  EXPECT_EQ(error_of(), path_ + ": section 1 (header): protocol 2 is not Groth16 (1)");
  put_u32(raw_.section(1), 0, 1);
  put_u32(raw_.section(2), 4 + 48 + 4 + 32 + 8, 24);  // domainSize
  EXPECT_EQ(error_of(), path_ + ": section 2 (groth16 header): domainSize 24 is not a power of two ≥ 2");
}

TEST_F(BadZkey, SectionSizeMismatch) {
  auto& ic = raw_.section(3);
  ic.insert(ic.end(), ic.begin(), ic.begin() + 96);  // one point too many
  EXPECT_EQ(error_of(), path_ + ": section 3 (IC): 384 bytes, expected 288 (nPublic + 1 = 3 points of 96 bytes)");
  ic.resize(288);
  raw_.section(9).resize(raw_.section(9).size() - 96);
  EXPECT_NE(error_of().find("section 9 (H): "), std::string::npos);
  raw_.sections.erase(raw_.sections.begin());  // drop whichever section comes first
  EXPECT_NE(error_of().find(": missing section "), std::string::npos);
}

// Found by the fuzz work (fixtures/regress/zkey-domainsize-alloc.txt): domainSize = 2^31 and a
// coefficient on constraint 2^31 − 1 made the reader build a 2^31-row circuit (16 GiB) before it
// looked at the H section. The section sizes are now checked first.
TEST_F(BadZkey, HugeDomainSizeIsRejectedBeforeAllocating) {
  const std::string path = std::string(SNARKD_GROTH16_FIXTURES) + "/regress/zkey-domainsize-alloc.zkey";
  const std::string e = decode_error([&] { groth16::read_zkey(path, PointCheck::kFull); });
  EXPECT_NE(e.find(path + ": section 9 (H): 1536 bytes, the header's counts need 206158430208"), std::string::npos) << e;
  put_u32(raw_.section(2), 4 + 48 + 4 + 32 + 8, 1u << 31);  // domainSize
  EXPECT_NE(error_of().find("the header's counts need"), std::string::npos);
}

TEST_F(BadZkey, Coefficients) {
  auto& co = raw_.section(4);
  put_u32(co, 4 + 17 * kCoef, 2);
  EXPECT_EQ(error_of(), path_ + ": section 4 (coeffs): coefficient 17 has matrix 2, expected 0 (A) or 1 (B)");
  put_u32(co, 4 + 17 * kCoef, 1);
  uint32_t n_vars;
  std::memcpy(&n_vars, &raw_.section(2)[4 + 48 + 4 + 32], 4);
  put_u32(co, 4 + 3 * kCoef + 8, n_vars);
  EXPECT_EQ(error_of(), path_ + ": section 4 (coeffs): coefficient 3 has signal " + std::to_string(n_vars) +
                            ", not below nVars " + std::to_string(n_vars));
  put_u32(co, 4 + 3 * kCoef + 8, 0);
  uint32_t domain;
  std::memcpy(&domain, &raw_.section(2)[4 + 48 + 4 + 32 + 8], 4);
  put_u32(co, 4 + 5 * kCoef + 4, domain);
  EXPECT_EQ(error_of(), path_ + ": section 4 (coeffs): coefficient 5 has constraint " + std::to_string(domain) +
                            ", not below domainSize " + std::to_string(domain));
  put_u32(co, 4 + 5 * kCoef + 4, 0);
  std::memcpy(&co[4 + 7 * kCoef + 12], ff::Fr::kModulus.limb, 32);  // value = r
  EXPECT_EQ(error_of(), path_ + ": section 4 (coeffs): coefficient 7 has a value that is not below r");
  std::memset(&co[4 + 7 * kCoef + 12], 0, 32);
  put_u32(co, 0, 1000);
  EXPECT_NE(error_of().find(": section 4 (coeffs): "), std::string::npos);
  co.resize(2);
  EXPECT_EQ(error_of(), path_ + ": section 4 (coeffs): truncated in nCoef");
}

TEST_F(BadZkey, OffCurvePoints) {
  raw_.section(5)[3 * 96 + 48] ^= 1;  // A[3].y: still < p, no longer on the curve
  EXPECT_EQ(error_of(), path_ + ": section 5 (A): point 3: G1 LEM: point is not on the curve");
  // kTrusted skips the curve test for A, B1, B2, C, H (documented) ...
  EXPECT_NO_THROW(groth16::read_zkey(path_, PointCheck::kTrusted));
  raw_.section(5)[3 * 96 + 48] ^= 1;
  // ... but never for the verifying-key points.
  raw_.section(3)[96 + 48] ^= 1;
  EXPECT_EQ(error_of(PointCheck::kTrusted), path_ + ": section 3 (IC): point 1: G1 LEM: point is not on the curve");
  raw_.section(3)[96 + 48] ^= 1;
  raw_.section(2)[4 + 48 + 4 + 32 + 12 + 96 + 96 + 10] ^= 1;  // beta_2.x
  EXPECT_NE(error_of().find(": section 2 (groth16 header): beta_2: G2 LEM: "), std::string::npos);
  raw_.section(2)[4 + 48 + 4 + 32 + 12 + 96 + 96 + 10] ^= 1;
  raw_.section(7)[192 + 100] ^= 1;  // B2[1]
  EXPECT_NE(error_of().find(": section 7 (B2): point 1: G2 LEM: "), std::string::npos);
}

// LEM infinity is all-zero bytes; a degenerate verifying key is refused by both zkey readers.
TEST_F(BadZkey, DegenerateVerifyingKeys) {
  constexpr size_t kAlpha1 = 4 + 48 + 4 + 32 + 12, kGamma2 = kAlpha1 + 96 + 96 + 192, kDelta2 = kGamma2 + 192 + 96;
  const RawZkey good = raw_;
  const std::pair<std::function<void(RawZkey&)>, std::string> cases[] = {
      {[](RawZkey& z) { std::memset(&z.section(2)[kAlpha1], 0, 96); }, "alpha_1 is the point at infinity"},
      {[](RawZkey& z) { std::memset(&z.section(2)[kGamma2], 0, 192); }, "gamma_2 is the point at infinity"},
      {[](RawZkey& z) { std::memset(&z.section(2)[kDelta2], 0, 192); }, "delta_2 is the point at infinity"},
      {[](RawZkey& z) { std::fill(z.section(3).begin(), z.section(3).end(), 0); }, "IC[0] is the point at infinity"},
      {[](RawZkey& z) { std::memcpy(&z.section(2)[kGamma2], &z.section(2)[kDelta2], 192); },
       "gamma_2 equals delta_2, so proofs can be forged for any public inputs"},
  };
  for (const auto& [edit, want] : cases) {
    raw_ = good;
    edit(raw_);
    EXPECT_EQ(error_of(), path_ + ": degenerate verifying key: " + want);
    EXPECT_EQ(decode_error([&] { groth16::read_zkey_vk(path_); }), path_ + ": degenerate verifying key: " + want);
  }
}

TEST_F(BadZkey, VkReaderChecksTheContainerToo) {
  raw_.section(9).pop_back();
  std::vector<uint8_t> b = raw_.bytes();
  b.pop_back();  // the declared size of the last section now overruns the file
  write(b);
  EXPECT_NE(decode_error([&] { groth16::read_zkey_vk(path_); }).find(path_ + ": truncated: section "),
            std::string::npos);
}

}  // namespace
