//! The crate's public API end to end: circuits synthesised the way bellperson does, keys from
//! `snarkd setup`, proofs through every entry point (also 8 threads at once on one gpu_mtx),
//! each checked by `snarkd verify` and by the independent @noble/curves verifier; bad arguments
//! give the library's message and leave the process working.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use common::cs::ProvingAssignment;
use common::field::{self, Fr};
use common::{assert_verified, cubic, mixed, publics, setup, tools, Proof, TempDir};
use supraseal_c2::{Assignment, SRS};

fn assignment(cs: &ProvingAssignment) -> Assignment<Fr> {
    Assignment {
        a_aux_density: cs.a_aux_density.words.as_ptr() as *const usize,
        a_aux_bit_len: cs.a_aux_density.len,
        a_aux_popcount: cs.a_aux_density.total,
        b_inp_density: cs.b_input_density.words.as_ptr() as *const usize,
        b_inp_bit_len: cs.b_input_density.len,
        b_inp_popcount: cs.b_input_density.total,
        b_aux_density: cs.b_aux_density.words.as_ptr() as *const usize,
        b_aux_bit_len: cs.b_aux_density.len,
        b_aux_popcount: cs.b_aux_density.total,
        a: cs.a.as_ptr(),
        b: cs.b.as_ptr(),
        c: cs.c.as_ptr(),
        abc_size: cs.a.len(),
        inp_assignment_data: cs.input_assignment.as_ptr(),
        inp_assignment_size: cs.input_assignment.len(),
        aux_assignment_data: cs.aux_assignment.as_ptr(),
        aux_assignment_size: cs.aux_assignment.len(),
    }
}

/// generate_groth16_proof over circuits that share one structure (bellperson's batch call).
fn prove_batch(
    circuits: &[&ProvingAssignment],
    r: &[Fr],
    s: &[Fr],
    srs: &SRS,
    mtx: *mut std::ffi::c_void,
    gpu: i32,
) -> Vec<Proof> {
    let c0 = circuits[0];
    let ptrs = |f: &dyn Fn(&ProvingAssignment) -> *const Fr| circuits.iter().map(|c| f(c)).collect::<Vec<_>>();
    let mut proofs = vec![Proof::default(); circuits.len()];
    supraseal_c2::generate_groth16_proof(
        &ptrs(&|c| c.a.as_ptr()),
        &ptrs(&|c| c.b.as_ptr()),
        &ptrs(&|c| c.c.as_ptr()),
        c0.a.len(),
        &ptrs(&|c| c.input_assignment.as_ptr()),
        &ptrs(&|c| c.aux_assignment.as_ptr()),
        c0.input_assignment.len(),
        c0.aux_assignment.len(),
        &c0.a_aux_density.words,
        &c0.b_input_density.words,
        &c0.b_aux_density.words,
        c0.a_aux_density.total,
        c0.b_input_density.total,
        c0.b_aux_density.total,
        circuits.len(),
        r,
        s,
        &mut proofs,
        srs,
        mtx,
        gpu,
    );
    proofs
}

/// start_groth16_proof + finish_groth16_proof for one circuit; a/b/c are dropped in between,
/// as cuzk does once start returns.
fn prove_split(cs: ProvingAssignment, r: Fr, s: Fr, srs: &SRS, mtx: *mut std::ffi::c_void) -> Proof {
    let mut cs = cs;
    let handle = supraseal_c2::start_groth16_proof(
        &[cs.a.as_ptr()],
        &[cs.b.as_ptr()],
        &[cs.c.as_ptr()],
        cs.a.len(),
        &[cs.input_assignment.as_ptr()],
        &[cs.aux_assignment.as_ptr()],
        cs.input_assignment.len(),
        cs.aux_assignment.len(),
        &cs.a_aux_density.words,
        &cs.b_input_density.words,
        &cs.b_aux_density.words,
        cs.a_aux_density.total,
        cs.b_input_density.total,
        cs.b_aux_density.total,
        1,
        &[r],
        &[s],
        srs,
        mtx,
        0,
    );
    assert!(!handle.is_null());
    cs.a = Vec::new();
    cs.b = Vec::new();
    cs.c = Vec::new();
    let mut proof = [Proof::default()];
    supraseal_c2::finish_groth16_proof(handle, &mut proof);
    proof[0]
}

