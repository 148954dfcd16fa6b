// x86-64 inline assembly for Field<P> (ff/field.hpp): modular addition and subtraction for the
// 4- and 6-limb fields, and with BMI2/ADX the Montgomery product, square and the lazy-reduction
// pair (mul_wide6, redc6). Defines SNARKD_FF_X86 (and SNARKD_FF_ADX) when the kernels are built;
// field.hpp dispatches to them outside constant evaluation and keeps its portable loops
// otherwise. tests/ff checks both paths against GMP.
#pragma once
#include <cstddef>
#include <cstdint>

namespace snarkd::ff::detail {

#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__CUDACC__)
// (Not under nvcc: host code in .cu files does no hot field arithmetic — that lives in .cpp
// files — and nvcc's host pass gets no -march/-madx flags.)
// x86-64 inline assembly for the two limb counts in use (Fr: 4 limbs, Fp: 6). GCC compiles the
// portable constexpr loops into spills and data-dependent branches, several times slower;
// tests/ff checks both paths against GMP. Unoptimised builds keep the portable code (at -O0
// the register allocator cannot place these operands).
//
// Register budget: no asm statement takes more than 13 general registers, so each stays
// allocatable with a frame pointer and under -fPIC. The constants are reached through one
// pointer c to {p[0..N−1], −p⁻¹ mod 2^64, 0}. Macro arguments name asm operands (e.g. "r0").
#define SNARKD_FF_X86 1
// R = a[off] op b[off] (op: addq/adcq or subq/sbbq).
#define SNARKD_LOAD_OP(op, off, R) \
  "movq " off "(%[a]), %[" R "]\n\t" op " " off "(%[b]), %[" R "]\n\t"
// S = R − c[off] limb by limb (op: subq for the first limb, then sbbq).
#define SNARKD_SUB_P(op, R, S, off) "movq %[" R "], %[" S "]\n\t" op " " off "(%[c]), %[" S "]\n\t"
// R = S unless the subtraction above borrowed.
#define SNARKD_CMOV(R, S) "cmovncq %[" S "], %[" R "]\n\t"
// Q = c[off] & M (M is all ones or zero).
#define SNARKD_MASK_P(Q, off) "movq " off "(%[c]), %[" Q "]\n\tandq %[m], %[" Q "]\n\t"

// {p, −p⁻¹ mod 2^64, 0}: the constants the kernels read through one register.
template <size_t N>
struct AsmConstants {
  uint64_t p[N];
  uint64_t inv;
  uint64_t zero;
};

// r = r − p when r ≥ p, for r < 2p: trial subtraction, then a cmov per limb (no branch).
[[gnu::always_inline]] inline void cond_sub_p6(uint64_t (&r)[6], const AsmConstants<6>* c) {
  uint64_t s0, s1, s2, s3, s4, s5;
  asm(SNARKD_SUB_P("subq", "r0", "s0", "0") SNARKD_SUB_P("sbbq", "r1", "s1", "8")
      SNARKD_SUB_P("sbbq", "r2", "s2", "16") SNARKD_SUB_P("sbbq", "r3", "s3", "24")
      SNARKD_SUB_P("sbbq", "r4", "s4", "32") SNARKD_SUB_P("sbbq", "r5", "s5", "40")
      SNARKD_CMOV("r0", "s0") SNARKD_CMOV("r1", "s1") SNARKD_CMOV("r2", "s2")
      SNARKD_CMOV("r3", "s3") SNARKD_CMOV("r4", "s4") SNARKD_CMOV("r5", "s5")
      : [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), [r4] "+r"(r[4]),
        [r5] "+r"(r[5]), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
        [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [c] "r"(c), "m"(*c)
      : "cc");
}
// (a + b) mod p for a, b < p: the sum is < 2p < 2^(64N), so no carry leaves the top limb.
[[gnu::always_inline]] inline void mod_add6(uint64_t (&r)[6], const uint64_t* a, const uint64_t* b,
                                            const AsmConstants<6>* c) {
  asm(SNARKD_LOAD_OP("addq", "0", "r0") SNARKD_LOAD_OP("adcq", "8", "r1")
      SNARKD_LOAD_OP("adcq", "16", "r2") SNARKD_LOAD_OP("adcq", "24", "r3")
      SNARKD_LOAD_OP("adcq", "32", "r4") SNARKD_LOAD_OP("adcq", "40", "r5")
      : [r0] "=&r"(r[0]), [r1] "=&r"(r[1]), [r2] "=&r"(r[2]), [r3] "=&r"(r[3]),
        [r4] "=&r"(r[4]), [r5] "=&r"(r[5])
      : [a] "r"(a), [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
      : "cc");
  cond_sub_p6(r, c);
}
// 4 limbs: a is loaded into registers by the compiler and b read from memory; the result is
// picked by cmov between the sum and sum − p. Keeping a in registers lets a value that was
// just computed feed the next operation without a store and reload: measured in an NTT-style
// add/sub loop, 5.6 ns per pair against 12.4 ns with both operands read through pointers.
[[gnu::always_inline]] inline void mod_add4(uint64_t (&r)[4], const uint64_t* a, const uint64_t* b,
                                            const AsmConstants<4>* c) {
  uint64_t r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3], s0, s1, s2, s3;
  asm("addq 0(%[b]), %[r0]\n\tadcq 8(%[b]), %[r1]\n\tadcq 16(%[b]), %[r2]\n\t"
      "adcq 24(%[b]), %[r3]\n\t"
      "movq %[r0], %[s0]\n\tmovq %[r1], %[s1]\n\tmovq %[r2], %[s2]\n\tmovq %[r3], %[s3]\n\t"
      "subq %[p0], %[s0]\n\tsbbq %[p1], %[s1]\n\tsbbq %[p2], %[s2]\n\tsbbq %[p3], %[s3]\n\t"
      "cmovcq %[r0], %[s0]\n\tcmovcq %[r1], %[s1]\n\tcmovcq %[r2], %[s2]\n\tcmovcq %[r3], %[s3]"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), [p0] "m"(c->p[0]),
        [p1] "m"(c->p[1]), [p2] "m"(c->p[2]), [p3] "m"(c->p[3])
      : "cc");
  r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3;
}

// (a − b) mod p: subtract, turn the final borrow into a mask m, add back p & m.
[[gnu::always_inline]] inline void mod_sub6(uint64_t (&r)[6], const uint64_t* a, const uint64_t* b,
                                            const AsmConstants<6>* c) {
  uint64_t m, q0, q1, q2, q3, q4;
  asm(SNARKD_LOAD_OP("subq", "0", "r0") SNARKD_LOAD_OP("sbbq", "8", "r1")
      SNARKD_LOAD_OP("sbbq", "16", "r2") SNARKD_LOAD_OP("sbbq", "24", "r3")
      SNARKD_LOAD_OP("sbbq", "32", "r4") SNARKD_LOAD_OP("sbbq", "40", "r5")
      "sbbq %[m], %[m]\n\t"
      : [r0] "=&r"(r[0]), [r1] "=&r"(r[1]), [r2] "=&r"(r[2]), [r3] "=&r"(r[3]),
        [r4] "=&r"(r[4]), [r5] "=&r"(r[5]), [m] "=&r"(m)
      : [a] "r"(a), [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
      : "cc");
  asm(SNARKD_MASK_P("q0", "0") SNARKD_MASK_P("q1", "8") SNARKD_MASK_P("q2", "16")
      SNARKD_MASK_P("q3", "24") SNARKD_MASK_P("q4", "32") "andq 40(%[c]), %[m]\n\t"
      "addq %[q0], %[r0]\n\tadcq %[q1], %[r1]\n\tadcq %[q2], %[r2]\n\t"
      "adcq %[q3], %[r3]\n\tadcq %[q4], %[r4]\n\tadcq %[m], %[r5]\n\t"
      : [r0] "+r"(r[0]), [r1] "+r"(r[1]), [r2] "+r"(r[2]), [r3] "+r"(r[3]), [r4] "+r"(r[4]),
        [r5] "+r"(r[5]), [m] "+r"(m), [q0] "=&r"(q0), [q1] "=&r"(q1), [q2] "=&r"(q2),
        [q3] "=&r"(q3), [q4] "=&r"(q4)
      : [c] "r"(c), "m"(*c)
      : "cc");
}
// 4 limbs, operands as in mod_add4: a − b, keep the borrow as a mask, then select a − b + p
// or a − b with cmov.
[[gnu::always_inline]] inline void mod_sub4(uint64_t (&r)[4], const uint64_t* a, const uint64_t* b,
                                            const AsmConstants<4>* c) {
  uint64_t r0 = a[0], r1 = a[1], r2 = a[2], r3 = a[3], s0, s1, s2, s3, m;
  asm("subq 0(%[b]), %[r0]\n\tsbbq 8(%[b]), %[r1]\n\tsbbq 16(%[b]), %[r2]\n\t"
      "sbbq 24(%[b]), %[r3]\n\tsbbq %[m], %[m]\n\t"
      "movq %[r0], %[s0]\n\tmovq %[r1], %[s1]\n\tmovq %[r2], %[s2]\n\tmovq %[r3], %[s3]\n\t"
      "addq %[p0], %[s0]\n\tadcq %[p1], %[s1]\n\tadcq %[p2], %[s2]\n\tadcq %[p3], %[s3]\n\t"
      "testq %[m], %[m]\n\t"
      "cmovzq %[r0], %[s0]\n\tcmovzq %[r1], %[s1]\n\tcmovzq %[r2], %[s2]\n\tcmovzq %[r3], %[s3]"
      : [r0] "+&r"(r0), [r1] "+&r"(r1), [r2] "+&r"(r2), [r3] "+&r"(r3), [s0] "=&r"(s0),
        [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [m] "=&r"(m)
      : [b] "r"(b), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), [p0] "m"(c->p[0]),
        [p1] "m"(c->p[1]), [p2] "m"(c->p[2]), [p3] "m"(c->p[3])
      : "cc");
  r[0] = s0, r[1] = s1, r[2] = s2, r[3] = s3;
}

#if defined(__ADX__) && defined(__BMI2__)
#define SNARKD_FF_ADX 1
// Montgomery multiplication with BMI2/ADX (mulx, adcx, adox): the CIOS algorithm of
// Field::mont_mul, but each row adds its low product halves on the OF carry chain and its high
// halves on the CF chain, so a row is N mulx + 2N + 1 additions with no carry bookkeeping. The
// accumulator t[0..N] lives in N+1 registers; each round retires t[0] (zero after reduction)
// and that register becomes the next round's t[N], so nothing is shifted. Per product: 2N² mulx,
// ~4N² additions and N imul (about 300 instructions for N = 6).

// (hi:lo) = rdx·src; Tlo += lo on the OF chain, Thi += hi on the CF chain.
#define SNARKD_MAC(src, Tlo, Thi)   \
  "mulxq " src ", %[lo], %[hi]\n\t" \
  "adoxq %[lo], %[" Tlo "]\n\t"     \
  "adcxq %[hi], %[" Thi "]\n\t"
// First row (t = 0): t = a·b[0] on one carry chain (N mulx + N additions).
#define SNARKD_FIRST_ROW(T0, T1) "movq (%[b]), %%rdx\n\tmulxq (%[a]), %[" T0 "], %[" T1 "]\n\t"
#define SNARKD_FIRST(op, off, Tj, Tj1) \
  "mulxq " off "(%[a]), %[lo], %[" Tj1 "]\n\t" op " %[lo], %[" Tj "]\n\t"
#define SNARKD_FIRST_END(Ttop) "adcq $0, %[" Ttop "]\n\t"
// Row t += a·b[i] (t[N] = 0 on entry): rdx = b[i]. The xor (of a dead register) restarts both
// flag chains so this row need not wait for the previous row's last carries (12% faster).
#define SNARKD_MUL_ROW_BEGIN(off) "movq " off "(%[b]), %%rdx\n\txorl %k[lo], %k[lo]\n\t"
// Row t += m·p with m = t[0]·(−p⁻¹) mod 2^64 (after which t[0] = 0); inv sits at c + 8N. The
// xor clears the flags imul leaves behind.
#define SNARKD_RED_ROW_BEGIN(T0, inv) \
  "movq %[" T0 "], %%rdx\n\timulq " inv "(%[c]), %%rdx\n\txorl %k[lo], %k[lo]\n\t"
// Folds the pending OF carry into the top word (the CF chain already ended there).
#define SNARKD_ROW_END(Ttop, zero) "adoxq " zero "(%[c]), %[" Ttop "]\n\t"

#define SNARKD_MUL_ROW4(off, T0, T1, T2, T3, T4)                                            \
  SNARKD_MUL_ROW_BEGIN(off)                                                                 \
  SNARKD_MAC("(%[a])", T0, T1) SNARKD_MAC("8(%[a])", T1, T2) SNARKD_MAC("16(%[a])", T2, T3) \
  SNARKD_MAC("24(%[a])", T3, T4) SNARKD_ROW_END(T4, "40")
#define SNARKD_RED_ROW4(T0, T1, T2, T3, T4)                                                 \
  SNARKD_RED_ROW_BEGIN(T0, "32")                                                            \
  SNARKD_MAC("(%[c])", T0, T1) SNARKD_MAC("8(%[c])", T1, T2) SNARKD_MAC("16(%[c])", T2, T3) \
  SNARKD_MAC("24(%[c])", T3, T4) SNARKD_ROW_END(T4, "40")
#define SNARKD_ROUND4(off, T0, T1, T2, T3, T4) \
  SNARKD_MUL_ROW4(off, T0, T1, T2, T3, T4) SNARKD_RED_ROW4(T0, T1, T2, T3, T4)

// Rows of the 6-limb kernel below: a is read from the stack copy s0..s5, zero from register z.
#define SNARKD_MUL_ROW6S(load_b, T0, T1, T2, T3, T4, T5, T6)                                    \
  load_b "xorl %k[lo], %k[lo]\n\t"                                                              \
  SNARKD_MAC("%[s0]", T0, T1) SNARKD_MAC("%[s1]", T1, T2) SNARKD_MAC("%[s2]", T2, T3)          \
  SNARKD_MAC("%[s3]", T3, T4) SNARKD_MAC("%[s4]", T4, T5) SNARKD_MAC("%[s5]", T5, T6)          \
  "adoxq %[z], %[" T6 "]\n\t"
#define SNARKD_RED_ROW6Z(T0, T1, T2, T3, T4, T5, T6)                                            \
  SNARKD_RED_ROW_BEGIN(T0, "48")                                                                \
  SNARKD_MAC("(%[c])", T0, T1) SNARKD_MAC("8(%[c])", T1, T2) SNARKD_MAC("16(%[c])", T2, T3)     \
  SNARKD_MAC("24(%[c])", T3, T4) SNARKD_MAC("32(%[c])", T4, T5) SNARKD_MAC("40(%[c])", T5, T6)  \
  "adoxq %[z], %[" T6 "]\n\t"
#define SNARKD_ROUND6S(load_b, T0, T1, T2, T3, T4, T5, T6) \
  SNARKD_MUL_ROW6S(load_b, T0, T1, T2, T3, T4, T5, T6) SNARKD_RED_ROW6Z(T0, T1, T2, T3, T4, T5, T6)
// Loads b[i] into rdx.
#define SNARKD_LOAD_B(off) "movq " off "(%[b]), %%rdx\n\t"
// The whole 6-limb Montgomery product in one asm statement, a and the result in registers
// (x0..x5): the limbs of a value just computed feed the next product without a store and
// reload (store forwarding costs ~5 cycles on the dependent path). a is copied to the stack
// (s0..s5) for the mulx memory operands of rows 1–5, off the critical path; row 0 multiplies
// the registers, writing each product word over a limb it no longer needs. The final conditional
// subtraction (SNARKD_MONT6_COND_SUB) goes to the six registers free at the end, so nothing
// round-trips through memory. 13 registers (x0..x5, e0, e1, lo, hi, rdx, c, b).
// Dependent chain on the dev VM: 107 → 103 cycles.
#define SNARKD_MONT6_BODY                                                                         \
  "movq %[x0], %[s0]\n\tmovq %[x1], %[s1]\n\tmovq %[x2], %[s2]\n\t"                               \
  "movq %[x3], %[s3]\n\tmovq %[x4], %[s4]\n\tmovq %[z], %[s5]\n\t" SNARKD_LOAD_B("0")             \
  "mulxq %[x0], %[e0], %[e1]\n\t"                                                                 \
  "mulxq %[x1], %[lo], %[x0]\n\taddq %[lo], %[e1]\n\t"                                            \
  "mulxq %[x2], %[lo], %[x1]\n\tadcq %[lo], %[x0]\n\t"                                            \
  "mulxq %[x3], %[lo], %[x2]\n\tadcq %[lo], %[x1]\n\t"                                            \
  "mulxq %[x4], %[lo], %[x3]\n\tadcq %[lo], %[x2]\n\t"                                            \
  "mulxq %[z], %[lo], %[x4]\n\tadcq %[lo], %[x3]\n\t"                                             \
  "adcq $0, %[x4]\n\txorl %k[z], %k[z]\n\t"                                                       \
  SNARKD_RED_ROW6Z("e0", "e1", "x0", "x1", "x2", "x3", "x4")                                      \
  SNARKD_ROUND6S(SNARKD_LOAD_B("8"), "e1", "x0", "x1", "x2", "x3", "x4", "e0")                    \
  SNARKD_ROUND6S(SNARKD_LOAD_B("16"), "x0", "x1", "x2", "x3", "x4", "e0", "e1")                   \
  SNARKD_ROUND6S(SNARKD_LOAD_B("24"), "x1", "x2", "x3", "x4", "e0", "e1", "x0")                   \
  SNARKD_ROUND6S(SNARKD_LOAD_B("32"), "x2", "x3", "x4", "e0", "e1", "x0", "x1")                   \
  SNARKD_ROUND6S(SNARKD_LOAD_B("40"), "x3", "x4", "e0", "e1", "x0", "x1", "x2")
// t = (x4, e0, e1, x0, x1, x2) < 2p at the end of either kernel: keep t − p unless it borrows.
// The trial difference goes to the registers free by then: the retired word x3, z, lo, hi,
// rdx and W (b's register for a product, a spare one for a square).
#define SNARKD_MONT6_COND_SUB(W)                                                                  \
  "movq %[x4], %[lo]\n\tsubq 0(%[c]), %[lo]\n\tmovq %[e0], %[hi]\n\tsbbq 8(%[c]), %[hi]\n\t"      \
  "movq %[e1], %%rdx\n\tsbbq 16(%[c]), %%rdx\n\tmovq %[x0], %[x3]\n\tsbbq 24(%[c]), %[x3]\n\t"    \
  "movq %[x1], %[z]\n\tsbbq 32(%[c]), %[z]\n\tmovq %[x2], %[" W "]\n\tsbbq 40(%[c]), %[" W "]\n\t"  \
  "cmovncq %[lo], %[x4]\n\tcmovncq %[hi], %[e0]\n\tcmovncq %%rdx, %[e1]\n\t"                      \
  "cmovncq %[x3], %[x0]\n\tcmovncq %[z], %[x1]\n\tcmovncq %[" W "], %[x2]\n\t"
#define SNARKD_MONT6_REGS                                                                       \
  [x0] "+&r"(x0), [x1] "+&r"(x1), [x2] "+&r"(x2), [x3] "+&r"(x3), [x4] "+&r"(x4),             \
      [z] "+&r"(x5), [e0] "=&r"(e0), [e1] "=&r"(e1), [lo] "=&r"(lo), [hi] "=&r"(hi)

// a·b·2^−384 mod p for a, b < p < 2^382 (CIOS keeps t < 2p < 2^384, so no carry word).
[[gnu::always_inline]] inline void mont_mul6(uint64_t (&r)[6], const uint64_t* a, const uint64_t* b,
                                             const AsmConstants<6>* c) {
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], x5 = a[5];
  uint64_t e0, e1, lo, hi, s[6];
  const uint64_t* bw = b;  // b's register is the last temporary of the subtraction
  asm(SNARKD_MONT6_BODY SNARKD_MONT6_COND_SUB("b")
      : SNARKD_MONT6_REGS, [s0] "=m"(s[0]), [s1] "=m"(s[1]), [s2] "=m"(s[2]), [s3] "=m"(s[3]),
        [s4] "=m"(s[4]), [s5] "=m"(s[5]), [b] "+r"(bw)
      : [c] "r"(c), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b)), "m"(*c)
      : "rdx", "cc");
  r[0] = x4, r[1] = e0, r[2] = e1, r[3] = x0, r[4] = x1, r[5] = x2;  // after six rotations
}

