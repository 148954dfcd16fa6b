#include "snarkd/r1cs/r1cs.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <functional>
#include <limits>

#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::r1cs {

namespace {

// Tasks per pool thread: row costs are uneven (multiplications, cache misses), so a few tasks per
// thread let the dynamic scheduler even out what the work estimate misses.
constexpr size_t kTasksPerThread = 4;

size_t task_count(uint64_t rows) {
  return size_t(std::min<uint64_t>(rows, ThreadPool::global().size() * kTasksPerThread));
}

// First row of task t out of `tasks` when the work of a row is its non-zeros + 1: the row r
// where row_ptr[r] + r first reaches t/tasks of the total (binary search, O(log rows)).
uint64_t task_begin(const CsrMatrix& m, size_t t, size_t tasks) {
  const uint64_t rows = m.num_rows();
  const uint64_t total = m.nnz() + rows;
  const uint64_t target = uint64_t((unsigned __int128)total * t / tasks);
  uint64_t lo = 0, hi = rows;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (m.row_ptr[mid] + mid < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Runs fn(begin, end) over row ranges of roughly equal work, in parallel.
void for_row_ranges(const CsrMatrix& m, const std::function<void(uint64_t, uint64_t)>& fn) {
  const size_t tasks = task_count(m.num_rows());
  ThreadPool::global().run(tasks, [&](size_t t) {
    fn(task_begin(m, t, tasks), t + 1 == tasks ? m.num_rows() : task_begin(m, t + 1, tasks));
  });
}

// Smallest i in [0, n) for which first_bad_in(begin, end) reports a bad index, scanning chunks
// in parallel; first_bad_in returns the first bad index of its range or `end`.
uint64_t parallel_first_bad(uint64_t n, const std::function<uint64_t(uint64_t, uint64_t)>& first_bad_in) {
  std::atomic<uint64_t> best{n};
  parallel_for(size_t(n), [&](size_t b, size_t e) {
    if (b >= best.load(std::memory_order_relaxed)) return;  // an earlier chunk already failed
    uint64_t i = first_bad_in(b, e);
    if (i == e) return;
    uint64_t cur = best.load();
    while (i < cur && !best.compare_exchange_weak(cur, i)) {}
  }, ThreadPool::global().size() * kTasksPerThread);
  return best.load();
}

std::string row_ptr_error(const CsrMatrix& m, const char* name) {
  const std::string what = std::string("row_ptr of ") + name;
  if (m.row_ptr.empty()) return what + " is empty";
  if (m.row_ptr[0] != 0) return what + " does not start at 0";
  const uint64_t rows = m.num_rows();
  const uint64_t bad = parallel_first_bad(rows, [&](uint64_t b, uint64_t e) {
    for (uint64_t r = b; r < e; ++r)
      if (m.row_ptr[r + 1] < m.row_ptr[r]) return r;
    return e;
  });
  if (bad < rows) return what + " is not monotone at row " + std::to_string(bad);
  if (m.row_ptr[rows] != m.nnz())
    return what + " ends at " + std::to_string(m.row_ptr[rows]) + ", not at nnz " +
           std::to_string(m.nnz());
  return {};
}

std::string entries_error(const CsrMatrix& m, const char* name, uint64_t num_vars, uint64_t dict) {
  if (m.coeff.size() != m.col.size())
    return std::string(name) + " has " + std::to_string(m.col.size()) + " columns but " +
           std::to_string(m.coeff.size()) + " coefficients";
  const uint64_t bad_col = parallel_first_bad(m.nnz(), [&](uint64_t b, uint64_t e) {
    for (uint64_t k = b; k < e; ++k)
      if (m.col[k] >= num_vars) return k;
    return e;
  });
  if (bad_col < m.nnz())
    return std::string("column of ") + name + " non-zero " + std::to_string(bad_col) + " is " +
           std::to_string(m.col[bad_col]) + ", not below num_vars " + std::to_string(num_vars);
  const uint64_t bad_coeff = parallel_first_bad(m.nnz(), [&](uint64_t b, uint64_t e) {
    for (uint64_t k = b; k < e; ++k)
      if (m.coeff[k] >= dict) return k;
    return e;
  });
  if (bad_coeff < m.nnz())
    return std::string("coefficient index of ") + name + " non-zero " + std::to_string(bad_coeff) +
           " is " + std::to_string(m.coeff[bad_coeff]) + ", not below the dictionary size " +
           std::to_string(dict);
  return {};
}

template <class F>
std::string dictionary_error(const std::vector<F>& d) {
  if (d.size() < 2 || d.size() > std::numeric_limits<uint32_t>::max())
    return "dictionary size " + std::to_string(d.size()) + " is outside [2, 2^32 - 1]";
  if (d[kCoeffOne] != F::one()) return "dictionary entry 0 is not 1";
  if (d[kCoeffMinusOne] != -F::one()) return "dictionary entry 1 is not -1";
  CoeffDictionaryT<F> seen;  // re-interning must give every entry its own index
  for (size_t i = 0; i < d.size(); ++i)
    if (seen.intern(d[i]) != i) return "dictionary entry " + std::to_string(i) + " is a duplicate";
  return {};
}

}  // namespace

const char* matrix_name(Matrix m) { return m == Matrix::A ? "A" : m == Matrix::B ? "B" : "C"; }

const char* curve_name(CurveId c) { return c == CurveId::kBn254 ? "BN254" : "BLS12-381"; }

template <class F>
CoeffDictionaryT<F>::CoeffDictionaryT() {
  intern(F::one());
  intern(-F::one());
}

template <class F>
size_t CoeffDictionaryT<F>::KeyHash::operator()(const Key& k) const {
  // Montgomery limbs look random (x·R mod r), so a rotate-xor of all four, then one multiply to
  // spread the bits into the low ones the table uses, is enough.
  uint64_t h = k.l[0] ^ std::rotl(k.l[1], 17) ^ std::rotl(k.l[2], 31) ^ std::rotl(k.l[3], 47);
  h *= 0x9E3779B97F4A7C15ull;
  return size_t(h ^ (h >> 29));
}

template <class F>
uint32_t CoeffDictionaryT<F>::intern(const F& v) {
  Key key{{v.l[0], v.l[1], v.l[2], v.l[3]}};
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  if (values_.size() >= std::numeric_limits<uint32_t>::max())
    throw InvalidArgument("coefficient dictionary is full (2^32 - 1 distinct values)");
  const uint32_t i = uint32_t(values_.size());
  values_.push_back(v);
  index_.emplace(key, i);
  return i;
}

template <class F>
void evaluate(const CircuitT<F>& circuit, Matrix which, Values<F> witness, std::type_identity_t<std::span<F>> out) {
  const CsrMatrix& m = circuit.matrix(which);
  if (witness.size() != circuit.num_vars())
    throw InvalidArgument("evaluate: witness has " + std::to_string(witness.size()) +
                          " values, circuit has " + std::to_string(circuit.num_vars()) + " variables");
  if (out.size() != m.num_rows())
    throw InvalidArgument("evaluate: output has " + std::to_string(out.size()) + " slots, matrix has " +
                          std::to_string(m.num_rows()) + " rows");
  const F* dict = circuit.coeffs.data();
  const F* w = witness.data();
  for_row_ranges(m, [&](uint64_t b, uint64_t e) {
    for (uint64_t r = b; r < e; ++r) out[r] = dot_row(m, dict, w, r);
  });
}

template <class F>
std::optional<uint64_t> first_unsatisfied(const CircuitT<F>& circuit, Values<F> witness) {
  if (witness.size() != circuit.num_vars())
    throw InvalidArgument("witness has " + std::to_string(witness.size()) +
                          " values, circuit has " + std::to_string(circuit.num_vars()) + " variables");
  const F* dict = circuit.coeffs.data();
  const F* w = witness.data();
  const uint64_t rows = circuit.num_constraints();
  const uint64_t bad = parallel_first_bad(rows, [&](uint64_t b, uint64_t e) {
    for (uint64_t r = b; r < e; ++r) {
      const F a = dot_row(circuit.a, dict, w, r);
      const F bb = dot_row(circuit.b, dict, w, r);
      if (a * bb != dot_row(circuit.c, dict, w, r)) return r;
    }
    return e;
  });
  if (bad == rows) return std::nullopt;
  return bad;
}

uint64_t DensityBitmap::count(uint64_t begin, uint64_t end) const {
  uint64_t n = 0, i = begin;
  for (; i < end && i % 64 != 0; ++i) n += test(i);  // up to a word boundary
  for (; i + 64 <= end; i += 64) n += uint64_t(std::popcount(words[i / 64]));
  for (; i < end; ++i) n += test(i);
  return n;
}

std::vector<uint32_t> density_indices(const DensityBitmap& d) {
  std::vector<uint32_t> out;
  if (d.num_bits == 0) return out;
  out.reserve(d.count(0, d.num_bits));
  for (uint64_t j = 0; j < d.num_bits; ++j)
    if (d.test(j)) out.push_back(uint32_t(j));
  return out;
}

template <class F>
DensityBitmap density(const CircuitT<F>& circuit, Matrix which) {
  const CsrMatrix& m = circuit.matrix(which);
  DensityBitmap d;
  d.num_bits = circuit.num_vars();
  d.words.assign((d.num_bits + 63) / 64, 0);
  // Threads set bits of shared words atomically; testing first keeps hot columns (ONE, recent
  // variables) from bouncing their cache line between cores on every non-zero.
  parallel_for(size_t(m.nnz()), [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const uint32_t c = m.col[k];
      std::atomic_ref<uint64_t> word(d.words[c / 64]);
      const uint64_t bit = uint64_t(1) << (c % 64);
      if (!(word.load(std::memory_order_relaxed) & bit)) word.fetch_or(bit, std::memory_order_relaxed);
    }
  });
  return d;
}

template <class F>
std::optional<std::string> find_structure_error(const CircuitT<F>& c) {
  if (c.num_inputs < 1) return "num_inputs is 0 (it counts ONE)";
  if (c.num_inputs > kMaxVariables || c.num_aux > kMaxVariables - c.num_inputs)
    return "num_vars " + std::to_string(c.num_inputs) + " + " + std::to_string(c.num_aux) +
           " exceeds 2^32";
  if (std::string e = dictionary_error(c.coeffs); !e.empty()) return e;
  for (Matrix which : {Matrix::A, Matrix::B, Matrix::C}) {
    const CsrMatrix& m = c.matrix(which);
    if (std::string e = row_ptr_error(m, matrix_name(which)); !e.empty()) return e;
    if (m.num_rows() != c.num_constraints())
      return std::string(matrix_name(which)) + " has " + std::to_string(m.num_rows()) +
             " rows, A has " + std::to_string(c.num_constraints());
    if (std::string e = entries_error(m, matrix_name(which), c.num_vars(), c.coeffs.size()); !e.empty())
      return e;
  }
  return std::nullopt;
}

#define SNARKD_R1CS_INSTANTIATE(F)                                                                       \
  template class CoeffDictionaryT<F>;                                                                   \
  template void evaluate<F>(const CircuitT<F>&, Matrix, Values<F>, std::type_identity_t<std::span<F>>); \
  template std::optional<uint64_t> first_unsatisfied<F>(const CircuitT<F>&, Values<F>);                 \
  template DensityBitmap density<F>(const CircuitT<F>&, Matrix);                                         \
  template std::optional<std::string> find_structure_error<F>(const CircuitT<F>&);
SNARKD_R1CS_INSTANTIATE(ff::Fr)
SNARKD_R1CS_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_R1CS_INSTANTIATE

}  // namespace snarkd::r1cs
