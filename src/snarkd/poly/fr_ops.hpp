// Fr add / sub / mul for the NTT inner loops, bit-identical to ff::Fr's operators (fully
// reduced Montgomery form) but written for x86-64 BMI2+ADX with inline assembly.
//
// Why here: GCC 12 compiles the generic u128 limb loops of ff::Field into code that spills
// every limb and branches on the final subtraction; measured on the dev machine (Ice Lake, one
// thread, independent operations): ff Fr mul ≈ 34 ns, add ≈ 13 ns; these: mul ≈ 17 ns,
// add ≈ 2.3 ns. An NTT is nothing but these three operations, so it uses them directly.
// tests/poly checks them against ff::Fr on random and edge-case inputs. Other builds (no ADX,
// e.g. SNARKD_ARCH="") fall back to the ff operators.
#pragma once
#include <cstdint>

#include "snarkd/ff/fr.hpp"

namespace snarkd::poly::detail {

using ff::Fr;

#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__)

alignas(32) inline constexpr uint64_t kFrModulus[4] = {
    Fr::kModulus.limb[0], Fr::kModulus.limb[1], Fr::kModulus.limb[2], Fr::kModulus.limb[3]};
inline constexpr uint64_t kFrInv = Fr::kInv;  // −r⁻¹ mod 2^64

inline Fr make_fr(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3) {
  Fr r;
  r.l[0] = l0;
  r.l[1] = l1;
  r.l[2] = l2;
  r.l[3] = l3;
  return r;
}

// a + b < 2r < 2^256 never carries out; then subtract r unless that borrows (cmov, no branch:
// the branch is taken half the time on random data).
inline Fr add(const Fr& a, const Fr& b) {
  uint64_t r0 = a.l[0], r1 = a.l[1], r2 = a.l[2], r3 = a.l[3], s0, s1, s2, s3;
  asm("addq %[b0], %[r0]\n\tadcq %[b1], %[r1]\n\tadcq %[b2], %[r2]\n\tadcq %[b3], %[r3]\n\t"
      "movq %[r0], %[s0]\n\tmovq %[r1], %[s1]\n\tmovq %[r2], %[s2]\n\tmovq %[r3], %[s3]\n\t"
      "subq %[p0], %[s0]\n\tsbbq %[p1], %[s1]\n\tsbbq %[p2], %[s2]\n\tsbbq %[p3], %[s3]\n\t"
      "cmovcq %[r0], %[s0]\n\tcmovcq %[r1], %[s1]\n\tcmovcq %[r2], %[s2]\n\tcmovcq %[r3], %[s3]"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [b0] "m"(b.l[0]), [b1] "m"(b.l[1]), [b2] "m"(b.l[2]), [b3] "m"(b.l[3]),
        [p0] "m"(kFrModulus[0]), [p1] "m"(kFrModulus[1]), [p2] "m"(kFrModulus[2]),
        [p3] "m"(kFrModulus[3])
      : "cc");
  return make_fr(s0, s1, s2, s3);
}

// a − b, then add r back when it borrowed (the borrow is kept in m as 0 / all-ones).
inline Fr sub(const Fr& a, const Fr& b) {
  uint64_t r0 = a.l[0], r1 = a.l[1], r2 = a.l[2], r3 = a.l[3], s0, s1, s2, s3, m;
  asm("subq %[b0], %[r0]\n\tsbbq %[b1], %[r1]\n\tsbbq %[b2], %[r2]\n\tsbbq %[b3], %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "movq %[r0], %[s0]\n\tmovq %[r1], %[s1]\n\tmovq %[r2], %[s2]\n\tmovq %[r3], %[s3]\n\t"
      "addq %[p0], %[s0]\n\tadcq %[p1], %[s1]\n\tadcq %[p2], %[s2]\n\tadcq %[p3], %[s3]\n\t"
      "testq %[m], %[m]\n\t"
      "cmovzq %[r0], %[s0]\n\tcmovzq %[r1], %[s1]\n\tcmovzq %[r2], %[s2]\n\tcmovzq %[r3], %[s3]"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [m] "=&r"(m)
      : [b0] "m"(b.l[0]), [b1] "m"(b.l[1]), [b2] "m"(b.l[2]), [b3] "m"(b.l[3]),
        [p0] "m"(kFrModulus[0]), [p1] "m"(kFrModulus[1]), [p2] "m"(kFrModulus[2]),
        [p3] "m"(kFrModulus[3])
      : "cc");
  return make_fr(s0, s1, s2, s3);
}

// Montgomery a·b·2^−256 by CIOS: four rounds of "t += a·b_i (carry chains on CF and OF, mulx
// leaves flags alone); m = t0·inv; t = (t + m·r) / 2^64". r < 2^255 keeps t < 2r and t fitting
// five words, so no sixth word is needed (the same bound ff::Field::mont_mul relies on).
// The five t registers rotate one place per round instead of being moved.
#define SNARKD_FR_ROW(BI, T0, T1, T2, T3, T4)                                          \
  "movq " BI ", %%rdx\n\t"                                                             \
  "xorl %k[lo], %k[lo]\n\t"                                                            \
  "mulxq 0(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T0 "]\n\tadoxq %[hi], %[" #T1 "]\n\t"  \
  "mulxq 8(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T1 "]\n\tadoxq %[hi], %[" #T2 "]\n\t"  \
  "mulxq 16(%[a]), %[lo], %[hi]\n\tadcxq %[lo], %[" #T2 "]\n\tadoxq %[hi], %[" #T3 "]\n\t" \
  "mulxq 24(%[a]), %[lo], %[" #T4 "]\n\tadcxq %[lo], %[" #T3 "]\n\t"                      \
  "movl $0, %k[lo]\n\tadoxq %[lo], %[" #T4 "]\n\tadcxq %[lo], %[" #T4 "]\n\t"
#define SNARKD_FR_REDUCE(T0, T1, T2, T3, T4)                                              \
  "movq %[" #T0 "], %%rdx\n\timulq %[inv], %%rdx\n\t"                                     \
  "xorl %k[lo], %k[lo]\n\t"                                                               \
  "mulxq %[p0], %[lo], %[hi]\n\tadcxq %[lo], %[" #T0 "]\n\tadoxq %[hi], %[" #T1 "]\n\t" \
  "mulxq %[p1], %[lo], %[hi]\n\tadcxq %[lo], %[" #T1 "]\n\tadoxq %[hi], %[" #T2 "]\n\t" \
  "mulxq %[p2], %[lo], %[hi]\n\tadcxq %[lo], %[" #T2 "]\n\tadoxq %[hi], %[" #T3 "]\n\t" \
  "mulxq %[p3], %[lo], %[hi]\n\tadcxq %[lo], %[" #T3 "]\n\tadoxq %[hi], %[" #T4 "]\n\t" \
  "movl $0, %k[lo]\n\tadcxq %[lo], %[" #T4 "]\n\t"

inline Fr mul(const Fr& a, const Fr& b) {
  uint64_t t0, t1, t2, t3, t4, lo, hi;
  asm(  // Round 0 starts from t = 0: a plain product row.
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %[t0], %[t1]\n\t"
      "mulxq 8(%[a]), %[lo], %[t2]\n\taddq %[lo], %[t1]\n\t"
      "mulxq 16(%[a]), %[lo], %[t3]\n\tadcq %[lo], %[t2]\n\t"
      "mulxq 24(%[a]), %[lo], %[t4]\n\tadcq %[lo], %[t3]\n\tadcq $0, %[t4]\n\t"
      SNARKD_FR_REDUCE(t0, t1, t2, t3, t4)
      SNARKD_FR_ROW("8(%[b])", t1, t2, t3, t4, t0) SNARKD_FR_REDUCE(t1, t2, t3, t4, t0)
      SNARKD_FR_ROW("16(%[b])", t2, t3, t4, t0, t1) SNARKD_FR_REDUCE(t2, t3, t4, t0, t1)
      SNARKD_FR_ROW("24(%[b])", t3, t4, t0, t1, t2) SNARKD_FR_REDUCE(t3, t4, t0, t1, t2)
      // Result (t4, t0, t1, t2) < 2r: subtract r unless that borrows.
      "movq %[t4], %[lo]\n\tsubq %[p0], %[lo]\n\t"
      "movq %[t0], %[hi]\n\tsbbq %[p1], %[hi]\n\t"
      "movq %[t1], %[t3]\n\tsbbq %[p2], %[t3]\n\t"
      "movq %[t2], %%rdx\n\tsbbq %[p3], %%rdx\n\t"
      "cmovncq %[lo], %[t4]\n\tcmovncq %[hi], %[t0]\n\tcmovncq %[t3], %[t1]\n\tcmovncq %%rdx, %[t2]"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a.l), [b] "r"(b.l), "m"(a.l), "m"(b.l), [inv] "m"(kFrInv),
        [p0] "m"(kFrModulus[0]), [p1] "m"(kFrModulus[1]), [p2] "m"(kFrModulus[2]),
        [p3] "m"(kFrModulus[3])
      : "rdx", "cc");
  return make_fr(t4, t0, t1, t2);
}

#undef SNARKD_FR_ROW
#undef SNARKD_FR_REDUCE

#else

inline Fr add(const Fr& a, const Fr& b) { return a + b; }
inline Fr sub(const Fr& a, const Fr& b) { return a - b; }
inline Fr mul(const Fr& a, const Fr& b) { return a * b; }

#endif

// a^e by square-and-multiply (exponents here are indices < 2^32).
inline Fr pow(const Fr& a, uint64_t e) {
  Fr r = Fr::one();
  for (int i = 63 - __builtin_clzll(e | 1); i >= 0; --i) {
    r = mul(r, r);
    if ((e >> i) & 1) r = mul(r, a);
  }
  return r;
}

}  // namespace snarkd::poly::detail