// Dedicated square: the CIOS of mont_mul6, but row i adds only the products a_i·a_j with
// j ≥ i (a_i² at word i, 2·a_i·a_j at word j), so the rows take 21 limb products instead of 36:
// 57 mulx with the reduction instead of 72. Row i multiplies rdx = a_i by a_i and by the limbs
// of 2·(a_{i+1} + a_{i+2}·2^64 + …): the first is E_{i+1} = a_{i+1} << 1 (mod 2^64), the others
// are the limbs D_j = (a_j << 1) | (a_{j−1} >> 63) of 2a; a_5 < 2^61 leaves no limb 6. Each
// row is < 2p·2^64, so t stays < 3p + 1 < 2^384 between rounds, and the exact total
// (a² + M·p)/2^384 is < 2p at the end, as for a product. Rows i ≥ 1 leave word 0 alone, so
// their m waits only for the previous reduction. Stack slots: s1..s5 = a_1..a_5 (rdx of row
// i), e2 = E_2, d3..d5; row 0 takes E_1 and D_2 from registers (w, hi), rows 2–4 derive
// E_{i+1} = D_{i+1} & ~1 into w before the row's xor (the and clobbers the flags).
// Dependent chain on the dev VM: 89 TSC cycles against 109 for mont_mul6(a, a) (one process);
// BM_FpSquare 44–48 → 36–40 ns against the previous square (the product's rows with b = a),
// binaries alternated, load ≈ 5–6.
#define SNARKD_SQR_ROW_BEGIN(i, load_e) \
  "movq %[s" #i "], %%rdx\n\t" load_e "xorl %k[lo], %k[lo]\n\t"
