// snarkjs .zkey reader against the fixtures made by snarkjs 0.7.6 and circom 2.2.3 (see
// fixtures/README.md), on both curves (BLS12-381 and BN254): the circuit read from the zkey is
// compared with circom's .r1cs and checked against circom's witness; the key is checked against
// snarkjs's exported verification_key.json and against a snarkjs proof (pairing equation
// written out here). Malformed files are made by editing the fixture's sections and rebuilding
// the container; their offsets follow from the curve's field sizes.
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

#include "curves.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/r1cs/circom.hpp"

namespace {

using namespace snarkd;
using groth16::PointCheck;
using groth16::test::fixture;

using snarkd::test::decode_error;

// Row r of m as (column → coefficient).
template <class F>
std::map<uint32_t, F> row_terms(const r1cs::CircuitT<F>& c, const r1cs::CsrMatrix& m, uint64_t r) {
  std::map<uint32_t, F> out;
  for (uint64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k) out[m.col[k]] = c.coeffs[m.coeff[k]];
  return out;
}

template <class E>
class ZkeyFixture : public ::testing::Test {
 protected:
  using F = typename E::Fr;
  static constexpr const char* kCircuits[] = {"multiplier", "lincomb"};
  static std::string zkey_path(const std::string& name) { return fixture<E>(name, name + ".zkey"); }
  static r1cs::CircomR1csT<F> circom(const std::string& name) {
    return r1cs::read_circom_r1cs<F>(fixture<E>(name, name + ".r1cs"));
  }
  static std::vector<F> witness(const std::string& name) { return r1cs::read_wtns<F>(fixture<E>(name, name + ".wtns")); }
};
TYPED_TEST_SUITE(ZkeyFixture, groth16::test::Curves, groth16::test::CurveNames);

TYPED_TEST(ZkeyFixture, CircuitMatchesCircomR1csAndInputRows) {
  using E = TypeParam;
  using F = typename E::Fr;
  for (const std::string name : this->kCircuits) {
    const auto z = groth16::read_zkey<E>(this->zkey_path(name), PointCheck::kFull);
    EXPECT_EQ(groth16::zkey_curve(this->zkey_path(name)), E::kId);
    const auto circom = this->circom(name);
    const auto& c = z.circuit;
    const uint64_t m = circom.circuit.num_constraints();
    ASSERT_EQ(c.num_inputs, circom.circuit.num_inputs);
    ASSERT_EQ(c.num_aux, circom.circuit.num_aux);
    // circom's constraints, then one "x_s · 0 = 0" row per input (zkey_new.js).
    ASSERT_EQ(c.num_constraints(), m + c.num_inputs);
    ASSERT_EQ(c.c.nnz(), 0u);
    ASSERT_EQ(c.c.num_rows(), c.num_constraints());
    for (uint64_t r = 0; r < m; ++r) {
      EXPECT_EQ(row_terms(c, c.a, r), row_terms(circom.circuit, circom.circuit.a, r)) << name << " A row " << r;
      EXPECT_EQ(row_terms(c, c.b, r), row_terms(circom.circuit, circom.circuit.b, r)) << name << " B row " << r;
    }
    for (uint64_t s = 0; s < c.num_inputs; ++s) {
      EXPECT_EQ(row_terms(c, c.a, m + s), (std::map<uint32_t, F>{{uint32_t(s), F::one()}}));
      EXPECT_TRUE(row_terms(c, c.b, m + s).empty());
    }
    EXPECT_LE(c.num_constraints(), z.pk.domain_size());
  }
}

TYPED_TEST(ZkeyFixture, WitnessSatisfiesAcircuitTimesBEqualsCircomC) {
  using E = TypeParam;
  using F = typename E::Fr;
  for (const std::string name : this->kCircuits) {
    const auto z = groth16::read_zkey<E>(this->zkey_path(name), PointCheck::kFull);
    const auto circom = this->circom(name);
    std::vector<F> w = this->witness(name);
    ASSERT_EQ(w.size(), z.circuit.num_vars());
    const uint64_t rows = z.circuit.num_constraints(), m = circom.circuit.num_constraints();
    auto check = [&](bool want_ok) {
      std::vector<F> a(rows), b(rows), c(m);
      r1cs::evaluate(z.circuit, r1cs::Matrix::A, w, a);
      r1cs::evaluate(z.circuit, r1cs::Matrix::B, w, b);
      r1cs::evaluate(circom.circuit, r1cs::Matrix::C, w, c);
      bool ok = true;
      for (uint64_t r = 0; r < rows; ++r) ok = ok && a[r] * b[r] == (r < m ? c[r] : F::zero());
      EXPECT_EQ(ok, want_ok) << name;
    };
    check(true);
    w.back() += F::one();  // the last intermediate signal: some constraint must break
    check(false);
  }
}

TYPED_TEST(ZkeyFixture, KeyShapeAndVkMatchSnarkjsExport) {
  using E = TypeParam;
  for (const std::string name : this->kCircuits) {
    const auto z = groth16::read_zkey<E>(this->zkey_path(name), PointCheck::kFull);
    const auto& pk = z.pk;
    EXPECT_EQ(pk.flavour, groth16::KeyFlavour::kSnarkjs);
    EXPECT_EQ(pk.a.size(), z.circuit.num_vars());
    EXPECT_EQ(pk.b_g1.size(), z.circuit.num_vars());
    EXPECT_EQ(pk.b_g2.size(), z.circuit.num_vars());
    EXPECT_EQ(pk.l.size(), z.circuit.num_aux);
    EXPECT_EQ(pk.h.size(), pk.domain_size());
    EXPECT_EQ(pk.num_inputs(), z.circuit.num_inputs);
    EXPECT_EQ(pk.a_density.num_bits, 0u);

    const auto vk = groth16::read_zkey_vk<E>(this->zkey_path(name));
    EXPECT_EQ(vk, pk.vk);
    const auto js = groth16::read_snarkjs_vk<E>(fixture<E>(name, "verification_key.json"));
    EXPECT_EQ(vk.alpha_g1, js.alpha_g1);
    EXPECT_EQ(vk.beta_g2, js.beta_g2);
    EXPECT_EQ(vk.gamma_g2, js.gamma_g2);
    EXPECT_EQ(vk.delta_g2, js.delta_g2);
    EXPECT_EQ(vk.ic, js.ic);
    // β₁/δ₁ are not in the JSON; they must be the G1 twins of β₂/δ₂: e(β₁, G2) = e(G1, β₂).
    const auto g1 = ec::generator<typename E::G1>();
    const auto g2 = ec::generator<typename E::G2>();
    EXPECT_EQ(E::pair(vk.beta_g1, g2), E::pair(g1, vk.beta_g2));
    EXPECT_EQ(E::pair(vk.delta_g1, g2), E::pair(g1, vk.delta_g2));
    // Our export of the zkey's vk is byte-for-byte snarkjs's (field order, GT nesting, layout).
    std::ifstream f(fixture<E>(name, "verification_key.json"), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(groth16::vk_to_snarkjs_json(vk).dump(1), text);
  }
}

TYPED_TEST(ZkeyFixture, TrustedReadGivesTheSameKey) {
  using E = TypeParam;
  for (const std::string name : this->kCircuits) {
    const auto full = groth16::read_zkey<E>(this->zkey_path(name), PointCheck::kFull);
    const auto trusted = groth16::read_zkey<E>(this->zkey_path(name), PointCheck::kTrusted);
    EXPECT_EQ(full.pk.a, trusted.pk.a);
    EXPECT_EQ(full.pk.b_g2, trusted.pk.b_g2);
    EXPECT_EQ(full.pk.l, trusted.pk.l);
    EXPECT_EQ(full.pk.h, trusted.pk.h);
  }
}

// e(A, B) = e(α, β)·e(X, γ)·e(C, δ), X = IC₀ + Σ xᵢ·ICᵢ₊₁.
template <class E>
bool pairing_check(const groth16::VerifyingKeyT<E>& vk, const groth16::ProofT<E>& p,
                   const std::vector<typename E::Fr>& x) {
  using J1 = typename E::G1Jacobian;
  J1 acc = J1::from_affine(vk.ic[0]);
  for (size_t i = 0; i < x.size(); ++i) acc += J1::from_affine(vk.ic[i + 1]).mul_scalar(x[i]);
  const std::vector<typename E::G1G2Pair> pairs = {
      {p.a, p.b}, {-vk.alpha_g1, vk.beta_g2}, {-acc.to_affine(), vk.gamma_g2}, {-p.c, vk.delta_g2}};
  return E::product_is_one(pairs);
}

TYPED_TEST(ZkeyFixture, SnarkjsProofVerifiesUnderTheZkeyVk) {
  using E = TypeParam;
  for (const std::string name : this->kCircuits) {
    const auto vk = groth16::read_zkey_vk<E>(this->zkey_path(name));
    const auto proof = groth16::read_snarkjs_proof<E>(fixture<E>(name, "proof.json"));
    auto x = groth16::read_snarkjs_public<E>(fixture<E>(name, "public.json"));
    ASSERT_EQ(x.size(), vk.num_public());
    // The public inputs are the witness's columns 1..nPublic.
    const auto w = this->witness(name);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i], w[i + 1]);
    EXPECT_TRUE(pairing_check(vk, proof, x)) << name;
    x[0] += E::Fr::one();
    EXPECT_FALSE(pairing_check(vk, proof, x)) << name;
  }
}

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

