// The simulated device's workers (sim_device.hpp): upload, the fully resident compute stage (the
// CPU prover over the arena's witness), and the two streamed steps over the chunk catalogue.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

#include "snarkd/engine/compact_upload.hpp"
#include "snarkd/engine/sim_device.hpp"
#include "snarkd/groth16/qap.hpp"
#include "snarkd/msm/msm.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::engine {

namespace {

using Clock = std::chrono::steady_clock;
using ff::Fr;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// The 8-byte pattern that fills a reservation past its data: distinct per reservation use.
uint64_t tag_of(uint64_t offset, uint64_t serial) {
  uint64_t x = offset * 0x9e3779b97f4a7c15ULL ^ serial;
  x ^= x >> 31;
  return x * 0xbf58476d1ce4e5b9ULL | 1;
}

// One matrix's rows [first, first + count) as a chunk holds them: row_ptr absolute (count + 1
// offsets), col/coeff starting at row_ptr[0].
struct RowsOf {
  const uint64_t* row_ptr = nullptr;
  const uint32_t* col = nullptr;
  const uint32_t* coeff = nullptr;
};
struct RowsView {
  uint64_t first = 0, count = 0;
  RowsOf m[3];  // the part's matrices, in KeyCatalogue::rows_matrices order
};

Fr row_dot(const RowsOf& m, uint64_t r, const std::vector<Fr>& dict, const Fr* w) {
  Fr acc = Fr::zero();
  const uint64_t k0 = m.row_ptr[0];
  for (uint64_t k = m.row_ptr[r] - k0, end = m.row_ptr[r + 1] - k0; k < end; ++k) {
    const Fr& x = w[m.col[k]];
    const uint32_t ci = m.coeff[k];
    if (ci == r1cs::kCoeffOne) acc += x;
    else if (ci == r1cs::kCoeffMinusOne) acc -= x;
    else acc += dict[ci] * x;
  }
  return acc;
}

template <class C>
using AffineOf = ec::Affine<C>;

}  // namespace

class SimWorker final : public DeviceWorker {
 public:
  SimWorker(SimDevice& d, uint32_t index) : d_(d), index_(index), serial_(uint64_t{index} << 40) {}

  void upload(const CircuitEntry& c, const groth16::AnyScalars& any, const Reservation& r) override {
    if (groth16::curve_of(any) != c.curve()) throw InvalidArgument("simulated upload: the witness is of another curve");
    const auto witness = std::visit([](const auto& w) { return std::as_bytes(std::span(w)); }, any);
    const uint64_t wbytes = witness.size_bytes();
    if (wbytes > r.bytes() || wbytes != c.witness_bytes())
      throw InvalidArgument("simulated upload: the witness does not fit its reservation");
    std::lock_guard engine(*d_.copy_engine_);
    const auto t0 = Clock::now();
    std::byte* base = d_.arena_.get() + r.offset();
    // A compacted witness: the bytes on the wire are the compact arrays, and the arena gets the
    // CPU twin's expansion of them (the CUDA worker expands on the device).
    uint64_t scratch = 0, moved = wbytes;
    if (const r1cs::CompactWitness* cw = prepared_.usable(witness.data(), wbytes, 0, r.bytes(), &scratch)) {
      std::memcpy(base, r1cs::expand_witness(*cw).data(), wbytes);
      moved = cw->payload_bytes();
    } else {
      std::memcpy(base, witness.data(), wbytes);
    }
    tag_ = tag_of(r.offset(), ++serial_);
    for (uint64_t off = wbytes; off + 8 <= r.bytes(); off += 8) std::memcpy(base + off, &tag_, 8);
    double t = d_.cfg_.upload_s;
    if (d_.cfg_.upload_bytes_per_s > 0) t += double(moved) / d_.cfg_.upload_bytes_per_s;
    d_.witness_bytes_ += moved;
    std::this_thread::sleep_until(t0 + seconds(t));
    if (d_.cfg_.hold_uploads) SimDevice::wait_while_held(d_.cfg_.hold_file);
  }

