#include "dev_zkey.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>

#include "snarkd/ff/field.hpp"
#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/curve.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/groth16/snarkjs_json.hpp"
#include "snarkd/groth16/verifier.hpp"
#include "snarkd/groth16/zkey.hpp"
#include "snarkd/r1cs/circom.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::dev_zkey {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One line per step: its name, seconds since the previous line, and what it made.
class StepLog {
 public:
  explicit StepLog(std::ostream* out) : out_(out) {}
  void step(const std::string& what, const std::string& detail = "") {
    const auto now = Clock::now();
    line(what, std::chrono::duration<double>(now - last_).count(), detail);
    last_ = now;
  }
  void line(const std::string& what, double seconds, const std::string& detail = "") const {
    if (!out_) return;
    char buf[96];
    std::snprintf(buf, sizeof buf, "%-12s %8.2f s", what.c_str(), seconds);
    *out_ << buf << (detail.empty() ? "" : "  " + detail) << '\n' << std::flush;
  }

 private:
  std::ostream* out_;
  Clock::time_point last_ = Clock::now();
};

// The outputs by flag, in the order they are written.
std::vector<std::pair<const char*, const std::string*>> named_outputs(const Outputs& o) {
  return {{"--r1cs", &o.r1cs}, {"--zkey", &o.zkey},          {"--wtns", &o.wtns},
          {"--vk", &o.vk},     {"--public", &o.public_json}, {"--proof", &o.proof}};
}

void check_outputs(const Outputs& o) {
  if (o.zkey.empty()) throw InvalidArgument("--zkey is required");
  if (o.wtns.empty()) throw InvalidArgument("--wtns is required");
  for (const auto& [flag, path] : named_outputs(o)) {
    if (path->empty()) continue;
    const fs::path dir = fs::path(*path).parent_path();
    if (!dir.empty() && !fs::is_directory(dir))
      throw InvalidArgument(std::string(flag) + " " + *path + ": directory " + dir.string() + " does not exist");
  }
}

// write(PATH.part), then the rename; errors name the flag and the file.
void write_file(const char* flag, const std::string& path, const std::function<void(const std::string&)>& write) {
  if (path.empty()) return;
  const std::string part = path + ".part";
  try {
    write(part);
    fs::rename(part, path);
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove(part, ignored);
    throw std::runtime_error(std::string(flag) + " " + path + ": " + e.what());
  }
}

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  return buf;
}

// A proof of the witness by the CPU prover (which verifies every snarkjs-key proof itself), and
// once more by the verifier here against the public inputs that --public writes.
template <class E>
groth16::ProofT<E> prove_and_verify(const groth16::BoundKeyT<E>& key, r1cs::Values<typename E::Fr> witness) {
  const auto proof = groth16::prove(key, witness, groth16::random_proof_randomness<E>());
  if (!groth16::verify(key.pk().vk, proof, groth16::public_inputs(key.circuit(), witness)))
    throw std::logic_error("the proof of the generated witness does not verify");
  return proof;
}

template <class E>
Made make_for(const Options& opt, StepLog& log) {
  using F = typename E::Fr;
  auto sc = r1cs::generate_synthetic<F>(opt.circuit);
  log.step("circuit", std::to_string(sc.circuit.num_constraints()) + " constraints, " +
                          std::to_string(sc.circuit.num_vars()) + " variables, seed " +
                          std::to_string(opt.circuit.seed));
  const auto t = opt.seed ? groth16::toxic_waste_from_seed<F>(*opt.seed) : groth16::toxic_waste_random<F>();
  auto z = groth16::setup_snarkjs_insecure<E>(
      sc.circuit, t, [&](const char* step, double s) { log.line(std::string("setup ") + step, s); });
  log.step("setup total", "domain 2^" + std::to_string(z.pk.log_domain));
  write_file("--r1cs", opt.out.r1cs, [&](const std::string& p) {
    // Every input public (circom: outputs, then inputs; all of them inputs here), labels 1:1.
    r1cs::write_circom_r1cs(p, sc.circuit, {0, uint32_t(sc.circuit.num_inputs - 1), 0, sc.circuit.num_vars(), {}});
  });
  Made made{sc.circuit.num_constraints(), sc.circuit.num_inputs, sc.circuit.num_vars(), z.pk.log_domain, 0};
  sc.circuit = {};  // the zkey's circuit holds A and B; C is no longer needed
  const auto key = groth16::BoundKeyT<E>::bind(std::move(z.pk), std::move(z.circuit));
  write_file("--zkey", opt.out.zkey, [&](const std::string& p) { groth16::write_zkey(p, *key); });
  made.zkey_bytes = fs::file_size(opt.out.zkey);
  log.step("zkey", opt.out.zkey + ", " + mib(made.zkey_bytes));
  write_file("--wtns", opt.out.wtns, [&](const std::string& p) { r1cs::write_wtns(p, sc.witness); });
  write_file("--vk", opt.out.vk, [&](const std::string& p) { groth16::write_snarkjs_vk(p, key->pk().vk); });
  write_file("--public", opt.out.public_json, [&](const std::string& p) {
    groth16::write_snarkjs_public<E>(p, groth16::public_inputs(key->circuit(), sc.witness));
  });
  log.step("wtns+json", opt.out.wtns);
  if (!opt.out.proof.empty()) {
    const auto proof = prove_and_verify<E>(*key, sc.witness);
    write_file("--proof", opt.out.proof, [&](const std::string& p) { groth16::write_snarkjs_proof(p, proof); });
    log.step("proof", opt.out.proof + " (CPU prover, verified)");
  }
  return made;
}

}  // namespace

