/* The struct layouts the supraseal-c2 crate's #[repr(C)] declarations imply (src/lib.rs of
 * filecoin-project/curio extern/supraseal-c2, sppark's cuda::Error, blst's point types) against
 * include/snarkd/supraseal_c2.h, on LP64. Compiled as C11 with -pedantic -Werror, so it also
 * checks that the header is plain C. At run time it makes one call through the library it was
 * linked with (shared or the static bundle): a missing .params file must give ENOENT and a
 * message naming the path. */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snarkd/supraseal_c2.h"

#define FIELD_AT(type, field, offset) _Static_assert(offsetof(type, field) == (offset), #type "." #field " at " #offset)

/* Assignment<Scalar>: nine density words then a, b, c, abc_size, then the two assignments;
 * every field a pointer or a usize: 17 × 8 bytes. */
_Static_assert(sizeof(supraseal_assignment) == 136, "Assignment is 136 bytes");
_Static_assert(alignof(supraseal_assignment) == 8, "Assignment is 8-aligned");
FIELD_AT(supraseal_assignment, a_aux_density, 0);
FIELD_AT(supraseal_assignment, a_aux_bit_len, 8);
FIELD_AT(supraseal_assignment, a_aux_popcount, 16);
FIELD_AT(supraseal_assignment, b_inp_density, 24);
FIELD_AT(supraseal_assignment, b_inp_bit_len, 32);
FIELD_AT(supraseal_assignment, b_inp_popcount, 40);
FIELD_AT(supraseal_assignment, b_aux_density, 48);
FIELD_AT(supraseal_assignment, b_aux_bit_len, 56);
FIELD_AT(supraseal_assignment, b_aux_popcount, 64);
FIELD_AT(supraseal_assignment, a, 72);
FIELD_AT(supraseal_assignment, b, 80);
FIELD_AT(supraseal_assignment, c, 88);
FIELD_AT(supraseal_assignment, abc_size, 96);
FIELD_AT(supraseal_assignment, inp_assignment_data, 104);
FIELD_AT(supraseal_assignment, inp_assignment_size, 112);
FIELD_AT(supraseal_assignment, aux_assignment_data, 120);
FIELD_AT(supraseal_assignment, aux_assignment_size, 128);

/* groth16_proof { a: G1Affine, b: G2Affine, c: G1Affine } with blst_p1_affine = {fp x, y} (96)
 * and blst_p2_affine = {fp2 x, y} (192), fp2 = {c0, c1}. */
_Static_assert(sizeof(supraseal_fr) == 32, "Fr is 4 limbs");
_Static_assert(sizeof(supraseal_fp) == 48, "Fp is 6 limbs");
_Static_assert(sizeof(supraseal_fp2) == 96, "Fp2 is two Fp");
FIELD_AT(supraseal_fp2, c1, 48);
_Static_assert(sizeof(supraseal_g1_affine) == 96, "G1 affine is 96 bytes");
_Static_assert(sizeof(supraseal_g2_affine) == 192, "G2 affine is 192 bytes");
FIELD_AT(supraseal_g1_affine, y, 48);
FIELD_AT(supraseal_g2_affine, y, 96);
_Static_assert(sizeof(supraseal_groth16_proof) == 384, "proof is 384 bytes");
FIELD_AT(supraseal_groth16_proof, a, 0);
FIELD_AT(supraseal_groth16_proof, b, 96);
FIELD_AT(supraseal_groth16_proof, c, 288);

/* SRS { ptr: *const c_void } and cuda::Error { code: i32, str: Option<NonNull<i8>> }. */
_Static_assert(sizeof(supraseal_srs) == 8, "SRS is one pointer");
_Static_assert(sizeof(supraseal_error) == 16, "Error is i32 + pointer");
FIELD_AT(supraseal_error, code, 0);
FIELD_AT(supraseal_error, message, 8);

int main(void) {
  supraseal_srs srs = {NULL};
  const char* path = "/nonexistent/snarkd_abi_layout.params";
  supraseal_error e = create_SRS(&srs, path, false);
  int ok = e.code == ENOENT && e.message != NULL && strstr(e.message, path) != NULL && srs.ptr == NULL;
  printf("create_SRS(missing file): code %d, message \"%s\"\n", e.code, e.message ? e.message : "(null)");
  free(e.message);
  void* mtx = create_gpu_mutex();
  ok = ok && mtx != NULL;
  destroy_gpu_mutex(mtx);
  drop_SRS(&srs);
  printf("%s\n", ok ? "layouts and a call through the library: ok" : "FAIL");
  return ok ? 0 : 1;
}
