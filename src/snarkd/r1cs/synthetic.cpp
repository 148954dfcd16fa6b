#include "snarkd/r1cs/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>

#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::r1cs {

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a counter plus a bijective mixer, so any (seed, index)
// names an independent stream in O(1).
struct SplitMix {
  uint64_t state;
  uint64_t operator()() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return double((*this)() >> 11) * 0x1.0p-53; }                       // [0, 1)
  uint64_t below(uint64_t n) { return uint64_t((unsigned __int128)(*this)() * n >> 64); }  // [0, n)
};

// Independent streams for the different uses of one seed.
enum Domain : uint64_t { kKindDomain = 1, kInputDomain = 2, kRowDomain = 3 };
SplitMix stream(uint64_t seed, Domain d, uint64_t index) {
  SplitMix m{seed ^ (uint64_t(d) << 56)};
  m.state ^= index * 0xD6E8FEB86659FD93ull;
  m();  // one step so nearby indices diverge at once
  return m;
}

enum class Kind : uint8_t { Zero, One, Other };
enum class Want : uint8_t { Bit, Zero, One, Other, Any };

bool matches(Kind k, Want w) {
  switch (w) {
    case Want::Bit: return k != Kind::Other;
    case Want::Zero: return k == Kind::Zero;
    case Want::One: return k == Kind::One;
    case Want::Other: return k == Kind::Other;
    case Want::Any: return true;
  }
  return false;
}

struct Entry {
  uint32_t col;
  int64_t coeff;
};
struct RowTerms {
  std::vector<Entry> a, b, c;
};

constexpr uint64_t kWindow = 4096;  // "recent" variables
constexpr int kTries = 16;          // draws before falling back

// Dictionary code of a small non-zero integer: 1 → 0, −1 → 1, ±k → 2(k − 2) + 2 (+1 if < 0),
// so kCoeffOne/kCoeffMinusOne hold from the start and codes are dense from small to large.
uint32_t code_of(int64_t c) {
  if (c == 1) return kCoeffOne;
  if (c == -1) return kCoeffMinusOne;
  const uint64_t m = uint64_t(std::llabs(c));
  return uint32_t(2 * (m - 2) + 2 + (c < 0));
}
Fr value_of_code(uint32_t code) {
  const int64_t m = code < 2 ? 1 : int64_t(code - 2) / 2 + 2;
  return Fr::from_i64(code & 1 ? -m : m);
}

class Generator {
 public:
  explicit Generator(const SyntheticParams& p) : p_(p) {}

  Kind kind(uint64_t col) const {
    if (col == 0) return Kind::One;
    if (col < p_.num_inputs) return Kind::Other;
    const double u = stream(p_.seed, kKindDomain, col - p_.num_inputs).unit();
    return u < p_.zero_fraction ? Kind::Zero : u < p_.bit_fraction ? Kind::One : Kind::Other;
  }
  Fr input_value(uint64_t i) const {
    SplitMix g = stream(p_.seed, kInputDomain, i);
    return Fr::random(g);
  }
  void build_row(uint64_t row, RowTerms& t) const;

 private:
  std::optional<uint32_t> pick(SplitMix& g, uint64_t limit, Want want, const std::vector<Entry>& row) const;
  // Appends coeff·col, merging with an entry of the same column (removed if it cancels).
  static void add(std::vector<Entry>& row, uint32_t col, int64_t coeff);
  static int64_t small_coeff(SplitMix& g);
  static size_t count(SplitMix& g, double mean) { return size_t(mean) + (g.unit() < mean - std::floor(mean)); }
  int64_t value(uint32_t col) const { return kind(col) == Kind::Zero ? 0 : 1; }  // bit kinds only
  int64_t fill_bits(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const;
  void fill_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const;

  SyntheticParams p_;
};

std::optional<uint32_t> Generator::pick(SplitMix& g, uint64_t limit, Want want,
                                        const std::vector<Entry>& row) const {
  for (int i = 0; i < kTries; ++i) {
    const bool local = (g() & 3) != 0 && limit > kWindow;
    const uint64_t c = local ? limit - 1 - g.below(kWindow) : g.below(limit);
    if (!matches(kind(c), want)) continue;
    if (std::any_of(row.begin(), row.end(), [&](const Entry& e) { return e.col == c; })) continue;
    return uint32_t(c);
  }
  return std::nullopt;
}

void Generator::add(std::vector<Entry>& row, uint32_t col, int64_t coeff) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i].col != col) continue;
    row[i].coeff += coeff;
    if (row[i].coeff == 0) row.erase(row.begin() + long(i));
    return;
  }
  row.push_back({col, coeff});
}

int64_t Generator::small_coeff(SplitMix& g) {
  const uint64_t x = g();
  const int64_t m = (x >> 1) & 15 ? 1 : int64_t(2) << ((x >> 5) % 3);  // 1 (15/16) or 2, 4, 8
  return x & 1 ? -m : m;
}

