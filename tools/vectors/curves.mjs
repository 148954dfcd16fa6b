// Known-answer vectors for snarkd's G1/G2 layer (tests/ec), computed with @noble/curves.
// Writes tests/vectors/curves.json. Deterministic: every random value comes from SHA-256 of a
// fixed seed and a counter, so re-running reproduces the file byte for byte.
//
// Encodings are the ZCash/IETF big-endian ones (G2: Fp2 written c1 then c0) and snarkjs "LEM"
// (little-endian Montgomery, R = 2^384, G2 as x.c0‖x.c1‖y.c0‖y.c1). Points outside the
// prime-order subgroup cannot be encoded by noble (it validates first), so this file has its own
// encoder, checked against noble's on every valid point before it is used on invalid ones.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const SEED = 'snarkd curves.json v1';
const { Fp, Fp2 } = bls12_381.fields;
const p = Fp.ORDER;
const r = bls12_381.fields.Fr.ORDER;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;

let counter = 0;
function randomBigint(bytes) {
  let out = 0n;
  while (bytes > 0) {
    const h = createHash('sha256').update(`${SEED}/${counter++}`).digest();
    for (const b of h.subarray(0, Math.min(32, bytes))) out = (out << 8n) | BigInt(b);
    bytes -= 32;
  }
  return out;
}
const randomMod = (m) => randomBigint(64) % m; // 512 bits reduced: bias < 2^-130
const randomScalar = () => 1n + randomMod(r - 1n);

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const be = (v, len = 48) => {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; --i, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
};
const le = (v, len = 48) => be(v, len).reverse();
const cat = (...parts) => Uint8Array.from(parts.flatMap((x) => [...x]));
const fpHex = (v) => v.toString(16).padStart(96, '0');

// Per-group helpers: field bytes in ZCash order, the "sign" of y, JSON form of a coordinate.
const groups = {
  g1: {
    Point: G1,
    F: Fp,
    b: Fp.create(4n),
    zcash: (v) => be(v),
    lem: (v) => le(Fp.create(v * (1n << 384n))),
    sign: (y) => y > (p - 1n) / 2n,
    json: (v) => fpHex(v),
    randomField: () => randomMod(p),
  },
  g2: {
    Point: G2,
    F: Fp2,
    b: Fp2.fromBigTuple([4n, 4n]),
    zcash: (v) => cat(be(v.c1), be(v.c0)),
    lem: (v) => cat(le(Fp.create(v.c0 * (1n << 384n))), le(Fp.create(v.c1 * (1n << 384n)))),
    sign: (y) => (y.c1 !== 0n ? y.c1 > (p - 1n) / 2n : y.c0 > (p - 1n) / 2n),
    json: (v) => [fpHex(v.c0), fpHex(v.c1)],
    randomField: () => Fp2.fromBigTuple([randomMod(p), randomMod(p)]),
  },
};

// Our own ZCash encoder (flags 0x80 compressed, 0x40 infinity, 0x20 lexicographically largest y).
function encode(g, point, compressed) {
  if (point.is0()) {
    const out = new Uint8Array((compressed ? 1 : 2) * g.zcash(g.F.ZERO).length);
    out[0] = compressed ? 0xc0 : 0x40;
    return out;
  }
  const { x, y } = point.toAffine();
  const out = compressed ? g.zcash(x) : cat(g.zcash(x), g.zcash(y));
  if (compressed) out[0] |= 0x80 | (g.sign(y) ? 0x20 : 0);
  return out;
}

function describe(g, point) {
  const { x, y } = point.toAffine();
  const compressed = encode(g, point, true);
  const uncompressed = encode(g, point, false);
  if (!point.is0()) {
    assertEq(hex(compressed), point.toHex(true), 'compressed encoder');
    assertEq(hex(uncompressed), point.toHex(false), 'uncompressed encoder');
  }
  return {
    x: g.json(x),
    y: g.json(y),
    compressed: hex(compressed),
    uncompressed: hex(uncompressed),
    lem: point.is0() ? hex(new Uint8Array(2 * g.lem(g.F.ZERO).length)) : hex(cat(g.lem(x), g.lem(y))),
  };
}