#define SNARKD_SQR_E_FROM_D(j) "movq %[d" #j "], %[w]\n\tandq $-2, %[w]\n\t"
// D_j of 2a from limbs a_j (A) and a_{j−1} (B) into T, stored to slot S (T is clobbered).
#define SNARKD_SQR_D(A, B, T, S) \
  "movq %[" A "], %[" T "]\n\tshldq $1, %[" B "], %[" T "]\n\tmovq %[" T "], %[" S "]\n\t"
// a²·2^−384 mod p for a < p < 2^381; a and the result in registers as in mont_mul6.
[[gnu::always_inline]] inline void mont_sqr6(uint64_t (&r)[6], const uint64_t* a,
                                             const AsmConstants<6>* c) {
  uint64_t x0 = a[0], x1 = a[1], x2 = a[2], x3 = a[3], x4 = a[4], x5 = a[5];
  uint64_t e0, e1, lo, hi, w, s[5], e2, d[3];
  asm("movq %[x1], %[s1]\n\tmovq %[x2], %[s2]\n\tmovq %[x3], %[s3]\n\t"
      "movq %[x4], %[s4]\n\tmovq %[z], %[s5]\n\t"
      "leaq (%[x1],%[x1]), %[w]\n\t"                                 // E_1
      "movq %[x2], %[hi]\n\tshldq $1, %[x1], %[hi]\n\t"              // D_2
      "leaq (%[x2],%[x2]), %[lo]\n\tmovq %[lo], %[e2]\n\t"           // E_2
      SNARKD_SQR_D("x3", "x2", "lo", "d3") SNARKD_SQR_D("x4", "x3", "lo", "d4")
      SNARKD_SQR_D("z", "x4", "lo", "d5")
      // Row 0 (t = 0): a_0·(a_0, E_1, D_2, D_3, D_4, D_5) on one carry chain.
      "movq %[x0], %%rdx\n\tmulxq %%rdx, %[e0], %[e1]\n\t"
      "mulxq %[w], %[lo], %[x0]\n\taddq %[lo], %[e1]\n\t"
      "mulxq %[hi], %[lo], %[x1]\n\tadcq %[lo], %[x0]\n\t"
      "mulxq %[d3], %[lo], %[x2]\n\tadcq %[lo], %[x1]\n\t"
      "mulxq %[d4], %[lo], %[x3]\n\tadcq %[lo], %[x2]\n\t"
      "mulxq %[d5], %[lo], %[x4]\n\tadcq %[lo], %[x3]\n\t"
      "adcq $0, %[x4]\n\txorl %k[z], %k[z]\n\t"
      SNARKD_RED_ROW6Z("e0", "e1", "x0", "x1", "x2", "x3", "x4")
      // Round i: t = (T0..T6); the row adds a_i·(a_i, E_{i+1}, D_{i+2}, …) at words i..6.
      SNARKD_SQR_ROW_BEGIN(1, "") SNARKD_MAC("%%rdx", "x0", "x1") SNARKD_MAC("%[e2]", "x1", "x2")
      SNARKD_MAC("%[d3]", "x2", "x3") SNARKD_MAC("%[d4]", "x3", "x4")
      SNARKD_MAC("%[d5]", "x4", "e0")
      "adoxq %[z], %[e0]\n\t" SNARKD_RED_ROW6Z("e1", "x0", "x1", "x2", "x3", "x4", "e0")
      SNARKD_SQR_ROW_BEGIN(2, SNARKD_SQR_E_FROM_D(3)) SNARKD_MAC("%%rdx", "x2", "x3")
      SNARKD_MAC("%[w]", "x3", "x4") SNARKD_MAC("%[d4]", "x4", "e0") SNARKD_MAC("%[d5]", "e0", "e1")
      "adoxq %[z], %[e1]\n\t" SNARKD_RED_ROW6Z("x0", "x1", "x2", "x3", "x4", "e0", "e1")
      SNARKD_SQR_ROW_BEGIN(3, SNARKD_SQR_E_FROM_D(4)) SNARKD_MAC("%%rdx", "x4", "e0")
      SNARKD_MAC("%[w]", "e0", "e1") SNARKD_MAC("%[d5]", "e1", "x0")
      "adoxq %[z], %[x0]\n\t" SNARKD_RED_ROW6Z("x1", "x2", "x3", "x4", "e0", "e1", "x0")
      SNARKD_SQR_ROW_BEGIN(4, SNARKD_SQR_E_FROM_D(5)) SNARKD_MAC("%%rdx", "e1", "x0")
      SNARKD_MAC("%[w]", "x0", "x1")
      "adoxq %[z], %[x1]\n\t" SNARKD_RED_ROW6Z("x2", "x3", "x4", "e0", "e1", "x0", "x1")
      SNARKD_SQR_ROW_BEGIN(5, "") SNARKD_MAC("%%rdx", "x1", "x2")
      "adoxq %[z], %[x2]\n\t" SNARKD_RED_ROW6Z("x3", "x4", "e0", "e1", "x0", "x1", "x2")
      SNARKD_MONT6_COND_SUB("w")
      : SNARKD_MONT6_REGS, [w] "=&r"(w), [s1] "=m"(s[0]), [s2] "=m"(s[1]), [s3] "=m"(s[2]),
        [s4] "=m"(s[3]), [s5] "=m"(s[4]), [e2] "=m"(e2), [d3] "=m"(d[0]), [d4] "=m"(d[1]),
        [d5] "=m"(d[2])
      : [c] "r"(c), "m"(*c)
      : "rdx", "cc");
  r[0] = x4, r[1] = e0, r[2] = e1, r[3] = x0, r[4] = x1, r[5] = x2;
}
// a·b·2^−256 mod p for p < 2^255.
[[gnu::always_inline]] inline void mont_mul4(uint64_t (&r)[4], const uint64_t* a, const uint64_t* b,
                                             const AsmConstants<4>* c) {
  uint64_t t0, t1, t2, t3, t4, lo, hi;
  asm(SNARKD_FIRST_ROW("t0", "t1") SNARKD_FIRST("addq", "8", "t1", "t2")
      SNARKD_FIRST("adcq", "16", "t2", "t3") SNARKD_FIRST("adcq", "24", "t3", "t4")
      SNARKD_FIRST_END("t4")
      SNARKD_RED_ROW4("t0", "t1", "t2", "t3", "t4")
      SNARKD_ROUND4("8", "t1", "t2", "t3", "t4", "t0")
      SNARKD_ROUND4("16", "t2", "t3", "t4", "t0", "t1")
      SNARKD_ROUND4("24", "t3", "t4", "t0", "t1", "t2")
      // Result (t4, t0, t1, t2) < 2p: subtract p unless that borrows (t3, lo, hi, rdx free).
      "movq %[t4], %[lo]\n\tsubq 0(%[c]), %[lo]\n\t"
      "movq %[t0], %[hi]\n\tsbbq 8(%[c]), %[hi]\n\t"
      "movq %[t1], %[t3]\n\tsbbq 16(%[c]), %[t3]\n\t"
      "movq %[t2], %%rdx\n\tsbbq 24(%[c]), %%rdx\n\t"
      "cmovncq %[lo], %[t4]\n\tcmovncq %[hi], %[t0]\n\tcmovncq %[t3], %[t1]\n\t"
      "cmovncq %%rdx, %[t2]"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [a] "r"(a), [b] "r"(b), [c] "r"(c), "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[4]>(b)), "m"(*c)
      : "rdx", "cc");
  r[0] = t4, r[1] = t0, r[2] = t1, r[3] = t2;  // after four rotations
}

