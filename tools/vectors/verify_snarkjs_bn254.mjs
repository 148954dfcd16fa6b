// Independent Groth16 verifier for snarkjs's BN254 (bn128) JSON files, on @noble/curves (no C++
// and no snarkjs involved).
//
// Usage:
//   node tools/vectors/verify_snarkjs_bn254.mjs <verification_key.json> <public.json> <proof.json>
//     (snarkjs's argument order). public.json: an array of decimal strings (ONE excluded);
//     proof.json: {pi_a, pi_b, pi_c, ...}. Prints "valid" (exit 0) or "invalid" (exit 1); bad
//     input (unreadable file, not JSON, a coordinate ≥ p, a point off the curve or outside the
//     subgroup, wrong counts, another curve or protocol) prints the reason, exit 2.
//   node tools/vectors/verify_snarkjs_bn254.mjs --self-test
//     builds proofs from a known trapdoor, checks that they verify and that tampered ones do not;
//     exit 0 on success.
//
// snarkjs writes points as decimal coordinate strings, projective with z = "1" (G1 [x, y, z],
// G2 [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]); the point at infinity is z = 0. Fp2 = Fp[u]/(u²+1)
// with c0 the real part, as EIP-197's (whose byte order puts c1 first) and noble's fromBigTuple.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254.js';

const { G1, G2, fields, pairingBatch } = bn254;
const { Fp, Fp2, Fr, Fp12 } = fields;
const P = Fp.ORDER;
const R = Fr.ORDER;

class BadInput extends Error {}
const bad = (msg) => { throw new BadInput(msg); };

// --- decoding

function coord(s, what, modulus = P) {
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) bad(`${what}: expected a decimal string`);
  const v = BigInt(s);
  if (v >= modulus) bad(`${what}: ${modulus === P ? 'coordinate is not below p' : 'not below r'}`);
  return v;
}

function pair(v, what) {
  if (!Array.isArray(v) || v.length !== 2) bad(`${what}: expected [c0, c1]`);
  return Fp2.fromBigTuple([coord(v[0], `${what}.c0`), coord(v[1], `${what}.c1`)]);
}

// [x, y, z] (G1) or [[x0, x1], [y0, y1], [z0, z1]] (G2) with z = 1, or z = 0 for infinity;
// checked on the curve and in the prime-order subgroup.
function point(v, group, what) {
  const isG1 = group === 'G1';
  if (!Array.isArray(v) || v.length !== 3) bad(`${what}: expected [x, y, z]`);
  const F = isG1 ? Fp : Fp2;
  const read = isG1 ? coord : pair;
  const [x, y, z] = [read(v[0], `${what} x`), read(v[1], `${what} y`), read(v[2], `${what} z`)];
  const Pt = isG1 ? G1.Point : G2.Point;
  if (F.is0(z)) return Pt.ZERO;
  if (!F.eql(z, F.ONE)) bad(`${what}: z is neither 1 nor 0 (snarkjs writes affine points)`);
  let pt;
  try {
    pt = Pt.fromAffine({ x, y });
    pt.assertValidity();  // on the curve and in the prime-order subgroup
  } catch (e) {
    bad(`${what}: ${e.message}`);
  }
  if (pt.is0()) bad(`${what}: (0, 0) with z = 1`);
  return pt;
}

function checkHeader(obj, what) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) bad(`${what}: expected a JSON object`);
  if (obj.protocol !== undefined && obj.protocol !== 'groth16') bad(`${what}: protocol "${obj.protocol}" is not groth16`);
  const curve = obj.curve === undefined ? 'bn128' : String(obj.curve).toLowerCase().replace(/[^a-z0-9]/g, '');
  if (!['bn128', 'bn254', 'altbn128'].includes(curve)) bad(`${what}: curve "${obj.curve}" is not BN254 (bn128)`);
}