#[test]
fn every_entry_point_gives_the_same_valid_proofs() {
    let t = tools();
    let dir = TempDir::new("entry");
    let mut rng = field::rng("entry_points");
    let circuits: Vec<(&str, Vec<ProvingAssignment>)> = vec![
        ("cubic", vec![cubic(3), cubic(rng.next() % 1000)]),
        ("mixed", {
            let mut r1 = field::rng("mixed_a");
            let mut r2 = field::rng("mixed_b");
            vec![mixed(&mut r1, 40, 5), mixed(&mut r2, 40, 5)]
        }),
        ("wide", {
            let mut r1 = field::rng("wide_a");
            let mut r2 = field::rng("wide_b");
            vec![mixed(&mut r1, 70, 70), mixed(&mut r2, 70, 70)]
        }),
    ];
    for (name, witnesses) in &circuits {
        assert!(witnesses.iter().all(|w| w.satisfied()), "{} is not satisfied", name);
        let keys = setup(&t, &dir.0, name, &witnesses[0], rng.next() >> 1);
        let srs = SRS::try_new(keys.params.clone(), false).expect("SRS::try_new");
        let r: Vec<Fr> = (0..2).map(|_| Fr::random(&mut rng)).collect();
        let s: Vec<Fr> = (0..2).map(|_| Fr::random(&mut rng)).collect();
        let batch = prove_batch(&[&witnesses[0], &witnesses[1]], &r, &s, &srs, std::ptr::null_mut(), -1);
        let mut again = vec![Proof::default(); 2];
        let provers: Vec<Assignment<Fr>> = witnesses.iter().map(assignment).collect();
        supraseal_c2::generate_groth16_proofs(&provers, &r, &s, &mut again, &srs);
        assert_eq!(batch, again, "{}: generate_groth16_proofs differs", name);
        let split = prove_split(witnesses[1].clone(), r[1], s[1], &srs, std::ptr::null_mut());
        assert_eq!(split, batch[1], "{}: start/finish differs", name);
        let pubs: Vec<Vec<Fr>> = witnesses.iter().map(publics).collect();
        assert_verified(&t, &dir.0, &keys.vk, &batch, &pubs);
    }
}