// Double-width kernels for lazy reduction (a sum of products reduced once, as in Fp2
// multiplication): mul_wide6 writes the 12-word product, redc6 reduces a 12-word value. As a
// plain Fp multiply this pair measured 126 cycles against CIOS's 107 (dependent chain, dev VM),
// so only code that saves whole reductions uses it: Fp2 mul 340 → 282 cycles.

// Product row i (rdx = b[i]): word i−1 (T0) is final and stored to w; its register becomes the
// row's new top word. The last product's high half takes both pending carries (hi ≤ 2^64 − 2 and
// the row's value fits in 7 words, so nothing overflows).
#define SNARKD_WIDE_ROW6(off, wo, T0, T1, T2, T3, T4, T5, T6)                                  \
  "movq %[" T0 "], " wo "(%[w])\n\tmovq " off "(%[b]), %%rdx\n\txorl %k[" T0 "], %k[" T0 "]\n\t" \
  SNARKD_MAC("(%[a])", T1, T2) SNARKD_MAC("8(%[a])", T2, T3) SNARKD_MAC("16(%[a])", T3, T4)    \
  SNARKD_MAC("24(%[a])", T4, T5) SNARKD_MAC("32(%[a])", T5, T6)                                \
  "mulxq 40(%[a]), %[lo], %[hi]\n\tadoxq %[lo], %[" T6 "]\n\t"                                  \
  "adcxq %[" T0 "], %[hi]\n\tadoxq %[hi], %[" T0 "]\n\t"
