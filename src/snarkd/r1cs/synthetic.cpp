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
enum Domain : uint64_t { kKindDomain = 1, kInputDomain = 2, kRowDomain = 3, kConstDomain = 4 };
SplitMix stream(uint64_t seed, Domain d, uint64_t index) {
  SplitMix m{seed ^ (uint64_t(d) << 56)};
  m.state ^= index * 0xD6E8FEB86659FD93ull;
  m();  // one step so nearby indices diverge at once
  return m;
}

enum class Kind : uint8_t { Zero, One, Other };
// Squared: a variable that a square row took as its chained first A term (Generator::squared).
enum class Want : uint8_t { Bit, Zero, One, Other, Any, Squared };

bool matches(Kind k, Want w) {
  switch (w) {
    case Want::Bit: return k != Kind::Other;
    case Want::Zero: return k == Kind::Zero;
    case Want::One: return k == Kind::One;
    case Want::Other: return k == Kind::Other;
    case Want::Any: return true;
    case Want::Squared: return false;  // not a kind: Generator::pick asks Generator::squared
  }
  return false;
}

// coeff·x_col, or (konst = k + 1) the k-th random constant times x_col.
struct Entry {
  uint32_t col;
  int64_t coeff;
  uint32_t konst = 0;
};
struct RowTerms {
  std::vector<Entry> a, b, c;
};

// A row's first draws: term counts, the sign of v_r, and circom's row shapes. Replayed by
// Generator::squared, so rows can refer to what another row does without building it.
struct RowPlan {
  SplitMix g;
  size_t na, nb, nc;
  int64_t s;
  bool linear, square, chain, b_squared;
};

constexpr uint64_t kWindow = 4096;  // "recent" variables
constexpr int kTries = 16;          // draws before falling back

// Dictionary code of a term's coefficient: twice the small integer's code (1 → 0, −1 → 1, ±k →
// 2(k − 2) + 2 (+1 if < 0)), so kCoeffOne/kCoeffMinusOne hold from the start and integers sort
// from small to large; random constant k → 2k + 1. Without constants the dictionary (sorted by
// code) is what it was before constants existed.
uint32_t int_code(int64_t c) {
  if (c == 1) return kCoeffOne;
  if (c == -1) return kCoeffMinusOne;
  const uint64_t m = uint64_t(std::llabs(c));
  return uint32_t(2 * (m - 2) + 2 + (c < 0));
}
uint32_t code_of(const Entry& e) { return e.konst ? 2 * (e.konst - 1) + 1 : 2 * int_code(e.coeff); }

class Generator {
 public:
  explicit Generator(const SyntheticParams& p) : p_(p) {}

  Kind kind(uint64_t col) const {
    if (col == 0) return Kind::One;
    if (col < p_.num_inputs) return Kind::Other;
    const double u = stream(p_.seed, kKindDomain, col - p_.num_inputs).unit();
    return u < p_.zero_fraction ? Kind::Zero : u < p_.bit_fraction ? Kind::One : Kind::Other;
  }
  template <class F>
  F input_value(uint64_t i) const {
    SplitMix g = stream(p_.seed, kInputDomain, i);
    return F::random(g);
  }
  template <class F>
  F value_of_code(uint32_t code) const {
    if (code & 1) {
      SplitMix g = stream(p_.seed, kConstDomain, code / 2);
      return F::random(g);  // distinct from each other and from small integers but w.p. ~2^-200
    }
    code /= 2;
    const int64_t m = code < 2 ? 1 : int64_t(code - 2) / 2 + 2;
    return F::from_i64(code & 1 ? -m : m);
  }
  void build_row(uint64_t row, RowTerms& t) const;

 private:
  RowPlan plan(uint64_t row) const;
  // Whether a square row takes col as its chained first A term: the row after col's own, when
  // that row is non-linear, square and chains, and col has the kind it wants.
  bool squared(uint64_t col) const;
  std::optional<uint32_t> pick(SplitMix& g, uint64_t limit, Want want, const std::vector<Entry>& row) const;
  // The first term's column: the previous row's variable when chaining and it is of the wanted
  // kind, else a pick.
  std::optional<uint32_t> first(SplitMix& g, uint64_t limit, Want want, const std::vector<Entry>& row,
                                bool chain) const;
  // Appends coeff·col, merging with an entry of the same column (removed if it cancels; a
  // constant's column takes nothing more).
  static void add(std::vector<Entry>& row, uint32_t col, int64_t coeff);
  static int64_t small_coeff(SplitMix& g);
  static size_t count(SplitMix& g, double mean) { return size_t(mean) + (g.unit() < mean - std::floor(mean)); }
  int64_t value(uint32_t col) const { return kind(col) == Kind::Zero ? 0 : 1; }  // bit kinds only
  int64_t fill_bits(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row, bool chain) const;
  void fill_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row, bool chain,
                  bool b_squared = false) const;
  void fill_c_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const;

  SyntheticParams p_;
};