function parseVk(obj, name) {
  checkHeader(obj, name);
  const vk = {
    alpha: point(obj.vk_alpha_1, 'G1', `${name}: vk_alpha_1`),
    beta: point(obj.vk_beta_2, 'G2', `${name}: vk_beta_2`),
    gamma: point(obj.vk_gamma_2, 'G2', `${name}: vk_gamma_2`),
    delta: point(obj.vk_delta_2, 'G2', `${name}: vk_delta_2`),
  };
  if (!Array.isArray(obj.IC) || obj.IC.length === 0) bad(`${name}: IC is missing or empty`);
  vk.ic = obj.IC.map((p, i) => point(p, 'G1', `${name}: IC[${i}]`));
  if (obj.nPublic !== undefined && obj.nPublic !== vk.ic.length - 1)
    bad(`${name}: nPublic ${obj.nPublic} but ${vk.ic.length} IC points`);
  for (const k of ['alpha', 'beta', 'gamma', 'delta']) if (vk[k].is0()) bad(`${name}: ${k} is infinity`);
  return vk;
}

function parseProof(obj, what) {
  checkHeader(obj, what);
  return { a: point(obj.pi_a, 'G1', `${what}: pi_a`), b: point(obj.pi_b, 'G2', `${what}: pi_b`), c: point(obj.pi_c, 'G1', `${what}: pi_c`) };
}

function parseInputs(v, path) {
  if (!Array.isArray(v)) bad(`${path}: expected a JSON array of decimal strings`);
  return v.map((s, i) => coord(s, `${path}: input ${i}`, R));
}

// --- verification: e(A, B) = e(α, β)·e(Σ xᵢ·ICᵢ, γ)·e(C, δ), as one product equal to 1

function verifyOne(vk, proof, inputs) {
  if (inputs.length !== vk.ic.length - 1) bad(`${inputs.length} public inputs, the vk has ${vk.ic.length - 1}`);
  let acc = vk.ic[0];
  inputs.forEach((x, i) => { if (x !== 0n) acc = acc.add(vk.ic[i + 1].multiply(x)); });
  const pairs = [
    { g1: proof.a, g2: proof.b },
    { g1: vk.alpha.negate(), g2: vk.beta },
    { g1: acc.negate(), g2: vk.gamma },
    { g1: proof.c.negate(), g2: vk.delta },
  ].filter(({ g1, g2 }) => !g1.is0() && !g2.is0());  // e(O, Q) = e(P, O) = 1
  return pairs.length === 0 || Fp12.eql(pairingBatch(pairs), Fp12.ONE);
}

function verifyJson(vkJson, pubJson, proofJson, names = ['<vk>', '<public>', '<proof>']) {
  return verifyOne(parseVk(vkJson, names[0]), parseProof(proofJson, names[2]), parseInputs(pubJson, names[1]));
}

// --- trapdoor proofs: with known α, β, γ, δ, ICᵢ = kᵢ·G1, A = a·G1, B = b·G2, the equation holds
// iff a·b = α·β + γ·Σ xᵢkᵢ + c·δ (x₀ = 1), so c = (a·b − α·β − γ·Σ xᵢkᵢ)/δ.

function seededScalars(seed) {
  let counter = 0;
  return () => {
    const h = createHash('sha512').update(`${seed}/${counter++}`).digest('hex');
    return 1n + (BigInt('0x' + h) % (R - 1n));
  };
}

const g1Json = (k) => { const { x, y } = G1.Point.BASE.multiply(k).toAffine(); return [String(x), String(y), '1']; };
const g2Json = (k) => {
  const { x, y } = G2.Point.BASE.multiply(k).toAffine();
  return [[String(x.c0), String(x.c1)], [String(y.c0), String(y.c1)], ['1', '0']];
};