  double prepare(const CircuitEntry& c, const groth16::AnyScalars& witness) override {
    return prepared_.prepare(c, witness);
  }
  void compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& clock,
                    const std::stop_token& stop) override;
  groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation& r, StageClock& clock,
                                const std::stop_token& stop) override;
  void upload_abc(const CircuitEntry& c, const groth16::AbcAssignment& p, const Reservation& r) override;
  groth16::QuerySums compute_abc(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                 const std::stop_token& stop) override;

 private:
  // The compute engine for one step (FIFO; a stop gives up the place in the queue); its wait is
  // a span. finish() keeps the SMs busy for at least `seconds` (the step's configured time) and while
  // the test hold lasts; a stop ends either wait at once, as a real device's kernels stop at
  // their next boundary, and makes it throw Cancelled.
  class Engine {
   public:
    Engine(SimDevice& d, StageClock& clock, double seconds, const std::stop_token& stop, bool witness_msms = false)
        : d_(d), lane_(witness_msms && d.cfg_.compute_lanes > 1 ? *d.msm_lane_ : *d.compute_engine_),
          seconds_(seconds), stop_(stop) {
      const double w0 = clock.now();
      lane_.lock(stop);
      const double w1 = clock.now();
      if (w1 > w0) clock.span(Stage::kWaitCompute, w0, w1);
      t0_ = Clock::now();
    }
    ~Engine() {
      if (!finished_) wait();  // a step that threw: its time too (a stop ends it)
      d_.busy_ns_ += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
      lane_.unlock();
    }
    void finish() {
      finished_ = true;
      if (!wait()) throw Cancelled("simulated device: cancelled during the compute stage");
    }

   private:
    bool wait() const {  // false: a stop ended it
      return sleep_until(t0_ + seconds(seconds_), stop_) &&
             SimDevice::wait_while_held(d_.cfg_.hold_file, stop_);
    }

    SimDevice& d_;
    SimDevice::FifoLock& lane_;
    double seconds_;
    const std::stop_token& stop_;
    Clock::time_point t0_;
    bool finished_ = false;
  };

  void check_tag(const std::byte* base, uint64_t from, uint64_t to) const {
    for (uint64_t off = from; off + 8 <= to; off += 8) {
      uint64_t v;
      std::memcpy(&v, base + off, 8);
      if (v != tag_)
        throw VramCorruption("simulated VRAM corrupted at offset " + std::to_string(off) +
                             " of a reservation: another partition wrote into it");
    }
  }

  template <class F>
  void for_each_rows(const SimDevice::Loaded& l, KeyPart part, const std::stop_token& stop, F&& f);
  template <class F>
  void for_each_query(const SimDevice::Loaded& l, KeyPart part, const std::stop_token& stop, F&& f);
  template <class C>
  ec::Jacobian<C> witness_msm(const SimDevice::Loaded& l, KeyPart part, const Fr* w, const std::stop_token& stop);
  groth16::QuerySums witness_sums(const SimDevice::Loaded& l, const Fr* w, const std::stop_token& stop);
  void qap_h(const CircuitEntry& c, const SimDevice::Loaded& l, const Reservation& r, const std::stop_token& stop);
  void h_msm(const SimDevice::Loaded& l, const std::byte* kept, const std::stop_token& stop);
  groth16::QuerySums one_step(const CircuitEntry& c, const SimDevice::Loaded& l, Reservation& r, StageClock& clock,
                              const std::stop_token& stop);
  static uint64_t scratch_bytes(const CircuitEntry& c) {
    return VramLedger::round_up(c.pk->domain_size() * sizeof(Fr) / 4);
  }
  static uint64_t kept_bytes(const CircuitEntry& c) {  // [scratch | H scalars]
    return scratch_bytes(c) + VramLedger::round_up(c.pk->domain_size() * sizeof(Fr));
  }

  SimDevice& d_;
  uint32_t index_;
  uint64_t tag_ = 0, serial_ = 0;
  ec::G1Jacobian h_sum_;  // step 0's H sum, for the last step
  uint64_t abc_popcounts_[3] = {};  // the uploaded a/b/c partition's a_aux, b_inp, b_aux counts
  PreparedWitness prepared_;
};

