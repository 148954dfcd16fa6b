//! snarkd's drop-in for the `supraseal-c2` crate: the same public Rust API (the Filecoin stack's
//! bellperson and cuzk call it), over the C ABI of libsnarkd_supraseal
//! (include/snarkd/supraseal_c2.h in the snarkd repository, which also states the contract:
//! layouts, error codes, threads). Types and semantics follow the upstream crate
//! (filecoin-project/curio, extern/supraseal-c2/src/lib.rs); the code is snarkd's own.
//!
//! Scalars `S` are BLS12-381 Fr values in blst's layout (Montgomery form, 4 × u64); proofs `PR`
//! are bellperson's `Proof<Bls12>` (blstrs affine points, 384 bytes); density words `D` are u64.
//! Like upstream, the convenience functions panic with the library's message when a call fails.

// The upstream API takes raw pointers (gpu_mtx, pending handles) in safe functions; the
// signatures are kept as they are, and the library checks every pointer against its live set.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::c_void;
use std::path::PathBuf;

/// The error the C functions return: a code (0 = success) and an optional message allocated by
/// the library, freed on drop. The same surface as sppark's `cuda::Error`, which the upstream
/// crate re-exports as `cuda::Error`.
pub mod cuda {
    use std::os::raw::c_char;
    use std::ptr::NonNull;

    #[repr(C)]
    pub struct Error {
        pub code: i32,
        str: Option<NonNull<c_char>>,
    }

    extern "C" {
        fn free(p: *mut std::ffi::c_void);
        fn strdup(s: *const c_char) -> *mut c_char;
    }

    impl Error {
        /// An error made on the Rust side (a path the C side cannot take, for instance).
        pub(crate) fn new(code: i32, message: &str) -> Error {
            let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
            Error { code, str: NonNull::new(unsafe { strdup(c.as_ptr()) }) }
        }

        fn message(&self) -> String {
            match self.str {
                Some(p) => unsafe { std::ffi::CStr::from_ptr(p.as_ptr()) }.to_string_lossy().into_owned(),
                None if self.code == 0 => String::from("success"),
                None => format!("snarkd_supraseal error {}", self.code),
            }
        }
    }

    impl Drop for Error {
        fn drop(&mut self) {
            if let Some(p) = self.str.take() {
                unsafe { free(p.as_ptr() as *mut std::ffi::c_void) };
            }
        }
    }

    impl From<&Error> for String {
        fn from(e: &Error) -> String {
            e.message()
        }
    }

    impl From<Error> for String {
        fn from(e: Error) -> String {
            e.message()
        }
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(&self.message())
        }
    }

    impl std::fmt::Debug for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "cuda::Error {{ code: {}, message: {:?} }}", self.code, self.message())
        }
    }
}

/// A reference-counted handle to a proving key (a bellperson `.params` file) held by the
/// library; cloning adds a reference, dropping removes one.
#[repr(C)]
#[derive(Debug)]
pub struct SRS {
    ptr: *const c_void,
}

extern "C" {
    fn create_SRS(ret: &mut SRS, srs_path: *const std::os::raw::c_char, cache: bool) -> cuda::Error;
    fn evict_SRS(by_ref: &SRS);
    fn drop_SRS(by_ref: &SRS);
    fn clone_SRS(by_ref: &SRS) -> SRS;
    fn generate_groth16_proofs_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        proofs: *mut c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
    ) -> cuda::Error;
    fn generate_groth16_proofs_start_c(
        provers: *const c_void,
        num_circuits: usize,
        r_s: *const c_void,
        s_s: *const c_void,
        srs: &SRS,
        gpu_mtx: *mut c_void,
        gpu_index: i32,
        pending_out: *mut *mut c_void,
    ) -> cuda::Error;
    fn finalize_groth16_proof_c(handle: *mut c_void, proofs: *mut c_void) -> cuda::Error;
    fn destroy_pending_proof(handle: *mut c_void);
    fn create_gpu_mutex() -> *mut c_void;
    fn destroy_gpu_mutex(mtx: *mut c_void);
}

impl Default for SRS {
    fn default() -> Self {
        SRS { ptr: std::ptr::null() }
    }
}

impl SRS {
    /// Reads the `.params` file at `srs_path`; `cache`: share one copy per path.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, cuda::Error> {
        use std::os::unix::ffi::OsStrExt;
        let path = match std::ffi::CString::new(srs_path.as_os_str().as_bytes()) {
            Ok(p) => p,
            Err(_) => return Err(cuda::Error::new(22, &format!("{}: the path holds a NUL byte", srs_path.display()))),
        };
        let mut srs = SRS::default();
        let err = unsafe { create_SRS(&mut srs, path.as_ptr(), cache) };
        if err.code != 0 {
            return Err(err);
        }
        Ok(srs)
    }

    /// Drops the cache's copy of this SRS's file (handles stay valid).
    pub fn evict(&self) {
        unsafe { evict_SRS(self) }
    }
}

impl Drop for SRS {
    fn drop(&mut self) {
        unsafe { drop_SRS(self) };
        self.ptr = std::ptr::null();
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        unsafe { clone_SRS(self) }
    }
}

