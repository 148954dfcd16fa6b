// Groth16 prover on the CPU (groth16::prove) over synthetic PoRep-shaped circuits
// (r1cs/synthetic.hpp, Filecoin defaults for the matrix shape and the bit-heavy witness).
//
// The argument is log2 of the QAP domain n: the circuit has n − 20 constraints and 20 inputs
// (ONE included), so constraints + input rows = n exactly and the prover's NTTs and H MSM run at
// size n, as in a real partition sized to its domain (one more constraint would double them).
// The insecure setup (setup_insecure, seed-derived toxic waste) runs once per size, outside the
// timing; the blinding (r, s) is fixed, so every iteration makes the same proof. Multi-threaded:
// wall-clock times (UseRealTime); pass --threads=N to size the global pool.
//
// Counters, ms per proof from the prover's own ProveTimings (in seconds Google Benchmark would
// print "0.0104" next to "9.64m"): qap (A·w, B·w, C·w and the satisfaction check), h (the
// NTTs and pointwise quotient giving the H scalars), msm_a, msm_b (B in G1 and G2), msm_l,
// msm_h; "a_other" is the fraction of the A query's scalars that are neither 0 nor 1 (the
// ones the Pippenger part pays for).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>

#include "snarkd/groth16/bound_key.hpp"
#include "snarkd/groth16/prover.hpp"
#include "snarkd/groth16/setup.hpp"
#include "snarkd/r1cs/synthetic.hpp"

namespace {

namespace g16 = snarkd::groth16;
using snarkd::r1cs::Fr;

constexpr uint64_t kInputs = 20;

struct Fixture {
  snarkd::r1cs::SyntheticCircuit sc;
  std::shared_ptr<const g16::BoundKey> key;
};

// Circuit + key per domain size, built on first use: generation + setup at 2^16 take ~5 s of
// the 5.7 s a whole 2^16 run takes on the dev VM, so they must not be per run.
const Fixture& fixture(int log_domain) {
  static std::map<int, std::unique_ptr<Fixture>> cache;
  auto& slot = cache[log_domain];
  if (!slot) {
    snarkd::r1cs::SyntheticParams p;
    p.num_inputs = kInputs;
    p.num_constraints = (uint64_t{1} << log_domain) - kInputs;
    p.seed = 7;
    auto f = std::make_unique<Fixture>();
    f->sc = snarkd::r1cs::generate_synthetic(p);
    f->key = g16::BoundKey::bind(g16::setup_insecure(f->sc.circuit, g16::toxic_waste_from_seed(3)), f->sc.circuit);
    slot = std::move(f);
  }
  return *slot;
}

struct StepSums {
  double qap = 0, h = 0, msm_a = 0, msm_b = 0, msm_l = 0, msm_h = 0;
  void add(const g16::ProveTimings& t) {
    qap += t.qap, h += t.h, msm_a += t.msm_a, msm_b += t.msm_b, msm_l += t.msm_l, msm_h += t.msm_h;
  }
};

void set_step_counters(benchmark::State& state, const StepSums& s, const g16::ProveTimings& last) {
  // kAvgIterations divides the summed seconds by the iteration count; ×1000 for ms.
  auto ms = [](double sum) { return benchmark::Counter(sum * 1e3, benchmark::Counter::kAvgIterations); };
  state.counters["qap_ms"] = ms(s.qap);
  state.counters["h_ms"] = ms(s.h);
  state.counters["msm_a_ms"] = ms(s.msm_a);
  state.counters["msm_b_ms"] = ms(s.msm_b);
  state.counters["msm_l_ms"] = ms(s.msm_l);
  state.counters["msm_h_ms"] = ms(s.msm_h);
  const auto& a = last.a_split;
  state.counters["a_other"] = double(a.others) / double(a.zeros + a.ones + a.others);
}

void BM_Groth16Prove(benchmark::State& state) {
  const Fixture& f = fixture(int(state.range(0)));
  const g16::ProofRandomness rs{Fr::from_u64(0x1234567), Fr::from_u64(0x89abcdef)};
  StepSums sums;
  g16::ProveTimings t;
  for (auto _ : state) {
    g16::Proof proof = g16::prove(*f.key, f.sc.witness, rs, {}, &t);
    benchmark::DoNotOptimize(proof);
    sums.add(t);
  }
  set_step_counters(state, sums, t);
  state.counters["constraints"] = double(f.sc.circuit.num_constraints());
}

}  // namespace

BENCHMARK(BM_Groth16Prove)->DenseRange(10, 16, 2)->UseRealTime()->Unit(benchmark::kMillisecond);
