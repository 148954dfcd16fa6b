//! Shared by the crate's tests: field arithmetic, bellperson-style synthesis, circuits, the
//! proof's wire encoding, and the two verifiers (`snarkd verify`, and the independent
//! @noble/curves verifier tools/vectors/verify_bellperson.mjs) run as processes.
#![allow(dead_code)]

pub mod cs;
pub mod field;

use std::path::{Path, PathBuf};
use std::process::Command;

use cs::{Lc, ProvingAssignment, ONE};
use field::{from_mont, Fr, Rng, P_LIMBS};

/// bellperson's Proof<Bls12> as the crate's callers pass it: blstrs affine points (blst
/// layout: Montgomery Fp limbs, Fp2 = c0 then c1, infinity = all zero).
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct G1Affine {
    pub x: [u64; 6],
    pub y: [u64; 6],
}
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct G2Affine {
    pub x: [[u64; 6]; 2],
    pub y: [[u64; 6]; 2],
}
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

fn fp_canonical(m: &[u64; 6]) -> [u64; 6] {
    from_mont(m, &P_LIMBS)
}
fn be48(v: &[u64; 6]) -> [u8; 48] {
    let mut out = [0u8; 48];
    for i in 0..6 {
        out[8 * i..8 * i + 8].copy_from_slice(&v[5 - i].to_be_bytes());
    }
    out
}
/// y > (p − 1)/2, the ZCash encoding's sign of y.
fn larger_half(v: &[u64; 6]) -> bool {
    let mut half = P_LIMBS;
    for i in 0..6 {
        half[i] = (P_LIMBS[i] >> 1) | if i < 5 { P_LIMBS[i + 1] << 63 } else { 0 };
    }
    field::less_than(&half, v)
}

/// The 192-byte bellperson proof encoding (ZCash compressed: A ‖ B ‖ C, flags 0x80 compressed,
/// 0x40 infinity, 0x20 y sign; G2 x as c1 ‖ c0).
pub fn encode(p: &Proof) -> Vec<u8> {
    let mut out = Vec::with_capacity(192);
    let g1 = |q: &G1Affine| -> Vec<u8> {
        let (x, y) = (fp_canonical(&q.x), fp_canonical(&q.y));
        if x == [0; 6] && y == [0; 6] {
            let mut b = vec![0u8; 48];
            b[0] = 0xc0;
            return b;
        }
        let mut b = be48(&x).to_vec();
        b[0] |= 0x80 | if larger_half(&y) { 0x20 } else { 0 };
        b
    };
    let g2 = |q: &G2Affine| -> Vec<u8> {
        let x = [fp_canonical(&q.x[0]), fp_canonical(&q.x[1])];
        let y = [fp_canonical(&q.y[0]), fp_canonical(&q.y[1])];
        if x == [[0; 6]; 2] && y == [[0; 6]; 2] {
            let mut b = vec![0u8; 96];
            b[0] = 0xc0;
            return b;
        }
        let mut b = be48(&x[1]).to_vec();
        b.extend_from_slice(&be48(&x[0]));
        let sign = if y[1] != [0; 6] { larger_half(&y[1]) } else { larger_half(&y[0]) };
        b[0] |= 0x80 | if sign { 0x20 } else { 0 };
        b
    };
    out.extend(g1(&p.a));
    out.extend(g2(&p.b));
    out.extend(g1(&p.c));
    out
}

/// The programs the tests run. SNARKD_BIN and SNARKD_NOBLE_VERIFIER name them (ctest sets
/// both); otherwise the repository's build/apps/snarkd and tools/vectors are used. Missing
/// tools fail the test: these checks are the point of it.
pub struct Tools {
    pub snarkd: PathBuf,
    pub noble: PathBuf,
}

pub fn tools() -> Tools {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let pick = |var: &str, default: PathBuf| -> PathBuf {
        let p = std::env::var(var).map(PathBuf::from).unwrap_or(default);
        assert!(p.exists(), "{} not found ({}): build snarkd and set {}", p.display(), var, var);
        p
    };
    let t = Tools {
        snarkd: pick("SNARKD_BIN", repo.join("build/apps/snarkd")),
        noble: pick("SNARKD_NOBLE_VERIFIER", repo.join("tools/vectors/verify_bellperson.mjs")),
    };
    let modules = t.noble.parent().unwrap().join("node_modules/@noble/curves");
    assert!(modules.exists(), "{} missing: run (cd tools/vectors && npm install)", modules.display());
    t
}

/// Runs a command; (exit code, stdout + stderr).
pub fn run(cmd: &mut Command) -> (i32, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {:?}: {}", cmd, e));
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// A per-test scratch folder, removed when dropped.
pub struct TempDir(pub PathBuf);
impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("snarkd-supraseal-{}-{}", std::process::id(), label));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A circuit's keys made by `snarkd setup` (INSECURE dev setup) from its .r1cs.
pub struct Keys {
    pub params: PathBuf,
    pub vk: PathBuf,
}

pub fn setup(t: &Tools, dir: &Path, name: &str, cs: &ProvingAssignment, seed: u64) -> Keys {
    let r1cs = dir.join(format!("{}.r1cs", name));
    cs::write_r1cs(&r1cs, cs);
    let keys = Keys { params: dir.join(format!("{}.params", name)), vk: dir.join(format!("{}.vk", name)) };
    let (code, out) = run(Command::new(&t.snarkd)
        .arg("setup")
        .arg("--r1cs")
        .arg(&r1cs)
        .arg("--params")
        .arg(&keys.params)
        .arg("--vk")
        .arg(&keys.vk)
        .arg("--seed")
        .arg(seed.to_string()));
    assert_eq!(code, 0, "snarkd setup of {}: {}", name, out);
    keys
}

