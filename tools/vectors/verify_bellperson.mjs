// Independent Groth16 verifier for bellperson/Filecoin files, on @noble/curves (no C++ involved).
//
// Usage:
//   node tools/vectors/verify_bellperson.mjs <vk or .params> <proof file, 192·k bytes> <public.json>
//     public.json: a JSON array of decimal strings (public inputs, ONE excluded); for k > 1
//     proofs an array of k such arrays. Prints "valid" (exit 0) or "invalid" (exit 1); bad input
//     (unreadable file, bad encoding, wrong sizes or counts) prints the reason, exit 2.
//   node tools/vectors/verify_bellperson.mjs --self-test
//     builds proofs from a known trapdoor, checks that they verify and that tampered ones do not;
//     writes nothing, exit 0 on success.
//   node tools/vectors/verify_bellperson.mjs --write-fixture <dir>
//     writes the same seeded trapdoor vk/proofs (bp_trapdoor.vk, bp_trapdoor.proof,
//     bp_trapdoor_public.json) and the scalars behind them (bp_trapdoor.json) for the C++ tests.
//
// File layout (bellperson src/groth16/verifying_key.rs and proof.rs): the vk is α₁ β₁ β₂ γ₂ δ₁ δ₂
// uncompressed (G1 96 B, G2 192 B, ZCash encoding: big-endian, G2 coordinates c1 then c0, flags
// 0x80 compressed / 0x40 infinity / 0x20 y-sign in byte 0), a u32 big-endian |ic|, then ic;
// a .params file continues after that (only its vk part is read). A proof is A (G1 compressed)
// ‖ B (G2 compressed) ‖ C (G1 compressed). Points are decoded here, not with noble's fromBytes,
// because noble reduces coordinates ≥ p instead of rejecting them.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const { G1, G2, fields, pairingBatch } = bls12_381;
const { Fp, Fp2, Fr, Fp12 } = fields;
const P = Fp.ORDER;
const R = Fr.ORDER;
const HALF_P = (P - 1n) / 2n;

class BadInput extends Error {}
const bad = (msg) => { throw new BadInput(msg); };

// --- decoding (ZCash encoding, draft-irtf-cfrg-pairing-friendly-curves Appendix C)

const beToBig = (b) => (b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b).toString('hex')));
function fpFrom(bytes, what) {
  const v = beToBig(bytes);
  if (v >= P) bad(`${what}: coordinate is not canonical (≥ p)`);
  return v;
}
// G2 coordinates are written c1 ‖ c0.
const fp2From = (b, what) => Fp2.create({ c1: fpFrom(b.subarray(0, 48), `${what}.c1`), c0: fpFrom(b.subarray(48), `${what}.c0`) });
// The 0x20 flag means y is the larger of ±y; for Fp2 compare c1 first, then c0.
const ySignG1 = (y) => y > HALF_P;
const ySignG2 = (y) => (y.c1 !== 0n ? y.c1 > HALF_P : y.c0 > HALF_P);

function decodePoint(bytes, group, compressed, what) {
  const isG1 = group === 'G1';
  const width = isG1 ? 48 : 96;
  if (bytes.length !== (compressed ? width : 2 * width)) bad(`${what}: wrong length ${bytes.length}`);
  const flags = bytes[0] & 0xe0;
  const body = Uint8Array.from(bytes);
  body[0] &= 0x1f;
  if (!!(flags & 0x80) !== compressed) bad(`${what}: compression flag ${compressed ? 'not set' : 'set'}`);
  const Pt = isG1 ? G1.Point : G2.Point;
  if (flags & 0x40) {
    if ((flags & 0x20) || body.some((b) => b !== 0)) bad(`${what}: bad infinity encoding`);
    return Pt.ZERO;
  }
  if (!compressed && (flags & 0x20)) bad(`${what}: sign flag set on an uncompressed point`);
  const F = isG1 ? Fp : Fp2;
  const decodeCoord = isG1 ? fpFrom : fp2From;
  const x = decodeCoord(body.subarray(0, width), `${what} x`);
  let y;
  if (compressed) {
    const rhs = F.add(F.mul(F.sqr(x), x), isG1 ? Fp.create(4n) : Fp2.create({ c0: 4n, c1: 4n }));
    try { y = F.sqrt(rhs); } catch { y = undefined; }
    if (y === undefined || !F.eql(F.sqr(y), rhs)) bad(`${what}: x is not on the curve`);
    if ((isG1 ? ySignG1(y) : ySignG2(y)) !== !!(flags & 0x20)) y = F.neg(y);
  } else {
    y = decodeCoord(body.subarray(width), `${what} y`);
  }
  let pt;
  try {
    pt = Pt.fromAffine({ x, y });
    pt.assertValidity();  // on the curve and in the prime-order subgroup
  } catch (e) {
    bad(`${what}: ${e.message}`);
  }
  if (pt.is0()) bad(`${what}: zero coordinates without the infinity flag`);
  return pt;
}