#[test]
fn eight_threads_share_one_gpu_mutex() {
    let t = tools();
    let dir = TempDir::new("threads");
    let mut rng = field::rng("threads");
    let mut base = field::rng("threads_circuit");
    let template = mixed(&mut base, 60, 8);
    let keys = setup(&t, &dir.0, "threads", &template, rng.next() >> 1);
    let srs = SRS::try_new(keys.params.clone(), true).expect("SRS::try_new");
    let mtx = supraseal_c2::alloc_gpu_mutex();
    assert!(!mtx.is_null());
    struct SendPtr(*mut std::ffi::c_void);
    unsafe impl Sync for SendPtr {}
    let shared = SendPtr(mtx);
    let jobs: Vec<(ProvingAssignment, Fr, Fr)> = (0..8)
        .map(|k| {
            let mut w = field::rng(&format!("threads_witness_{}", k));
            (mixed(&mut w, 60, 8), Fr::random(&mut rng), Fr::random(&mut rng))
        })
        .collect();
    // Same structure for every witness: one key serves them all.
    for (w, _, _) in &jobs {
        assert_eq!(w.a_aux_density.words, template.a_aux_density.words);
    }
    let proofs: Vec<Proof> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .enumerate()
            .map(|(k, (w, r, s))| {
                let (srs, shared) = (&srs, &shared);
                scope.spawn(move || {
                    if k % 2 == 0 {
                        prove_batch(&[w], &[*r], &[*s], srs, shared.0, -1)[0]
                    } else {
                        prove_split(w.clone(), *r, *s, srs, shared.0)
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a proving thread panicked")).collect()
    });
    unsafe { supraseal_c2::free_gpu_mutex(mtx) };
    let pubs: Vec<Vec<Fr>> = jobs.iter().map(|(w, _, _)| publics(w)).collect();
    assert_verified(&t, &dir.0, &keys.vk, &proofs, &pubs);
}

/// The panic message of f, which must panic.
fn panic_message<F: FnOnce()>(f: F) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("the call succeeded; it should have failed");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn bad_arguments_fail_with_the_library_message_and_the_process_goes_on() {
    let t = tools();
    let dir = TempDir::new("bad");
    let mut rng = field::rng("bad");
    let good = cubic(5);
    let keys = setup(&t, &dir.0, "bad", &good, rng.next() >> 1);

    let missing = dir.0.join("missing.params");
    let err = SRS::try_new(missing.clone(), false).expect_err("a missing file");
    assert_ne!(err.code, 0);
    assert!(format!("{:?}", err).contains("missing.params"), "{:?}", err);
    assert!(String::from(err).contains("cannot open"));
    std::fs::write(dir.0.join("junk.params"), b"junk").unwrap();
    let err = SRS::try_new(dir.0.join("junk.params"), true).expect_err("a junk file");
    assert_eq!(err.code, 22, "{}", err);
    assert!(err.to_string().contains("junk.params"), "{}", err);
    let err = SRS::try_new(PathBuf::from("with\0nul"), false).expect_err("a NUL in the path");
    assert_eq!(err.code, 22);

    let srs = SRS::try_new(keys.params.clone(), false).unwrap();
    let one = [Fr::one()];
    let run = |cs: &ProvingAssignment, srs: &SRS| {
        let mut p = [Proof::default()];
        supraseal_c2::generate_groth16_proofs(&[assignment(cs)], &one, &one, &mut p, srs);
    };
    let mut bad = good.clone();
    bad.a_aux_density.total += 1;
    let msg = panic_message(|| run(&bad, &srs));
    assert!(msg.contains("provers[0].a_aux_popcount is"), "{}", msg);
    let mut bad = good.clone();
    bad.c[1] = bad.c[1].add(Fr::one());
    let msg = panic_message(|| run(&bad, &srs));
    assert!(msg.contains("row 1 of a, b, c"), "{}", msg);
    let mut bad = good.clone();
    bad.aux_assignment[0] = Fr([u64::MAX; 4]);
    let msg = panic_message(|| run(&bad, &srs));
    assert!(msg.contains("aux_assignment_data[0] is not a reduced"), "{}", msg);
    let mut other = good.clone(); // one input more than the key has
    other.input_assignment.push(Fr::one());
    other.b_input_density.len += 1;
    let msg = panic_message(|| run(&other, &srs));
    assert!(msg.contains("inp_assignment_size is 3"), "{}", msg);
    let msg = panic_message(|| run(&good, &SRS::default()));
    assert!(msg.contains("srs holds no SRS"), "{}", msg);
    let msg = panic_message(|| {
        let mut p = [Proof::default()];
        supraseal_c2::finish_groth16_proof(std::ptr::null_mut(), &mut p)
    });
    assert!(msg.contains("handle is a null pointer"), "{}", msg);
    // A started proof abandoned, then the library still proves.
    let handle = supraseal_c2::start_groth16_proof(
        &[good.a.as_ptr()],
        &[good.b.as_ptr()],
        &[good.c.as_ptr()],
        good.a.len(),
        &[good.input_assignment.as_ptr()],
        &[good.aux_assignment.as_ptr()],
        good.input_assignment.len(),
        good.aux_assignment.len(),
        &good.a_aux_density.words,
        &good.b_input_density.words,
        &good.b_aux_density.words,
        good.a_aux_density.total,
        good.b_input_density.total,
        good.b_aux_density.total,
        1,
        &one,
        &one,
        &srs,
        std::ptr::null_mut(),
        -1,
    );
    unsafe { supraseal_c2::drop_pending_proof(handle) };
    let proof = prove_batch(&[&good], &one, &one, &srs, std::ptr::null_mut(), -1);
    assert_verified(&t, &dir.0, &keys.vk, &proof, &[publics(&good)]);
}

#[test]
fn srs_clones_outlive_the_original_and_eviction() {
    let t = tools();
    let dir = TempDir::new("srs");
    let mut rng = field::rng("srs");
    let cs = cubic(11);
    let keys = setup(&t, &dir.0, "srs", &cs, rng.next() >> 1);
    let original = SRS::try_new(keys.params.clone(), true).unwrap();
    let clone = original.clone();
    original.evict();
    drop(original);
    let r = [Fr::random(&mut rng)];
    let s = [Fr::random(&mut rng)];
    let proof = prove_batch(&[&cs], &r, &s, &clone, std::ptr::null_mut(), -1);
    let sent = std::thread::spawn(move || {
        let cs = cubic(11);
        prove_batch(&[&cs], &r, &s, &clone, std::ptr::null_mut(), -1)
    })
    .join()
    .unwrap();
    assert_eq!(proof, sent, "same r, s and SRS (moved to another thread) give the same proof");
    assert_verified(&t, &dir.0, &keys.vk, &proof, &[publics(&cs)]);
    drop(SRS::default());
}
