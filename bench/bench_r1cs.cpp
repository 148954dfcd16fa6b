// R1CS layer: sparse matrix–vector products (the a, b, c = A·w, B·w, C·w step of the Groth16
// prover), the satisfaction check, the synthetic PoRep-shaped generator and CSR file loading.
// Circuits are synthetic with the PoRep defaults (synthetic.hpp); the argument is log2 of the
// constraint count. Multi-threaded, so times are wall-clock (UseRealTime). Counters:
// "nnz/s" = stored non-zeros processed per second, "rows/s" = constraints per second.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unistd.h>

#include "snarkd/r1cs/csr_file.hpp"
#include "snarkd/r1cs/r1cs.hpp"
#include "snarkd/r1cs/synthetic.hpp"

namespace {

using snarkd::r1cs::Fr;
using snarkd::r1cs::Matrix;
using snarkd::r1cs::SyntheticCircuit;

// One generated circuit per size, shared by the benchmarks that read it.
const SyntheticCircuit& circuit(int log_rows) {
  static std::map<int, std::unique_ptr<SyntheticCircuit>> cache;
  auto& slot = cache[log_rows];
  if (!slot) {
    snarkd::r1cs::SyntheticParams p;
    p.num_constraints = uint64_t(1) << log_rows;
    p.seed = 42;
    slot = std::make_unique<SyntheticCircuit>(snarkd::r1cs::generate_synthetic(p));
  }
  return *slot;
}

void set_rates(benchmark::State& state, uint64_t nnz, uint64_t rows) {
  state.counters["nnz/s"] = benchmark::Counter(double(nnz), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["rows/s"] = benchmark::Counter(double(rows), benchmark::Counter::kIsIterationInvariantRate);
}

// Argument pair: (log2 rows, matrix 0/1/2 = A/B/C).
void spmv(benchmark::State& state) {
  const SyntheticCircuit& sc = circuit(int(state.range(0)));
  const Matrix m = Matrix(state.range(1));
  std::vector<Fr> out(sc.circuit.num_constraints());
  for (auto _ : state) {
    snarkd::r1cs::evaluate(sc.circuit, m, sc.witness, out);
    benchmark::DoNotOptimize(out.data());
  }
  set_rates(state, sc.circuit.matrix(m).nnz(), sc.circuit.num_constraints());
}
void BM_R1csSpmv(benchmark::State& state) { spmv(state); }
void BM_R1csSpmvLarge(benchmark::State& state) { spmv(state); }

void satisfied(benchmark::State& state) {
  const SyntheticCircuit& sc = circuit(int(state.range(0)));
  for (auto _ : state) {
    auto r = snarkd::r1cs::first_unsatisfied(sc.circuit, sc.witness);
    if (r) state.SkipWithError("generated circuit is not satisfied");
    benchmark::DoNotOptimize(r);
  }
  const auto& c = sc.circuit;
  set_rates(state, c.a.nnz() + c.b.nnz() + c.c.nnz(), c.num_constraints());
}
void BM_R1csCheckLarge(benchmark::State& state) { satisfied(state); }

void generate(benchmark::State& state) {
  snarkd::r1cs::SyntheticParams p;
  p.num_constraints = uint64_t(1) << state.range(0);
  uint64_t nnz = 0;
  for (auto _ : state) {
    ++p.seed;
    SyntheticCircuit sc = snarkd::r1cs::generate_synthetic(p);
    nnz = sc.circuit.a.nnz() + sc.circuit.b.nnz() + sc.circuit.c.nnz();
    benchmark::DoNotOptimize(sc.witness.data());
  }
  set_rates(state, nnz, p.num_constraints);
}
void BM_R1csGenerate(benchmark::State& state) { generate(state); }
void BM_R1csGenerateLarge(benchmark::State& state) { generate(state); }

// Reading back a CSR file that is in the page cache: checksums + validation + copies.
void BM_R1csCsrReadLarge(benchmark::State& state) {
  const auto& c = circuit(int(state.range(0))).circuit;
  const std::string path = "/tmp/snarkd_bench_" + std::to_string(::getpid()) + ".csr";
  snarkd::r1cs::write_csr_file(path, c);
  for (auto _ : state) {
    auto back = snarkd::r1cs::read_csr_file(path);
    benchmark::DoNotOptimize(back.a.col.data());
  }
  std::remove(path.c_str());
  set_rates(state, c.a.nnz() + c.b.nnz() + c.c.nnz(), c.num_constraints());
}

}  // namespace

BENCHMARK(BM_R1csSpmv)->Args({16, 0})->Args({16, 1})->Args({16, 2})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_R1csSpmvLarge)->Args({20, 0})->Args({20, 1})->Args({20, 2})->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_R1csCheckLarge)->Arg(20)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_R1csGenerate)->Arg(14)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_R1csGenerateLarge)->Arg(20)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_R1csCsrReadLarge)->Arg(20)->UseRealTime()->Unit(benchmark::kMillisecond);