// The a/b/c upload: [inputs | aux | a | b | c (zero-padded to n) | density words], then the tag.
void SimWorker::upload_abc(const CircuitEntry& c, const groth16::AbcAssignment& p, const Reservation& r) {
  const SimDevice::AbcLayout l = SimDevice::abc_layout(c);
  if (r.bytes() < l.total) throw InvalidArgument("simulated upload: the a/b/c partition does not fit its reservation");
  std::lock_guard engine(*d_.copy_engine_);
  const auto t0 = Clock::now();
  std::byte* base = d_.arena_.get() + r.offset();
  const uint64_t n = c.pk->domain_size();
  auto put = [&](uint64_t at, std::span<const Fr> v, uint64_t pad_to) {
    std::memcpy(base + at, v.data(), v.size_bytes());
    std::memset(base + at + v.size_bytes(), 0, (pad_to - v.size()) * sizeof(Fr));
  };
  put(0, p.inputs, p.inputs.size());
  put(p.inputs.size_bytes(), p.aux, p.aux.size());
  put(l.a, p.a, n);
  put(l.b, p.b, n);
  put(l.c, p.c, n);
  uint64_t at = l.words;
  for (const groth16::DensityBits* d : {&p.a_aux, &p.b_inputs, &p.b_aux}) {
    const uint64_t bytes = (d->bit_len + 63) / 64 * 8;
    std::memcpy(base + at, d->words, bytes);
    at += bytes;
  }
  abc_popcounts_[0] = p.a_aux.popcount, abc_popcounts_[1] = p.b_inputs.popcount, abc_popcounts_[2] = p.b_aux.popcount;
  tag_ = tag_of(r.offset(), ++serial_);
  for (uint64_t off = VramLedger::round_up(l.end); off + 8 <= r.bytes(); off += 8) std::memcpy(base + off, &tag_, 8);
  const uint64_t bytes = l.end;
  double t = d_.cfg_.upload_s;
  if (d_.cfg_.upload_bytes_per_s > 0) t += double(bytes) / d_.cfg_.upload_bytes_per_s;
  d_.witness_bytes_ += bytes;
  std::this_thread::sleep_until(t0 + seconds(t));
  if (d_.cfg_.hold_uploads) SimDevice::wait_while_held(d_.cfg_.hold_file);
}

// The CPU reference (groth16::compute_sums_abc) over what the arena holds.
groth16::QuerySums SimWorker::compute_abc(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                          const std::stop_token& stop) {
  const SimDevice::AbcLayout l = SimDevice::abc_layout(c);
  const std::byte* base = d_.arena_.get() + r.offset();
  const uint64_t n = c.pk->domain_size(), ni = c.num_inputs(), na = c.num_vars() - ni;
  auto fr = [&](uint64_t at, uint64_t len) { return std::span<const Fr>(reinterpret_cast<const Fr*>(base + at), len); };
  const auto* words = reinterpret_cast<const uint64_t*>(base + l.words);
  const uint64_t aux_words = (na + 63) / 64;
  const groth16::AbcAssignment p{fr(l.a, n), fr(l.b, n), fr(l.c, n), fr(0, ni), fr(ni * sizeof(Fr), na),
                                 groth16::DensityBits{words, na, abc_popcounts_[0]},
                                 groth16::DensityBits{words + aux_words, ni, abc_popcounts_[1]},
                                 groth16::DensityBits{words + aux_words + (ni + 63) / 64, na, abc_popcounts_[2]}};
  Engine engine(d_, clock, d_.cfg_.compute_s, stop);
  groth16::ProveOptions opt;
  opt.threads = 1;
  opt.stop = stop;
  const InlinePoolScope inline_pool;
  groth16::ProveTimings t;
  std::exception_ptr failure;
  groth16::QuerySums sums;
  try {
    sums = groth16::compute_sums_abc(*c.pk, p, "partition", opt, t);
  } catch (...) {
    failure = std::current_exception();
  }
  engine.finish();  // a stop that ended the proof early throws Cancelled here
  check_tag(base, VramLedger::round_up(l.end), r.bytes());
  if (failure) std::rethrow_exception(failure);
  return sums;
}