std::optional<uint32_t> Generator::pick(SplitMix& g, uint64_t limit, Want want,
                                        const std::vector<Entry>& row) const {
  for (int i = 0; i < kTries; ++i) {
    const bool local = (g() & 3) != 0 && limit > kWindow;
    const uint64_t c = local ? limit - 1 - g.below(kWindow) : g.below(limit);
    if (!(want == Want::Squared ? squared(c) : matches(kind(c), want))) continue;
    if (std::any_of(row.begin(), row.end(), [&](const Entry& e) { return e.col == c; })) continue;
    return uint32_t(c);
  }
  return std::nullopt;
}

std::optional<uint32_t> Generator::first(SplitMix& g, uint64_t limit, Want want, const std::vector<Entry>& row,
                                         bool chain) const {
  const uint64_t prev = limit - 1;  // limit is the row's own variable
  if (chain && prev > 0 && matches(kind(prev), want) &&
      std::none_of(row.begin(), row.end(), [&](const Entry& e) { return e.col == prev; }))
    return uint32_t(prev);
  return pick(g, limit, want, row);
}

void Generator::add(std::vector<Entry>& row, uint32_t col, int64_t coeff) {
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i].col != col) continue;
    if (row[i].konst) return;
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
int64_t Generator::fill_bits(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row, bool chain) const {
  for (size_t i = 0; i < n; ++i) {
    const int64_t coeff = small_coeff(g);  // before the column: the order GCC gave the draws as arguments
    add(row, (i == 0 ? first(g, limit, Want::Bit, row, chain) : pick(g, limit, Want::Bit, row)).value_or(0), coeff);
  }
  int64_t sum = 0;
  for (const Entry& e : row) sum += e.coeff * value(e.col);
  return sum;
}

// n terms, the first over an "other" variable (an input when none is found), the rest any.
// With b_squared, the first term is a squared variable when one is found.
void Generator::fill_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row, bool chain,
                           bool b_squared) const {
  for (size_t i = 0; i < n; ++i) {
    const uint32_t fallback = i == 0 && p_.num_inputs > 1 ? uint32_t(1 + g.below(p_.num_inputs - 1)) : 0;
    const int64_t coeff = small_coeff(g);  // before the column, as in fill_bits
    std::optional<uint32_t> col;
    if (i == 0 && b_squared) col = pick(g, limit, Want::Squared, row);
    if (!col) col = i == 0 ? first(g, limit, Want::Other, row, chain) : pick(g, limit, Want::Any, row);
    add(row, col.value_or(fallback), coeff);
  }
}

// C after v_r: n − 1 terms over any earlier variable; a term's coefficient is a random constant
// with probability const_fraction (drawn only when that is non-zero), else a small integer.
void Generator::fill_c_other(SplitMix& g, uint64_t limit, size_t n, std::vector<Entry>& row) const {
  for (size_t i = 1; i < n; ++i) {
    const bool konst = p_.const_fraction > 0 && g.unit() < p_.const_fraction;
    const int64_t coeff = konst ? int64_t(g.below(p_.num_consts)) : small_coeff(g);  // before the column
    const uint32_t col = pick(g, limit, Want::Any, row).value_or(0);
    if (!konst) {
      add(row, col, coeff);
    } else if (std::none_of(row.begin(), row.end(), [&](const Entry& e) { return e.col == col; })) {
      row.push_back({col, 0, uint32_t(coeff) + 1});
    }
  }
}

RowPlan Generator::plan(uint64_t row) const {
  RowPlan r{stream(p_.seed, kRowDomain, row), 0, 0, 0, 1, false, false, false, false};
  SplitMix& g = r.g;
  r.na = count(g, p_.nnz_a);
  r.nb = count(g, p_.nnz_b);
  r.nc = count(g, p_.nnz_c);
  r.s = g() & 1 ? -1 : 1;
  // circom's shapes draw only when asked for, so the PoRep-shaped circuits stay as they were.
  r.linear = p_.linear_fraction > 0 && g.unit() < p_.linear_fraction;
  r.square = !r.linear && p_.square_fraction > 0 && g.unit() < p_.square_fraction;
  r.chain = p_.chain_fraction > 0 && g.unit() < p_.chain_fraction;
  r.b_squared = !r.linear && !r.square && p_.b_squared_fraction > 0 && g.unit() < p_.b_squared_fraction;
  if (r.linear) r.na = r.nb = 0, r.nc = count(g, p_.nnz_c_linear);
  return r;
}