// The library's SRS is immutable once read and reference-counted under a lock.
unsafe impl Send for SRS {}
unsafe impl Sync for SRS {}

/// What bellperson synthesised for one circuit (the C ABI's layout; see the header for the
/// meaning of each field).
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

fn panic_on(err: cuda::Error) {
    if err.code != 0 {
        panic!("{}", String::from(err));
    }
}

/// The per-circuit assignments of the split-argument API: circuit c's a/b/c and assignments,
/// the densities shared by all (the circuits are one circuit with different witnesses).
#[allow(clippy::too_many_arguments)]
fn assignments<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    densities: [(&[D], usize); 3],
    num_circuits: usize,
) -> Vec<Assignment<S>> {
    for (len, what) in [
        (ntt_a_scalars.len(), "ntt_a_scalars"),
        (ntt_b_scalars.len(), "ntt_b_scalars"),
        (ntt_c_scalars.len(), "ntt_c_scalars"),
        (input_assignments.len(), "input_assignments"),
        (aux_assignments.len(), "aux_assignments"),
    ] {
        assert_eq!(len, num_circuits, "{} holds {} circuits, num_circuits is {}", what, len, num_circuits);
    }
    assert!(std::mem::size_of::<D>() * 8 == 64, "only 64-bit elements in bit vectors are supported");
    let [(a_aux, a_aux_total), (b_inp, b_inp_total), (b_aux, b_aux_total)] = densities;
    assert!(a_aux.len() * 64 >= aux_assignments_size, "a_aux_density_bv is shorter than the aux assignment");
    assert!(b_aux.len() * 64 >= aux_assignments_size, "b_g1_aux_density_bv is shorter than the aux assignment");
    (0..num_circuits)
        .map(|c| Assignment {
            a_aux_density: a_aux.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total,
            b_inp_density: b_inp.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_inp_total,
            b_aux_density: b_aux.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_aux_total,
            a: ntt_a_scalars[c],
            b: ntt_b_scalars[c],
            c: ntt_c_scalars[c],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[c],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[c],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

/// Proves `num_circuits` circuits (one circuit, several witnesses) into `proofs`.
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) {
    assert_eq!(r_s.len(), num_circuits, "r_s");
    assert_eq!(s_s.len(), num_circuits, "s_s");
    assert_eq!(proofs.len(), num_circuits, "proofs");
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        [
            (a_aux_density_bv, a_aux_total_density),
            (b_g1_input_density_bv, b_g1_input_total_density),
            (b_g1_aux_density_bv, b_g1_aux_total_density),
        ],
        num_circuits,
    );
    panic_on(unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
            gpu_mtx,
            gpu_index,
        )
    });
}

/// A heap `std::mutex` to pass as `gpu_mtx` (accepted, never needed by snarkd). Free it with
/// `free_gpu_mutex`.
pub fn alloc_gpu_mutex() -> *mut c_void {
    unsafe { create_gpu_mutex() }
}

/// Frees a mutex from `alloc_gpu_mutex`.
///
/// # Safety
/// `ptr` must come from `alloc_gpu_mutex`, not be freed already, and not be locked.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    destroy_gpu_mutex(ptr)
}

/// The first half of the split form: does the proving work and returns a pending handle for
/// `finish_groth16_proof` (or `drop_pending_proof`). a/b/c may be freed once it returns; the
/// assignments and density vectors must live until the handle is finished or dropped.
#[allow(clippy::too_many_arguments)]
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    assert_eq!(r_s.len(), num_circuits, "r_s");
    assert_eq!(s_s.len(), num_circuits, "s_s");
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        [
            (a_aux_density_bv, a_aux_total_density),
            (b_g1_input_density_bv, b_g1_input_total_density),
            (b_g1_aux_density_bv, b_g1_aux_total_density),
        ],
        num_circuits,
    );
    let mut pending: *mut c_void = std::ptr::null_mut();
    panic_on(unsafe {
        generate_groth16_proofs_start_c(
            provers.as_ptr() as *const c_void,
            num_circuits,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            srs,
            gpu_mtx,
            gpu_index,
            &mut pending,
        )
    });
    pending
}

/// Writes the proofs of a pending handle and consumes it (also when it panics).
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    panic_on(unsafe { finalize_groth16_proof_c(handle, proofs.as_mut_ptr() as *mut c_void) });
}

/// Abandons a pending handle.
///
/// # Safety
/// `handle` must come from `start_groth16_proof` and not be finished or dropped already
/// (snarkd ignores unknown handles, but other implementations of this API may not).
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    destroy_pending_proof(handle)
}

/// Proves each assignment into `proofs` (no gpu_mtx, any device).
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
    let n = provers.len();
    assert_eq!(r_s.len(), n, "r_s");
    assert_eq!(s_s.len(), n, "s_s");
    assert_eq!(proofs.len(), n, "proofs");
    panic_on(unsafe {
        generate_groth16_proofs_c(
            provers.as_ptr() as *const c_void,
            n,
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            proofs.as_mut_ptr() as *mut c_void,
            srs,
            std::ptr::null_mut(),
            -1,
        )
    });
}