// f(const RowsView&) over the part's rows: one view of the resident matrices, or each streamed
// chunk as it arrives in a slot. Throws Cancelled before each chunk once `stop` is requested.
template <class F>
void SimWorker::for_each_rows(const SimDevice::Loaded& l, KeyPart part, const std::stop_token& stop, F&& f) {
  const auto& ms = l.cat.rows_matrices[part == KeyPart::kRows1 ? 0 : 1];
  if (l.plan.matrices) {
    RowsView v{0, l.entry.circuit->num_constraints(), {}};
    for (size_t i = 0; i < ms.size(); ++i) {
      const auto& at = l.matrix_at[size_t(ms[i])];
      const std::byte* a = d_.arena_.get();
      v.m[i] = {reinterpret_cast<const uint64_t*>(a + at[0]), reinterpret_cast<const uint32_t*>(a + at[1]),
                reinterpret_cast<const uint32_t*>(a + at[2])};
    }
    throw_if_stopped(stop, "simulated device");
    return f(v);
  }
  if (l.ids[size_t(part)].empty()) return;
  auto sub = d_.streamer_->subscribe(index_, l.ids[size_t(part)]);
  while (auto lease = sub.next(stop)) {  // a stop: nothing, and the lease goes back as we throw
    throw_if_stopped(stop, "simulated device");
    const StreamChunk& ch = *lease->chunk;
    const std::byte* data = d_.slot_data(lease->slot);
    RowsView v{ch.first, ch.count, {}};
    std::vector<uint64_t> expanded[3];  // short-form chunks: the row offsets, from the slot's bytes
    for (size_t i = 0; i < ms.size(); ++i) {
      const RowsAt& at = ch.rows[i];
      const auto* starts = reinterpret_cast<const uint64_t*>(data + at.starts);
      if (at.short_form)
        expanded[i] = r1cs::expand_short_rows(starts, reinterpret_cast<const uint8_t*>(data + at.len), ch.count);
      v.m[i] = {at.short_form ? expanded[i].data() : starts, reinterpret_cast<const uint32_t*>(data + at.col),
                reinterpret_cast<const uint32_t*>(data + at.coeff)};
    }
    f(v);
  }
  throw_if_stopped(stop, "simulated device");
}

// f(first, count, points, index) over the query part's chunks: the resident prefix, then the
// streamed chunks as they arrive (subscribed first, so the copies start at once). Throws
// Cancelled before each chunk once `stop` is requested.
template <class F>
void SimWorker::for_each_query(const SimDevice::Loaded& l, KeyPart part, const std::stop_token& stop, F&& f) {
  const size_t qi = query_index(part);
  const QueryShape& q = l.cat.query[qi];
  std::optional<ChunkStreamer::Subscription> sub;
  if (!l.ids[size_t(part)].empty()) sub.emplace(d_.streamer_->subscribe(index_, l.ids[size_t(part)]));
  const std::byte* a = d_.arena_.get();
  for (const StreamChunk& ch : l.cat.of(part)) {
    if (!l.plan.resident(part, ch.index)) break;
    throw_if_stopped(stop, "simulated device");
    const std::byte* pts = a + l.part_at[qi][0] + ch.first * q.point_bytes;
    const uint32_t* idx = q.index ? reinterpret_cast<const uint32_t*>(a + l.part_at[qi][1]) + ch.first : nullptr;
    f(ch.first, ch.count, pts, idx);
  }
  while (auto lease = sub ? sub->next(stop) : std::nullopt) {
    throw_if_stopped(stop, "simulated device");
    const StreamChunk& ch = *lease->chunk;
    const std::byte* data = d_.slot_data(lease->slot);
    const uint32_t* idx = q.index ? reinterpret_cast<const uint32_t*>(data + ch.segments[1].offset) : nullptr;
    f(ch.first, ch.count, data + ch.segments[0].offset, idx);
  }
  throw_if_stopped(stop, "simulated device");
}

