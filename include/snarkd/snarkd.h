/* snarkd's C API (libsnarkd): a Groth16 proving engine for BLS12-381 and BN254 behind opaque
 * handles.
 *
 *   snarkd_engine_create     devices ("cpu", "sim", "cuda:0", "cuda:all", …) and workers
 *   snarkd_register_circuit  a proving key (+ its circuit) under an id, resident on every device
 *   snarkd_submit            a job of P partitions (one full witness each) → a job id
 *   snarkd_await             the job's result (proofs, public inputs), with a timeout
 *   snarkd_cancel, snarkd_get_stats, snarkd_verify, snarkd_read_wtns
 *
 * Conventions
 *   - Every function returning snarkd_status returns SNARKD_OK (0) or an error code; the
 *     message of the last failed call on the calling thread is snarkd_last_error() (names the
 *     argument, file or partition). No function lets a C++ exception or a crash escape.
 *   - Option and output structs start with uint32_t struct_size = sizeof(the struct) as the
 *     caller compiled it (set by the *_init functions). A newer library reads only the fields
 *     an older caller knows and gives the rest their defaults; fields are only ever appended.
 *   - SNARKD_API_VERSION: MAJOR changes break source or binary compatibility, MINOR only adds.
 *     A program compiled against MAJOR m must check snarkd_api_version() >> 16 == m.
 *   - Curves: a circuit's curve comes from its key file (a .params key is BLS12-381's; a .zkey
 *     says by its q: bls12381 or bn128). Witnesses, public inputs and proofs of a circuit are
 *     over its curve (snarkd_circuit_info.curve, snarkd_job_result_curve).
 *   - Field elements (witness values, public inputs) are 32 bytes each, in the format the call
 *     names: SNARKD_FR_MONTGOMERY (four little-endian u64 limbs of x·2^256 mod r, the in-memory
 *     form of blst and of bellperson's Fr, and of arkworks' BN254 Fr) or SNARKD_FR_CANONICAL_LE
 *     (the integer x < r, 32 little-endian bytes, as in circom .wtns files), r being the
 *     circuit's curve's. Values ≥ r are refused.
 *   - Proofs: BLS12-381's are SNARKD_PROOF_BYTES (192): A (G1) ‖ B (G2) ‖ C (G1), ZCash compressed
 *     encoding, as bellperson and Filecoin store them. BN254's are SNARKD_BN254_PROOF_BYTES (256):
 *     A ‖ B ‖ C uncompressed in snarkjs's LEM layout (each coordinate 32 little-endian bytes of
 *     its Montgomery form; G2 as x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1).
 *   - Thread safety: every function may be called from any thread; one engine may be used by
 *     many threads at once. Results (snarkd_job_result) are owned by the caller.
 * C11; no other header needed. Link with pkg-config `snarkd` or CMake `find_package(snarkd)`
 * (targets snarkd::snarkd, snarkd::snarkd_static).
 */
#ifndef SNARKD_SNARKD_H
#define SNARKD_SNARKD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SNARKD_API_VERSION_MAJOR 0
#define SNARKD_API_VERSION_MINOR 2
#define SNARKD_API_VERSION ((SNARKD_API_VERSION_MAJOR << 16) | SNARKD_API_VERSION_MINOR)

#if defined(__GNUC__) || defined(__clang__)
#define SNARKD_API __attribute__((visibility("default")))
#else
#define SNARKD_API
#endif

#define SNARKD_PROOF_BYTES 192       /* a BLS12-381 proof */
#define SNARKD_BN254_PROOF_BYTES 256 /* a BN254 proof (since API 0.2) */
#define SNARKD_MAX_PROOF_BYTES 256
#define SNARKD_FR_BYTES 32

/* Since API 0.2. */
typedef enum snarkd_curve { SNARKD_CURVE_BLS12_381 = 0, SNARKD_CURVE_BN254 = 1 } snarkd_curve;

typedef enum snarkd_status {
  SNARKD_OK = 0,
  SNARKD_ERR_INVALID_ARGUMENT = 1, /* a null pointer, a size or option out of range */
  SNARKD_ERR_NOT_FOUND = 2,        /* an unknown circuit id or job id */
  SNARKD_ERR_FILE = 3,             /* a file cannot be read or is malformed */
  SNARKD_ERR_BUSY = 4,             /* the host memory budget stayed full for the wait allowed */
  SNARKD_ERR_TIMEOUT = 5,          /* snarkd_await: the job has not finished yet */
  SNARKD_ERR_UNSUPPORTED = 6,      /* not available in this version or build */
  SNARKD_ERR_NO_MEMORY = 7,
  SNARKD_ERR_INTERNAL = 8          /* a bug: please report the message */
} snarkd_status;

