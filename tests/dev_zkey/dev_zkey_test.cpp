// tools/dev_zkey's files read back natively, on both curves (its snarkjs interop is
// scripts/dev-zkey-check.sh, ctest test_dev_zkey_snarkjs): the .zkey is byte for byte what
// write_zkey makes of setup_snarkjs_insecure's key for the same seed and round-trips read_zkey;
// the CPU prover proves the .wtns with it and the verifier accepts against the vk.json and
// public.json written next to it, and the tool's own proof.json; the .r1cs holds the circuit the
// witness satisfies, in the circom shape measured on bench/circom/bn254_16; errors name the flag.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "dev_zkey.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/curve.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::dev_zkey {
namespace {

using groth16::Bls12_381;
using groth16::Bn254;

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

template <class E>
class DevZkeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/dev_zkey_" + E::kSnarkjsName;
    std::filesystem::create_directories(dir_);
    opt_.curve = E::kId;
    opt_.circuit = shape_params("circom");
    opt_.circuit.num_inputs = 3;
    opt_.circuit.num_constraints = (1 << 11) - 3;  // a 2^11 domain exactly
    opt_.circuit.seed = 41;
    opt_.seed = 42;
    opt_.out = {path("K.zkey"),      path("W.wtns"),     path("vk.json"),
                path("public.json"), path("proof.json"), path("C.r1cs")};
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
  Options opt_;
};
struct CurveNames {
  template <class E>
  static std::string GetName(int) {
    return E::kSnarkjsName;
  }
};
using Curves = ::testing::Types<Bls12_381, Bn254>;
TYPED_TEST_SUITE(DevZkeyTest, Curves, CurveNames);

TYPED_TEST(DevZkeyTest, FilesProveAndVerify) {
  using E = TypeParam;
  using F = typename E::Fr;
  const Made made = make(this->opt_, nullptr);
  EXPECT_EQ(made.log_domain, 11u);
  EXPECT_EQ(made.num_inputs, 3u);
  EXPECT_EQ(made.constraints, (1u << 11) - 3);
  EXPECT_FALSE(std::filesystem::exists(this->opt_.out.zkey + ".part"));

  // The same key from the library, written again: the same bytes.
  const auto sc = r1cs::generate_synthetic<F>(this->opt_.circuit);
  auto z = groth16::setup_snarkjs_insecure<E>(sc.circuit, groth16::toxic_waste_from_seed<F>(42));
  const auto lib_key = groth16::BoundKeyT<E>::bind(std::move(z.pk), std::move(z.circuit));
  groth16::write_zkey(this->path("lib.zkey"), *lib_key);
  EXPECT_TRUE(bytes_of(this->path("lib.zkey")) == bytes_of(this->opt_.out.zkey));

  const auto read = groth16::read_zkey<E>(this->opt_.out.zkey);
  const auto key = groth16::BoundKeyT<E>::bind(read.pk, read.circuit);
  const auto w = r1cs::read_wtns<F>(this->opt_.out.wtns);
  EXPECT_EQ(w, sc.witness);
  const auto vk = groth16::read_snarkjs_vk<E>(this->opt_.out.vk);
  const auto pub = groth16::read_snarkjs_public<E>(this->opt_.out.public_json);
  EXPECT_EQ(pub, groth16::public_inputs(key->circuit(), w));
  EXPECT_EQ(vk.ic, read.pk.vk.ic);
  const auto proof = groth16::prove(*key, w, groth16::random_proof_randomness<E>());
  EXPECT_TRUE(groth16::verify(vk, proof, pub));
  EXPECT_TRUE(groth16::verify(vk, groth16::read_snarkjs_proof<E>(this->opt_.out.proof), pub));
  auto bad = pub;
  bad[0] += F::one();
  EXPECT_FALSE(groth16::verify(vk, proof, bad));

  const auto r1cs = r1cs::read_circom_r1cs<F>(this->opt_.out.r1cs);
  EXPECT_EQ(r1cs::first_unsatisfied(r1cs.circuit, w), std::nullopt);
  EXPECT_EQ(r1cs.circuit.num_vars(), sc.circuit.num_vars());
}

// The circom shape's figures (synthetic.hpp, from bench/circom/bn254_16), as --measure reports
// them for the tool's own .r1cs and .wtns. Sampling error at 2^11 rows ≈ 0.011 for a fraction.
TYPED_TEST(DevZkeyTest, CircomShapeMatchesTheMeasuredCircuit) {
  make(this->opt_, nullptr);
  const r1cs::CircuitShape s = measure_files(this->opt_.out.r1cs, this->opt_.out.wtns);
  EXPECT_NEAR(s.nnz_a, 0.469, 0.03);
  EXPECT_NEAR(s.nnz_b, 0.469, 0.03);
  EXPECT_NEAR(s.nnz_c, 2.212, 0.08);
  EXPECT_NEAR(s.linear_fraction, 0.531, 0.03);
  EXPECT_NEAR(s.nnz_c_linear, 3.28, 0.05);
  EXPECT_NEAR(s.square_fraction, 0.667, 0.04);
  EXPECT_NEAR(s.a_density, 0.469, 0.03);
  EXPECT_NEAR(s.b_density, 0.313, 0.03);
  EXPECT_NEAR(s.unit_coeff_fraction, 0.735, 0.05);
  EXPECT_EQ(s.bit_fraction, 0);
  const std::string text = describe_shape(s, true);
  EXPECT_NE(text.find("2045 constraints, 3 inputs (ONE included), 2048 variables"), std::string::npos) << text;
}

TYPED_TEST(DevZkeyTest, ErrorsNameTheFlag) {
  const auto message = [](const Options& o) {
    try {
      make(o, nullptr);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Options o = this->opt_;
  o.out.zkey.clear();
  EXPECT_EQ(message(o), "--zkey is required");
  o = this->opt_;
  o.out.vk = this->dir_ + "/no/such/dir/vk.json";
  EXPECT_NE(message(o).find("--vk " + o.out.vk + ": directory"), std::string::npos) << message(o);
  o = this->opt_;
  o.circuit.num_constraints = uint64_t{1} << max_log_domain(TypeParam::kId);
  EXPECT_NE(message(o).find("--constraints: "), std::string::npos) << message(o);
  o = this->opt_;
  o.out.wtns = this->dir_;  // a directory: the .part cannot be renamed over it
  EXPECT_NE(message(o).find("--wtns " + this->dir_ + ": "), std::string::npos) << message(o);
  EXPECT_THROW(shape_params("poseidon"), InvalidArgument);
}

}  // namespace
}  // namespace snarkd::dev_zkey