template <class E>
class BadZkey : public ::testing::Test {
 protected:
  void SetUp() override { raw_ = RawZkey::load(fixture<E>("multiplier", "multiplier.zkey")); }
  std::string write(const std::vector<uint8_t>& bytes) {
    std::ofstream(path_, std::ios::binary).write((const char*)bytes.data(), std::streamsize(bytes.size()));
    return path_;
  }
  // The error of reading the edited file; every message must start with the path.
  std::string error_of(PointCheck check = PointCheck::kFull) {
    write(raw_.bytes());
    const std::string e = decode_error([&] { groth16::read_zkey<E>(path_, check); });
    EXPECT_EQ(e.rfind(path_ + ": ", 0), 0u) << e;
    return e;
  }
  RawZkey raw_;
  const std::string path_ = ::testing::TempDir() + "/bad_" + E::kSnarkjsName + ".zkey";
  // The layout's sizes for E (zkey.hpp).
  static constexpr size_t kN8q = E::Fp::kBytes, kG1 = E::kG1LemSize, kG2 = E::kG2LemSize;
  static constexpr size_t kCoef = 44;                          // bytes per coefficient entry
  static constexpr size_t kNVars = 4 + kN8q + 4 + 32;          // offset of nVars in section 2
  static constexpr size_t kDomain = kNVars + 8;                // of domainSize
  static constexpr size_t kAlpha1 = kNVars + 12;               // of α₁, then β₁ β₂ γ₂ δ₁ δ₂
  static constexpr size_t kBeta2 = kAlpha1 + 2 * kG1, kGamma2 = kBeta2 + kG2, kDelta2 = kGamma2 + kG2 + kG1;
};
TYPED_TEST_SUITE(BadZkey, groth16::test::Curves, groth16::test::CurveNames);