// Adds n terms over 0/1-valued variables (ONE when none is found); returns the integer value
// of the whole row, including terms it held before.
int64_t Generator::fill_bits(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const {
  for (size_t i = 0; i < n; ++i) add(row, pick(g, limit, Want::Bit, row).value_or(0), small_coeff(g));
  int64_t sum = 0;
  for (const Entry& e : row) sum += e.coeff * value(e.col);
  return sum;
}

// n terms, the first over an "other" variable (an input when none is found), the rest any.
void Generator::fill_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t fallback = i == 0 && p_.num_inputs > 1 ? uint32_t(1 + g.below(p_.num_inputs - 1)) : 0;
    add(row, pick(g, limit, i == 0 ? Want::Other : Want::Any, row).value_or(fallback), small_coeff(g));
  }
}

void Generator::build_row(uint64_t row, RowTerms& t) const {
  SplitMix g = stream(p_.seed, kRowDomain, row);
  const uint64_t fresh = p_.num_inputs + row;  // v_r's column; every other term is below it
  const size_t na = count(g, p_.nnz_a), nb = count(g, p_.nnz_b), nc = count(g, p_.nnz_c);
  int64_t s = g() & 1 ? -1 : 1;
  t.a.clear();
  t.b.clear();
  t.c.clear();
  const Kind k = kind(fresh);
  if (k == Kind::Other) {
    fill_other(g, fresh, na, t.a);
    fill_other(g, fresh, nb, t.b);
    t.c.push_back({uint32_t(fresh), s});
    for (size_t i = 1; i < nc; ++i) add(t.c, pick(g, fresh, Want::Any, t.c).value_or(0), small_coeff(g));
    return;
  }
  const int64_t v = k == Kind::One;
  const int64_t b = fill_bits(g, fresh, nb, t.b);  // B first: a fixed order of draws
  const int64_t p = fill_bits(g, fresh, na, t.a) * b;
  if (nc == 1 && v == 1 && (p == 1 || p == -1)) s = p;  // C = s·v_r alone already balances
  t.c.push_back({uint32_t(fresh), s});
  const int64_t partial = nc >= 2 ? fill_bits(g, fresh, nc - 2, t.c) - s * v : 0;
  const int64_t d = p - s * v - partial;  // what the balancing term must contribute
  if (d != 0) {
    add(t.c, pick(g, fresh, Want::One, t.c).value_or(0), d);
  } else if (nc >= 2) {
    if (auto z = pick(g, fresh, Want::Zero, t.c)) add(t.c, *z, small_coeff(g));
  }
}

void check_params(const SyntheticParams& p) {
  auto bad = [](const std::string& what) { throw InvalidArgument("synthetic circuit: " + what); };
  if (p.num_constraints == 0) bad("num_constraints is 0");
  if (p.num_inputs == 0) bad("num_inputs is 0 (it counts ONE)");
  if (p.num_inputs > kMaxVariables || p.num_constraints > kMaxVariables - p.num_inputs)
    bad("more than 2^32 variables");
  if (!(p.nnz_a >= 0 && p.nnz_a <= 64) || !(p.nnz_b >= 0 && p.nnz_b <= 64)) bad("nnz_a, nnz_b must be in [0, 64]");
  if (!(p.nnz_c >= 1 && p.nnz_c <= 64)) bad("nnz_c must be in [1, 64] (it includes the new variable)");
  if (!(p.zero_fraction >= 0 && p.zero_fraction <= p.bit_fraction && p.bit_fraction <= 1))
    bad("need 0 <= zero_fraction <= bit_fraction <= 1");
}

// [begin, end) of part p of n split into `parts`.
std::pair<uint64_t, uint64_t> part_range(uint64_t n, size_t p, size_t parts) {
  return {uint64_t((unsigned __int128)n * p / parts), uint64_t((unsigned __int128)n * (p + 1) / parts)};
}

// row_ptr[r + 1] holds row r's length on entry and the offset of row r + 1 on exit.
void lengths_to_offsets(std::vector<uint64_t>& row_ptr, size_t parts) {
  const uint64_t n = row_ptr.size() - 1;
  std::vector<uint64_t> base(parts + 1, 0);
  ThreadPool::global().run(parts, [&](size_t p) {
    auto [b, e] = part_range(n, p, parts);
    for (uint64_t i = b; i < e; ++i) base[p + 1] += row_ptr[i + 1];
  });
  std::partial_sum(base.begin(), base.end(), base.begin());
  ThreadPool::global().run(parts, [&](size_t p) {
    auto [b, e] = part_range(n, p, parts);
    uint64_t acc = base[p];
    for (uint64_t i = b; i < e; ++i) row_ptr[i + 1] = acc += row_ptr[i + 1];
  });
}