// w = a·b (12 words) for a, b < 2^384.
[[gnu::always_inline]] inline void mul_wide6(uint64_t (&w)[12], const uint64_t* a, const uint64_t* b) {
  uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
  asm(SNARKD_FIRST_ROW("t0", "t1") SNARKD_FIRST("addq", "8", "t1", "t2")
      SNARKD_FIRST("adcq", "16", "t2", "t3") SNARKD_FIRST("adcq", "24", "t3", "t4")
      SNARKD_FIRST("adcq", "32", "t4", "t5") SNARKD_FIRST("adcq", "40", "t5", "t6")
      SNARKD_FIRST_END("t6")
      SNARKD_WIDE_ROW6("8", "0", "t0", "t1", "t2", "t3", "t4", "t5", "t6")
      SNARKD_WIDE_ROW6("16", "8", "t1", "t2", "t3", "t4", "t5", "t6", "t0")
      SNARKD_WIDE_ROW6("24", "16", "t2", "t3", "t4", "t5", "t6", "t0", "t1")
      SNARKD_WIDE_ROW6("32", "24", "t3", "t4", "t5", "t6", "t0", "t1", "t2")
      SNARKD_WIDE_ROW6("40", "32", "t4", "t5", "t6", "t0", "t1", "t2", "t3")
      "movq %[t5], 40(%[w])\n\tmovq %[t6], 48(%[w])\n\tmovq %[t0], 56(%[w])\n\t"
      "movq %[t1], 64(%[w])\n\tmovq %[t2], 72(%[w])\n\tmovq %[t3], 80(%[w])\n\t"
      "movq %[t4], 88(%[w])\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=m"(w)
      : [a] "r"(a), [b] "r"(b), [w] "r"(w), "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)),
        "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
      : "rdx", "cc");
}
// One Montgomery step on the 6-word window T0..T5: T += m·p with m = T0·(−p⁻¹); T0 becomes 0
// and its register the new top word (which takes both pending carries, as above).
#define SNARKD_REDC_STEP6(T0, T1, T2, T3, T4, T5)                                              \
  SNARKD_RED_ROW_BEGIN(T0, "48")                                                               \
  SNARKD_MAC("(%[c])", T0, T1) SNARKD_MAC("8(%[c])", T1, T2) SNARKD_MAC("16(%[c])", T2, T3)    \
  SNARKD_MAC("24(%[c])", T3, T4) SNARKD_MAC("32(%[c])", T4, T5)                                \
  "mulxq 40(%[c]), %[lo], %[hi]\n\tadoxq %[lo], %[" T5 "]\n\t"                                  \
  "adcxq %[" T0 "], %[hi]\n\tadoxq %[hi], %[" T0 "]\n\t"