TYPED_TEST(BadZkey, UneditedCopyReads) {
  EXPECT_NO_THROW(groth16::read_zkey<TypeParam>(this->write(this->raw_.bytes()), PointCheck::kFull));
}

TYPED_TEST(BadZkey, TruncatedInEachSection) {
  const std::vector<uint8_t> full = this->raw_.bytes();
  size_t pos = 12;
  for (const auto& [type, data] : this->raw_.sections) {
    const std::vector<uint8_t> cut(full.begin(), full.begin() + long(pos + 12 + data.size() / 2));
    const std::string e = decode_error([&] { groth16::read_zkey<TypeParam>(this->write(cut), PointCheck::kFull); });
    EXPECT_NE(e.find(this->path_ + ": truncated: section " + std::to_string(type) + " declares"), std::string::npos) << e;
    pos += 12 + data.size();
  }
  const std::vector<uint8_t> cut(full.begin(), full.begin() + 10);
  EXPECT_EQ(decode_error([&] { groth16::read_zkey<TypeParam>(this->write(cut), PointCheck::kFull); }),
            this->path_ + ": truncated in nSections");
}

// A q or r that is no curve's, and an n8q that is not the curve's, are named; a zkey of the other
// curve is named as such (curves_test.cpp).
TYPED_TEST(BadZkey, WrongPrimes) {
  using E = TypeParam;
  const std::string where = this->path_ + ": section 2 (groth16 header): ";
  const std::string only = " (only bls12381 and bn128 zkeys are supported)";
  auto& h = this->raw_.section(2);
  h[4] ^= 1;  // q
  EXPECT_EQ(this->error_of(), where + "q is not " + E::kName + "'s" + only);
  EXPECT_EQ(decode_error([&] { groth16::zkey_curve(this->path_); }),
            where + "q is neither BLS12-381's nor BN254's" + only);
  h[4] ^= 1;
  h[4 + this->kN8q + 4] ^= 1;  // r
  EXPECT_EQ(this->error_of(), where + "r is not " + E::kName + "'s" + only);
  h[4 + this->kN8q + 4] ^= 1;
  put_u32(h, 0, 40);
  EXPECT_EQ(this->error_of(), where + "n8q is 40, expected " + std::to_string(this->kN8q) + " (" + E::kName + ")");
}

