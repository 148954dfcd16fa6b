#include "ptau.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <random>
#include <stdexcept>
#include <type_traits>

#include "snarkd/ec/bn254.hpp"
#include "snarkd/ec/bn254_encoding.hpp"
#include "snarkd/ec/fixed_base.hpp"
#include "snarkd/poly/lagrange.hpp"
#include "snarkd/util/random.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::dev_ptau {
namespace {

using ec::bn254::G1Config;
using ec::bn254::G2Config;

template <class G>
Secrets draw(G& g) {
  return {Fr::random_nonzero(g), Fr::random_nonzero(g), Fr::random_nonzero(g)};  // in order: τ, α, β
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

// scale·τ^(first + j): the powers sections.
Run powers(uint64_t count, const Fr& tau, const Fr& scale) {
  return {count,
          [tau, scale](std::span<Fr> out, uint64_t first) { poly::geometric_into(out, scale * tau.pow(first), tau); }};
}

// scale·L_i(τ) over snarkjs's domain of 2^log_n (ω from 5). `truncated`: the top level of
// section 12, the inverse FFT of τ⁰..τ^(N−2) and a zero, which lacks the last term
// τ^(N−1)·ω^(−i(N−1))/N = τ^(N−1)·ωⁱ/N of L_i(τ) = (1/N)·Σ_{j<N} τʲ·ω^(−ij).
Run lagrange(uint32_t log_n, const Fr& tau, const Fr& scale, bool truncated) {
  return {uint64_t{1} << log_n, [=](std::span<Fr> out, uint64_t first) {
            poly::lagrange_into(out, first, log_n, tau, ff::bn254::kSnarkjsDomainGenerator, scale);
            if (!truncated) return;
            const uint64_t n = uint64_t{1} << log_n;
            const Fr omega = Fr::root_of_unity(log_n, ff::bn254::kSnarkjsDomainGenerator);
            const Fr k = scale * tau.pow(n - 1) * Fr::from_u64(n).inverse();
            std::vector<Fr> missing(out.size());
            poly::geometric_into(std::span<Fr>(missing), k * omega.pow(first), omega);
            parallel_for(out.size(), [&](size_t b, size_t e) {
              for (size_t j = b; j < e; ++j) out[j] -= missing[j];
            });
          }};
}

Section points(uint32_t id, bool g2, std::vector<Run> runs) { return {id, g2, std::move(runs), {}}; }

// Levels k = 0..top of a Lagrange section; section 12 (top = p + 1) truncates its last level.
Section lagrange_section(uint32_t id, bool g2, uint32_t top, bool truncate_top, const Fr& tau, const Fr& scale) {
  std::vector<Run> runs;
  for (uint32_t k = 0; k <= top; ++k) runs.push_back(lagrange(k, tau, scale, truncate_top && k == top));
  return points(id, g2, std::move(runs));
}

// Streams sections into the file, each section's points in chunks: scalars, then one
// fixed-base multiplication per point (both on the pool), then LEM bytes.
class Writer {
 public:
  Writer(const std::string& path, std::ostream* log)
      : path_(path), out_(path, std::ios::binary | std::ios::trunc), log_(log) {
    if (!out_) throw std::runtime_error(path + ": cannot create");
  }

  void file_header(uint32_t sections) {
    std::vector<uint8_t> h = {'p', 't', 'a', 'u'};
    put_u32(h, 1);  // version
    put_u32(h, sections);
    write(h);
  }

  void section(const Section& s) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<uint8_t> h;
    put_u32(h, s.id);
    for (int i = 0; i < 8; ++i) h.push_back(uint8_t(s.size() >> (8 * i)));
    write(h);
    write(s.bytes);
    uint64_t n = 0;
    for (const Run& r : s.runs) {
      s.g2 ? run(r, g2_) : run(r, g1_);
      n += r.count;
    }
    if (log_ && n > 0) {
      const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      char line[128];
      std::snprintf(line, sizeof line, "section %2u: %10llu %s points, %8.2f s\n", unsigned(s.id),
                    (unsigned long long)n, s.g2 ? "G2" : "G1", dt);
      *log_ << line << std::flush;
    }
  }

  void close() {
    out_.close();
    if (!out_) throw std::runtime_error(path_ + ": write failed");
  }

 private:
  static constexpr uint64_t kChunk = uint64_t{1} << 16;  // points per round: 8 MiB of G2 bytes

  template <class C>
  void run(const Run& r, const ec::FixedBaseTable<C>& table) {
    constexpr size_t kSize = std::is_same_v<C, G1Config> ? ec::bn254::kG1LemSize : ec::bn254::kG2LemSize;
    std::vector<Fr> scalars;
    std::vector<uint8_t> bytes;
    for (uint64_t first = 0; first < r.count; first += kChunk) {
      scalars.resize(std::min(kChunk, r.count - first));
      r.fill(std::span<Fr>(scalars), first);
      const auto pts = table.mul_many(scalars);
      bytes.resize(pts.size() * kSize);
      parallel_for(pts.size(), [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          if constexpr (std::is_same_v<C, G1Config>) {
            const auto enc = ec::bn254::encode_g1_lem(pts[i]);
            std::copy(enc.begin(), enc.end(), bytes.begin() + i * kSize);
          } else {
            const auto enc = ec::bn254::encode_g2_lem(pts[i]);
            std::copy(enc.begin(), enc.end(), bytes.begin() + i * kSize);
          }
        }
      });
      write(bytes);
    }
  }