typedef enum snarkd_fr_format { SNARKD_FR_MONTGOMERY = 0, SNARKD_FR_CANONICAL_LE = 1 } snarkd_fr_format;

typedef enum snarkd_priority {
  SNARKD_PRIORITY_LOW = 0,
  SNARKD_PRIORITY_NORMAL = 1,
  SNARKD_PRIORITY_HIGH = 2,
  SNARKD_PRIORITY_CRITICAL = 3
} snarkd_priority;

typedef enum snarkd_job_state {
  SNARKD_JOB_QUEUED = 0,
  SNARKD_JOB_RUNNING = 1,
  SNARKD_JOB_DONE = 2,      /* every partition proven (and verified, with self_check) */
  SNARKD_JOB_FAILED = 3,    /* snarkd_job_result_error says which partition and why */
  SNARKD_JOB_CANCELLED = 4
} snarkd_job_state;

/* The version of this API the library implements (SNARKD_API_VERSION of its build). */
SNARKD_API uint32_t snarkd_api_version(void);
/* The library's release, "MAJOR.MINOR.PATCH". */
SNARKD_API const char* snarkd_version_string(void);
/* The message of this thread's last failed call ("" after a success); valid until the
 * thread's next call into the library. */
SNARKD_API const char* snarkd_last_error(void);
/* "SNARKD_OK", "SNARKD_ERR_FILE", … ("unknown status" otherwise). */
SNARKD_API const char* snarkd_status_name(snarkd_status status);
/* Frees what the library allocated for the caller (snarkd_read_wtns). NULL is a no-op. */
SNARKD_API void snarkd_free(void* p);

/* ---- engines */

typedef struct snarkd_engine snarkd_engine;

typedef struct snarkd_engine_options {
  uint32_t struct_size;
  const char* devices;            /* "cpu" (default), "sim", "sim:K", "cuda:N", "cuda:N,M", "cuda:all" */
  uint32_t workers_per_device;    /* 0: 2 */
  uint64_t host_budget_bytes;     /* witness bytes held for queued partitions; 0: unlimited */
  uint64_t device_memory_bytes;   /* each device's ledger; 0: the device's default */
  int32_t self_check;             /* 1 (default): batch-verify every job's proofs before it is done */
} snarkd_engine_options;

SNARKD_API void snarkd_engine_options_init(snarkd_engine_options* options);
/* A new engine in *out. Devices are set up here (a GPU's memory pool is allocated once). */
SNARKD_API snarkd_status snarkd_engine_create(const snarkd_engine_options* options, snarkd_engine** out);
/* Cancels what is queued, lets partitions in flight finish their stage, frees the engine.
 * Results already taken stay valid. NULL is a no-op. */
SNARKD_API void snarkd_engine_destroy(snarkd_engine* engine);

/* While paused (1), workers start no new partition; those in flight finish. 0 resumes. For a
 * drain before shutdown, or to queue work before letting it run. */
SNARKD_API snarkd_status snarkd_set_paused(snarkd_engine* engine, int32_t paused);

/* ---- circuits */

typedef struct snarkd_circuit_files {
  uint32_t struct_size;
  const char* params_path;   /* a bellperson / Filecoin .params file, with circuit_path (or alone:
                              * then the key serves a/b/c jobs only, snarkd_submit_abc); or NULL */
  const char* zkey_path;     /* a snarkjs .zkey of either curve (it holds the circuit's A and B);
                              * or NULL */
  const char* circuit_path;  /* circom .r1cs or snarkd CSR (with params_path; NULL: a/b/c only) */
  int32_t check_points;      /* 1: subgroup-check every key point (slow for big keys); 0 (default):
                              * encodings only; every proof is verified anyway (self_check) */
} snarkd_circuit_files;