function assertEq(a, b, what) {
  if (a !== b) throw new Error(`${what}: ${a} !== ${b}`);
}
function mustReject(g, bytes, what) {
  let accepted = false;
  try {
    g.Point.fromBytes(bytes);
    accepted = true;
  } catch {}
  if (accepted) throw new Error(`noble accepted an invalid encoding (${what}): ${hex(bytes)}`);
}

// k·G for edge scalars and random ones.
function multiples(g) {
  const ks = [1n, 2n, 3n, r - 1n];
  for (let i = 0; i < 8; ++i) ks.push(randomScalar());
  return ks.map((k) => ({ k: k.toString(16), ...describe(g, g.Point.BASE.multiply(k)) }));
}

// k·P for random subgroup points P (not the generator), so scalar multiplication is checked on
// bases other than G.
function scalarMuls(g) {
  const out = [];
  for (let i = 0; i < 4; ++i) {
    const base = g.Point.BASE.multiply(randomScalar());
    const k = randomScalar();
    out.push({ base: hex(base.toBytes(false)), k: k.toString(16), result: hex(base.multiply(k).toBytes(false)) });
  }
  return out;
}

// Points on the curve outside the prime-order subgroup: a random x with x³ + b square, y either
// root, no cofactor clearing. noble must reject their encodings; clearCofactor lands in G.
function nonSubgroup(g, count) {
  const out = [];
  while (out.length < count) {
    const x = g.randomField();
    let y;
    try {
      y = g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
    } catch {
      continue; // x³ + b is not a square
    }
    if (out.length % 2 === 1) y = g.F.neg(y);
    const point = g.Point.fromAffine({ x, y });
    if (point.isTorsionFree()) throw new Error('random point landed in the subgroup');
    const compressed = encode(g, point, true);
    const uncompressed = encode(g, point, false);
    mustReject(g, compressed, 'non-subgroup compressed');
    mustReject(g, uncompressed, 'non-subgroup uncompressed');
    const cleared = point.clearCofactor();
    if (!cleared.isTorsionFree()) throw new Error('clearCofactor left the subgroup');
    out.push({
      x: g.json(x),
      y: g.json(y),
      compressed: hex(compressed),
      uncompressed: hex(uncompressed),
      lem: hex(cat(g.lem(x), g.lem(y))),
      cleared: describe(g, cleared),
    });
  }
  return out;
}

// An x (G1: Fp, G2: Fp2) for which x³ + b has no square root.
function xOffCurve(g) {
  for (;;) {
    const x = g.randomField();
    try {
      g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
    } catch {
      return x;
    }
  }
}