TYPED_TEST(BadZkey, HeaderFields) {
  put_u32(this->raw_.section(1), 0, 2);
  EXPECT_EQ(this->error_of(), this->path_ + ": section 1 (header): protocol 2 is not Groth16 (1)");
  put_u32(this->raw_.section(1), 0, 1);
  put_u32(this->raw_.section(2), this->kDomain, 24);
  EXPECT_EQ(this->error_of(), this->path_ + ": section 2 (groth16 header): domainSize 24 is not a power of two ≥ 2");
}

TYPED_TEST(BadZkey, SectionSizeMismatch) {
  const size_t g1 = this->kG1;
  auto& ic = this->raw_.section(3);
  ic.insert(ic.end(), ic.begin(), ic.begin() + long(g1));  // one point too many
  EXPECT_EQ(this->error_of(), this->path_ + ": section 3 (IC): " + std::to_string(4 * g1) + " bytes, expected " +
                                  std::to_string(3 * g1) + " (nPublic + 1 = 3 points of " + std::to_string(g1) +
                                  " bytes)");
  ic.resize(3 * g1);
  this->raw_.section(9).resize(this->raw_.section(9).size() - g1);
  EXPECT_NE(this->error_of().find("section 9 (H): "), std::string::npos);
  this->raw_.sections.erase(this->raw_.sections.begin());  // drop whichever section comes first
  EXPECT_NE(this->error_of().find(": missing section "), std::string::npos);
}

// Found by the fuzz work (fixtures/regress/zkey-domainsize-alloc.txt): domainSize = 2^31 and a
// coefficient on constraint 2^31 − 1 made the reader build a 2^31-row circuit (16 GiB) before it
// looked at the H section. The section sizes are now checked first. BN254's Fr has roots of
// unity of order 2^28 only, so there a domainSize above 2^27 is refused before that.
TYPED_TEST(BadZkey, HugeDomainSizeIsRejectedBeforeAllocating) {
  using E = TypeParam;
  if constexpr (std::is_same_v<E, groth16::Bls12_381>) {
    const std::string path = std::string(SNARKD_GROTH16_FIXTURES) + "/regress/zkey-domainsize-alloc.zkey";
    const std::string e = decode_error([&] { groth16::read_zkey(path, PointCheck::kFull); });
    EXPECT_NE(e.find(path + ": section 9 (H): 1536 bytes, the header's counts need 206158430208"), std::string::npos)
        << e;
    put_u32(this->raw_.section(2), this->kDomain, 1u << 31);
    EXPECT_NE(this->error_of().find("the header's counts need"), std::string::npos);
  } else {
    put_u32(this->raw_.section(2), this->kDomain, 1u << 28);
    EXPECT_EQ(this->error_of(), this->path_ + ": section 2 (groth16 header): domainSize 268435456 exceeds 2^27, the "
                                              "largest BN254's Fr supports");
    put_u32(this->raw_.section(2), this->kDomain, 1u << 27);
    EXPECT_NE(this->error_of().find("the header's counts need"), std::string::npos);
  }
}

TYPED_TEST(BadZkey, Coefficients) {
  const size_t kCoef = this->kCoef;
  auto& co = this->raw_.section(4);
  const std::string where = this->path_ + ": section 4 (coeffs): ";
  put_u32(co, 4 + 17 * kCoef, 2);
  EXPECT_EQ(this->error_of(), where + "coefficient 17 has matrix 2, expected 0 (A) or 1 (B)");
  put_u32(co, 4 + 17 * kCoef, 1);
  uint32_t n_vars;
  std::memcpy(&n_vars, &this->raw_.section(2)[this->kNVars], 4);
  put_u32(co, 4 + 3 * kCoef + 8, n_vars);
  EXPECT_EQ(this->error_of(), where + "coefficient 3 has signal " + std::to_string(n_vars) + ", not below nVars " +
                                  std::to_string(n_vars));
  put_u32(co, 4 + 3 * kCoef + 8, 0);
  uint32_t domain;
  std::memcpy(&domain, &this->raw_.section(2)[this->kDomain], 4);
  put_u32(co, 4 + 5 * kCoef + 4, domain);
  EXPECT_EQ(this->error_of(), where + "coefficient 5 has constraint " + std::to_string(domain) +
                                  ", not below domainSize " + std::to_string(domain));
  put_u32(co, 4 + 5 * kCoef + 4, 0);
  std::memcpy(&co[4 + 7 * kCoef + 12], TypeParam::Fr::kModulus.limb, 32);  // value = r
  EXPECT_EQ(this->error_of(), where + "coefficient 7 has a value that is not below r");
  std::memset(&co[4 + 7 * kCoef + 12], 0, 32);
  put_u32(co, 0, 1000);
  EXPECT_NE(this->error_of().find(": section 4 (coeffs): "), std::string::npos);
  co.resize(2);
  EXPECT_EQ(this->error_of(), where + "truncated in nCoef");
}