function trapdoorCase(seed, numPublic, numProofs) {
  const rnd = seededScalars(seed);
  const s = { alpha: rnd(), beta: rnd(), gamma: rnd(), delta: rnd(), ic: [] };
  for (let i = 0; i <= numPublic; i++) s.ic.push(rnd());
  const vk = {
    protocol: 'groth16', curve: 'bn128', nPublic: numPublic, vk_alpha_1: g1Json(s.alpha),
    vk_beta_2: g2Json(s.beta), vk_gamma_2: g2Json(s.gamma), vk_delta_2: g2Json(s.delta), IC: s.ic.map(g1Json),
  };
  const proofs = [], pub = [];
  for (let j = 0; j < numProofs; j++) {
    const x = [1n];
    for (let i = 0; i < numPublic; i++) x.push(rnd() % 1000n);
    const a = rnd(), b = rnd();
    const sum = x.reduce((acc, xi, i) => Fr.add(acc, Fr.mul(xi, s.ic[i])), 0n);
    const c = Fr.div(Fr.sub(Fr.sub(Fr.mul(a, b), Fr.mul(s.alpha, s.beta)), Fr.mul(s.gamma, sum)), s.delta);
    proofs.push({ pi_a: g1Json(a), pi_b: g2Json(b), pi_c: g1Json(c), protocol: 'groth16', curve: 'bn128' });
    pub.push(x.slice(1).map(String));
  }
  return { vk, proofs, pub };
}

function selfTest() {
  const check = (name, got, want) => {
    if (got !== want) { console.error(`self-test FAILED: ${name}: got ${got}, want ${want}`); process.exit(1); }
    console.log(`ok  ${name}`);
  };
  const t = trapdoorCase('snarkd/snarkjs-bn254/self-test', 3, 2);
  const copy = (v) => JSON.parse(JSON.stringify(v));
  check('valid proofs verify', verifyJson(t.vk, t.pub[0], t.proofs[0]) && verifyJson(t.vk, t.pub[1], t.proofs[1]), true);
  const pub = copy(t.pub[1]);
  pub[2] = String(BigInt(pub[2]) + 1n);
  check('changed public input fails', verifyJson(t.vk, pub, t.proofs[1]), false);
  check('another proof\'s inputs fail', verifyJson(t.vk, t.pub[1], t.proofs[0]), false);
  const swapped = copy(t.proofs[0]);
  swapped.pi_c = t.proofs[1].pi_c;
  check('swapped C fails', verifyJson(t.vk, t.pub[0], swapped), false);
  const negA = copy(t.proofs[0]);
  negA.pi_a[1] = String(P - BigInt(negA.pi_a[1]));  // −A: on the curve, wrong proof
  check('negated A fails', verifyJson(t.vk, t.pub[0], negA), false);
  const badInput = (name, f) => {
    let rejected = false;
    try { f(); } catch (e) { rejected = e instanceof BadInput; }
    check(name, rejected, true);
  };
  const offCurve = copy(t.proofs[0]);
  offCurve.pi_a[1] = String(BigInt(offCurve.pi_a[1]) + 1n);
  badInput('a point off the curve is bad input', () => verifyJson(t.vk, t.pub[0], offCurve));
  badInput('a BLS12-381 vk is bad input', () => verifyJson({ ...t.vk, curve: 'bls12381' }, t.pub[0], t.proofs[0]));
  badInput('a missing input is bad input', () => verifyJson(t.vk, t.pub[0].slice(1), t.proofs[0]));
  console.log('self-test passed');
}

function readJson(path) {
  let text;
  try { text = readFileSync(path, 'utf8'); } catch (e) { bad(`${path}: ${e.message}`); }
  try { return JSON.parse(text); } catch (e) { bad(`${path}: ${e.message}`); }
}

function main(argv) {
  if (argv[0] === '--self-test' && argv.length === 1) return selfTest();
  if (argv.length !== 3) {
    console.error('usage: verify_snarkjs_bn254.mjs <verification_key.json> <public.json> <proof.json> | --self-test');
    process.exit(2);
  }
  try {
    const ok = verifyJson(readJson(argv[0]), readJson(argv[1]), readJson(argv[2]), argv);
    console.log(ok ? 'valid' : 'invalid');
    process.exit(ok ? 0 : 1);
  } catch (e) {
    if (!(e instanceof BadInput)) throw e;
    console.error(`bad input: ${e.message}`);
    process.exit(2);
  }
}

main(process.argv.slice(2));