// Invalid encodings with the reason the decoder must give (a substring of its message).
function invalid(g, name, subgroupFailures) {
  const W = g.zcash(g.F.ZERO).length; // field element width: 48 (G1) or 96 (G2)
  const P = g.Point.BASE.multiply(randomScalar());
  const comp = P.toBytes(true);
  const unc = P.toBytes(false);
  const list = [];
  const add = (form, bytes, reason, what) => {
    mustReject(g, bytes, what);
    list.push({ form, encoding: hex(bytes), reason, what });
  };
  const edit = (bytes, fn) => {
    const c = Uint8Array.from(bytes);
    fn(c);
    return c;
  };
  add('compressed', comp.subarray(0, W - 1), `expected ${W} bytes`, 'one byte short');
  add('compressed', cat(comp, [0]), `expected ${W} bytes`, 'one byte long');
  add('uncompressed', unc.subarray(0, 2 * W - 1), `expected ${2 * W} bytes`, 'one byte short');
  add('compressed', edit(comp, (c) => (c[0] &= 0x7f)), 'compression flag is not set', 'compressed bytes without 0x80');
  add('compressed', edit(new Uint8Array(W), (c) => (c[0] = 0x40)), 'compression flag is not set', 'uncompressed-style infinity');
  add('uncompressed', edit(unc, (c) => (c[0] |= 0x80)), 'compression flag is set', 'uncompressed bytes with 0x80');
  add('uncompressed', edit(new Uint8Array(2 * W), (c) => (c[0] = 0xc0)), 'compression flag is set', 'compressed-style infinity');
  add('uncompressed', edit(unc, (c) => (c[0] |= 0x20)), 'sign flag is set', 'uncompressed with 0x20');
  add('compressed', edit(new Uint8Array(W), (c) => (c[0] = 0xe0)), 'infinity encoding has other bits set', 'infinity with sign flag');
  add('compressed', edit(new Uint8Array(W), (c) => ((c[0] = 0xc0), (c[W - 1] = 1))), 'infinity encoding has other bits set', 'infinity with a payload bit');
  add('compressed', edit(new Uint8Array(W), (c) => ((c[0] = 0xc1))), 'infinity encoding has other bits set', 'infinity with a low flag-byte bit');
  add('uncompressed', edit(new Uint8Array(2 * W), (c) => (c[0] = 0x60)), 'sign flag is set', 'uncompressed infinity with sign flag');
  add('uncompressed', edit(new Uint8Array(2 * W), (c) => ((c[0] = 0x40), (c[2 * W - 1] = 1))), 'infinity encoding has other bits set', 'uncompressed infinity with a payload bit');
  add('uncompressed', new Uint8Array(2 * W), 'all-zero coordinates without the infinity flag', 'all zeros');
  add('compressed', new Uint8Array(W).fill(0), 'compression flag is not set', 'compressed all zeros');

  // Non-canonical coordinates: p itself and 2^381 − 1 (all payload bits set).
  const xName = name === 'G1' ? ['x'] : ['x.c1', 'x.c0']; // in byte order
  const yName = name === 'G1' ? ['y'] : ['y.c1', 'y.c0'];
  xName.forEach((n, i) => {
    for (const bad of [p, (1n << 381n) - 1n]) {
      add('compressed', edit(comp, (c) => (c.set(be(bad), 48 * i), (c[0] |= 0x80))),
        `${n} is not a canonical field element`, `${n} = ${bad === p ? 'p' : '2^381 - 1'}`);
      add('uncompressed', edit(unc, (c) => c.set(be(bad), 48 * i)),
        `${n} is not a canonical field element`, `${n} = ${bad === p ? 'p' : '2^381 - 1'}`);
    }
  });
  yName.forEach((n, i) => {
    add('uncompressed', edit(unc, (c) => c.set(be(p), W + 48 * i)), `${n} is not a canonical field element`, `${n} = p`);
  });

  // x with no square root of x³ + b; a valid x with the wrong y.
  const xs = g.zcash(xOffCurve(g));
  add('compressed', edit(xs, (c) => (c[0] |= 0x80)), 'has no square root', 'x³ + b not a square');
  add('uncompressed', cat(xs, unc.subarray(W)), 'point is not on the curve', 'x off the curve, y of P');
  const { x, y } = P.toAffine();
  add('uncompressed', cat(g.zcash(x), g.zcash(g.F.add(y, g.F.ONE))), 'point is not on the curve', 'y + 1');

  for (const pt of subgroupFailures) {
    add('compressed', Buffer.from(pt.compressed, 'hex'), 'point is not in the prime-order subgroup', 'torsion component');
    add('uncompressed', Buffer.from(pt.uncompressed, 'hex'), 'point is not in the prime-order subgroup', 'torsion component');
  }
  return list;
}

function group(name, g) {
  const ns = nonSubgroup(g, 4);
  return {
    generator: describe(g, g.Point.BASE),
    infinity: describe(g, g.Point.ZERO),
    multiples: multiples(g),
    scalar_mul: scalarMuls(g),
    non_subgroup: ns,
    invalid: invalid(g, name, ns.slice(0, 2)),
  };
}

const out = {
  about:
    'Generated by tools/vectors/curves.mjs with @noble/curves (seed "' + SEED + '"). ' +
    'Hex: field elements canonical big-endian, Fp2 as [c0, c1]; compressed/uncompressed are ZCash/IETF ' +
    'encodings; lem is snarkjs little-endian Montgomery (x‖y, Fp2 c0‖c1). invalid[].reason must appear ' +
    'in the decoder error message.',
  g1: group('G1', groups.g1),
  g2: group('G2', groups.g2),
};
const path = new URL('../../tests/vectors/curves.json', import.meta.url);
writeFileSync(path, JSON.stringify(out, null, 1) + '\n');
console.log(`wrote ${path.pathname}`);