  void write(const std::vector<uint8_t>& b) {
    out_.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    if (!out_) throw std::runtime_error(path_ + ": write failed");
  }

  std::string path_;
  std::ofstream out_;
  std::ostream* log_;
  ec::FixedBaseTable<G1Config> g1_{ec::bn254::kG1Generator};
  ec::FixedBaseTable<G2Config> g2_{ec::bn254::kG2Generator};
};

}  // namespace

Secrets secrets_from_seed(uint64_t seed) {
  std::mt19937_64 g(seed);
  return draw(g);
}

Secrets secrets_from_os() {
  OsRandom g;
  return draw(g);
}

uint64_t Section::size() const {
  uint64_t points = 0;
  for (const Run& r : runs) points += r.count;
  return bytes.size() + points * (g2 ? ec::bn254::kG2LemSize : ec::bn254::kG1LemSize);
}

std::vector<uint8_t> header_body(uint32_t power) {
  std::vector<uint8_t> h;
  put_u32(h, ff::bn254::Fp::kBytes);  // n8: bytes of the base field q
  for (size_t i = 0; i < ff::bn254::Fp::kBytes; ++i)
    h.push_back(uint8_t(ff::bn254::Fp::kModulus.limb[i / 8] >> (8 * (i % 8))));
  put_u32(h, power);
  put_u32(h, power);  // ceremonyPower: a ceremony of this size, not a truncated bigger one
  return h;
}

std::vector<Section> plan(uint32_t power, const Secrets& s, const std::string& comment) {
  if (power < kMinPower || power > kMaxPower)
    throw std::invalid_argument("power must be in [" + std::to_string(kMinPower) + ", " + std::to_string(kMaxPower) +
                                "]");
  const uint64_t n = uint64_t{1} << power;
  const Fr one = Fr::one();
  std::vector<Section> out;
  out.push_back({kHeader, false, {}, header_body(power)});
  out.push_back(points(kTauG1, false, {powers(2 * n - 1, s.tau, one)}));
  out.push_back(points(kTauG2, true, {powers(n, s.tau, one)}));
  out.push_back(points(kAlphaTauG1, false, {powers(n, s.tau, s.alpha)}));
  out.push_back(points(kBetaTauG1, false, {powers(n, s.tau, s.beta)}));
  out.push_back(points(kBetaG2, true, {powers(1, s.tau, s.beta)}));
  out.push_back({kContributions, false, {}, {0, 0, 0, 0}});  // no contribution records
  out.push_back(lagrange_section(kLagrangeTauG1, false, power + 1, true, s.tau, one));
  out.push_back(lagrange_section(kLagrangeTauG2, true, power, false, s.tau, one));
  out.push_back(lagrange_section(kLagrangeAlphaTauG1, false, power, false, s.tau, s.alpha));
  out.push_back(lagrange_section(kLagrangeBetaTauG1, false, power, false, s.tau, s.beta));
  out.push_back({kComment, false, {}, std::vector<uint8_t>(comment.begin(), comment.end())});
  return out;
}

void write_ptau(const std::string& path, std::span<const Section> sections, std::ostream* log) {
  Writer w(path, log);
  w.file_header(uint32_t(sections.size()));
  for (const Section& s : sections) w.section(s);
  w.close();
}

}  // namespace snarkd::dev_ptau