/// Both verifiers' verdicts on proofs[i] for publics[i] (inputs without ONE), as one batch file.
pub fn verify_both(t: &Tools, dir: &Path, vk: &Path, proofs: &[Proof], publics: &[Vec<Fr>]) -> (bool, bool) {
    let proof_file = dir.join("proofs.bin");
    let public_file = dir.join("public.json");
    let bytes: Vec<u8> = proofs.iter().flat_map(encode).collect();
    std::fs::write(&proof_file, bytes).unwrap();
    let arrays: Vec<String> = publics
        .iter()
        .map(|p| format!("[{}]", p.iter().map(|x| format!("\"{}\"", x.to_decimal())).collect::<Vec<_>>().join(",")))
        .collect();
    let json = if arrays.len() == 1 { arrays[0].clone() } else { format!("[{}]", arrays.join(",")) };
    std::fs::write(&public_file, json).unwrap();
    let verdict = |what: &str, (code, out): (i32, String)| -> bool {
        assert!(code == 0 || code == 1, "{}: bad input (exit {}): {}", what, code, out);
        assert_eq!(code == 0, out.trim_start().starts_with("valid"), "{}: {}", what, out);
        code == 0
    };
    let ours = verdict(
        "snarkd verify",
        run(Command::new(&t.snarkd)
            .arg("verify")
            .arg("--vk")
            .arg(vk)
            .arg("--proof")
            .arg(&proof_file)
            .arg("--public")
            .arg(&public_file)),
    );
    let noble = verdict(
        "verify_bellperson.mjs",
        run(Command::new("node").arg(&t.noble).arg(vk).arg(&proof_file).arg(&public_file)),
    );
    (ours, noble)
}

/// Both verifiers accept, and both reject the same batch with one public input changed (so a
/// verifier that accepts everything would be noticed).
pub fn assert_verified(t: &Tools, dir: &Path, vk: &Path, proofs: &[Proof], publics: &[Vec<Fr>]) {
    assert_eq!(verify_both(t, dir, vk, proofs, publics), (true, true), "{} proofs", proofs.len());
    let mut bad = publics.to_vec();
    let last = bad.len() - 1;
    bad[last][0] = bad[last][0].add(Fr::one());
    assert_eq!(verify_both(t, dir, vk, proofs, &bad), (false, false), "tampered input accepted");
}

// --- circuits, synthesised the way a bellperson circuit's synthesize() drives the system

/// x³ + x + 5 = y, y public.
pub fn cubic(x: u64) -> ProvingAssignment {
    let mut cs = ProvingAssignment::new();
    let xv = Fr::from_u64(x);
    let x2v = xv.mul(xv);
    let x3v = x2v.mul(xv);
    let y = cs.alloc_input(x3v.add(xv).add(Fr::from_u64(5)));
    let vx = cs.alloc(xv);
    let x2 = cs.alloc(x2v);
    let x3 = cs.alloc(x3v);
    cs.enforce(Lc::var(vx), Lc::var(vx), Lc::var(x2));
    cs.enforce(Lc::var(x2), Lc::var(vx), Lc::var(x3));
    cs.enforce(Lc::var(x3).plus(vx).term(ONE, Fr::from_u64(5)), Lc::var(ONE), Lc::var(y));
    cs.finish()
}

/// A mix of what Filecoin circuits are made of: a 64-bit value decomposed into boolean-checked
/// bits (mostly 0/1 witness values), a product chain of random values, an input multiplied in B,
/// an aux variable only in C, and `extra` public inputs of which every third occurs in B (the B
/// input density then has gaps, and with > 63 inputs spans two words).
pub fn mixed(rng: &mut Rng, chain: usize, extra: usize) -> ProvingAssignment {
    let mut cs = ProvingAssignment::new();
    let value = rng.next();
    let packed = cs.alloc_input(Fr::from_u64(value >> 1)); // < r
    let mut sum = Lc::new();
    let mut weight = Fr::one();
    for i in 0..63 {
        let bit = (value >> (i + 1)) & 1;
        let b = cs.alloc(Fr::from_u64(bit));
        cs.enforce(Lc::var(b), Lc::var(ONE).term(b, Fr::zero().sub(Fr::one())), Lc::new());
        sum = sum.term(b, weight);
        weight = weight.add(weight);
    }
    cs.enforce(sum, Lc::var(ONE), Lc::var(packed));
    let mut acc_v = Fr::random(rng);
    let mut acc = cs.alloc(acc_v);
    for _ in 0..chain {
        let f_v = Fr::random(rng);
        let f = cs.alloc(f_v);
        acc_v = acc_v.mul(f_v);
        let next = cs.alloc(acc_v);
        cs.enforce(Lc::var(acc), Lc::var(f), Lc::var(next));
        acc = next;
    }
    for k in 0..extra {
        let v = Fr::random(rng);
        let input = cs.alloc_input(v);
        if k % 3 == 0 {
            let w_v = Fr::random(rng);
            let w = cs.alloc(w_v);
            let out = cs.alloc(w_v.mul(v));
            cs.enforce(Lc::var(w), Lc::var(input), Lc::var(out));
        } else {
            let s = cs.alloc(v.add(cs.value(acc)));
            cs.enforce(Lc::var(input).plus(acc), Lc::var(ONE), Lc::var(s));
        }
    }
    let only_c = cs.alloc(cs.value(acc).add(Fr::one()));
    cs.enforce(Lc::var(acc).plus(ONE), Lc::var(ONE), Lc::var(only_c));
    cs.finish()
}

/// The public inputs a verifier takes: the input assignment without ONE.
pub fn publics(cs: &ProvingAssignment) -> Vec<Fr> {
    cs.input_assignment[1..].to_vec()
}