// Pass 0 (write = false) stores each row's lengths in row_ptr[r + 1]; pass 1 rebuilds the same
// rows and writes their entries in place, with coefficient CODES (code_of), marking the codes
// task p used in used[p].
void build_pass(const Generator& gen, Circuit& c, std::vector<std::vector<uint8_t>>& used, bool write) {
  const uint64_t rows = c.num_aux;  // one new variable per row
  ThreadPool::global().run(used.size(), [&](size_t p) {
    RowTerms t;
    auto [b, e] = part_range(rows, p, used.size());
    for (uint64_t r = b; r < e; ++r) {
      gen.build_row(r, t);
      const std::vector<Entry>* terms[3] = {&t.a, &t.b, &t.c};
      for (int m = 0; m < 3; ++m) {
        CsrMatrix& x = c.matrix(Matrix(m));
        if (!write) {
          x.row_ptr[r + 1] = terms[m]->size();
          continue;
        }
        uint64_t k = x.row_ptr[r];
        for (const Entry& en : *terms[m]) {
          const uint32_t code = code_of(en.coeff);
          if (code >= used[p].size()) used[p].resize(code + 1, 0);
          used[p][code] = 1;
          x.col[k] = en.col;
          x.coeff[k++] = code;
        }
      }
    }
  });
}

void build_matrices(const Generator& gen, Circuit& c, std::vector<std::vector<uint8_t>>& used) {
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) c.matrix(m).row_ptr.assign(c.num_aux + 1, 0);
  build_pass(gen, c, used, false);
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    CsrMatrix& x = c.matrix(m);
    lengths_to_offsets(x.row_ptr, used.size());
    x.col.resize(x.row_ptr.back());
    x.coeff.resize(x.row_ptr.back());
  }
  build_pass(gen, c, used, true);
}

// Replaces codes by indices into a dictionary of the codes actually used (1, −1 always first).
void compact_dictionary(Circuit& c, const std::vector<std::vector<uint8_t>>& used) {
  size_t n = 2;
  for (const auto& u : used) n = std::max(n, u.size());
  std::vector<uint32_t> remap(n, 0);
  c.coeffs.clear();
  for (uint32_t code = 0; code < n; ++code) {
    const bool any = code < 2 || std::any_of(used.begin(), used.end(),
                                             [&](const auto& u) { return code < u.size() && u[code]; });
    if (!any) continue;
    remap[code] = uint32_t(c.coeffs.size());
    c.coeffs.push_back(value_of_code(code));
  }
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) {
    std::vector<uint32_t>& coeff = c.matrix(m).coeff;
    parallel_for(coeff.size(), [&](size_t b, size_t e) {
      for (size_t k = b; k < e; ++k) coeff[k] = remap[coeff[k]];
    });
  }
}

// Bit values and inputs first (rows of bit kind only read those), then "other" values in row
// order: each reads only earlier columns, whose values are final by then.
void fill_witness(const Generator& gen, const Circuit& c, std::vector<Fr>& w) {
  const uint64_t ni = c.num_inputs;
  w.assign(c.num_vars(), Fr::zero());
  w[0] = Fr::one();
  for (uint64_t i = 1; i < ni; ++i) w[i] = gen.input_value(i);
  parallel_for(c.num_aux, [&](size_t b, size_t e) {
    for (size_t j = b; j < e; ++j)
      if (gen.kind(ni + j) == Kind::One) w[ni + j] = Fr::one();
  });
  const Fr* dict = c.coeffs.data();
  for (uint64_t r = 0; r < c.num_constraints(); ++r) {
    if (gen.kind(ni + r) != Kind::Other) continue;
    // v_r is C's first entry of row r and still 0, so dot_row(C) is the rest of C.
    const Fr ab = dot_row(c.a, dict, w.data(), r) * dot_row(c.b, dict, w.data(), r);
    const Fr rest = dot_row(c.c, dict, w.data(), r);
    w[ni + r] = c.c.coeff[c.c.row_ptr[r]] == kCoeffOne ? ab - rest : rest - ab;
  }
}

}  // namespace

SyntheticCircuit generate_synthetic(const SyntheticParams& params) {
  check_params(params);
  const Generator gen(params);
  SyntheticCircuit out;
  Circuit& c = out.circuit;
  c.num_inputs = params.num_inputs;
  c.num_aux = params.num_constraints;
  const size_t parts = std::min<uint64_t>(params.num_constraints, ThreadPool::global().size() * 8);
  std::vector<std::vector<uint8_t>> used(parts);
  build_matrices(gen, c, used);
  compact_dictionary(c, used);
  fill_witness(gen, c, out.witness);
  return out;
}

}  // namespace snarkd::r1cs