bool Generator::squared(uint64_t col) const {
  const uint64_t fresh = col + 1;
  if (col == 0 || fresh < p_.num_inputs || fresh - p_.num_inputs >= p_.num_constraints) return false;
  const RowPlan r = plan(fresh - p_.num_inputs);
  return r.square && r.chain && r.na > 0 && matches(kind(col), kind(fresh) == Kind::Other ? Want::Other : Want::Bit);
}

void Generator::build_row(uint64_t row, RowTerms& t) const {
  RowPlan r = plan(row);
  SplitMix& g = r.g;
  const uint64_t fresh = p_.num_inputs + row;  // v_r's column; every other term is below it
  const size_t na = r.na, nb = r.nb, nc = r.nc;
  const bool square = r.square, chain = r.chain;
  int64_t s = r.s;
  t.a.clear();
  t.b.clear();
  t.c.clear();
  const Kind k = kind(fresh);
  if (k == Kind::Other) {
    fill_other(g, fresh, na, t.a, chain);
    if (square)
      t.b = t.a;
    else
      fill_other(g, fresh, nb, t.b, false, r.b_squared);
    t.c.push_back({uint32_t(fresh), s});
    fill_c_other(g, fresh, nc, t.c);
    return;
  }
  const int64_t v = k == Kind::One;
  int64_t b = 0, p = 0;
  if (square) {
    b = fill_bits(g, fresh, na, t.a, chain);
    t.b = t.a;
    p = b * b;
  } else {
    b = fill_bits(g, fresh, nb, t.b, false);  // B first: a fixed order of draws
    p = fill_bits(g, fresh, na, t.a, chain) * b;
  }
  if (nc == 1 && v == 1 && (p == 1 || p == -1)) s = p;  // C = s·v_r alone already balances
  t.c.push_back({uint32_t(fresh), s});
  const int64_t partial = nc >= 2 ? fill_bits(g, fresh, nc - 2, t.c, false) - s * v : 0;
  const int64_t d = p - s * v - partial;  // what the balancing term must contribute
  if (d != 0) {
    add(t.c, pick(g, fresh, Want::One, t.c).value_or(0), d);
  } else if (nc >= 2) {
    if (auto z = pick(g, fresh, Want::Zero, t.c)) add(t.c, *z, small_coeff(g));
  }
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
template <class F>
void build_pass(const Generator& gen, CircuitT<F>& c, std::vector<std::vector<uint8_t>>& used, bool write) {
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
          const uint32_t code = code_of(en);
          if (code >= used[p].size()) used[p].resize(code + 1, 0);
          used[p][code] = 1;
          x.col[k] = en.col;
          x.coeff[k++] = code;
        }
      }
    }
  });
}

