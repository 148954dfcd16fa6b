// Known-answer vectors for the optimal ate pairing (tests/pairing): e(G1, G2), e(aG1, bG2) for
// seeded random scalars, and the final exponentiation of seeded random Fp12 elements.
// Computed with @noble/curves and cross-checked value for value against mcl-wasm (same tower,
// same 3·(p¹² − 1)/r exponent); any disagreement aborts without writing the file.
//
// Encoding: Fp elements are 96-digit big-endian hex (canonical, no 0x); Fp2 is [c0, c1];
// Fp12 is 12 Fp strings in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1.
// The stream, encodings and mcl checks are shared with bn254.mjs (pairing_common.mjs).
// Usage: node tools/vectors/pairing.mjs  (or sh tools/vectors/generate.sh)
import { writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import * as mcl from 'mcl-wasm';
import { pairingKit } from './pairing_common.mjs';

const SEED = 'snarkd/pairing/v1';
const NUM_CASES = 5;
const NUM_FINAL_EXP = 3;
const OUT = new URL('../../tests/vectors/pairing.json', import.meta.url);

const kit = await pairingKit({
  script: 'pairing.mjs', seed: SEED, curve: bls12_381, mclCurve: mcl.BLS12_381, fpDigits: 96,
});
const { generatorPairing, cases, finalExp } = kit.pairingAnswers(NUM_CASES, NUM_FINAL_EXP);

const doc = {
  description: 'BLS12-381 optimal ate pairing known answers (GT = f^(3(p^12-1)/r), tower Fp2[u]/(u^2+1), Fp6 = Fp2[v]/(v^3-(1+u)), Fp12 = Fp6[w]/(w^2-v))',
  generator: 'tools/vectors/pairing.mjs: @noble/curves, cross-checked with mcl-wasm',
  seed: SEED,
  encoding: 'Fp: 96-digit big-endian hex; Fp2: [c0, c1]; Fp12: 12 Fp in order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1; scalars: 64-digit hex',
  generator_pairing: generatorPairing,
  cases,
  final_exponentiation: finalExp,
};
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n');
console.log(`pairing.mjs: wrote ${cases.length} pairing cases and ${finalExp.length} final exponentiations`);