template <class C>
ec::Jacobian<C> SimWorker::witness_msm(const SimDevice::Loaded& l, KeyPart part, const Fr* w,
                                       const std::stop_token& stop) {
  const uint64_t offset = part == KeyPart::kL ? l.entry.circuit->num_inputs : 0;
  ec::Jacobian<C> sum = ec::Jacobian<C>::infinity();
  std::vector<Fr> scalars;
  msm::Options opt;
  opt.threads = 1;
  opt.stop = stop;
  for_each_query(l, part, stop, [&](uint64_t first, uint64_t count, const std::byte* pts, const uint32_t* idx) {
    scalars.resize(count);
    for (uint64_t k = 0; k < count; ++k) scalars[k] = idx ? w[idx[k]] : w[offset + first + k];
    const std::span<const AffineOf<C>> bases(reinterpret_cast<const AffineOf<C>*>(pts), count);
    sum += msm::msm_split<C>(bases, scalars, nullptr, opt);
  });
  return sum;
}

// Step 0 of a streamed partition: [w | b | scratch | a] → H scalars in a; keep [scratch | H]
// and sum the H MSM over h's chunks.
void SimWorker::compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& clock,
                             const std::stop_token& stop) {
  if (step != 0) throw std::logic_error("simulated device: no step " + std::to_string(step));
  const auto l = d_.loaded(c.id);
  Engine engine(d_, clock, d_.step_seconds(0), stop);
  const InlinePoolScope inline_pool;
  qap_h(c, *l, r, stop);
  r.keep_tail(kept_bytes(c));  // the witness and b go back to the ledger now
  h_msm(*l, d_.arena_.get() + r.offset(), stop);
  engine.finish();
  check_tag(d_.arena_.get() + r.offset(), 0, scratch_bytes(c));
}

// Pass 1, H, pass 2 over [w | b | scratch | a]: the H scalars in a (the range's last n values).
void SimWorker::qap_h(const CircuitEntry& c, const SimDevice::Loaded& ld, const Reservation& r,
                      const std::stop_token& stop) {
  const SimDevice::Loaded* l = &ld;
  const r1cs::Circuit& circuit = *c.circuit;
  const bool bellperson = c.pk->flavour == groth16::KeyFlavour::kBellperson;
  const uint64_t n = c.pk->domain_size(), m = circuit.num_constraints();
  const uint64_t wb = VramLedger::round_up(c.witness_bytes()), vb = VramLedger::round_up(n * sizeof(Fr));
  const uint64_t sb = VramLedger::round_up(n * sizeof(Fr) / 4);
  std::byte* base = d_.arena_.get() + r.offset();
  const Fr* w = reinterpret_cast<const Fr*>(base);
  Fr* b = reinterpret_cast<Fr*>(base + wb);
  Fr* a = reinterpret_cast<Fr*>(base + wb + vb + sb);
  // Pass 1: a and b; then the rows past m.
  for_each_rows(*l, KeyPart::kRows1, stop, [&](const RowsView& v) {
    for (uint64_t k = 0; k < v.count; ++k) {
      const uint64_t i = v.first + k;
      a[i] = row_dot(v.m[0], k, circuit.coeffs, w);
      b[i] = row_dot(v.m[1], k, circuit.coeffs, w);
    }
  });
  for (uint64_t i = m; i < n; ++i) {
    a[i] = bellperson && i - m < circuit.num_inputs ? w[i - m] : Fr::zero();
    b[i] = Fr::zero();
  }
  groth16::QapEvaluations e{std::vector<Fr>(a, a + n), std::vector<Fr>(b, b + n), {}};
  // Pass 2: c into b's place (bellperson C·w, each row checked against a·b here, where the CUDA
  // prover checks H's top coefficient; snarkjs a∘b recomputed from A and B).
  uint64_t fail = UINT64_MAX;
  for_each_rows(*l, KeyPart::kRows2, stop, [&](const RowsView& v) {
    for (uint64_t k = 0; k < v.count; ++k) {
      const uint64_t i = v.first + k;
      b[i] = bellperson ? row_dot(v.m[0], k, circuit.coeffs, w)
                        : row_dot(v.m[0], k, circuit.coeffs, w) * row_dot(v.m[1], k, circuit.coeffs, w);
      if (bellperson && b[i] != e.a[i] * e.b[i]) fail = std::min(fail, i);
    }
  });
  if (fail != UINT64_MAX)
    throw groth16::UnsatisfiedWitness("the witness does not satisfy constraint " + std::to_string(fail), fail);
  for (uint64_t i = m; i < n; ++i) b[i] = Fr::zero();
  e.c.assign(b, b + n);
  throw_if_stopped(stop, "simulated device");
  const std::vector<Fr> h = groth16::h_scalars(c.pk->flavour, c.pk->log_domain, std::move(e));
  std::copy(h.begin(), h.end(), a);
  check_tag(base, wb + vb, wb + vb + sb);
}

