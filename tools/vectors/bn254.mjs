// Known-answer vectors for BN254 (alt_bn128): the generators, scalar multiples, the optimal ate
// pairing (tests/pairing), the final exponentiation, the snarkjs point encodings (tests/ec) and
// snarkjs's Fr root of unity (tests/ff).
// Pairings and group operations come from @noble/curves and are cross-checked value for value
// against mcl-wasm (BN_SNARK1: the same curve, tower and pairing exponent); the LEM bytes and the
// JSON objects come from ffjavascript's bn128 (G1/G2 toRprLEM and toObject, what snarkjs writes
// into .zkey and verification_key.json files). Any disagreement aborts without writing the file.
//
// Encoding: Fp elements are 64-digit big-endian hex (canonical, no 0x); Fp2 is [c0, c1];
// Fp12 is 12 Fp strings in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1; scalars are
// 64-digit hex; byte strings are lowercase hex.
// Usage: node tools/vectors/bn254.mjs  (or sh tools/vectors/generate.sh)
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBn128, utils as ffUtils } from 'ffjavascript';
import * as mcl from 'mcl-wasm';

const SEED = 'snarkd/bn254/v1';
const NUM_CASES = 5;
const NUM_FINAL_EXP = 3;
const NUM_ENCODINGS = 4;
const OUT = new URL('../../tests/vectors/bn254.json', import.meta.url);

const G1 = bn254.G1, G2 = bn254.G2;
const { Fp, Fr, Fp12 } = bn254.fields;

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

const hexFp = (v) => v.toString(16).padStart(64, '0');
const hexBytes = (b) => Buffer.from(b).toString('hex');
const flat12 = (x) => [x.c0, x.c1].flatMap((c) => [c.c0, c.c1, c.c2]).flatMap((e) => [e.c0, e.c1]);
const hex12 = (x) => flat12(x).map(hexFp);
const g1Json = (P) => { const a = P.toAffine(); return { x: hexFp(a.x), y: hexFp(a.y) }; };
const g2Json = (Q) => {
  const a = Q.toAffine();
  return { x: [hexFp(a.x.c0), hexFp(a.x.c1)], y: [hexFp(a.y.c0), hexFp(a.y.c1)] };
};

function fail(msg) {
  console.error(`bn254.mjs: MISMATCH: ${msg}`);
  process.exit(1);
}
const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