typedef struct snarkd_circuit_info {
  uint32_t struct_size;
  uint64_t num_vars;            /* values per witness: ONE, the public inputs, the aux variables */
  uint64_t num_public_inputs;   /* ONE excluded */
  uint64_t num_constraints;     /* 0 for a .params key registered alone (a/b/c form) */
  uint32_t log_domain;          /* the key's evaluation domain is 2^log_domain rows */
  int32_t curve;                /* snarkd_curve (API 0.2) */
  uint32_t proof_bytes;         /* bytes of one of its proofs (API 0.2) */
} snarkd_circuit_info;

SNARKD_API void snarkd_circuit_files_init(snarkd_circuit_files* files);
/* Reads the key and circuit, binds them and makes them resident on every device under
 * circuit_id (which must be new). */
SNARKD_API snarkd_status snarkd_register_circuit(snarkd_engine* engine, const char* circuit_id,
                                                 const snarkd_circuit_files* files);
/* Refused while jobs of the circuit are unfinished. */
SNARKD_API snarkd_status snarkd_unregister_circuit(snarkd_engine* engine, const char* circuit_id);
SNARKD_API void snarkd_circuit_info_init(snarkd_circuit_info* info);
SNARKD_API snarkd_status snarkd_get_circuit_info(snarkd_engine* engine, const char* circuit_id,
                                                 snarkd_circuit_info* out);

/* ---- jobs */

/* Witness form: each partition's full assignment (num_vars values, the first = 1). The values
 * are copied during the call. */
typedef struct snarkd_job {
  uint32_t struct_size;
  const char* circuit_id;
  int32_t priority;              /* snarkd_priority; default NORMAL */
  int32_t fr_format;             /* snarkd_fr_format of the witnesses; default MONTGOMERY */
  uint32_t num_partitions;
  const void* const* witnesses;  /* num_partitions pointers to witness_len × 32 bytes */
  uint64_t witness_len;          /* = the circuit's num_vars */
  int64_t wait_ms;               /* how long to wait for host budget; < 0 (default): as long as it takes */
} snarkd_job;

/* a/b/c form (bellperson's synthesis result, the supraseal-c2 Assignment in snarkd's terms):
 * per partition the QAP rows a, b, c (constraints, then one "input·0 = 0" row per input), the
 * input and aux assignments and the density bit vectors (64-bit words, LSB first). */
typedef struct snarkd_abc_partition {
  const void* a;
  const void* b;
  const void* c;
  uint64_t abc_size;
  const void* inputs;            /* ONE first */
  uint64_t num_inputs;
  const void* aux;
  uint64_t num_aux;
  const uint64_t* a_aux_density; /* num_aux bits */
  const uint64_t* b_inp_density; /* num_inputs bits */
  const uint64_t* b_aux_density; /* num_aux bits */
} snarkd_abc_partition;

typedef struct snarkd_abc_job {
  uint32_t struct_size;
  const char* circuit_id;
  int32_t priority;
  int32_t fr_format;
  uint32_t num_partitions;
  const snarkd_abc_partition* partitions;
  int64_t wait_ms;
  int32_t device;                /* ≥ 0: only the engine's device of this index runs it; -1 (default): any */
} snarkd_abc_job;

SNARKD_API void snarkd_job_init(snarkd_job* job);
SNARKD_API void snarkd_abc_job_init(snarkd_abc_job* job);
/* Queues the job; its id (never reused by this engine) in *job_id. */
SNARKD_API snarkd_status snarkd_submit(snarkd_engine* engine, const snarkd_job* job, uint64_t* job_id);
/* The a/b/c form, for a bellperson key (registered with or without its circuit): the device
 * computes H from a, b, c (no SpMV) and the MSMs over the density-selected assignments. The
 * values are copied during the call; bits past each density vector's length are ignored.
 * Sizes that disagree with the key are INVALID_ARGUMENT naming the partition and field; an
 * assignment that does not satisfy the circuit fails the job (its error names the row). */
SNARKD_API snarkd_status snarkd_submit_abc(snarkd_engine* engine, const snarkd_abc_job* job, uint64_t* job_id);

typedef struct snarkd_job_result snarkd_job_result;

/* Waits until the job is finished (done, failed or cancelled) and gives its result in *out
 * (free it with snarkd_job_result_free). timeout_ms < 0: no limit; 0: just look.
 * SNARKD_ERR_TIMEOUT when it is still queued or running then; SNARKD_ERR_NOT_FOUND for an
 * unknown (or forgotten) id. */