// --- files

// take(n, field) returns the next n bytes of the source or throws BadInput naming the field.
function fileTaker(path) {
  let fd;
  try { fd = openSync(path, 'r'); } catch (e) { bad(`${path}: ${e.message}`); }
  const size = fstatSync(fd).size;
  let pos = 0;
  const take = (n, field) => {
    if (pos + n > size) bad(`${path}: truncated in ${field}`);
    const b = new Uint8Array(n);
    readSync(fd, b, 0, n, pos);
    pos += n;
    return b;
  };
  return { take, close: () => closeSync(fd) };
}
function bufferTaker(buf, name) {
  let pos = 0;
  const take = (n, field) => {
    if (pos + n > buf.length) bad(`${name}: truncated in ${field}`);
    pos += n;
    return new Uint8Array(buf.subarray(pos - n, pos));
  };
  return { take, close: () => {} };
}

// Reads only the vk part, so a multi-GB .params file works as a vk too.
function parseVk({ take, close }, name) {
  try {
    const g1 = (f) => decodePoint(take(96, f), 'G1', false, `${name}: ${f}`);
    const g2 = (f) => decodePoint(take(192, f), 'G2', false, `${name}: ${f}`);
    const vk = { alpha: g1('alpha_g1'), beta1: g1('beta_g1'), beta: g2('beta_g2'), gamma: g2('gamma_g2') };
    vk.delta1 = g1('delta_g1');
    vk.delta = g2('delta_g2');
    const n = Buffer.from(take(4, 'ic count')).readUInt32BE(0);
    if (n === 0) bad(`${name}: ic is empty`);
    vk.ic = [];
    for (let i = 0; i < n; i++) vk.ic.push(g1(`ic ${i}`));
    for (const k of ['alpha', 'beta1', 'beta', 'gamma', 'delta1', 'delta']) if (vk[k].is0()) bad(`${name}: ${k} is infinity`);
    return vk;
  } finally {
    close();
  }
}

function parseProofs(bytes, name) {
  if (bytes.length === 0 || bytes.length % 192 !== 0) bad(`${name}: size ${bytes.length} is not 192·k`);
  const proofs = [];
  for (let off = 0; off < bytes.length; off += 192) {
    const what = `${name}: proof ${off / 192}`;
    proofs.push({
      a: decodePoint(bytes.subarray(off, off + 48), 'G1', true, `${what} A`),
      b: decodePoint(bytes.subarray(off + 48, off + 144), 'G2', true, `${what} B`),
      c: decodePoint(bytes.subarray(off + 144, off + 192), 'G1', true, `${what} C`),
    });
  }
  return proofs;
}

const readFile = (path, enc) => { try { return readFileSync(path, enc); } catch (e) { bad(`${path}: ${e.message}`); } };

