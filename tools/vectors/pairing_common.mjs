// Shared by the pairing vector generators (pairing.mjs for BLS12-381, bn254.mjs for BN254): the
// seeded random stream, the hex/JSON encodings of field elements and points, the mcl-wasm
// cross-checks, and the pairing known answers both files carry (e(G1, G2), e(aG1, bG2) for seeded
// scalars, and the final exponentiation of seeded Fp12 elements).
//
// Encoding: Fp elements are big-endian hex of fpDigits digits (canonical, no 0x); Fp2 is
// [c0, c1]; Fp12 is 12 Fp strings in tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1;
// scalars are 64-digit hex. Any disagreement aborts without writing a file.
import { createHash } from 'node:crypto';
import * as mcl from 'mcl-wasm';

// `script` names the generator in error messages; `curve` is the @noble/curves object (bls12_381
// or bn254); `mclCurve` the matching mcl-wasm curve id (same tower, same pairing exponent).
export async function pairingKit({ script, seed, curve, mclCurve, fpDigits }) {
  const { G1, G2 } = curve;
  const { Fr, Fp12 } = curve.fields;

  // Deterministic stream: SHA-256(seed ‖ label ‖ counter), 512 bits reduced mod n (bias < 2^-128).
  let counter = 0;
  function seededBig(label, modulus) {
    let hex = '';
    for (let i = 0; i < 2; i++) {
      hex += createHash('sha256').update(`${seed}/${label}/${counter}/${i}`).digest('hex');
    }
    counter++;
    return BigInt('0x' + hex) % modulus;
  }
  const seededScalar = (label) => 1n + seededBig(label, Fr.ORDER - 1n);  // in [1, r)

  const hexFp = (v) => v.toString(16).padStart(fpDigits, '0');
  const hexFr = (v) => v.toString(16).padStart(64, '0');
  const flat12 = (x) => [x.c0, x.c1].flatMap((c) => [c.c0, c.c1, c.c2]).flatMap((e) => [e.c0, e.c1]);
  const hex12 = (x) => flat12(x).map(hexFp);
  const g1Json = (P) => { const a = P.toAffine(); return { x: hexFp(a.x), y: hexFp(a.y) }; };
  const g2Json = (Q) => {
    const a = Q.toAffine();
    return { x: [hexFp(a.x.c0), hexFp(a.x.c1)], y: [hexFp(a.y.c0), hexFp(a.y.c1)] };
  };

  function fail(msg) {
    console.error(`${script}: MISMATCH: ${msg}`);
    process.exit(1);
  }
  const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

  // --- mcl cross-checks (mcl's getStr(16) for GT lists the 12 Fp values in the same tower order)
  await mcl.init(mclCurve);
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

  // The known answers: the generator pairing, `numCases` seeded scalar pairs (bilinearity is also
  // checked: e(aG1, bG2) = e(G1, G2)^(ab)), and the final exponentiation of `numFinalExp`
  // arbitrary (non-GT) Fp12 elements, compared with mcl.finalExp. Draws from the stream in
  // that order.
  function pairingAnswers(numCases, numFinalExp) {
    const e11 = curve.pairing(G1.Point.BASE, G2.Point.BASE);
    checkPairing(G1.Point.BASE, G2.Point.BASE, e11, 'e(G1, G2)');
    if (Fp12.eql(e11, Fp12.ONE)) fail('e(G1, G2) is 1');

    const cases = [];
    for (let i = 0; i < numCases; i++) {
      const a = seededScalar('a'), b = seededScalar('b');
      const P = G1.Point.BASE.multiply(a), Q = G2.Point.BASE.multiply(b);
      const gt = curve.pairing(P, Q);
      checkPairing(P, Q, gt, `case ${i}`);
      if (!Fp12.eql(gt, Fp12.pow(e11, Fr.mul(a, b)))) fail(`case ${i}: bilinearity`);
      if (!mcl.mul(mclG1(G1.Point.BASE), mclFr(a)).isEqual(mclG1(P))) fail(`case ${i}: aG1 noble vs mcl`);
      if (!mcl.mul(mclG2(G2.Point.BASE), mclFr(b)).isEqual(mclG2(Q))) fail(`case ${i}: bG2 noble vs mcl`);
      cases.push({ a: hexFr(a), b: hexFr(b), p: g1Json(P), q: g2Json(Q), gt: hex12(gt) });
    }

    const finalExp = [];
    for (let i = 0; i < numFinalExp; i++) {
      const t = Array.from({ length: 12 }, () => seededBig('f', curve.fields.Fp.ORDER));
      const f = Fp12.fromBigTwelve(t);
      if (!sameList(hex12(f), t.map(hexFp))) fail('fromBigTwelve is not in tower order');
      const r = Fp12.finalExponentiate(f);
      const mf = new mcl.GT();
      mf.setStr(t.map((v) => v.toString(16)).join(' '), 16);
      if (!sameList(mclGtHex(mcl.finalExp(mf)), hex12(r))) fail(`final exponentiation ${i}: noble vs mcl`);
      finalExp.push({ f: hex12(f), result: hex12(r) });
    }
    const generatorPairing = { p: g1Json(G1.Point.BASE), q: g2Json(G2.Point.BASE), gt: hex12(e11) };
    return { generatorPairing, cases, finalExp };
  }

  return { seededScalar, hexFp, hexFr, g1Json, g2Json, fail, pairingAnswers };
}
