// bellperson/Filecoin .vk, .params and proof files (groth16/bellperson_io.hpp): round trips on
// random keys, byte layouts built here from the point encoders (not by the writer under test),
// one test per malformed input, and files written by @noble/curves
// (fixtures/bp_trapdoor.*, from tools/vectors/verify_bellperson.mjs --write-fixture).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "common/fifo_writer.hpp"
#include "common/seed.hpp"
#include "curves.hpp"
#include "snarkd/ec/encoding.hpp"
#include "snarkd/ec/subgroup.hpp"
#include "snarkd/groth16/bellperson_io.hpp"
#include "snarkd/pairing/pairing.hpp"
#include "snarkd/util/json.hpp"

namespace snarkd::groth16 {
namespace {

using Bytes = std::vector<uint8_t>;
using Rng = std::mt19937_64;

// --- points

template <class C>
ec::Affine<C> mul_gen(const Fr& k) {
  return ec::Jacobian<C>::from_affine(ec::generator<C>()).mul_scalar(k).to_affine();
}
G1Affine rand_g1(Rng& g) { return mul_gen<ec::G1Config>(Fr::random(g)); }
G2Affine rand_g2(Rng& g) { return mul_gen<ec::G2Config>(Fr::random(g)); }
template <class P>
std::vector<P> rand_points(Rng& g, size_t n) {
  std::vector<P> v;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<P, G1Affine>) v.push_back(rand_g1(g));
    else v.push_back(rand_g2(g));
  }
  return v;
}

// A curve point outside the prime-order subgroup: try-and-increment on x from a random start
// without clearing the cofactor (a curve point lies in the subgroup with probability 1/h, h ≥ 2^76).
template <class C>
ec::Affine<C> off_subgroup_point(Rng& g) {
  using F = typename C::Field;
  for (F x = F::random(g);; x = x + F::one()) {
    F y;
    if (!(x.square() * x + C::b()).sqrt(y)) continue;
    const ec::Affine<C> p{x, y};
    if (!ec::is_in_subgroup(p)) return p;
  }
}

VerifyingKey random_vk(Rng& g, size_t num_ic) {
  VerifyingKey vk{rand_g1(g), rand_g1(g), rand_g1(g), rand_g2(g), rand_g2(g), rand_g2(g), {}};
  vk.ic = rand_points<G1Affine>(g, num_ic);
  return vk;
}

ProvingKey random_pk(Rng& g, uint32_t log_domain, size_t num_ic, size_t num_l, size_t num_a, size_t num_b) {
  ProvingKey pk;
  pk.flavour = KeyFlavour::kBellperson;
  pk.vk = random_vk(g, num_ic);
  pk.log_domain = log_domain;
  pk.h = rand_points<G1Affine>(g, pk.domain_size() - 1);
  pk.l = rand_points<G1Affine>(g, num_l);
  pk.a = rand_points<G1Affine>(g, num_a);
  pk.b_g1 = rand_points<G1Affine>(g, num_b);
  pk.b_g2 = rand_points<G2Affine>(g, num_b);
  return pk;
}
ProvingKey small_pk(Rng& g) { return random_pk(g, 3, 3, 5, 6, 4); }

// --- bytes, built from the point encoders only

void put(Bytes& b, std::span<const uint8_t> x) { b.insert(b.end(), x.begin(), x.end()); }
void put_be32(Bytes& b, uint32_t n) { put(b, std::array<uint8_t, 4>{uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n)}); }
void put_g1s(Bytes& b, const std::vector<G1Affine>& v) {
  put_be32(b, uint32_t(v.size()));
  for (const auto& p : v) put(b, ec::encode_g1_uncompressed(p));
}
void put_g2s(Bytes& b, const std::vector<G2Affine>& v) {
  put_be32(b, uint32_t(v.size()));
  for (const auto& p : v) put(b, ec::encode_g2_uncompressed(p));
}
Bytes vk_bytes(const VerifyingKey& vk) {
  Bytes b;
  put(b, ec::encode_g1_uncompressed(vk.alpha_g1));
  put(b, ec::encode_g1_uncompressed(vk.beta_g1));
  put(b, ec::encode_g2_uncompressed(vk.beta_g2));
  put(b, ec::encode_g2_uncompressed(vk.gamma_g2));
  put(b, ec::encode_g1_uncompressed(vk.delta_g1));
  put(b, ec::encode_g2_uncompressed(vk.delta_g2));
  put_g1s(b, vk.ic);
  return b;
}
Bytes params_bytes(const ProvingKey& pk) {
  Bytes b = vk_bytes(pk.vk);
  for (const auto* s : {&pk.h, &pk.l, &pk.a, &pk.b_g1}) put_g1s(b, *s);
  put_g2s(b, pk.b_g2);
  return b;
}