// --- mcl cross-checks (mcl's getStr(16) for GT lists the 12 Fp values in the same tower order)
await mcl.init(mcl.BN_SNARK1);
const mclG1 = (P) => {
  const m = new mcl.G1();
  if (P.equals(G1.Point.ZERO)) return m;
  const a = P.toAffine();
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

function checkPairing(P, Q, gt, what) {
  const mp = mclG1(P), mq = mclG2(Q);
  if (!mp.isValid() || !mq.isValid()) fail(`${what}: mcl rejects the points`);
  if (!sameList(mclGtHex(mcl.pairing(mp, mq)), hex12(gt))) fail(`${what}: noble vs mcl pairing`);
}

// --- generators (EIP-197) and their pairing
const e11 = bn254.pairing(G1.Point.BASE, G2.Point.BASE);
checkPairing(G1.Point.BASE, G2.Point.BASE, e11, 'e(G1, G2)');
if (Fp12.eql(e11, Fp12.ONE)) fail('e(G1, G2) is 1');

// --- random scalar pairs; bilinearity is also checked here: e(aG1, bG2) = e(G1, G2)^(ab)
const cases = [];
for (let i = 0; i < NUM_CASES; i++) {
  const a = seededScalar('a'), b = seededScalar('b');
  const P = G1.Point.BASE.multiply(a), Q = G2.Point.BASE.multiply(b);
  const gt = bn254.pairing(P, Q);
  checkPairing(P, Q, gt, `case ${i}`);
  if (!Fp12.eql(gt, Fp12.pow(e11, Fr.mul(a, b)))) fail(`case ${i}: bilinearity`);
  if (!mcl.mul(mclG1(G1.Point.BASE), mclFr(a)).isEqual(mclG1(P))) fail(`case ${i}: aG1 noble vs mcl`);
  if (!mcl.mul(mclG2(G2.Point.BASE), mclFr(b)).isEqual(mclG2(Q))) fail(`case ${i}: bG2 noble vs mcl`);
  cases.push({ a: hexFp(a), b: hexFp(b), p: g1Json(P), q: g2Json(Q), gt: hex12(gt) });
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

// --- snarkjs encodings of kG1, kG2 (k = 0 gives infinity), from ffjavascript's bn128
const curve = await buildBn128(true);
const encodings = [];
for (let i = 0; i < NUM_ENCODINGS; i++) {
  const k = i === 0 ? 0n : seededScalar('k');
  const fP = curve.G1.toAffine(curve.G1.timesScalar(curve.G1.g, k));
  const fQ = curve.G2.toAffine(curve.G2.timesScalar(curve.G2.g, k));
  const lem1 = new Uint8Array(64), lem2 = new Uint8Array(128);
  curve.G1.toRprLEM(lem1, 0, fP);
  curve.G2.toRprLEM(lem2, 0, fQ);
  const json1 = ffUtils.stringifyBigInts(curve.G1.toObject(fP));
  const json2 = ffUtils.stringifyBigInts(curve.G2.toObject(fQ));
  const entry = { k: hexFp(k), g1_lem: hexBytes(lem1), g2_lem: hexBytes(lem2), g1_json: json1, g2_json: json2 };
  if (k !== 0n) {  // the same points from noble
    const P = G1.Point.BASE.multiply(k), Q = G2.Point.BASE.multiply(k);
    const p = g1Json(P), q = g2Json(Q);
    const dec = (h) => BigInt('0x' + h).toString(10);
    if (json1[0] !== dec(p.x) || json1[1] !== dec(p.y)) fail(`encoding ${i}: G1 ffjavascript vs noble`);
    if (json2[0][0] !== dec(q.x[0]) || json2[0][1] !== dec(q.x[1]) || json2[1][0] !== dec(q.y[0]) ||
        json2[1][1] !== dec(q.y[1])) {
      fail(`encoding ${i}: G2 ffjavascript vs noble`);
    }
    entry.p = p;
    entry.q = q;
  }
  encodings.push(entry);
}
// snarkjs's Fr domain: ffjavascript's 2^s-th root of unity from its non-residue (5 for bn128).
const frRoot = {
  s: curve.Fr.s,
  generator: curve.Fr.toObject(curve.Fr.nqr).toString(10),
  w: hexFp(curve.Fr.toObject(curve.Fr.w[curve.Fr.s])),
};
await curve.terminate();

const b2 = G2.CURVE ? G2.CURVE.b : G2.Point.CURVE().b;
const doc = {
  description: 'BN254 (alt_bn128) known answers: generators, scalar multiples, optimal ate pairing as @noble/curves and mcl compute it (tower Fp2[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(9+u)), Fp12 = Fp6[w]/(w^2-v)), final exponentiation, snarkjs LEM/JSON point encodings',
  generator: 'tools/vectors/bn254.mjs: @noble/curves, cross-checked with mcl-wasm; encodings from ffjavascript',
  seed: SEED,
  encoding: 'Fp: 64-digit big-endian hex; Fp2: [c0, c1]; Fp12: 12 Fp in order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1; scalars: 64-digit hex; bytes: hex',
  twist_b: [hexFp(b2.c0), hexFp(b2.c1)],
  generator_pairing: { p: g1Json(G1.Point.BASE), q: g2Json(G2.Point.BASE), gt: hex12(e11) },
  cases,
  final_exponentiation: finalExp,
  encodings,
  fr_root_of_unity: frRoot,
};
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n');
console.log(`bn254.mjs: wrote ${cases.length} pairing cases, ${finalExp.length} final exponentiations, ${encodings.length} encodings`);
