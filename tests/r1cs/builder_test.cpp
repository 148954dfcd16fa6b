#include <gtest/gtest.h>

#include "snarkd/r1cs/builder.hpp"
#include "snarkd/r1cs/gadgets.hpp"
#include "snarkd/util/error.hpp"
#include "common/seed.hpp"
#include "r1cs/test_util.hpp"

namespace snarkd::r1cs {
namespace {

namespace gd = gadgets;
using LC = LinearCombination;

// First failing row after setting v's witness value (others honest).
std::optional<uint64_t> with_value(const Synthesized& s, Variable v, const Fr& value) {
  std::vector<Fr> w = s.witness;
  w[s.column(v)] = value;
  return first_unsatisfied(s.circuit, w);
}

std::optional<uint64_t> honest(const Synthesized& s) { return first_unsatisfied(s.circuit, s.witness); }

Fr bit(bool b) { return b ? Fr::one() : Fr::zero(); }

TEST(Builder, LayoutPutsInputsBeforeAux) {
  CircuitBuilder cb;
  Variable a0 = cb.allocate_aux(Fr::from_u64(10));
  Variable i1 = cb.allocate_input(Fr::from_u64(20));
  Variable a1 = cb.allocate_aux(Fr::from_u64(30));
  Variable i2 = cb.allocate_input(Fr::from_u64(40));
  cb.enforce(i2, a0, LC::constant(Fr::from_u64(400)));
  Synthesized s = std::move(cb).finish();
  EXPECT_EQ(s.circuit.num_inputs, 3u);
  EXPECT_EQ(s.circuit.num_aux, 2u);
  EXPECT_EQ(s.column(Variable::one()), 0u);
  EXPECT_EQ(s.column(i1), 1u);
  EXPECT_EQ(s.column(i2), 2u);
  EXPECT_EQ(s.column(a0), 3u);
  EXPECT_EQ(s.column(a1), 4u);
  const uint64_t expect[] = {1, 20, 40, 10, 30};
  ASSERT_EQ(s.witness.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(s.witness[i], Fr::from_u64(expect[i])) << i;
  EXPECT_EQ(s.circuit.a.col, std::vector<uint32_t>{2});
  EXPECT_EQ(s.circuit.b.col, std::vector<uint32_t>{3});
  EXPECT_EQ(s.circuit.c.col, std::vector<uint32_t>{0});
  EXPECT_EQ(honest(s), std::nullopt);
  EXPECT_EQ(find_structure_error(s.circuit), std::nullopt);
}

TEST(Builder, LinearCombinationsMergeAndDropZeros) {
  CircuitBuilder cb;
  Variable x = cb.allocate_aux(Fr::from_u64(3));
  Variable y = cb.allocate_input(Fr::from_u64(5));
  const LC lc = LC(x) * Fr::from_u64(2) + LC(y) * Fr::from_u64(3) - x + LC::constant(Fr::from_u64(7));
  EXPECT_EQ(cb.value(lc), Fr::from_u64(3 + 15 + 7));
  LC zero_term;
  zero_term.add_term(y, Fr::zero());
  cb.enforce(LC(x) + x - Fr::from_u64(2) * LC(x), zero_term, lc);
  Synthesized s = std::move(cb).finish();
  EXPECT_TRUE(test::canonical_row(s.circuit, Matrix::A, 0).empty());
  EXPECT_EQ(s.circuit.a.nnz(), 0u);  // x + x − 2x cancels: nothing stored
  EXPECT_EQ(s.circuit.b.nnz(), 0u);  // a zero coefficient is not stored
  // C: ONE·7, y·3, x·(2 − 1), one entry each, in column order.
  ASSERT_EQ(s.circuit.c.col, (std::vector<uint32_t>{0, 1, 2}));
  const Fr want[] = {Fr::from_u64(7), Fr::from_u64(3), Fr::one()};
  for (int k = 0; k < 3; ++k) EXPECT_EQ(s.circuit.coeffs[s.circuit.c.coeff[k]], want[k]) << k;
  EXPECT_EQ(s.circuit.c.coeff[2], kCoeffOne);
}

TEST(Gadgets, BooleanLogicAllInputs) {
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 2; ++y) {
      CircuitBuilder cb;
      Variable X = gd::alloc_bit(cb, x), Y = gd::alloc_bit(cb, y);                     // rows 0, 1
      Variable a = gd::and_bits(cb, X, Y);                                              // row 2
      Variable o = gd::xor_bits(cb, X, Y);                                              // row 3
      Variable n = gd::and_bits(cb, gd::not_bit(X), Y);                                 // row 4
      EXPECT_EQ(cb.value(a), bit(x & y));
      EXPECT_EQ(cb.value(o), bit(x ^ y));
      EXPECT_EQ(cb.value(n), bit(!x && y));
      Synthesized s = std::move(cb).finish();
      ASSERT_EQ(s.circuit.num_constraints(), 5u);
      EXPECT_EQ(honest(s), std::nullopt);
      EXPECT_EQ(with_value(s, a, bit(!(x & y))), 2u);
      EXPECT_EQ(with_value(s, o, bit(!(x ^ y))), 3u);
      EXPECT_EQ(with_value(s, n, bit(!(!x && y))), 4u);
      EXPECT_EQ(with_value(s, Y, Fr::from_u64(2)), 1u);  // not a bit: its boolean row fails first
      EXPECT_EQ(with_value(s, X, -Fr::one()), 0u);
    }
}

// Σ 2^i bits as an integer, built without the field's arithmetic.
Fr from_bits(const std::vector<bool>& bits) {
  ff::BigInt<4> v;
  for (size_t i = 0; i < bits.size(); ++i)
    if (bits[i]) v.limb[i / 64] |= uint64_t(1) << (i % 64);
  Fr f;
  EXPECT_TRUE(Fr::from_repr(v, f));
  return f;
}

TEST(Gadgets, PackBits) {
  auto g = snarkd::test::rng("r1cs.gadgets.pack");
  for (size_t n : {size_t(1), size_t(8), size_t(64), size_t(65), gd::kMaxPackedBits}) {
    std::vector<bool> bits(n);
    CircuitBuilder cb;
    std::vector<LC> lcs;
    for (size_t i = 0; i < n; ++i) {
      bits[i] = g() & 1;
      lcs.emplace_back(gd::alloc_bit(cb, bits[i]));
    }
    Variable packed = gd::pack_bits(cb, lcs);  // row n
    EXPECT_EQ(cb.value(packed), from_bits(bits)) << n;
    const Variable flip = lcs[g() % n].terms()[0].var;
    const Fr flipped = Fr::one() - cb.value(flip);
    Synthesized s = std::move(cb).finish();
    EXPECT_EQ(honest(s), std::nullopt);
    EXPECT_EQ(with_value(s, packed, s.witness[s.column(packed)] + Fr::one()), n);
    EXPECT_EQ(with_value(s, flip, flipped), n);  // still a bit, so only the packing row fails
  }
  CircuitBuilder cb;
  std::vector<LC> too_many(gd::kMaxPackedBits + 1, LC(Variable::one()));
  EXPECT_THROW(gd::pack_bits(cb, too_many), InvalidArgument);
}

TEST(Gadgets, UnpackBits) {
  auto g = snarkd::test::rng("r1cs.gadgets.unpack");
  for (size_t n : {size_t(1), size_t(31), size_t(64), size_t(200), gd::kMaxPackedBits}) {
    std::vector<bool> bits(n);
    for (size_t i = 0; i < n; ++i) bits[i] = g() & 1;
    CircuitBuilder cb;
    Variable x = cb.allocate_input(from_bits(bits));
    std::vector<Variable> out = gd::unpack_bits(cb, x, n);  // rows 0..n−1 boolean, row n packing
    ASSERT_EQ(out.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(cb.value(out[i]), bit(bits[i])) << i;
    Synthesized s = std::move(cb).finish();
    ASSERT_EQ(s.circuit.num_constraints(), n + 1);
    EXPECT_EQ(honest(s), std::nullopt);
    const size_t i = g() % n;
    EXPECT_EQ(with_value(s, out[i], bit(!bits[i])), n);
  }
  // 2^8 does not fit in 8 bits: no honest witness, the packing row fails.
  CircuitBuilder cb;
  Variable x = cb.allocate_aux(Fr::from_u64(256));
  gd::unpack_bits(cb, x, 8);
  EXPECT_EQ(honest(std::move(cb).finish()), 8u);
}

TEST(Gadgets, MulEqualSelect) {
  auto g = snarkd::test::rng("r1cs.gadgets.arith");
  const Fr vx = Fr::random(g), vy = Fr::random(g);
  for (int c = 0; c < 2; ++c) {
    CircuitBuilder cb;
    Variable x = cb.allocate_input(vx), y = cb.allocate_aux(vy);
    Variable z = gd::mul(cb, x, y);                          // row 0
    Variable cond = gd::alloc_bit(cb, c);                    // row 1
    Variable r = gd::select(cb, cond, LC(x) + z, y);         // row 2
    Variable y2 = cb.allocate_aux(vy);
    gd::enforce_equal(cb, y, y2);                            // row 3
    EXPECT_EQ(cb.value(z), vx * vy);
    EXPECT_EQ(cb.value(r), c ? vx + vx * vy : vy);
    Synthesized s = std::move(cb).finish();
    EXPECT_EQ(honest(s), std::nullopt);
    EXPECT_EQ(with_value(s, z, vx * vy + Fr::one()), 0u);
    EXPECT_EQ(with_value(s, r, c ? vy : vx + vx * vy), 2u);
    EXPECT_EQ(with_value(s, y2, vy + Fr::one()), 3u);
  }
}

TEST(Gadgets, IsEqual) {
  auto g = snarkd::test::rng("r1cs.gadgets.iseq");
  const Fr v = Fr::random(g);
  for (bool same : {true, false}) {
    CircuitBuilder cb;
    Variable x = cb.allocate_input(v);
    Variable y = cb.allocate_aux(same ? v : v + Fr::from_u64(1 + g() % 1000));
    Variable e = gd::is_equal(cb, x, y);  // rows 0 (d·inv = 1 − e), 1 (d·e = 0)
    EXPECT_EQ(cb.value(e), bit(same));
    const Variable inv = Variable::aux(1);  // allocated by is_equal just before e
    Synthesized s = std::move(cb).finish();
    EXPECT_EQ(honest(s), std::nullopt);
    if (same) {
      EXPECT_EQ(with_value(s, e, Fr::zero()), 0u);  // d = 0 cannot give d·inv = 1
    } else {
      // Claiming equality: row 0 needs d·inv = 0 (inv = 0 does it), row 1 then fails.
      std::vector<Fr> w = s.witness;
      w[s.column(e)] = Fr::one();
      w[s.column(inv)] = Fr::zero();
      EXPECT_EQ(first_unsatisfied(s.circuit, w), 1u);
      EXPECT_EQ(with_value(s, e, Fr::one()), 0u);
    }
  }
}

}  // namespace
}  // namespace snarkd::r1cs