constexpr size_t kVkFixed = 3 * 96 + 3 * 192;  // α₁ β₁ β₂ γ₂ δ₁ δ₂
// Offsets of the vk fields and of each section's count.
struct Offsets {
  size_t alpha_g1 = 0, beta_g1 = 96, beta_g2 = 192, gamma_g2 = 384, delta_g1 = 576, delta_g2 = 672;
  size_t ic, h, l, a, b_g1, b_g2, end;
  explicit Offsets(const ProvingKey& pk) {
    ic = kVkFixed;
    h = ic + 4 + 96 * pk.vk.ic.size();
    l = h + 4 + 96 * pk.h.size();
    a = l + 4 + 96 * pk.l.size();
    b_g1 = a + 4 + 96 * pk.a.size();
    b_g2 = b_g1 + 4 + 96 * pk.b_g1.size();
    end = b_g2 + 4 + 192 * pk.b_g2.size();
  }
};

uint32_t be32_at(const Bytes& b, size_t off) {
  return (uint32_t(b[off]) << 24) | (uint32_t(b[off + 1]) << 16) | (uint32_t(b[off + 2]) << 8) | b[off + 3];
}
void set_be32(Bytes& b, size_t off, uint32_t n) {
  for (int i = 0; i < 4; ++i) b[off + i] = uint8_t(n >> (24 - 8 * i));
}
template <size_t N>
void overwrite(Bytes& b, size_t off, const std::array<uint8_t, N>& x) {
  std::copy(x.begin(), x.end(), b.begin() + off);
}
template <size_t N>
bool bytes_at(const Bytes& b, size_t off, const std::array<uint8_t, N>& x) {
  return off + N <= b.size() && std::equal(x.begin(), x.end(), b.begin() + off);
}