r1cs::SyntheticParams shape_params(const std::string& shape) {
  if (shape == "circom") return r1cs::circom_poseidon_shape(0, 0, 0);
  if (shape == "porep") return {};
  throw InvalidArgument("--shape " + shape + ": expected circom or porep");
}

r1cs::CircuitShape measure_files(const std::string& r1cs_path, const std::string& wtns_path) {
  return groth16::with_curve(r1cs::circom_curve(r1cs_path), [&](auto e) {
    using F = typename decltype(e)::Fr;
    const auto c = r1cs::read_circom_r1cs<F>(r1cs_path).circuit;
    const auto w = wtns_path.empty() ? std::vector<F>{} : r1cs::read_wtns<F>(wtns_path);
    if (!w.empty() && w.size() != c.num_vars())
      throw DecodeError(wtns_path + ": " + std::to_string(w.size()) + " values, " + r1cs_path + " has " +
                        std::to_string(c.num_vars()) + " wires");
    return r1cs::measure_shape<F>(c, w);
  });
}

std::string describe_shape(const r1cs::CircuitShape& s, bool with_witness) {
  char buf[1024];
  const auto pct = [](double x) { return 100 * x; };
  int n = std::snprintf(
      buf, sizeof buf,
      "%llu constraints, %llu inputs (ONE included), %llu variables\n"
      "per row: A %.3f  B %.3f  C %.3f\n"
      "linear rows (A = B = 0): %.2f%%, C %.3f terms; non-linear rows: A %.3f  B %.3f  C %.3f, B = A in %.2f%%\n"
      "variables in A %.2f%%, in B %.2f%%; coefficients +-1 %.2f%%, %llu distinct\n",
      (unsigned long long)s.constraints, (unsigned long long)s.num_inputs, (unsigned long long)s.num_vars, s.nnz_a,
      s.nnz_b, s.nnz_c, pct(s.linear_fraction), s.nnz_c_linear, s.nnz_a_nonlinear, s.nnz_b_nonlinear, s.nnz_c_nonlinear,
      pct(s.square_fraction), pct(s.a_density), pct(s.b_density), pct(s.unit_coeff_fraction),
      (unsigned long long)s.dictionary_size);
  if (with_witness)
    n += std::snprintf(buf + n, sizeof buf - size_t(n), "witness (aux): 0 in %.3f%%, 0 or 1 in %.3f%%\n",
                       pct(s.zero_fraction), pct(s.bit_fraction));
  return std::string(buf, size_t(n));
}

uint32_t max_log_domain(r1cs::CurveId curve) {
  // snarkjs's H query lives on the 2n domain, so n is at most 2^(two-adicity − 1).
  return groth16::with_curve(curve, [](auto e) { return uint32_t(decltype(e)::Fr::kTwoAdicity - 1); });
}

Made make(const Options& opt, std::ostream* out) {
  check_outputs(opt.out);
  const uint64_t rows = opt.circuit.num_constraints + opt.circuit.num_inputs;
  const uint32_t max_log = max_log_domain(opt.curve);
  if (rows > (uint64_t{1} << max_log))
    throw InvalidArgument("--constraints: " + std::to_string(opt.circuit.num_constraints) + " constraints and " +
                          std::to_string(opt.circuit.num_inputs) + " input rows exceed " + r1cs::curve_name(opt.curve) +
                          "'s largest zkey domain, 2^" + std::to_string(max_log));
  StepLog log(out);
  return groth16::with_curve(opt.curve, [&](auto e) { return make_for<decltype(e)>(opt, log); });
}

}  // namespace snarkd::dev_zkey