function parseInputs(json, k, path) {
  let v;
  try { v = JSON.parse(json); } catch (e) { bad(`${path}: ${e.message}`); }
  if (!Array.isArray(v)) bad(`${path}: expected a JSON array`);
  const nested = v.length > 0 && Array.isArray(v[0]);
  const lists = nested ? v : k === 1 ? [v] : bad(`${path}: ${k} proofs need an array of ${k} arrays`);
  if (lists.length !== k) bad(`${path}: ${lists.length} input lists for ${k} proofs`);
  return lists.map((list, j) => list.map((s, i) => {
    if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) bad(`${path}: proof ${j} input ${i} is not a decimal string`);
    const x = BigInt(s);
    if (x >= R) bad(`${path}: proof ${j} input ${i} is not below r`);
    return x;
  }));
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
  ].filter(({ g1, g2 }) => !g1.is0() && !g2.is0());  // e(O, Q) = e(P, O) = 1; noble refuses O
  return pairs.length === 0 || Fp12.eql(pairingBatch(pairs), Fp12.ONE);
}

const verifyAll = (vk, proofs, lists) => proofs.every((p, j) => verifyOne(vk, p, lists[j]));

// --- trapdoor proofs: with known α, β, γ, δ, ICᵢ = kᵢ·G1, A = a·G1, B = b·G2, the equation holds
// iff a·b = α·β + γ·Σ xᵢkᵢ + c·δ (x₀ = 1), so c = (a·b − α·β − γ·Σ xᵢkᵢ)/δ.

function seededScalars(seed) {
  let counter = 0;
  return () => {
    const h = createHash('sha512').update(`${seed}/${counter++}`).digest('hex');
    return 1n + (BigInt('0x' + h) % (R - 1n));  // in [1, r), bias < 2^-250
  };
}

function trapdoorCase(seed, numPublic, numProofs) {
  const rnd = seededScalars(seed);
  const s = { alpha: rnd(), beta: rnd(), gamma: rnd(), delta: rnd(), ic: [] };
  for (let i = 0; i <= numPublic; i++) s.ic.push(rnd());
  s.proofs = [];
  for (let j = 0; j < numProofs; j++) {
    const x = [1n];
    for (let i = 0; i < numPublic; i++) x.push(rnd() % 1000n);  // small inputs, as circuits have
    const a = rnd(), b = rnd();
    const sum = x.reduce((acc, xi, i) => Fr.add(acc, Fr.mul(xi, s.ic[i])), 0n);
    const num = Fr.sub(Fr.sub(Fr.mul(a, b), Fr.mul(s.alpha, s.beta)), Fr.mul(s.gamma, sum));
    s.proofs.push({ a, b, c: Fr.div(num, s.delta), inputs: x.slice(1) });
  }
  return s;
}

const g1Mul = (k) => G1.Point.BASE.multiply(k);
const g2Mul = (k) => G2.Point.BASE.multiply(k);
const u32be = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };

function encodeCase(s) {
  const vk = Buffer.concat([
    g1Mul(s.alpha).toBytes(false), g1Mul(s.beta).toBytes(false), g2Mul(s.beta).toBytes(false),
    g2Mul(s.gamma).toBytes(false), g1Mul(s.delta).toBytes(false), g2Mul(s.delta).toBytes(false),
    u32be(s.ic.length), ...s.ic.map((k) => g1Mul(k).toBytes(false)),
  ]);
  const proof = Buffer.concat(s.proofs.flatMap((p) => [g1Mul(p.a).toBytes(true), g2Mul(p.b).toBytes(true), g1Mul(p.c).toBytes(true)]));
  const pub = JSON.stringify(s.proofs.map((p) => p.inputs.map(String)));
  return { vk, proof, pub };
}

// The same parsers and verifier as for files, on the bytes in memory.
function verifyBytes(enc) {
  const vk = parseVk(bufferTaker(enc.vk, '<vk>'), '<vk>');
  const proofs = parseProofs(new Uint8Array(enc.proof), '<proofs>');
  return verifyAll(vk, proofs, parseInputs(enc.pub, proofs.length, '<public>'));
}