// The BLS12-381 base field modulus p, big-endian (draft-irtf-cfrg-pairing-friendly-curves §4.2.1).
std::array<uint8_t, 48> modulus_be() {
  const std::string hex =
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
  std::array<uint8_t, 48> out;
  for (size_t i = 0; i < 48; ++i) out[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

template <class E = DecodeError, class Fn>
void expect_error(Fn&& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming: " << *parts.begin();
  } catch (const E& e) {
    const std::string m = e.what();
    for (const auto& p : parts) EXPECT_NE(m.find(p), std::string::npos) << "message: " << m << "\nmissing: " << p;
  }
}

class BellpersonIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("snarkd_bp_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string save(const std::string& name, const Bytes& b) const {
    std::ofstream(path(name), std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    return path(name);
  }
  static Bytes load(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
  }
  // read_params on `b`, expecting an error naming the file and each of `parts`.
  void expect_params_error(const Bytes& b, std::initializer_list<std::string> parts,
                           PointCheck check = PointCheck::kFull) {
    const std::string p = save("bad.params", b);
    expect_error([&] { read_params(p, check); }, {p + ": "});
    expect_error([&] { read_params(p, check); }, parts);
  }

  std::filesystem::path dir_;
};

void expect_same_pk(const ProvingKey& got, const ProvingKey& want) {
  EXPECT_EQ(got.flavour, KeyFlavour::kBellperson);
  test::expect_same_points(got, want);
  EXPECT_EQ(got.a_density.num_bits, 0u);
  EXPECT_EQ(got.b_density.num_bits, 0u);
}

// --- round trips and layouts

TEST_F(BellpersonIo, VkRoundTripAndLayout) {
  auto g = snarkd::test::rng("bp-vk");
  for (size_t num_ic : {1, 2, 5}) {
    const VerifyingKey vk = random_vk(g, num_ic);
    write_vk(path("k.vk"), vk);
    const Bytes b = load(path("k.vk"));
    ASSERT_EQ(b.size(), kVkFixed + 4 + 96 * num_ic);
    EXPECT_TRUE(bytes_at(b, 0, ec::encode_g1_uncompressed(vk.alpha_g1)));
    EXPECT_TRUE(bytes_at(b, 96, ec::encode_g1_uncompressed(vk.beta_g1)));
    EXPECT_TRUE(bytes_at(b, 192, ec::encode_g2_uncompressed(vk.beta_g2)));
    EXPECT_TRUE(bytes_at(b, 384, ec::encode_g2_uncompressed(vk.gamma_g2)));
    EXPECT_TRUE(bytes_at(b, 576, ec::encode_g1_uncompressed(vk.delta_g1)));
    EXPECT_TRUE(bytes_at(b, 672, ec::encode_g2_uncompressed(vk.delta_g2)));
    EXPECT_EQ(be32_at(b, kVkFixed), num_ic);
    EXPECT_TRUE(bytes_at(b, kVkFixed + 4 + 96 * (num_ic - 1), ec::encode_g1_uncompressed(vk.ic.back())));
    EXPECT_EQ(b, vk_bytes(vk));
    EXPECT_EQ(read_vk(path("k.vk")), vk);
    EXPECT_EQ(read_vk_or_params(path("k.vk")), vk);
  }
}

TEST_F(BellpersonIo, ParamsRoundTripAndLayout) {
  auto g = snarkd::test::rng("bp-params");
  const ProvingKey pk = small_pk(g);
  write_params(path("k.params"), pk);
  const Bytes b = load(path("k.params"));
  const Offsets o(pk);
  ASSERT_EQ(b.size(), o.end);
  EXPECT_EQ(b, params_bytes(pk));
  EXPECT_EQ(be32_at(b, o.h), 7u);
  EXPECT_TRUE(bytes_at(b, o.h + 4, ec::encode_g1_uncompressed(pk.h[0])));
  EXPECT_EQ(be32_at(b, o.l), 5u);
  EXPECT_TRUE(bytes_at(b, o.l + 4, ec::encode_g1_uncompressed(pk.l[0])));
  EXPECT_EQ(be32_at(b, o.a), 6u);
  EXPECT_TRUE(bytes_at(b, o.a + 4, ec::encode_g1_uncompressed(pk.a[0])));
  EXPECT_EQ(be32_at(b, o.b_g1), 4u);
  EXPECT_TRUE(bytes_at(b, o.b_g1 + 4, ec::encode_g1_uncompressed(pk.b_g1[0])));
  EXPECT_EQ(be32_at(b, o.b_g2), 4u);
  EXPECT_TRUE(bytes_at(b, o.end - 192, ec::encode_g2_uncompressed(pk.b_g2.back())));

  for (PointCheck check : {PointCheck::kFull, PointCheck::kTrusted}) expect_same_pk(read_params(path("k.params"), check), pk);
  EXPECT_EQ(read_vk_or_params(path("k.params")), pk.vk);
  // A file built here, not by write_params, reads back too.
  expect_same_pk(read_params(save("hand.params", params_bytes(pk))), pk);
}

// A count above 255 shows the byte order; points are a running sum (cheaper than scalar muls).
TEST_F(BellpersonIo, CountsAreBigEndian) {
  auto g = snarkd::test::rng("bp-be");
  ProvingKey pk = random_pk(g, 1, 1, 0, 1, 1);
  ec::G1Jacobian acc = ec::G1Jacobian::from_affine(rand_g1(g));
  for (int i = 0; i < 300; ++i) {
    acc = acc + ec::G1Jacobian::from_affine(ec::kG1Generator);
    pk.l.push_back(acc.to_affine());
  }
  write_params(path("k.params"), pk);
  const Bytes b = load(path("k.params"));
  const Offsets o(pk);
  EXPECT_EQ(b[o.l], 0);
  EXPECT_EQ(b[o.l + 1], 0);
  EXPECT_EQ(b[o.l + 2], 1);
  EXPECT_EQ(b[o.l + 3], 300 - 256);
  expect_same_pk(read_params(path("k.params")), pk);
}

TEST_F(BellpersonIo, EmptySectionsAndSmallestDomain) {
  auto g = snarkd::test::rng("bp-empty");
  const ProvingKey pk = random_pk(g, 0, 1, 0, 0, 0);  // |h| = 0: domain 1
  write_params(path("k.params"), pk);
  expect_same_pk(read_params(path("k.params")), pk);
}

// --- named pipes (create_SRS reads a key another process streams)

constexpr FileSource kPipeOk = FileSource::kFileOrFifo;

TEST_F(BellpersonIo, ParamsStreamThroughAPipe) {
  auto g = snarkd::test::rng("bp-pipe");
  const ProvingKey pk = random_pk(g, 4, 3, 40, 30, 20);
  for (PointCheck check : {PointCheck::kFull, PointCheck::kTrusted}) {
    snarkd::test::FifoWriter w(path("k.fifo"), params_bytes(pk));
    expect_same_pk(read_params(w.path(), check, kPipeOk), pk);
    EXPECT_EQ(w.join(), params_bytes(pk).size());
  }
  // kFileOrFifo still reads regular files, and still refuses directories and missing paths.
  write_params(path("k.params"), pk);
  expect_same_pk(read_params(path("k.params"), PointCheck::kFull, kPipeOk), pk);
  expect_error([&] { read_params(path(""), PointCheck::kFull, kPipeOk); }, {"is a directory, not a file"});
  expect_error([&] { read_params(path("none.params"), PointCheck::kFull, kPipeOk); },
               {path("none.params") + ": cannot open: No such file or directory"});
}

// A daemon's paths stay regular files: a FIFO is refused at once, never waited on.
TEST_F(BellpersonIo, PipesAreRefusedUnlessAsked) {
  snarkd::test::FifoWriter w(path("k.fifo"), {});
  expect_error([&] { read_params(w.path()); }, {w.path() + ": ", "not a regular file"});
  expect_error([&] { read_vk_or_params(w.path()); }, {w.path() + ": ", "not a regular file"});
}

// A pipe has no size to compare counts with: truncation, a count past the bytes sent and
// trailing bytes are found as the bytes arrive.
TEST_F(BellpersonIo, MalformedPipesNameTheSection) {
  auto g = snarkd::test::rng("bp-pipe-bad");
  const ProvingKey pk = random_pk(g, 3, 2, 6, 5, 4);
  const Bytes good = params_bytes(pk);
  const Offsets o(pk);
  auto expect_pipe_error = [&](Bytes b, const std::string& part) {
    snarkd::test::FifoWriter w(path("bad.fifo"), std::move(b));
    expect_error([&] { read_params(w.path(), PointCheck::kTrusted, kPipeOk); }, {w.path() + ": ", part});
  };
  expect_pipe_error(Bytes(good.begin(), good.end() - 10), "truncated in section b_g2");
  Bytes more = good;
  more.push_back(0);
  expect_pipe_error(more, "trailing bytes after section b_g2");
  // l claims 2^31 − 1 points: too many to reserve, or truncated; never a fill of that size.
  Bytes lie = good;
  set_be32(lie, o.l, 0x7fffffff);
  expect_pipe_error(lie, "section l");
  expect_pipe_error({}, "truncated in section vk");
}

// The rvalue writer writes the same bytes and leaves the key's sections empty.
TEST_F(BellpersonIo, WritingAMovedKeyFreesItsSections) {
  auto g = snarkd::test::rng("bp-move");
  const ProvingKey pk = random_pk(g, 3, 2, 6, 5, 4);
  ProvingKey moved = pk;
  write_params(path("k.params"), std::move(moved));
  EXPECT_EQ(load(path("k.params")), params_bytes(pk));
  EXPECT_TRUE(moved.h.empty() && moved.l.empty() && moved.a.empty() && moved.b_g1.empty() && moved.b_g2.empty());
  EXPECT_EQ(moved.h.capacity() + moved.l.capacity() + moved.b_g2.capacity(), 0u);
}

// --- proofs

TEST_F(BellpersonIo, ProofEncodeDecode) {
  auto g = snarkd::test::rng("bp-proof");
  for (int t = 0; t < 8; ++t) {
    Proof p{rand_g1(g), rand_g2(g), rand_g1(g)};
    if (t == 1) p.a = G1Affine::infinity();
    if (t == 2) p.b = G2Affine::infinity();
    if (t == 3) p.c = G1Affine::infinity();
    const auto e = encode_proof(p);
    const Bytes b(e.begin(), e.end());
    EXPECT_TRUE(bytes_at(b, 0, ec::encode_g1_compressed(p.a)));
    EXPECT_TRUE(bytes_at(b, 48, ec::encode_g2_compressed(p.b)));
    EXPECT_TRUE(bytes_at(b, 144, ec::encode_g1_compressed(p.c)));
    if (t == 1) {
      EXPECT_EQ(b[0], 0xc0);
    }
    EXPECT_EQ(decode_proof(e), p);
  }
}

TEST_F(BellpersonIo, ConcatenatedProofs) {
  auto g = snarkd::test::rng("bp-proofs");
  std::vector<Proof> proofs;
  for (int i = 0; i < 3; ++i) proofs.push_back({rand_g1(g), rand_g2(g), rand_g1(g)});
  write_proofs(path("p.bin"), proofs);
  const Bytes b = load(path("p.bin"));
  ASSERT_EQ(b.size(), 3 * kBellpersonProofSize);
  for (size_t i = 0; i < 3; ++i) {
    const auto e = encode_proof(proofs[i]);
    EXPECT_TRUE(bytes_at(b, i * 192, e));
    EXPECT_EQ(decode_proof(std::span(b).subspan(i * 192, 192)), proofs[i]);
  }
  EXPECT_EQ(read_proofs(path("p.bin")), proofs);
  expect_error<InvalidArgument>([&] { write_proofs(path("q.bin"), {}); }, {"write_proofs", "no proofs"});
}

TEST_F(BellpersonIo, BadProofBytes) {
  auto g = snarkd::test::rng("bp-proof-bad");
  const Proof p{rand_g1(g), rand_g2(g), rand_g1(g)};
  const auto good = encode_proof(p);
  for (size_t n : {0, 191, 193}) {
    Bytes b(good.begin(), good.end());
    b.resize(n);
    expect_error([&] { decode_proof(b); }, {"proof: expected 192 bytes, got " + std::to_string(n)});
  }
  Bytes b(good.begin(), good.end());
  overwrite(b, 0, ec::encode_g1_compressed(off_subgroup_point<ec::G1Config>(g)));
  expect_error([&] { decode_proof(b); }, {"proof: A: G1 compressed: point is not in the prime-order subgroup"});
  b.assign(good.begin(), good.end());
  overwrite(b, 48, modulus_be());  // x.c1 = p
  b[48] |= 0x80;
  expect_error([&] { decode_proof(b); }, {"proof: B: G2 compressed: x.c1 is not a canonical field element"});
  b.assign(good.begin(), good.end());
  b[144] &= 0x7f;
  expect_error([&] { decode_proof(b); }, {"proof: C: G1 compressed: compression flag is not set"});

  // In a file: the proof index and the path are named.
  Bytes file(good.begin(), good.end());
  put(file, b);
  const std::string f = save("p.bin", file);
  expect_error([&] { read_proofs(f); }, {f + ": proof 1: C: G1 compressed: compression flag is not set"});
  for (size_t n : {0, 200}) {
    Bytes t(file.begin(), file.end());
    t.resize(n);
    const std::string tf = save("t.bin", t);
    expect_error([&] { read_proofs(tf); }, {tf + ": size " + std::to_string(n) + " is not a positive multiple of 192"});
  }
}

// --- malformed keys

TEST_F(BellpersonIo, TruncatedInEachSection) {
  auto g = snarkd::test::rng("bp-trunc");
  const ProvingKey pk = small_pk(g);
  const Bytes full = params_bytes(pk);
  const Offsets o(pk);
  const std::vector<std::pair<const char*, size_t>> vk_fields = {
      {"alpha_g1", o.alpha_g1}, {"beta_g1", o.beta_g1},   {"beta_g2", o.beta_g2},
      {"gamma_g2", o.gamma_g2}, {"delta_g1", o.delta_g1}, {"delta_g2", o.delta_g2}};
  for (const auto& [name, off] : vk_fields)
    expect_params_error(Bytes(full.begin(), full.begin() + off + 1), {std::string("truncated in section vk: ") + name});
  const std::vector<std::tuple<const char*, size_t, size_t>> sections = {
      {"ic", o.ic, 96 * pk.vk.ic.size()}, {"h", o.h, 96 * pk.h.size()},       {"l", o.l, 96 * pk.l.size()},
      {"a", o.a, 96 * pk.a.size()},       {"b_g1", o.b_g1, 96 * pk.b_g1.size()}, {"b_g2", o.b_g2, 192 * pk.b_g2.size()}};
  for (const auto& [name, off, bytes] : sections) {
    const std::string s = name;
    expect_params_error(Bytes(full.begin(), full.begin() + off + 2), {"truncated in section " + s + " (count)"});
    expect_params_error(Bytes(full.begin(), full.begin() + off + 4 + bytes - 1),
                        {"section " + s + ": count ", " needs " + std::to_string(bytes) + " bytes, " +
                                                          std::to_string(bytes - 1) + " left"});
  }
  // The same in a .vk file, and in read_vk_or_params on a params file cut inside b_g2.
  const Bytes vk = vk_bytes(pk.vk);
  const std::string v = save("cut.vk", Bytes(vk.begin(), vk.end() - 1));
  expect_error([&] { read_vk(v); }, {v + ": section ic: count 3 needs 288 bytes, 287 left"});
  const std::string cut = save("cut.params", Bytes(full.begin(), full.end() - 1));
  expect_error([&] { read_vk_or_params(cut); }, {cut + ": section b_g2: count 4 needs 768 bytes, 767 left"});
}

TEST_F(BellpersonIo, CountLargerThanFile) {
  auto g = snarkd::test::rng("bp-count");
  const ProvingKey pk = small_pk(g);
  const Offsets o(pk);
  Bytes b = params_bytes(pk);
  set_be32(b, o.l, 0xfffffff0u);
  expect_params_error(b, {"section l: count 4294967280 needs 412316858880 bytes"});
  b = params_bytes(pk);
  set_be32(b, o.ic, 0xffffffffu);
  expect_params_error(b, {"section ic: count 4294967295 needs"});
  const std::string v = save("big.vk", [&] {
    Bytes x = vk_bytes(pk.vk);
    set_be32(x, kVkFixed, 1000);
    return x;
  }());
  expect_error([&] { read_vk(v); }, {v + ": section ic: count 1000 needs 96000 bytes, 288 left"});
}

TEST_F(BellpersonIo, GarbageFlags) {
  auto g = snarkd::test::rng("bp-flags");
  const ProvingKey pk = small_pk(g);
  const Offsets o(pk);
  Bytes b = params_bytes(pk);
  b[o.l + 4 + 96] |= 0x80;
  expect_params_error(b, {"section l: point 1: G1 uncompressed: compression flag is set"});
  b = params_bytes(pk);
  b[o.alpha_g1] |= 0x20;
  expect_params_error(b, {"section vk: alpha_g1: G1 uncompressed: sign flag is set"});
  b = params_bytes(pk);
  b[o.b_g2 + 4] |= 0x40;  // infinity flag on a point with coordinates
  expect_params_error(b, {"section b_g2: point 0: G2 uncompressed: infinity encoding has other bits set"},
                      PointCheck::kTrusted);
}

TEST_F(BellpersonIo, OffCurvePoint) {
  auto g = snarkd::test::rng("bp-offcurve");
  const ProvingKey pk = small_pk(g);
  const Offsets o(pk);
  Bytes b = params_bytes(pk);
  const size_t last = o.a + 4 + 3 * 96 - 1;  // last byte of a[2].y
  b[last] ^= 1;
  expect_params_error(b, {"section a: point 2: G1 uncompressed: point is not on the curve"});
  // Trusted mode skips the curve equation by design (lengths, flags and ranges still hold).
  const ProvingKey t = read_params(save("t.params", b), PointCheck::kTrusted);
  EXPECT_NE(t.a[2], pk.a[2]);
  EXPECT_FALSE(t.a[2].is_on_curve());
  b = params_bytes(pk);
  b[o.b_g2 + 4 + 192 - 1] ^= 1;
  expect_params_error(b, {"section b_g2: point 0: G2 uncompressed: point is not on the curve"});
  b = params_bytes(pk);
  b[o.gamma_g2 + 191] ^= 1;
  expect_params_error(b, {"section vk: gamma_g2: G2 uncompressed: point is not on the curve"}, PointCheck::kTrusted);
}

TEST_F(BellpersonIo, WrongSubgroupPoint) {
  auto g = snarkd::test::rng("bp-subgroup");
  const ProvingKey pk = small_pk(g);
  const Offsets o(pk);
  const G1Affine q1 = off_subgroup_point<ec::G1Config>(g);
  const G2Affine q2 = off_subgroup_point<ec::G2Config>(g);
  ASSERT_TRUE(q1.is_on_curve());
  Bytes b = params_bytes(pk);
  overwrite(b, o.h + 4 + 3 * 96, ec::encode_g1_uncompressed(q1));
  expect_params_error(b, {"section h: point 3: G1 uncompressed: point is not in the prime-order subgroup"});
  EXPECT_EQ(read_params(save("t.params", b), PointCheck::kTrusted).h[3], q1);
  b = params_bytes(pk);
  overwrite(b, o.b_g2 + 4 + 192, ec::encode_g2_uncompressed(q2));
  expect_params_error(b, {"section b_g2: point 1: G2 uncompressed: point is not in the prime-order subgroup"});
  // vk and ic points are checked even in trusted mode.
  b = params_bytes(pk);
  overwrite(b, o.ic + 4 + 96, ec::encode_g1_uncompressed(q1));
  expect_params_error(b, {"section ic: point 1: G1 uncompressed: point is not in the prime-order subgroup"},
                      PointCheck::kTrusted);
  b = params_bytes(pk);
  overwrite(b, o.delta_g2, ec::encode_g2_uncompressed(q2));
  expect_params_error(b, {"section vk: delta_g2: G2 uncompressed: point is not in the prime-order subgroup"},
                      PointCheck::kTrusted);
}

TEST_F(BellpersonIo, NonCanonicalCoordinate) {
  auto g = snarkd::test::rng("bp-canonical");
  const ProvingKey pk = small_pk(g);
  const Offsets o(pk);
  Bytes b = params_bytes(pk);
  overwrite(b, o.l + 4, modulus_be());  // l[0].x = p
  expect_params_error(b, {"section l: point 0: G1 uncompressed: x is not a canonical field element"},
                      PointCheck::kTrusted);
  b = params_bytes(pk);
  overwrite(b, o.b_g2 + 4 + 192 + 144, modulus_be());  // b_g2[1].y.c0 = p
  expect_params_error(b, {"section b_g2: point 1: G2 uncompressed: y.c0 is not a canonical field element"},
                      PointCheck::kTrusted);
}

TEST_F(BellpersonIo, DomainNotPowerOfTwo) {
  auto g = snarkd::test::rng("bp-domain");
  ProvingKey pk = small_pk(g);
  pk.h.pop_back();  // 6 points: |h| + 1 = 7
  expect_params_error(params_bytes(pk), {"section h: 6 points, but |h| + 1 = 7 is not a power of two"});
  expect_error<InvalidArgument>([&] { write_params(path("w.params"), pk); }, {"write_params: |h| = 6"});
}

TEST_F(BellpersonIo, InconsistentQueryLengths) {
  auto g = snarkd::test::rng("bp-lengths");
  ProvingKey pk = small_pk(g);
  pk.b_g2.pop_back();
  expect_params_error(params_bytes(pk), {"section b_g2: 3 points, but b_g1 has 4"});
  expect_error<InvalidArgument>([&] { write_params(path("w.params"), pk); }, {"|b_g1| = 4 but |b_g2| = 3"});
  pk = small_pk(g);
  pk.a = rand_points<G1Affine>(g, 9);  // 3 inputs + 5 aux = 8 variables
  expect_params_error(params_bytes(pk), {"section a: 9 points, more than the 8 variables"});
  pk = small_pk(g);
  pk.vk.ic.clear();
  expect_params_error(params_bytes(pk), {"section ic: 0 points"});
  expect_error<InvalidArgument>([&] { write_vk(path("w.vk"), pk.vk); }, {"vk ic: empty"});
  pk = small_pk(g);
  pk.flavour = KeyFlavour::kSnarkjs;
  expect_error<InvalidArgument>([&] { write_params(path("w.params"), pk); }, {"snarkjs key has no bellperson .params form"});
}

TEST_F(BellpersonIo, InfinityInKeys) {
  auto g = snarkd::test::rng("bp-infinity");
  ProvingKey pk = small_pk(g);
  pk.vk.alpha_g1 = G1Affine::infinity();
  expect_params_error(params_bytes(pk), {"section vk: alpha_g1: point at infinity"});
  expect_error<InvalidArgument>([&] { write_vk(path("w.vk"), pk.vk); }, {"vk alpha_g1/beta_g1/delta_g1: point 0"});
  pk = small_pk(g);
  pk.vk.gamma_g2 = G2Affine::infinity();
  expect_params_error(params_bytes(pk), {"section vk: gamma_g2: point at infinity"});
  pk = small_pk(g);
  pk.l[2] = G1Affine::infinity();
  expect_params_error(params_bytes(pk), {"section l: point 2: point at infinity"}, PointCheck::kTrusted);
  expect_error<InvalidArgument>([&] { write_params(path("w.params"), pk); }, {"l: point 2 is the point at infinity"});
  pk = small_pk(g);
  pk.vk.ic[1] = G1Affine::infinity();
  expect_params_error(params_bytes(pk), {"section ic: point 1: point at infinity"});
}

// γ = ±δ: a key under which C can absorb any change of the public inputs (verifier.hpp).
TEST_F(BellpersonIo, GammaEqualToPlusOrMinusDeltaIsRefused) {
  auto g = snarkd::test::rng("bp-gamma-delta");
  for (const bool negate : {false, true}) {
    ProvingKey pk = small_pk(g);
    pk.vk.gamma_g2 = negate ? -pk.vk.delta_g2 : pk.vk.delta_g2;
    const std::string want = negate ? "gamma_2 equals -delta_2" : "gamma_2 equals delta_2";
    expect_params_error(params_bytes(pk), {"degenerate verifying key: " + want});
    const std::string vp = save("d.vk", vk_bytes(pk.vk));
    expect_error([&] { read_vk(vp); }, {vp + ": degenerate verifying key: " + want});
    expect_error([&] { read_vk_or_params(vp); }, {vp + ": degenerate verifying key: " + want});
  }
}

TEST_F(BellpersonIo, TrailingBytes) {
  auto g = snarkd::test::rng("bp-trailing");
  const ProvingKey pk = small_pk(g);
  Bytes b = params_bytes(pk);
  b.insert(b.end(), {0, 0, 0});
  expect_params_error(b, {"3 trailing bytes after section b_g2"});
  const std::string p = save("t.params", b);
  expect_error([&] { read_vk_or_params(p); }, {p + ": 3 trailing bytes after section b_g2"});
  Bytes v = vk_bytes(pk.vk);
  v.push_back(7);
  const std::string vp = save("t.vk", v);
  expect_error([&] { read_vk(vp); }, {vp + ": 1 trailing bytes after section ic"});
  // A whole .params file is not a .vk for read_vk.
  const std::string pp = save("k.params", params_bytes(pk));
  expect_error([&] { read_vk(pp); }, {pp + ": ", "trailing bytes after section ic"});
}

TEST_F(BellpersonIo, MissingFileNamesThePath) {
  const std::string p = path("absent.vk");
  expect_error([&] { read_vk(p); }, {p + ": cannot open"});
}

// --- files written by @noble/curves with a known trapdoor (see the file comment)

Fr dec(const Json& j) { return field_from_decimal<Fr>(j.str(), "Fr"); }

TEST(BellpersonNoble, TrapdoorFixtureReadsAndVerifies) {
  const std::string dir = SNARKD_GROTH16_FIXTURES;
  const Json s = Json::load(dir + "/bp_trapdoor.json");
  VerifyingKey want{mul_gen<ec::G1Config>(dec(s["alpha"])), mul_gen<ec::G1Config>(dec(s["beta"])),
                    mul_gen<ec::G1Config>(dec(s["delta"])), mul_gen<ec::G2Config>(dec(s["beta"])),
                    mul_gen<ec::G2Config>(dec(s["gamma"])), mul_gen<ec::G2Config>(dec(s["delta"])), {}};
  for (const Json& k : s["ic"].items()) want.ic.push_back(mul_gen<ec::G1Config>(dec(k)));
  const VerifyingKey vk = read_vk(dir + "/bp_trapdoor.vk");
  EXPECT_EQ(vk, want);
  const std::vector<Proof> proofs = read_proofs(dir + "/bp_trapdoor.proof");
  ASSERT_EQ(proofs.size(), s["proofs"].size());

  // Our writers reproduce noble's bytes exactly.
  const auto tmp = std::filesystem::temp_directory_path() / ("snarkd_bp_noble_" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  write_vk((tmp / "k.vk").string(), vk);
  write_proofs((tmp / "p.bin").string(), proofs);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(slurp((tmp / "k.vk").string()), slurp(dir + "/bp_trapdoor.vk"));
  EXPECT_EQ(slurp((tmp / "p.bin").string()), slurp(dir + "/bp_trapdoor.proof"));
  std::filesystem::remove_all(tmp);

  for (size_t j = 0; j < proofs.size(); ++j) {
    const Json& pj = s["proofs"][j];
    EXPECT_EQ(proofs[j], (Proof{mul_gen<ec::G1Config>(dec(pj["a"])), mul_gen<ec::G2Config>(dec(pj["b"])),
                                mul_gen<ec::G1Config>(dec(pj["c"]))}));
    // e(A, B) = e(α, β)·e(Σ xᵢ·ICᵢ, γ)·e(C, δ) holds with our pairing, and fails for x₁ + 1.
    for (int tamper = 0; tamper < 2; ++tamper) {
      ec::G1Jacobian acc = ec::G1Jacobian::from_affine(vk.ic[0]);
      for (size_t i = 0; i < pj["inputs"].size(); ++i) {
        const Fr x = dec(pj["inputs"][i]) + (tamper && i == 0 ? Fr::one() : Fr::zero());
        acc = acc + ec::G1Jacobian::from_affine(vk.ic[i + 1]).mul_scalar(x);
      }
      const std::vector<pairing::G1G2Pair> pairs = {
          {proofs[j].a, proofs[j].b}, {-vk.alpha_g1, vk.beta_g2}, {-acc.to_affine(), vk.gamma_g2}, {-proofs[j].c, vk.delta_g2}};
      EXPECT_EQ(pairing::pairing_product_is_one(pairs), tamper == 0) << "proof " << j << " tamper " << tamper;
    }
  }
}

}  // namespace
}  // namespace snarkd::groth16