TYPED_TEST(BadZkey, OffCurvePoints) {
  const size_t g1 = this->kG1, g2 = this->kG2, fp = this->kN8q;
  auto& raw = this->raw_;
  raw.section(5)[3 * g1 + fp] ^= 1;  // A[3].y: still < p, no longer on the curve
  const std::string e = this->error_of();
  EXPECT_EQ(e.rfind(this->path_ + ": section 5 (A): point 3: ", 0), 0u) << e;
  EXPECT_NE(e.find("G1 LEM: point is not on the curve"), std::string::npos) << e;
  // kTrusted skips the curve test for A, B1, B2, C, H (documented) ...
  EXPECT_NO_THROW(groth16::read_zkey<TypeParam>(this->path_, PointCheck::kTrusted));
  raw.section(5)[3 * g1 + fp] ^= 1;
  // ... but never for the verifying-key points.
  raw.section(3)[g1 + fp] ^= 1;
  EXPECT_NE(this->error_of(PointCheck::kTrusted).find(": section 3 (IC): point 1: "), std::string::npos);
  raw.section(3)[g1 + fp] ^= 1;
  raw.section(2)[this->kBeta2 + 10] ^= 1;  // beta_2.x
  EXPECT_NE(this->error_of().find(": section 2 (groth16 header): beta_2: "), std::string::npos);
  raw.section(2)[this->kBeta2 + 10] ^= 1;
  raw.section(7)[g2 + 100] ^= 1;  // B2[1]
  EXPECT_NE(this->error_of().find(": section 7 (B2): point 1: "), std::string::npos);
}

// LEM infinity is all-zero bytes; a degenerate verifying key is refused by both zkey readers.
TYPED_TEST(BadZkey, DegenerateVerifyingKeys) {
  using Self = std::remove_pointer_t<decltype(this)>;
  const RawZkey good = this->raw_;
  const std::pair<std::function<void(RawZkey&)>, std::string> cases[] = {
      {[](RawZkey& z) { std::memset(&z.section(2)[Self::kAlpha1], 0, Self::kG1); }, "alpha_1 is the point at infinity"},
      {[](RawZkey& z) { std::memset(&z.section(2)[Self::kGamma2], 0, Self::kG2); }, "gamma_2 is the point at infinity"},
      {[](RawZkey& z) { std::memset(&z.section(2)[Self::kDelta2], 0, Self::kG2); }, "delta_2 is the point at infinity"},
      {[](RawZkey& z) { std::fill(z.section(3).begin(), z.section(3).end(), 0); }, "IC[0] is the point at infinity"},
      {[](RawZkey& z) { std::memcpy(&z.section(2)[Self::kGamma2], &z.section(2)[Self::kDelta2], Self::kG2); },
       "gamma_2 equals delta_2, so proofs can be forged for any public inputs"},
  };
  for (const auto& [edit, want] : cases) {
    this->raw_ = good;
    edit(this->raw_);
    EXPECT_EQ(this->error_of(), this->path_ + ": degenerate verifying key: " + want);
    EXPECT_EQ(decode_error([&] { groth16::read_zkey_vk<TypeParam>(this->path_); }),
              this->path_ + ": degenerate verifying key: " + want);
  }
}

TYPED_TEST(BadZkey, VkReaderChecksTheContainerToo) {
  this->raw_.section(9).pop_back();
  std::vector<uint8_t> b = this->raw_.bytes();
  b.pop_back();  // the declared size of the last section now overruns the file
  this->write(b);
  EXPECT_NE(decode_error([&] { groth16::read_zkey_vk<TypeParam>(this->path_); }).find(this->path_ + ": truncated: section "),
            std::string::npos);
}

}  // namespace