function selfTest() {
  const s = trapdoorCase('snarkd/bellperson/self-test', 3, 2);
  const enc = encodeCase(s);
  const check = (name, got, want) => {
    if (got !== want) { console.error(`self-test FAILED: ${name}: got ${got}, want ${want}`); process.exit(1); }
    console.log(`ok  ${name}`);
  };
  check('valid proofs verify', verifyBytes(enc), true);
  const pub = JSON.parse(enc.pub);
  pub[1][2] = String(BigInt(pub[1][2]) + 1n);
  check('changed public input fails', verifyBytes({ ...enc, pub: JSON.stringify(pub) }), false);
  const swapped = Buffer.from(enc.proof);
  enc.proof.copy(swapped, 144, 192 + 144, 384);  // proof 0 gets proof 1's C
  check('swapped C fails', verifyBytes({ ...enc, proof: swapped }), false);
  const negA = Buffer.from(enc.proof);
  negA[0] ^= 0x20;  // −A: still a valid point, wrong proof
  check('negated A fails', verifyBytes({ ...enc, proof: negA }), false);
  const nonCanonical = Buffer.from(enc.proof);
  Buffer.from(P.toString(16).padStart(96, '0'), 'hex').copy(nonCanonical, 0);
  nonCanonical[0] |= 0x80;
  let rejected = false;
  try { verifyBytes({ ...enc, proof: nonCanonical }); } catch (e) { rejected = e instanceof BadInput; }
  check('x = p is rejected as bad input', rejected, true);
  const single = trapdoorCase('snarkd/bellperson/self-test-single', 1, 1);
  const encSingle = encodeCase(single);
  check('k = 1 with a flat public array', verifyBytes({ ...encSingle, pub: JSON.stringify(single.proofs[0].inputs.map(String)) }), true);
  console.log('self-test passed');
}

function writeFixture(dir) {
  const s = trapdoorCase('snarkd/bellperson/fixture/v1', 3, 2);
  const enc = encodeCase(s);
  if (!verifyBytes(enc)) { console.error('fixture does not verify'); process.exit(1); }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bp_trapdoor.vk'), enc.vk);
  writeFileSync(join(dir, 'bp_trapdoor.proof'), enc.proof);
  writeFileSync(join(dir, 'bp_trapdoor_public.json'), enc.pub + '\n');
  const dec = (v) => v.toString();
  const scalars = {
    comment: 'Trapdoor behind bp_trapdoor.{vk,proof}: vk points are scalar·generator, proofs (a·G1, b·G2, c·G1). Written by tools/vectors/verify_bellperson.mjs --write-fixture with @noble/curves.',
    alpha: dec(s.alpha), beta: dec(s.beta), gamma: dec(s.gamma), delta: dec(s.delta), ic: s.ic.map(dec),
    proofs: s.proofs.map((p) => ({ a: dec(p.a), b: dec(p.b), c: dec(p.c), inputs: p.inputs.map(dec) })),
  };
  writeFileSync(join(dir, 'bp_trapdoor.json'), JSON.stringify(scalars, null, 1) + '\n');
  console.log(`wrote bp_trapdoor.{vk,proof,json} and bp_trapdoor_public.json to ${dir}`);
}

function main(argv) {
  if (argv[0] === '--self-test' && argv.length === 1) return selfTest();
  if (argv[0] === '--write-fixture' && argv.length === 2) return writeFixture(argv[1]);
  if (argv.length !== 3) {
    console.error('usage: verify_bellperson.mjs <vk> <proofs> <public.json> | --self-test | --write-fixture <dir>');
    process.exit(2);
  }
  try {
    const vk = parseVk(fileTaker(argv[0]), argv[0]);
    const proofs = parseProofs(new Uint8Array(readFile(argv[1])), argv[1]);
    const ok = verifyAll(vk, proofs, parseInputs(readFile(argv[2], 'utf8'), proofs.length, argv[2]));
    console.log(ok ? 'valid' : 'invalid');
    process.exit(ok ? 0 : 1);
  } catch (e) {
    if (!(e instanceof BadInput)) throw e;
    console.error(`bad input: ${e.message}`);
    process.exit(2);
  }
}

main(process.argv.slice(2));