// r = w·2^−384 mod p for w < p·2^384: six steps turn the low half w_lo into
// (w_lo + M·p)/2^384 ≤ p, the high half (< p) is added, and one conditional subtraction of p
// brings the sum (< 2p) into range.
[[gnu::always_inline]] inline void redc6(uint64_t (&r)[6], const uint64_t (&w)[12],
                                         const AsmConstants<6>* c) {
  uint64_t t0, t1, t2, t3, t4, t5, lo, hi;
  asm("movq (%[w]), %[t0]\n\tmovq 8(%[w]), %[t1]\n\tmovq 16(%[w]), %[t2]\n\t"
      "movq 24(%[w]), %[t3]\n\tmovq 32(%[w]), %[t4]\n\tmovq 40(%[w]), %[t5]\n\t"
      SNARKD_REDC_STEP6("t0", "t1", "t2", "t3", "t4", "t5")
      SNARKD_REDC_STEP6("t1", "t2", "t3", "t4", "t5", "t0")
      SNARKD_REDC_STEP6("t2", "t3", "t4", "t5", "t0", "t1")
      SNARKD_REDC_STEP6("t3", "t4", "t5", "t0", "t1", "t2")
      SNARKD_REDC_STEP6("t4", "t5", "t0", "t1", "t2", "t3")
      SNARKD_REDC_STEP6("t5", "t0", "t1", "t2", "t3", "t4")
      "addq 48(%[w]), %[t0]\n\tadcq 56(%[w]), %[t1]\n\tadcq 64(%[w]), %[t2]\n\t"
      "adcq 72(%[w]), %[t3]\n\tadcq 80(%[w]), %[t4]\n\tadcq 88(%[w]), %[t5]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [t5] "=&r"(t5), [lo] "=&r"(lo), [hi] "=&r"(hi)
      : [w] "r"(w), [c] "r"(c), "m"(w), "m"(*c)
      : "rdx", "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
  cond_sub_p6(r, c);
}
#undef SNARKD_MAC
#undef SNARKD_FIRST_ROW
#undef SNARKD_FIRST
#undef SNARKD_FIRST_END
#undef SNARKD_MUL_ROW_BEGIN
#undef SNARKD_RED_ROW_BEGIN
#undef SNARKD_ROW_END
#undef SNARKD_MUL_ROW4
#undef SNARKD_RED_ROW4
#undef SNARKD_ROUND4
#undef SNARKD_WIDE_ROW6
#undef SNARKD_MUL_ROW6S
#undef SNARKD_RED_ROW6Z
#undef SNARKD_ROUND6S
#undef SNARKD_LOAD_B
#undef SNARKD_MONT6_BODY
#undef SNARKD_MONT6_COND_SUB
#undef SNARKD_MONT6_REGS
#undef SNARKD_SQR_ROW_BEGIN
#undef SNARKD_SQR_E_FROM_D
#undef SNARKD_SQR_D
#undef SNARKD_REDC_STEP6
#endif  // BMI2 and ADX
#undef SNARKD_LOAD_OP
#undef SNARKD_SUB_P
#undef SNARKD_CMOV
#undef SNARKD_MASK_P
#endif  // x86-64, optimised

}  // namespace snarkd::ff::detail
