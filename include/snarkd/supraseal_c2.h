/* snarkd's drop-in for the supraseal-c2 C ABI (libsnarkd_supraseal).
 *
 * The Filecoin stack (bellperson → the `supraseal-c2` crate, filecoin-project/curio
 * extern/supraseal-c2) declares these functions in its src/lib.rs and links them from a C++
 * library. libsnarkd_supraseal exports the same names with the same argument types, struct
 * layouts and error return, so the crate (or snarkd's own copy, rust/supraseal-c2) links against
 * it unchanged. The type NAMES below are ours (C linkage ignores them); sizes and offsets are
 * the crate's #[repr(C)] layouts on LP64 (tests/ffi/abi_layout.c asserts them).
 *
 * Field and curve values use blst's in-memory layouts: little-endian 64-bit limbs in Montgomery
 * form, fully reduced (Fr: 4 limbs, R = 2^256; Fp: 6 limbs, R = 2^384); Fp2 = c0 then c1; affine
 * points are {x, y} with the point at infinity as x = y = 0.
 *
 * Errors: every function that returns supraseal_error returns code 0 on success and otherwise
 * an errno value with a message (malloc'd, NUL-terminated; the caller releases it with free(),
 * as the crate's cuda::Error does on drop; NULL when code is 0):
 *   EINVAL   a bad argument (a null pointer, sizes that disagree with the SRS or with each other,
 *            popcounts that disagree with the density bits, an unreduced field element) or a
 *            malformed .params file; the message names the argument ("provers[3].b_aux_popcount
 *            is 7, b_aux_density has 8 bits set");
 *   ENOENT, EACCES, …  the .params file could not be opened (errno of open(2));
 *   EDOM     the assignment does not satisfy the circuit (a row with a·b ≠ c, or a proof that
 *            fails snarkd's verification before it is handed out);
 *   ENOMEM   out of memory;   ENOTRECOVERABLE  an internal error (a bug; please report).
 * No entry point lets an exception or a crash escape; void functions ignore what they cannot use
 * (a null or unknown handle) and say so on stderr.
 *
 * Threads: every function may be called from any number of threads at once. gpu_mtx is
 * accepted and never required: calls are not serialised on it (snarkd schedules the device
 * itself); it is a real std::mutex the caller may lock. gpu_index: −1 = any device, ≥ 0 a device
 * ordinal. This build proves on the CPU (groth16 layer); see docs/FILECOIN.md.
 */
#ifndef SNARKD_SUPRASEAL_C2_H
#define SNARKD_SUPRASEAL_C2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SNARKD_SUPRASEAL_ABI_VERSION 1 /* bumps when a layout or signature below changes */

typedef struct supraseal_fr { uint64_t l[4]; } supraseal_fr;  /* blst_fr / sppark fr_t */
typedef struct supraseal_fp { uint64_t l[6]; } supraseal_fp;  /* blst_fp */
typedef struct supraseal_fp2 { supraseal_fp c0, c1; } supraseal_fp2;
typedef struct supraseal_g1_affine { supraseal_fp x, y; } supraseal_g1_affine;   /* 96 bytes */
typedef struct supraseal_g2_affine { supraseal_fp2 x, y; } supraseal_g2_affine;  /* 192 bytes */

/* The crate's groth16 proof (bellperson's Proof<Bls12> with blstrs affine points): 384 bytes. */
typedef struct supraseal_groth16_proof {
  supraseal_g1_affine a;
  supraseal_g2_affine b;
  supraseal_g1_affine c;
} supraseal_groth16_proof;

/* The crate's Assignment<Scalar>: what bellperson synthesised for one circuit (136 bytes).
 * a, b, c: the constraint rows' evaluations, then one "input·0 = 0" row per input, abc_size
 * each (≤ the SRS's domain; zero-padded). inp_assignment_data: the inputs, ONE first. The
 * density vectors are bitvec words (bit i of word i / 64, LSB first; bits past bit_len are
 * ignored): aux variables in A (a_aux_bit_len = aux_assignment_size), inputs in B
 * (b_inp_bit_len = inp_assignment_size), aux variables in B. */
typedef struct supraseal_assignment {
  const uint64_t* a_aux_density;
  size_t a_aux_bit_len;
  size_t a_aux_popcount;

  const uint64_t* b_inp_density;
  size_t b_inp_bit_len;
  size_t b_inp_popcount;

  const uint64_t* b_aux_density;
  size_t b_aux_bit_len;
  size_t b_aux_popcount;

  const supraseal_fr* a;
  const supraseal_fr* b;
  const supraseal_fr* c;
  size_t abc_size;

  const supraseal_fr* inp_assignment_data;
  size_t inp_assignment_size;

  const supraseal_fr* aux_assignment_data;
  size_t aux_assignment_size;
} supraseal_assignment;

/* An SRS handle (the crate's `SRS { ptr }`): reference-counted; null ptr = none. */
typedef struct supraseal_srs { const void* ptr; } supraseal_srs;

/* sppark's RustError / the crate's cuda::Error, returned by value. */
typedef struct supraseal_error {
  int code;
  char* message;
} supraseal_error;

/* Reads a bellperson .params file (Filecoin's own). cache = true: one shared copy per path (the
 * 4 most recently used are kept); false: a private copy. *ret must be a fresh handle. A named
 * pipe is read as it streams (a snarkd extension; waits for its writer) and never cached. */
supraseal_error create_SRS(supraseal_srs* ret, const char* srs_path, bool cache);
/* Drops the cache's copy for the SRS's path (and the device copies; handles stay valid). */
void evict_SRS(const supraseal_srs* by_ref);
/* Releases one reference (the last frees the SRS). A null ptr is a no-op. */
void drop_SRS(const supraseal_srs* by_ref);
/* A new reference to the same SRS ({NULL} for a null or unknown handle). */
supraseal_srs clone_SRS(const supraseal_srs* by_ref);

/* One proof per assignment into proofs[0 .. num_circuits). r_s, s_s: the blinding scalars. */
supraseal_error generate_groth16_proofs_c(const supraseal_assignment provers[], size_t num_circuits,
                                          const supraseal_fr r_s[], const supraseal_fr s_s[],
                                          supraseal_groth16_proof proofs[], const supraseal_srs* srs,
                                          void* gpu_mtx, int gpu_index);

/* The split form: start does the heavy work and returns a pending handle in *pending_out; a, b,
 * c may be freed when it returns, the assignments and density vectors must stay alive until
 * finalize or destroy. finalize writes the proofs and consumes the handle (also on error);
 * destroy abandons it. */
supraseal_error generate_groth16_proofs_start_c(const supraseal_assignment provers[], size_t num_circuits,
                                                const supraseal_fr r_s[], const supraseal_fr s_s[],
                                                const supraseal_srs* srs, void* gpu_mtx, int gpu_index,
                                                void** pending_out);
supraseal_error finalize_groth16_proof_c(void* handle, supraseal_groth16_proof proofs[]);
void destroy_pending_proof(void* handle);

/* A heap std::mutex for gpu_mtx (never required: see above). */
void* create_gpu_mutex(void);
void destroy_gpu_mutex(void* mtx);

#ifdef __cplusplus
}
#endif

#endif /* SNARKD_SUPRASEAL_C2_H */