// The H MSM over h's chunks, the kept [scratch | H scalars] at `kept`.
void SimWorker::h_msm(const SimDevice::Loaded& ld, const std::byte* kept, const std::stop_token& stop) {
  const SimDevice::Loaded* l = &ld;
  const uint64_t sb = VramLedger::round_up(l->entry.pk->domain_size() * sizeof(Fr) / 4);
  const Fr* hs = reinterpret_cast<const Fr*>(kept + sb);
  h_sum_ = ec::G1Jacobian::infinity();
  msm::Options opt;
  opt.threads = 1;
  opt.stop = stop;
  for_each_query(*l, KeyPart::kH, stop, [&](uint64_t first, uint64_t count, const std::byte* pts, const uint32_t*) {
    const std::span<const ec::G1Affine> bases(reinterpret_cast<const ec::G1Affine*>(pts), count);
    h_sum_ += msm::msm<ec::G1Config>(bases, std::span<const Fr>(hs + first, count), opt);
  });
}

groth16::AnyQuerySums SimWorker::compute(const CircuitEntry& c, Reservation& r, StageClock& clock,
                                         const std::stop_token& stop) {
  const auto l = d_.loaded(c.id);
  const std::byte* base = d_.arena_.get() + r.offset();
  const Fr* w = reinterpret_cast<const Fr*>(base);
  if (!l->plan.full && l->plan.steps.size() == 1) return one_step(c, *l, r, clock, stop);
  if (!l->plan.full) {
    // Step 1 of a streamed partition: the witness MSMs over their chunks.
    Engine engine(d_, clock, d_.step_seconds(1), stop, true);
    const InlinePoolScope inline_pool;
    groth16::QuerySums s = witness_sums(*l, w, stop);
    s.h = h_sum_;
    engine.finish();
    check_tag(base, c.witness_bytes(), r.bytes());
    return s;
  }
  Engine engine(d_, clock, d_.cfg_.compute_s, stop);
  groth16::ProveOptions opt;
  opt.threads = 1;
  opt.stop = stop;
  const InlinePoolScope inline_pool;  // tiny circuits: pool wake-ups would dominate
  groth16::ProveTimings t;
  // The sums are computed even if the tag check below fails, so the SMs' time is realistic.
  std::exception_ptr failure;
  groth16::AnyQuerySums sums;
  try {
    sums = groth16::with_curve(c.curve(), [&](auto e) -> groth16::AnyQuerySums {
      using E = decltype(e);
      const auto* we = reinterpret_cast<const typename E::Fr*>(base);  // the arena holds the witness's bytes
      return groth16::compute_sums(c.key_of<E>(), std::span<const typename E::Fr>(we, c.num_vars()), opt, t);
    });
  } catch (...) {
    failure = std::current_exception();
  }
  engine.finish();  // a stop that ended compute_sums early throws Cancelled here
  check_tag(base, c.witness_bytes(), r.bytes());
  if (failure) std::rethrow_exception(failure);
  return sums;
}