template <class F>
void build_matrices(const Generator& gen, CircuitT<F>& c, std::vector<std::vector<uint8_t>>& used) {
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

// Replaces codes by indices into a dictionary of the codes actually used: 1 and −1 (codes 0
// and 2) always first, then the others in code order.
template <class F>
void compact_dictionary(const Generator& gen, CircuitT<F>& c, const std::vector<std::vector<uint8_t>>& used) {
  constexpr uint32_t kOne = 2 * kCoeffOne, kMinusOne = 2 * kCoeffMinusOne;
  size_t n = kMinusOne + 1;
  for (const auto& u : used) n = std::max(n, u.size());
  std::vector<uint32_t> remap(n, 0);
  c.coeffs.clear();
  auto keep = [&](uint32_t code) {
    remap[code] = uint32_t(c.coeffs.size());
    c.coeffs.push_back(gen.value_of_code<F>(code));
  };
  keep(kOne);
  keep(kMinusOne);
  for (uint32_t code = 0; code < n; ++code) {
    if (code == kOne || code == kMinusOne) continue;
    if (std::any_of(used.begin(), used.end(), [&](const auto& u) { return code < u.size() && u[code]; })) keep(code);
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
template <class F>
void fill_witness(const Generator& gen, const CircuitT<F>& c, std::vector<F>& w) {
  const uint64_t ni = c.num_inputs;
  w.assign(c.num_vars(), F::zero());
  w[0] = F::one();
  for (uint64_t i = 1; i < ni; ++i) w[i] = gen.input_value<F>(i);
  parallel_for(c.num_aux, [&](size_t b, size_t e) {
    for (size_t j = b; j < e; ++j)
      if (gen.kind(ni + j) == Kind::One) w[ni + j] = F::one();
  });
  const F* dict = c.coeffs.data();
  for (uint64_t r = 0; r < c.num_constraints(); ++r) {
    if (gen.kind(ni + r) != Kind::Other) continue;
    // v_r is C's first entry of row r and still 0, so dot_row(C) is the rest of C.
    const F ab = dot_row(c.a, dict, w.data(), r) * dot_row(c.b, dict, w.data(), r);
    const F rest = dot_row(c.c, dict, w.data(), r);
    w[ni + r] = c.c.coeff[c.c.row_ptr[r]] == kCoeffOne ? ab - rest : rest - ab;
  }
}

// Share of the non-zeros of m whose coefficient is 1 or −1 (dictionary slots 0 and 1), and the
// dictionary slots it uses.
void count_coeffs(const CsrMatrix& m, uint64_t& unit, std::vector<uint8_t>& used) {
  for (uint32_t ci : m.coeff) {
    unit += ci <= kCoeffMinusOne;
    used[ci] = 1;
  }
}

// Row r of x and of y hold the same columns (circom writes x·x as (−x)·(x) = −x²).
bool same_columns(const CsrMatrix& x, const CsrMatrix& y, uint64_t r) {
  const uint64_t n = x.row_ptr[r + 1] - x.row_ptr[r];
  if (n != y.row_ptr[r + 1] - y.row_ptr[r]) return false;
  return std::equal(x.col.begin() + long(x.row_ptr[r]), x.col.begin() + long(x.row_ptr[r + 1]),
                    y.col.begin() + long(y.row_ptr[r]));
}

double ratio(double x, double y) { return y == 0 ? 0 : x / y; }

}  // namespace

constexpr uint32_t kMaxConsts = uint32_t(1) << 20;  // codes 2k + 1 stay far below 2^32

void check_synthetic_params(const SyntheticParams& p) {
  auto bad = [](const std::string& what) { throw InvalidArgument("synthetic circuit: " + what); };
  if (p.num_constraints == 0) bad("num_constraints is 0");
  if (p.num_inputs == 0) bad("num_inputs is 0 (it counts ONE)");
  if (p.num_inputs > kMaxVariables || p.num_constraints > kMaxVariables - p.num_inputs) bad("more than 2^32 variables");
  if (!(p.nnz_a >= 0 && p.nnz_a <= 64) || !(p.nnz_b >= 0 && p.nnz_b <= 64)) bad("nnz_a, nnz_b must be in [0, 64]");
  if (!(p.nnz_c >= 1 && p.nnz_c <= 64)) bad("nnz_c must be in [1, 64] (it includes the new variable)");
  if (!(p.zero_fraction >= 0 && p.zero_fraction <= p.bit_fraction && p.bit_fraction <= 1))
    bad("need 0 <= zero_fraction <= bit_fraction <= 1");
  if (!(p.nnz_c_linear >= 1 && p.nnz_c_linear <= 64)) bad("nnz_c_linear must be in [1, 64]");
  const std::pair<const char*, double> fractions[] = {{"linear_fraction", p.linear_fraction},
                                                      {"square_fraction", p.square_fraction},
                                                      {"chain_fraction", p.chain_fraction},
                                                      {"b_squared_fraction", p.b_squared_fraction},
                                                      {"const_fraction", p.const_fraction}};
  for (const auto& [name, f] : fractions)
    if (!(f >= 0 && f <= 1)) bad(std::string(name) + " must be in [0, 1]");
  if (p.num_consts > kMaxConsts) bad("num_consts must be at most 2^20");
  if (p.const_fraction > 0 && p.num_consts == 0) bad("const_fraction > 0 needs num_consts >= 1");
}

SyntheticParams circom_poseidon_shape(uint64_t num_constraints, uint64_t num_inputs, uint64_t seed) {
  SyntheticParams p;
  p.num_constraints = num_constraints;
  p.num_inputs = num_inputs;
  p.seed = seed;
  p.nnz_a = p.nnz_b = p.nnz_c = 1;  // x·y = z
  p.bit_fraction = p.zero_fraction = 0;
  p.linear_fraction = 0.531;
  p.nnz_c_linear = 3.28;
  p.square_fraction = 0.667;
  // A's columns are distinct in the real circuit (30,618 of 30,618): each S-box step consumes
  // the value computed just before it.
  p.chain_fraction = 1;
  p.b_squared_fraction = 1;  // B's 20,412 columns are exactly the squared ones
  p.const_fraction = 0.69;   // 1.57 of the 2.28 terms besides v_r
  p.num_consts = 448;
  return p;
}

template <class F>
SyntheticCircuitT<F> generate_synthetic(const SyntheticParams& params) {
  check_synthetic_params(params);
  const Generator gen(params);
  SyntheticCircuitT<F> out;
  CircuitT<F>& c = out.circuit;
  c.num_inputs = params.num_inputs;
  c.num_aux = params.num_constraints;
  const size_t parts = std::min<uint64_t>(params.num_constraints, ThreadPool::global().size() * 8);
  std::vector<std::vector<uint8_t>> used(parts);
  build_matrices(gen, c, used);
  compact_dictionary(gen, c, used);
  fill_witness(gen, c, out.witness);
  return out;
}

template <class F>
CircuitShape measure_shape(const CircuitT<F>& c, Values<F> witness) {
  if (!witness.empty() && witness.size() != c.num_vars())
    throw InvalidArgument("measure_shape: " + std::to_string(witness.size()) + " witness values for " +
                          std::to_string(c.num_vars()) + " variables");
  CircuitShape s;
  const uint64_t rows = c.num_constraints();
  s.constraints = rows;
  s.num_inputs = c.num_inputs;
  s.num_vars = c.num_vars();
  uint64_t linear = 0, c_linear = 0, square = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t na = c.a.row_ptr[r + 1] - c.a.row_ptr[r], nb = c.b.row_ptr[r + 1] - c.b.row_ptr[r];
    if (na == 0 && nb == 0) {
      ++linear;
      c_linear += c.c.row_ptr[r + 1] - c.c.row_ptr[r];
    } else {
      square += same_columns(c.a, c.b, r);
    }
  }
  const uint64_t nonlinear = rows - linear;
  s.nnz_a = ratio(c.a.nnz(), rows);
  s.nnz_b = ratio(c.b.nnz(), rows);
  s.nnz_c = ratio(c.c.nnz(), rows);
  s.linear_fraction = ratio(linear, rows);
  s.nnz_c_linear = ratio(c_linear, linear);
  s.nnz_a_nonlinear = ratio(c.a.nnz(), nonlinear);
  s.nnz_b_nonlinear = ratio(c.b.nnz(), nonlinear);
  s.nnz_c_nonlinear = ratio(c.c.nnz() - c_linear, nonlinear);
  s.square_fraction = ratio(square, nonlinear);
  const DensityBitmap da = density(c, Matrix::A), db = density(c, Matrix::B);
  s.a_density = ratio(da.count(0, s.num_vars), s.num_vars);
  s.b_density = ratio(db.count(0, s.num_vars), s.num_vars);
  uint64_t unit = 0;
  std::vector<uint8_t> used(c.coeffs.size(), 0);
  for (Matrix m : {Matrix::A, Matrix::B, Matrix::C}) count_coeffs(c.matrix(m), unit, used);
  s.unit_coeff_fraction = ratio(unit, c.a.nnz() + c.b.nnz() + c.c.nnz());
  s.dictionary_size = uint64_t(std::count(used.begin(), used.end(), uint8_t(1)));
  if (!witness.empty()) {
    uint64_t zeros = 0, ones = 0;
    for (uint64_t j = c.num_inputs; j < witness.size(); ++j) {
      zeros += witness[j].is_zero();
      ones += witness[j].is_one();
    }
    s.zero_fraction = ratio(zeros, c.num_aux);
    s.bit_fraction = ratio(zeros + ones, c.num_aux);
  }
  return s;
}

#define SNARKD_SYNTHETIC_INSTANTIATE(F)                                        \
  template SyntheticCircuitT<F> generate_synthetic<F>(const SyntheticParams&); \
  template CircuitShape measure_shape<F>(const CircuitT<F>&, Values<F>);
SNARKD_SYNTHETIC_INSTANTIATE(ff::Fr)
SNARKD_SYNTHETIC_INSTANTIATE(ff::bn254::Fr)
#undef SNARKD_SYNTHETIC_INSTANTIATE

}  // namespace snarkd::r1cs