SNARKD_API snarkd_status snarkd_await(snarkd_engine* engine, uint64_t job_id, int64_t timeout_ms,
                                      snarkd_job_result** out);
/* Cancels a queued or running job; *was_running (may be NULL) = 1 if it had not finished. */
SNARKD_API snarkd_status snarkd_cancel(snarkd_engine* engine, uint64_t job_id, int32_t* was_running);
/* Drops a finished job's record (long-running programs keep their own results). */
SNARKD_API snarkd_status snarkd_forget(snarkd_engine* engine, uint64_t job_id);

SNARKD_API snarkd_job_state snarkd_job_result_state(const snarkd_job_result* result);
/* Why the job failed ("" otherwise). Valid while the result is. */
SNARKD_API const char* snarkd_job_result_error(const snarkd_job_result* result);
/* 1 when the engine verified every proof of the job before reporting it done. */
SNARKD_API int32_t snarkd_job_result_verified(const snarkd_job_result* result);
/* Proofs of a done job: one per partition (0 otherwise). */
SNARKD_API uint32_t snarkd_job_result_num_proofs(const snarkd_job_result* result);
/* The job's circuit's curve (snarkd_curve) and the bytes of one of its proofs (API 0.2). */
SNARKD_API int32_t snarkd_job_result_curve(const snarkd_job_result* result);
SNARKD_API uint32_t snarkd_job_result_proof_bytes(const snarkd_job_result* result);
/* Partition `partition`'s proof, snarkd_job_result_proof_bytes (SNARKD_PROOF_BYTES for
 * BLS12-381, SNARKD_BN254_PROOF_BYTES for BN254) into out. */
SNARKD_API snarkd_status snarkd_job_result_proof(const snarkd_job_result* result, uint32_t partition, uint8_t* out);
/* Public inputs per partition (ONE excluded). */
SNARKD_API uint64_t snarkd_job_result_num_public_inputs(const snarkd_job_result* result);
/* Public input `index` of `partition`, SNARKD_FR_BYTES into out in `fr_format`. */
SNARKD_API snarkd_status snarkd_job_result_public_input(const snarkd_job_result* result, uint32_t partition,
                                                        uint64_t index, int32_t fr_format, uint8_t* out);
SNARKD_API void snarkd_job_result_free(snarkd_job_result* result);

/* ---- what the engine is doing */

typedef struct snarkd_stats {
  uint32_t struct_size;
  uint64_t submitted, completed, failed, cancelled;  /* jobs */
  uint64_t queued_partitions, in_flight_partitions;
  uint64_t invalid_proofs;     /* self-check rejections */
  uint64_t deadlocks;          /* watchdog firings (0 unless there is a bug) */
  uint64_t vram_overcommits;   /* ledger audit failures (0 unless there is a bug) */
  uint64_t peak_device_bytes;  /* the largest device ledger's peak use */
  uint64_t host_in_use_bytes, host_peak_bytes;
  uint32_t num_devices, num_workers;
} snarkd_stats;

SNARKD_API void snarkd_stats_init(snarkd_stats* stats);
SNARKD_API snarkd_status snarkd_get_stats(snarkd_engine* engine, snarkd_stats* out);

/* ---- files and verification, without an engine */

/* Reads a circom .wtns file of either curve (its prime says which): *count values of
 * SNARKD_FR_BYTES each in *values (canonical little-endian; free with snarkd_free). */
SNARKD_API snarkd_status snarkd_read_wtns(const char* path, uint8_t** values, uint64_t* count);
/* Verifies num_proofs proofs (concatenated, of the key's curve's size: SNARKD_PROOF_BYTES or
 * SNARKD_BN254_PROOF_BYTES) against the verifying key in vk_path (a bellperson .vk or .params
 * file, a snarkjs .zkey of either curve or its verification_key.json), proof i with the
 * inputs_per_proof public inputs at public_inputs + i · inputs_per_proof · 32 (in fr_format).
 * *valid = 1 if every proof verifies (one batch), else 0; malformed input is an error. */
SNARKD_API snarkd_status snarkd_verify(const char* vk_path, const uint8_t* proofs, uint64_t num_proofs,
                                       const void* public_inputs, uint64_t inputs_per_proof, int32_t fr_format,
                                       int32_t* valid);

#ifdef __cplusplus
}
#endif

#endif /* SNARKD_SNARKD_H */