groth16::QuerySums SimWorker::witness_sums(const SimDevice::Loaded& l, const Fr* w, const std::stop_token& stop) {
  groth16::QuerySums s;
  s.a = witness_msm<ec::G1Config>(l, KeyPart::kA, w, stop);
  s.b1 = witness_msm<ec::G1Config>(l, KeyPart::kB1, w, stop);
  s.b2 = witness_msm<ec::G2Config>(l, KeyPart::kB2, w, stop);
  s.l = witness_msm<ec::G1Config>(l, KeyPart::kL, w, stop);
  return s;
}

// A streamed partition in one step, as the CUDA worker runs it: QAP and H over [w | b | scratch |
// a], the witness MSMs on the witness uploaded once, then only [scratch | H scalars] kept for
// the H MSM. One compute lane: all of it holds the SMs (step0_s + step1_s). Two lanes: the
// witness MSMs (PCIe-bound on a GPU) run on their own lane beside the H MSM (compute-bound),
// the range shrinking to the kept tail as soon as they end.
groth16::QuerySums SimWorker::one_step(const CircuitEntry& c, const SimDevice::Loaded& l, Reservation& r,
                                       StageClock& clock, const std::stop_token& stop) {
  const Fr* w = reinterpret_cast<const Fr*>(d_.arena_.get() + r.offset());
  const uint64_t kept = kept_bytes(c);
  groth16::QuerySums s;
  if (d_.cfg_.compute_lanes < 2) {
    Engine engine(d_, clock, d_.step_seconds(0) + d_.step_seconds(1), stop);
    const InlinePoolScope inline_pool;
    qap_h(c, l, r, stop);
    s = witness_sums(l, w, stop);
    r.keep_tail(kept);  // w, b and the scratch's head go back before the H MSM
    h_msm(l, d_.arena_.get() + r.offset(), stop);
    engine.finish();
  } else {
    Engine engine(d_, clock, d_.step_seconds(0), stop);
    const InlinePoolScope inline_pool;
    qap_h(c, l, r, stop);
    const std::byte* tail = d_.arena_.get() + r.offset() + (r.bytes() - kept);  // before the thread shrinks r
    std::exception_ptr failed;
    // The lane's wait is not the partition's compute-engine wait (the stage began with Q).
    struct LaneClock final : StageClock {
      explicit LaneClock(StageClock& c) : c_(c) {}
      double now() const override { return c_.now(); }
      void span(Stage, double, double) override {}
      void phase(const char*, double) override {}
      StageClock& c_;
    } lane_clock(clock);
    std::thread msms([&] {
      try {
        Engine lane(d_, lane_clock, d_.step_seconds(1), stop, true);
        const InlinePoolScope pool;
        s = witness_sums(l, w, stop);
        lane.finish();
        r.keep_tail(kept);  // the H MSM reads only the tail; nothing else touches r until the join
      } catch (...) {
        failed = std::current_exception();
      }
    });
    try {
      h_msm(l, tail, stop);
      engine.finish();
    } catch (...) {
      msms.join();
      throw;
    }
    msms.join();
    if (failed) std::rethrow_exception(failed);
  }
  s.h = h_sum_;
  check_tag(d_.arena_.get() + r.offset(), 0, scratch_bytes(c));
  return s;
}

std::unique_ptr<DeviceWorker> SimDevice::make_worker(uint32_t i) { return std::make_unique<SimWorker>(*this, i); }

}  // namespace snarkd::engine
