// Known-answer vectors for the optimal ate pairing (tests/pairing): e(G1, G2), e(aG1, bG2) for
// seeded random scalars, and the final exponentiation of seeded random Fp12 elements.
// Computed with @noble/curves and cross-checked value for value against mcl-wasm (same tower,
// same 3·(p¹² − 1)/r exponent); any disagreement aborts without writing the file.
//
// Encoding: Fp elements are 96-digit big-endian hex (canonical, no 0x); Fp2 is [c0, c1];
// Fp12 is 12 Fp strings in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1.
// Usage: node tools/vectors/pairing.mjs  (or sh tools/vectors/generate.sh)
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import * as mcl from 'mcl-wasm';

const SEED = 'snarkd/pairing/v1';
const NUM_CASES = 5;
const NUM_FINAL_EXP = 3;
const OUT = new URL('../../tests/vectors/pairing.json', import.meta.url);

const { G1, G2, fields } = bls12_381;
const { Fp, Fr, Fp12 } = fields;

// Deterministic stream: SHA-256(seed ‖ label ‖ counter), 512 bits reduced mod n (bias < 2^-128).
let counter = 0;
function seededBig(label, modulus) {
  let hex = '';
  for (let i = 0; i < 2; i++) {
    hex += createHash('sha256').update(`${SEED}/${label}/${counter}/${i}`).digest('hex');
  }
  counter++;
  return BigInt('0x' + hex) % modulus;
}
const seededScalar = (label) => 1n + seededBig(label, Fr.ORDER - 1n);  // in [1, r)

const hexFp = (v) => v.toString(16).padStart(96, '0');
const hexFr = (v) => v.toString(16).padStart(64, '0');
const flat12 = (x) => [x.c0, x.c1].flatMap((c) => [c.c0, c.c1, c.c2]).flatMap((e) => [e.c0, e.c1]);
const hex12 = (x) => flat12(x).map(hexFp);
const g1Json = (P) => { const a = P.toAffine(); return { x: hexFp(a.x), y: hexFp(a.y) }; };
const g2Json = (Q) => {
  const a = Q.toAffine();
  return { x: [hexFp(a.x.c0), hexFp(a.x.c1)], y: [hexFp(a.y.c0), hexFp(a.y.c1)] };
};

function fail(msg) {
  console.error(`pairing.mjs: MISMATCH: ${msg}`);
  process.exit(1);
}

// --- mcl cross-checks (mcl's getStr(16) for GT lists the 12 Fp values in the same tower order)
await mcl.init(mcl.BLS12_381);
const mclG1 = (P) => {
  const a = P.toAffine();
  const m = new mcl.G1();
  m.setStr(`1 ${a.x.toString(16)} ${a.y.toString(16)}`, 16);
  return m;
};
const mclG2 = (Q) => {
  const a = Q.toAffine();
  const m = new mcl.G2();
  m.setStr(`1 ${[a.x.c0, a.x.c1, a.y.c0, a.y.c1].map((v) => v.toString(16)).join(' ')}`, 16);
  return m;
};
const mclFr = (v) => {
  const m = new mcl.Fr();
  m.setStr(v.toString(16), 16);
  return m;
};
const mclGtHex = (g) => g.getStr(16).split(' ').map((s) => hexFp(BigInt('0x' + s)));
const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

function checkPairing(P, Q, gt, what) {
  const mp = mclG1(P), mq = mclG2(Q);
  if (!mp.isValid() || !mq.isValid()) fail(`${what}: mcl rejects the points`);
  if (!sameList(mclGtHex(mcl.pairing(mp, mq)), hex12(gt))) fail(`${what}: noble vs mcl pairing`);
}

// --- generator pairing
const e11 = bls12_381.pairing(G1.Point.BASE, G2.Point.BASE);
checkPairing(G1.Point.BASE, G2.Point.BASE, e11, 'e(G1, G2)');
if (Fp12.eql(e11, Fp12.ONE)) fail('e(G1, G2) is 1');

// --- random scalar pairs; bilinearity is also checked here: e(aG1, bG2) = e(G1, G2)^(ab)
const cases = [];
for (let i = 0; i < NUM_CASES; i++) {
  const a = seededScalar('a'), b = seededScalar('b');
  const P = G1.Point.BASE.multiply(a), Q = G2.Point.BASE.multiply(b);
  const gt = bls12_381.pairing(P, Q);
  checkPairing(P, Q, gt, `case ${i}`);
  if (!Fp12.eql(gt, Fp12.pow(e11, Fr.mul(a, b)))) fail(`case ${i}: bilinearity`);
  if (!mcl.mul(mclG1(G1.Point.BASE), mclFr(a)).isEqual(mclG1(P))) fail(`case ${i}: aG1 noble vs mcl`);
  if (!mcl.mul(mclG2(G2.Point.BASE), mclFr(b)).isEqual(mclG2(Q))) fail(`case ${i}: bG2 noble vs mcl`);
  cases.push({ a: hexFr(a), b: hexFr(b), p: g1Json(P), q: g2Json(Q), gt: hex12(gt) });
}

// --- final exponentiation of arbitrary (non-GT) Fp12 elements, compared with mcl.finalExp
const finalExp = [];
for (let i = 0; i < NUM_FINAL_EXP; i++) {
  const t = Array.from({ length: 12 }, () => seededBig('f', Fp.ORDER));
  const f = Fp12.fromBigTwelve(t);
  if (!sameList(hex12(f), t.map(hexFp))) fail('fromBigTwelve is not in tower order');
  const r = Fp12.finalExponentiate(f);
  const mf = new mcl.GT();
  mf.setStr(t.map((v) => v.toString(16)).join(' '), 16);
  if (!sameList(mclGtHex(mcl.finalExp(mf)), hex12(r))) fail(`final exponentiation ${i}: noble vs mcl`);
  finalExp.push({ f: hex12(f), result: hex12(r) });
}

const doc = {
  description: 'BLS12-381 optimal ate pairing known answers (GT = f^(3(p^12-1)/r), tower Fp2[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(1+u)), Fp12 = Fp6[w]/(w^2-v))',
  generator: 'tools/vectors/pairing.mjs: @noble/curves, cross-checked with mcl-wasm',
  seed: SEED,
  encoding: 'Fp: 96-digit big-endian hex; Fp2: [c0, c1]; Fp12: 12 Fp in order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1; scalars: 64-digit hex',
  generator_pairing: { p: g1Json(G1.Point.BASE), q: g2Json(G2.Point.BASE), gt: hex12(e11) },
  cases,
  final_exponentiation: finalExp,
};
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n');
console.log(`pairing.mjs: wrote ${cases.length} pairing cases and ${finalExp.length} final exponentiations`);
