/* A C program using snarkd's installed C API: usage: prove KEY.params CIRCUIT.r1cs W.wtns OUTDIR
 * Proves a job of two partitions of the witness on the CPU, checks the result through the API
 * (state, self-check, snarkd_verify), writes OUTDIR/proofs.bin and OUTDIR/public.json for an
 * independent verifier, and checks a few error answers. Exit 0 when all is well. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <snarkd/snarkd.h>

static int failures = 0;

static void check(int ok, const char* what) {
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, ok ? "" : ": ", ok ? "" : snarkd_last_error());
  if (!ok) ++failures;
}

/* The canonical little-endian value in decimal (public.json). */
static void to_decimal(const uint8_t le[SNARKD_FR_BYTES], char* out) {
  uint8_t v[SNARKD_FR_BYTES];
  char digits[80];
  int n = 0, zero = 0;
  memcpy(v, le, sizeof v);
  while (!zero) {
    unsigned rem = 0;
    zero = 1;
    for (int i = SNARKD_FR_BYTES - 1; i >= 0; --i) {
      const unsigned cur = (rem << 8) | v[i];
      v[i] = (uint8_t)(cur / 10);
      rem = cur % 10;
      if (v[i]) zero = 0;
    }
    digits[n++] = (char)('0' + rem);
  }
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = 0;
}

static int write_outputs(const snarkd_job_result* r, const char* dir) {
  char path[4096];
  const uint32_t n = snarkd_job_result_num_proofs(r);
  const uint64_t k = snarkd_job_result_num_public_inputs(r);
  snprintf(path, sizeof path, "%s/proofs.bin", dir);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  for (uint32_t p = 0; p < n; ++p) {
    uint8_t proof[SNARKD_PROOF_BYTES];
    if (snarkd_job_result_proof(r, p, proof) != SNARKD_OK) return 0;
    fwrite(proof, 1, sizeof proof, f);
  }
  fclose(f);
  snprintf(path, sizeof path, "%s/public.json", dir);
  f = fopen(path, "w");
  if (!f) return 0;
  fputc('[', f);
  for (uint32_t p = 0; p < n; ++p) {
    fprintf(f, "%s[", p ? "," : "");
    for (uint64_t i = 0; i < k; ++i) {
      uint8_t x[SNARKD_FR_BYTES];
      char dec[96];
      if (snarkd_job_result_public_input(r, p, i, SNARKD_FR_CANONICAL_LE, x) != SNARKD_OK) return 0;
      to_decimal(x, dec);
      fprintf(f, "%s\"%s\"", i ? "," : "", dec);
    }
    fputc(']', f);
  }
  fputs("]\n", f);
  fclose(f);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s KEY.params CIRCUIT.r1cs W.wtns OUTDIR\n", argv[0]);
    return 2;
  }
  check(snarkd_api_version() >> 16 == SNARKD_API_VERSION_MAJOR, "the library's API major version");
  printf("snarkd %s, API %u.%u\n", snarkd_version_string(), snarkd_api_version() >> 16, snarkd_api_version() & 0xffff);

  snarkd_engine_options o;
  snarkd_engine_options_init(&o);
  o.devices = "cpu";
  snarkd_engine* e = NULL;
  check(snarkd_engine_create(&o, &e) == SNARKD_OK, "engine_create(cpu)");
  if (!e) return 1;

  snarkd_circuit_files files;
  snarkd_circuit_files_init(&files);
  files.params_path = argv[1];
  files.circuit_path = argv[2];
  check(snarkd_register_circuit(e, "fixture", &files) == SNARKD_OK, "register_circuit");
  snarkd_circuit_info info;
  snarkd_circuit_info_init(&info);
  check(snarkd_get_circuit_info(e, "fixture", &info) == SNARKD_OK, "get_circuit_info");

  uint8_t* w = NULL;
  uint64_t count = 0;
  check(snarkd_read_wtns(argv[3], &w, &count) == SNARKD_OK && count == info.num_vars, "read_wtns (one value per variable)");
  const void* parts[2] = {w, w};
  snarkd_job job;
  snarkd_job_init(&job);
  job.circuit_id = "fixture";
  job.fr_format = SNARKD_FR_CANONICAL_LE;
  job.num_partitions = 2;
  job.witnesses = parts;
  job.witness_len = count;
  uint64_t id = 0;
  check(snarkd_submit(e, &job, &id) == SNARKD_OK, "submit (2 partitions)");
  snarkd_free(w);

  snarkd_job_result* r = NULL;
  check(snarkd_await(e, id, -1, &r) == SNARKD_OK, "await");
  if (r) {
    check(snarkd_job_result_state(r) == SNARKD_JOB_DONE, "job done");
    check(snarkd_job_result_verified(r) == 1, "self-checked by the engine");
    check(snarkd_job_result_num_proofs(r) == 2, "two proofs");
    uint8_t proofs[2 * SNARKD_PROOF_BYTES], inputs[2 * 8 * SNARKD_FR_BYTES];
    const uint64_t k = snarkd_job_result_num_public_inputs(r);
    int ok = k <= 8;
    for (uint32_t p = 0; ok && p < 2; ++p) {
      ok = snarkd_job_result_proof(r, p, proofs + p * SNARKD_PROOF_BYTES) == SNARKD_OK;
      for (uint64_t i = 0; ok && i < k; ++i)
        ok = snarkd_job_result_public_input(r, p, i, SNARKD_FR_MONTGOMERY, inputs + (p * k + i) * SNARKD_FR_BYTES) == SNARKD_OK;
    }
    int32_t valid = 0;
    check(ok && snarkd_verify(argv[1], proofs, 2, inputs, k, SNARKD_FR_MONTGOMERY, &valid) == SNARKD_OK && valid == 1,
          "snarkd_verify accepts both proofs");
    check(write_outputs(r, argv[4]), "wrote proofs.bin and public.json");
    snarkd_job_result_free(r);
  }

  snarkd_abc_job abc;
  snarkd_abc_job_init(&abc);
  check(snarkd_submit_abc(e, &abc, &id) == SNARKD_ERR_INVALID_ARGUMENT && strstr(snarkd_last_error(), "circuit_id"),
        "submit_abc without a circuit id: INVALID_ARGUMENT naming it");
  r = NULL;
  check(snarkd_await(e, 999999, 0, &r) == SNARKD_ERR_NOT_FOUND && r == NULL, "await of an unknown job: NOT_FOUND");
  files.params_path = "/nonexistent.params";
  check(snarkd_register_circuit(e, "x", &files) == SNARKD_ERR_FILE && strstr(snarkd_last_error(), "/nonexistent.params"),
        "a missing key file: SNARKD_ERR_FILE naming it");
  snarkd_stats s;
  snarkd_stats_init(&s);
  check(snarkd_get_stats(e, &s) == SNARKD_OK && s.completed == 1 && s.invalid_proofs == 0, "stats: one job completed");
  snarkd_engine_destroy(e);
  printf("%s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
