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
import { writeFileSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';
import { buildBn128, utils as ffUtils } from 'ffjavascript';
import * as mcl from 'mcl-wasm';
import { pairingKit } from './pairing_common.mjs';

const SEED = 'snarkd/bn254/v1';
const NUM_CASES = 5;
const NUM_FINAL_EXP = 3;
const NUM_ENCODINGS = 4;
const OUT = new URL('../../tests/vectors/bn254.json', import.meta.url);

const G1 = bn254.G1, G2 = bn254.G2;

// Generators (EIP-197), seeded scalar pairs and final exponentiations, cross-checked with mcl
// (BN_SNARK1); the stream and encodings are shared with pairing.mjs.
const kit = await pairingKit({ script: 'bn254.mjs', seed: SEED, curve: bn254, mclCurve: mcl.BN_SNARK1, fpDigits: 64 });
const { seededScalar, hexFp, g1Json, g2Json, fail } = kit;
const hexBytes = (b) => Buffer.from(b).toString('hex');
const { generatorPairing, cases, finalExp } = kit.pairingAnswers(NUM_CASES, NUM_FINAL_EXP);

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
  generator_pairing: generatorPairing,
  cases,
  final_exponentiation: finalExp,
  encodings,
  fr_root_of_unity: frRoot,
};
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n');
console.log(`bn254.mjs: wrote ${cases.length} pairing cases, ${finalExp.length} final exponentiations, ${encodings.length} encodings`);
