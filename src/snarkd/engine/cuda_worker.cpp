// The CUDA device's workers (cuda_device.hpp): witness upload through the cuda/ stager, the
// fully resident one-step partition (cuda::prove_on_stream; BN254 keys: the snarkjs prover's
// prove_on_stream<Bn254>), and the two streamed steps (cuda/prover_stream.hpp) fed with resident
// chunks and with chunks leased from the slots.
#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "snarkd/engine/compact_upload.hpp"
#include "snarkd/engine/cuda_device.hpp"
#include "snarkd/cuda/witness_stager.hpp"
#include "snarkd/util/cancel.hpp"
#include "snarkd/util/env.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {

class CudaWorker final : public DeviceWorker {
 public:
  CudaWorker(CudaDevice& d, uint32_t index) : d_(d), index_(index), guard_(int(d.index())) {
    sums_ = cuda::PinnedBuffer<cuda::DeviceSums>(1);
    bn254_sums_ = cuda::PinnedBuffer<cuda::SnarkjsDeviceSums<groth16::Bn254>>(1);  // start-up, not per proof
    count_ = cuda::PinnedBuffer<uint64_t>(1);
    two_lanes_ = env_u64("SNARKD_MSM_LANES", 2, 1, 2) == 2;  // 1: the one step's MSMs one after the other
    early_msms_ = env_u64("SNARKD_EARLY_MSM_CHUNKS", 1, 0, 1) == 1;  // 0: no early subscriptions (A/B runs)
    for (auto& e : phase_) e = cuda::Event(true);
  }

  void upload(const CircuitEntry& c, const groth16::AnyScalars& witness, const Reservation& r) override;
  bool upload_in_place(const CudaDevice::Loaded& l, std::span<const std::byte> witness, const Reservation& r);
  double prepare(const CircuitEntry& c, const groth16::AnyScalars& witness) override {
    return prepared_.prepare(c, witness);
  }
  void settle() override { copy_.synchronize(); }  // this worker's copy stream only
  void compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& clock,
                    const std::stop_token& stop) override;
  groth16::AnyQuerySums compute(const CircuitEntry& c, Reservation& r, StageClock& clock,
                             const std::stop_token& stop) override;
  void upload_abc(const CircuitEntry& c, const groth16::AbcAssignment& p, const Reservation& r) override;
  groth16::QuerySums compute_abc(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                 const std::stop_token& stop) override;

 private:
  // consumer: the streamer's id of the reading stream (index_ for compute_, workers + index_
  // for msm_: each stream records its own consumed events).
  cuda::ChunkFeed feed(const CudaDevice::Loaded& l, const std::stop_token& stop, cudaStream_t stream,
                       uint32_t consumer);
  cuda::ChunkFeed feed(const CudaDevice::Loaded& l, const std::stop_token& stop) {
    return feed(l, stop, compute_, index_);
  }
  groth16::QuerySums one_step(const CudaDevice::Loaded& l, Reservation& r, StageClock& clock,
                              const std::stop_token& stop);
  void subscribe_early(const CudaDevice::Loaded& l);
  groth16::QuerySums both_msms(const CudaDevice::Loaded& l, Reservation& r, StageClock& clock,
                               const std::stop_token& stop);
  // A BN254 partition: the snarkjs prover over the fully resident key.
  groth16::AnyQuerySums compute_bn254(const CudaDevice::Loaded& l, const Reservation& r, StageClock& clock,
                                      const std::stop_token& stop);
  void report(StageClock& clock, const cuda::PhaseTimer& t) {
    for (const auto& [name, s] : t.seconds()) clock.phase(name, s);
  }
  // The one-stream provers' timing events (phase_), and their seconds once the stream passed them.
  cuda::PhaseEvents phase_events() const {
    cuda::PhaseEvents ev;
    for (size_t k = 0; k < phase_.size(); ++k) ev.at[k] = phase_[k].get();
    return ev;
  }
  static void report(StageClock& clock, const cuda::PhaseEvents& ev) {
    const auto seconds = cuda::phase_seconds(ev);
    for (size_t k = 0; k < seconds.size(); ++k) clock.phase(cuda::kProverPhaseNames[k], seconds[k]);
  }

  CudaDevice& d_;
  uint32_t index_;
  cuda::DeviceGuard guard_;  // streams and events below belong to the device
  cuda::Stream copy_, compute_;
  cuda::Stream msm_;  // the one step's witness MSMs beside the H MSM (two_lanes_)
  bool two_lanes_ = true;
  // The one step's two lanes subscribe to their first parts (H on compute_, A on msm_) as soon
  // as pass 2's rows are all leased, so their first chunks copy during the H phase, when PCIe is
  // otherwise idle (~0.3 s of a PoRep partition), instead of after it (each lane waited ~12 ms
  // for its first chunk). feed() takes them over; one_step drops what is left when it ends.
  bool early_msms_ = true, early_armed_ = false;
  std::array<std::optional<ChunkStreamer::Subscription>, kKeyParts> early_;
  cuda::WitnessStager stager_;
  cuda::Event computed_ = cuda::Event::blocking(), sync_ = cuda::Event::blocking();
  cuda::Event msm_sync_ = cuda::Event::blocking();
  std::array<cuda::Event, cuda::kProverPhases + 1> phase_;  // timing events (constructor)
  cuda::PhaseTimer timer_, msm_timer_;
  cuda::PinnedBuffer<cuda::DeviceSums> sums_;
  cuda::PinnedBuffer<cuda::SnarkjsDeviceSums<groth16::Bn254>> bn254_sums_;
  cuda::PinnedBuffer<uint64_t> count_, msm_count_ = cuda::PinnedBuffer<uint64_t>(1);
  cuda::PackedDensity a_density_, b_density_;  // the last a/b/c upload's (staged by then)
  PreparedWitness prepared_;
  bool in_place_ = false;  // the last upload's witness is compact, read in place
  // The layout of the partition this worker last uploaded (a worker computes what it uploaded).
  const cuda::StreamLayout& layout(const CudaDevice::Loaded& l) const { return in_place_ ? *l.in_place : l.layout; }
};

namespace {

// A stage that throws (a cancel's Cancelled included) leaves no kernel or copy running over
// memory the engine is about to give back: the worker's stream is drained first (this stream
// only).
template <class Fn>
auto drained_on_error(cudaStream_t stream, Fn&& fn) {
  try {
    return fn();
  } catch (...) {
    cudaStreamSynchronize(stream);
    throw;
  }
}

// After the reads a visit enqueued on a slot, whether it returned or threw: the consumed event
// the slot's next fill waits for, and a device hold the streamer keeps until the consumer's
// stream has passed the reads (a host function ends it).
struct ConsumedMark {
  cudaEvent_t event;
  cudaStream_t stream;
  ChunkStreamer::Lease* lease;
  ~ConsumedMark() {
    cudaEventRecord(event, stream);
    ChunkStreamer::DeviceHold* hold = lease->hold_for_device();
    auto done = [](void* h) { ChunkStreamer::done(static_cast<ChunkStreamer::DeviceHold*>(h)); };
    if (cudaLaunchHostFunc(stream, done, hold) != cudaSuccess) ChunkStreamer::done(hold);
  }
};

}  // namespace

// The witness's bytes go to its place in the reservation (either curve's scalars are 32 bytes in
// the device's layout: only the offset depends on the key's kind).
void CudaWorker::upload(const CircuitEntry& c, const groth16::AnyScalars& any, const Reservation& r) {
  cuda::DeviceGuard g(int(d_.index()));
  const auto l = d_.loaded(c.id);
  std::span<const std::byte> witness;
  uint64_t at = 0;
  if (l->bn254) {
    const auto& w = groth16::as_curve<groth16::Bn254>(any, "the witness");
    if (w.size() != l->bn254->num_vars())
      throw InvalidArgument(d_.name() + ": the witness has " + std::to_string(w.size()) + " values, the key " +
                            std::to_string(l->bn254->num_vars()));
    witness = std::as_bytes(std::span(w));
    at = l->bn254->layout().witness;
  } else {
    witness = std::as_bytes(std::span(groth16::as_curve<groth16::Bls12_381>(any, "the witness")));
    at = l->plan.full ? l->dkey->layout().witness : l->layout.w;
    if (upload_in_place(*l, witness, r)) return;
  }
  if (r.bytes() < at + witness.size_bytes()) throw InvalidArgument(d_.name() + ": the witness does not fit its reservation");
  uint64_t scratch = 0;
  if (const r1cs::CompactWitness* cw = prepared_.usable(witness.data(), witness.size_bytes(), at, r.bytes(), &scratch)) {
    std::byte* base = d_.pool() + r.offset();
    drained_on_error(copy_, [&] { stager_.enqueue_compact(*cw, base + scratch, base + at, copy_); });
    std::lock_guard lk(d_.mu_);
    d_.witness_bytes_ += cw->payload_bytes();
    return;
  }
  drained_on_error(copy_, [&] { stager_.enqueue(witness.data(), witness.size_bytes(), d_.pool() + r.offset() + at, copy_); });
  std::lock_guard lk(d_.mu_);
  d_.witness_bytes_ += witness.size_bytes();
}

// A streamed partition's witness in its compact form, read in place by the kernels (the
// layout CudaDevice::Loaded::in_place), where the device has that layout and the witness's
// others fit its room; else false (the plain upload or the expansion follow).
bool CudaWorker::upload_in_place(const CudaDevice::Loaded& l, std::span<const std::byte> witness,
                                 const Reservation& r) {
  in_place_ = false;
  if (!l.in_place) return false;
  const r1cs::CompactWitness* cw = prepared_.of(witness.data(), witness.size_bytes());
  if (!cw || cw->n != l.entry.circuit->num_vars() || cw->values.size() > l.in_place->compact_capacity) return false;
  if (r.bytes() < l.in_place->w + l.in_place->cw.total)  // either step's reservation holds it
    throw std::logic_error(d_.name() + ": the compact witness does not fit its reservation");
  drained_on_error(copy_, [&] { stager_.enqueue_compact_arrays(*cw, d_.pool() + r.offset() + l.in_place->w, copy_); });
  in_place_ = true;
  std::lock_guard lk(d_.mu_);
  d_.witness_bytes_ += cw->payload_bytes();
  return true;
}

// The a/b/c upload on the copy stream: the padding of a, b, c first (memsets, stream-ordered
// before the stager's copies, so the stager's event covers them), then inputs | aux, a, b, c,
// and the A and B densities packed over all variables with their word offsets.
void CudaWorker::upload_abc(const CircuitEntry& c, const groth16::AbcAssignment& p, const Reservation& r) {
  cuda::DeviceGuard g(int(d_.index()));
  const auto l = d_.loaded(c.id);
  if (!l->abc) throw InvalidArgument(d_.name() + ": no a/b/c path for key '" + c.id + "'");
  const cuda::AbcLayout& lay = l->abc_layout;
  if (r.bytes() < lay.total) throw InvalidArgument(d_.name() + ": the a/b/c partition does not fit its reservation");
  if (p.inputs.size() + p.aux.size() != lay.num_vars)
    throw InvalidArgument(d_.name() + ": the assignment has " + std::to_string(p.inputs.size() + p.aux.size()) +
                          " values, the key " + std::to_string(lay.num_vars));
  std::byte* ws = d_.pool() + r.offset();
  const uint64_t n = uint64_t{1} << l->abc->view().log_domain, rows = p.a.size();
  a_density_ = cuda::pack_density(nullptr, p.inputs.size(), p.a_aux);
  b_density_ = cuda::pack_density(&p.b_inputs, p.inputs.size(), p.b_aux);
  if (a_density_.count != l->abc->view().a_len || b_density_.count != l->abc->view().b_len)  // the index lists' room
    throw InvalidArgument(d_.name() + ": the densities select " + std::to_string(a_density_.count) + " A and " +
                          std::to_string(b_density_.count) + " B variables, the key has " +
                          std::to_string(l->abc->view().a_len) + " and " + std::to_string(l->abc->view().b_len) + " points");
  drained_on_error(copy_, [&] {
    for (uint64_t at : {lay.a, lay.b, lay.c})
      if (rows < n) SNARKD_CUDA_CHECK(cudaMemsetAsync(ws + at + rows * sizeof(ff::Fr), 0, (n - rows) * sizeof(ff::Fr), copy_));
    stager_.enqueue(p.inputs.data(), p.inputs.size_bytes(), ws + lay.w, copy_);
    stager_.enqueue(p.aux.data(), p.aux.size_bytes(), ws + lay.w + p.inputs.size_bytes(), copy_);
    stager_.enqueue(p.a.data(), p.a.size_bytes(), ws + lay.a, copy_);
    stager_.enqueue(p.b.data(), p.b.size_bytes(), ws + lay.b, copy_);
    stager_.enqueue(p.c.data(), p.c.size_bytes(), ws + lay.c, copy_);
    stager_.enqueue(a_density_.words.data(), lay.num_words * 8, ws + lay.a_words, copy_);
    stager_.enqueue(b_density_.words.data(), lay.num_words * 8, ws + lay.b_words, copy_);
    stager_.enqueue(a_density_.offsets.data(), lay.num_words * 4, ws + lay.a_offsets, copy_);
    stager_.enqueue(b_density_.offsets.data(), lay.num_words * 4, ws + lay.b_offsets, copy_);
  });
  std::lock_guard lk(d_.mu_);
  d_.witness_bytes_ += lay.upload_bytes;
}

groth16::QuerySums CudaWorker::compute_abc(const CircuitEntry& c, const Reservation& r, StageClock& clock,
                                           const std::stop_token& stop) {
  cuda::DeviceGuard g(int(d_.index()));
  const auto l = d_.loaded(c.id);
  if (!l->abc) throw InvalidArgument(d_.name() + ": no a/b/c path for key '" + c.id + "'");
  stager_.wait_in(compute_);
  return drained_on_error(compute_, [&] {
    const cuda::PhaseEvents ev = phase_events();
    cuda::prove_abc_on_stream(*l->abc, l->abc_layout, d_.pool() + r.offset(), sums_.data(), compute_, &ev, stop);
    computed_.record(compute_);
    computed_.synchronize();  // this worker's stream only
    report(clock, ev);
    return cuda::abc_query_sums(*sums_.data(), "partition");
  });
}

// Step 0 of a streamed partition: QAP and H, then (its reservation shrunk to the H scalars and
// the MSM scratch) the H MSM.
void CudaWorker::compute_step(const CircuitEntry& c, uint32_t step, Reservation& r, StageClock& clock,
                              const std::stop_token& stop) {
  if (step != 0) throw std::logic_error(d_.name() + ": no step " + std::to_string(step));
  cuda::DeviceGuard g(int(d_.index()));
  const auto l = d_.loaded(c.id);
  stager_.wait_in(compute_);
  drained_on_error(compute_, [&] {  // the upload may be on the wire until compute_ has passed it
    if (!l->dkey || l->plan.full) throw std::logic_error(d_.name() + ": circuit '" + c.id + "' has one step");
    cuda::stream_qap_h(*l->dkey, layout(*l), d_.pool() + r.offset(), feed(*l, stop), compute_, sync_.get(),
                       sums_.data(), &timer_, stop);
    report(clock, timer_);
    r.keep_tail(layout(*l).keep_bytes);  // the stream is idle: w, b/c and the NTT scratch go back
    timer_.start(compute_);
    cuda::stream_h_msm(*l->dkey, layout(*l), d_.pool() + r.offset(), feed(*l, stop), compute_, sync_.get(),
                       sums_.data(), &timer_, stop);
    report(clock, timer_);
  });
}

// A streamed partition in one step (residency.hpp StepSizes::one): QAP and H, the witness MSMs
// in the same range on the witness uploaded once (stream_layout keeps their workspace below the
// kept [hs | v1]), then only [hs | v1] is kept and the H MSM runs. Same sums as the two steps;
// the witness crosses PCIe once (4.2 GB of 80 GB at a PoRep partition).
groth16::QuerySums CudaWorker::one_step(const CudaDevice::Loaded& l, Reservation& r, StageClock& clock,
                                        const std::stop_token& stop) {
  struct Disarm {  // the early subscriptions end with the step, whatever ends it
    CudaWorker& w;
    ~Disarm() {
      w.early_armed_ = false;
      for (auto& e : w.early_) e.reset();
    }
  } disarm{*this};
  early_armed_ = early_msms_ && two_lanes_;
  cuda::stream_qap_h(*l.dkey, layout(l), d_.pool() + r.offset(), feed(l, stop), compute_, sync_.get(), sums_.data(),
                     &timer_, stop);
  report(clock, timer_);
  if (two_lanes_) return both_msms(l, r, clock, stop);
  cuda::stream_witness_msms(*l.dkey, layout(l), d_.pool() + r.offset(), feed(l, stop), compute_, sync_.get(),
                            sums_.data(), count_.data(), &timer_, stop);
  report(clock, timer_);
  r.keep_tail(layout(l).keep_bytes);  // the stream is idle: w, v2, the scratch and the MSM workspace go back
  timer_.start(compute_);
  cuda::stream_h_msm(*l.dkey, layout(l), d_.pool() + r.offset(), feed(l, stop), compute_, sync_.get(), sums_.data(),
                     &timer_, stop);
  report(clock, timer_);
  return cuda::to_query_sums(*l.dkey, *sums_.data());
}

// The witness MSMs (PCIe-bound: A, B, L bases stream at ~48 GB/s) on msm_, from a thread of
// their own, beside the H MSM (compute-bound: 16 Pippengers of 2^23) on compute_: disjoint
// memory ([0, m_bytes) and the kept [hs | v1], stream_layout), disjoint fields of sums_, their
// own sync event, count buffer and timer, their own consumer id for the slots. Q has finished
// (stream_qap_h returned), so msm_ needs no event for it. Either MSM failing or stopping: the
// other's stream is drained before the exception leaves (the range is released after). The
// range shrinks to [hs | v1] as soon as the witness MSMs end.
groth16::QuerySums CudaWorker::both_msms(const CudaDevice::Loaded& l, Reservation& r, StageClock& clock,
                                         const std::stop_token& stop) {
  std::byte* base = d_.pool() + r.offset();
  const uint64_t kept = r.bytes() - layout(l).keep_bytes;
  std::exception_ptr failed;
  std::thread msms([&] {
    try {
      cuda::DeviceGuard g(int(d_.index()));  // the device is per host thread
      drained_on_error(msm_, [&] {
        cuda::stream_witness_msms(*l.dkey, layout(l), base, feed(l, stop, msm_, d_.workers_ + index_), msm_,
                                  msm_sync_.get(), sums_.data(), msm_count_.data(), &msm_timer_, stop);
      });
      // msm_ is idle and the H MSM reads only the tail: w and the MSM workspace go back now
      // (nothing else touches r until the join).
      r.keep_tail(layout(l).keep_bytes);
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    timer_.start(compute_);
    cuda::stream_h_msm(*l.dkey, layout(l), base + kept, feed(l, stop), compute_, sync_.get(), sums_.data(), &timer_,
                       stop);
  } catch (...) {
    msms.join();  // its stream drained itself if it failed; else it finished
    throw;
  }
  msms.join();
  if (failed) std::rethrow_exception(failed);
  report(clock, msm_timer_);
  report(clock, timer_);
  return cuda::to_query_sums(*l.dkey, *sums_.data());
}

groth16::AnyQuerySums CudaWorker::compute(const CircuitEntry& c, Reservation& r, StageClock& clock,
                                          const std::stop_token& stop) {
  cuda::DeviceGuard g(int(d_.index()));
  const auto l = d_.loaded(c.id);
  stager_.wait_in(compute_);
  if (l->bn254) return compute_bn254(*l, r, clock, stop);
  return drained_on_error(compute_, [&]() -> groth16::AnyQuerySums {
    if (!l->plan.full && l->plan.steps.size() == 1) return one_step(*l, r, clock, stop);
    if (!l->plan.full) {  // step 1 of a streamed partition: the witness MSMs
      cuda::stream_witness_msms(*l->dkey, layout(*l), d_.pool() + r.offset(), feed(*l, stop), compute_, sync_.get(),
                                sums_.data(), count_.data(), &timer_, stop);
      report(clock, timer_);
      return cuda::to_query_sums(*l->dkey, *sums_.data());
    }
    const cuda::PhaseEvents ev = phase_events();
    cuda::prove_on_stream(*l->dkey, d_.pool() + r.offset(), sums_.data(), compute_, &ev, stop);
    computed_.record(compute_);
    computed_.synchronize();  // this worker's stream only; sleeps (blocking-sync event)
    report(clock, ev);
    return cuda::to_query_sums(*l->dkey, *sums_.data());
  });
}

// The snarkjs prover enqueues a whole proof without waiting on the host (its MSMs need no tail
// lengths, unlike the bit-split ones of cuda::prove_on_stream), so its phase boundaries all pass
// within microseconds of the start: the stop is checked once, before anything is enqueued (the
// upload may still be on the wire; the drain below waits for it through compute_). Kernels once
// enqueued cannot be recalled; a stop arriving later takes effect at the engine's check after
// this stage, which drops the proof. Every throw drains compute_ first (drained_on_error), which
// waited for the upload. The worker waits for its own event only.
groth16::AnyQuerySums CudaWorker::compute_bn254(const CudaDevice::Loaded& l, const Reservation& r, StageClock& clock,
                                                const std::stop_token& stop) {
  const cuda::SnarkjsDeviceKey<groth16::Bn254>& key = *l.bn254;
  return drained_on_error(compute_, [&]() -> groth16::AnyQuerySums {
    if (r.bytes() < key.workspace_bytes())
      throw InvalidArgument(d_.name() + ": the BN254 partition's " + std::to_string(key.workspace_bytes()) +
                            " bytes do not fit its reservation of " + std::to_string(r.bytes()));
    throw_if_stopped(stop, "BN254 partition");
    const cuda::PhaseEvents ev = phase_events();
    cuda::prove_on_stream(key, d_.pool() + r.offset(), bn254_sums_.data(), compute_, &ev);
    computed_.record(compute_);
    computed_.synchronize();  // this worker's stream only; sleeps (blocking-sync event)
    report(clock, ev);
    return cuda::to_query_sums<groth16::Bn254>(*bn254_sums_.data());  // InvalidArgument: w_0 was not 1
  });
}

// The chunks of a part: resident ones from the key's region, streamed ones leased from the
// device's slots (subscribed first, so their copies start while the resident ones compute). A
// stop ends the wait for the next chunk (Cancelled; the driver's own checks run per chunk);
// whatever a visit enqueued on a slot, the slot's consumed event follows it, also when visit
// throws, so the slot's next fill never overtakes a read of this stream.
cuda::ChunkFeed CudaWorker::feed(const CudaDevice::Loaded& l, const std::stop_token& stop, cudaStream_t stream,
                                 uint32_t consumer) {
  return [this, &l, &stop, stream, consumer](cuda::StreamPart sp, const std::function<void(const cuda::ChunkView&)>& visit) {
    const KeyPart part = KeyPart(sp);
    const cuda::DeviceProvingKey::View& v = l.dkey->view();
    // A pass 1 (the unsatisfied witness's third pass included) starts with no early
    // subscription: its owner takes their chunks only after the H phase, so they must not hold
    // the slots pass 1 waits for.
    if (part == KeyPart::kRows1)
      for (auto& e : early_) e.reset();
    std::optional<ChunkStreamer::Subscription> sub;
    if (early_[size_t(part)]) {
      sub.emplace(std::move(*early_[size_t(part)]));
      early_[size_t(part)].reset();
    } else if (!l.ids[size_t(part)].empty()) sub.emplace(d_.streamer_->subscribe(consumer, l.ids[size_t(part)]));
    const bool rows = part == KeyPart::kRows1 || part == KeyPart::kRows2;
    const auto& ms = l.cat.rows_matrices[part == KeyPart::kRows2 ? 1 : 0];
    if (rows && l.plan.matrices) {
      const cuda::CsrView* resident[3] = {&v.a_matrix, &v.b_matrix, &v.c_matrix};
      cuda::ChunkView cv{0, l.entry.circuit->num_constraints()};
      for (size_t i = 0; i < ms.size(); ++i)
        cv.row_ptr[i] = resident[int(ms[i])]->row_ptr, cv.col[i] = resident[int(ms[i])]->col,
        cv.coeff[i] = resident[int(ms[i])]->coeff;
      visit(cv);
    }
    const size_t q = rows ? 0 : query_index(part);
    const uint64_t pb = rows ? 0 : l.cat.query[q].point_bytes;
    if (!rows)
      for (const StreamChunk& ch : l.cat.of(part)) {
        if (!l.plan.resident(part, ch.index)) break;
        cuda::ChunkView cv{ch.first, ch.count, static_cast<const std::byte*>(v.points[q]) + ch.first * pb,
                           v.index[q] ? v.index[q] + ch.first : nullptr};
        visit(cv);
      }
    while (auto lease = sub ? sub->next(stop) : std::nullopt) {
      d_.ready_[lease->slot].wait_in(stream);
      const ConsumedMark mark{d_.consumed_[consumer][lease->slot].get(), stream, &*lease};  // before the lease goes
      const std::byte* slot = d_.pool() + d_.slots_.offset() + uint64_t(lease->slot) * d_.slot_bytes_;
      const StreamChunk& ch = *lease->chunk;
      cuda::ChunkView cv{ch.first, ch.count};
      if (rows) {
        for (size_t i = 0; i < ms.size(); ++i) {
          const RowsAt& at = ch.rows[i];
          const auto* starts = reinterpret_cast<const uint64_t*>(slot + at.starts);
          if (at.short_form) {
            cv.group_start[i] = starts;
            cv.len[i] = reinterpret_cast<const uint8_t*>(slot + at.len);
          } else {
            cv.row_ptr[i] = starts;
          }
          cv.col[i] = reinterpret_cast<const uint32_t*>(slot + at.col);
          cv.coeff[i] = reinterpret_cast<const uint32_t*>(slot + at.coeff);
        }
      } else {
        cv.points = slot + ch.segments[0].offset;
        cv.index = ch.segments.size() > 1 ? reinterpret_cast<const uint32_t*>(slot + ch.segments[1].offset) : nullptr;
      }
      visit(cv);
    }
    if (sub) throw_if_stopped(stop, "streamed key chunks");
    if (part == KeyPart::kRows2 && early_armed_) subscribe_early(l);
  };
}

void CudaWorker::subscribe_early(const CudaDevice::Loaded& l) {
  early_armed_ = false;
  const std::pair<KeyPart, uint32_t> firsts[] = {{KeyPart::kH, index_}, {KeyPart::kA, d_.workers_ + index_}};
  for (const auto& [part, consumer] : firsts)
    if (!l.ids[size_t(part)].empty()) early_[size_t(part)].emplace(d_.streamer_->subscribe(consumer, l.ids[size_t(part)]));
}

void CudaDevice::set_workers(uint32_t workers) {
  workers_ = workers;
  cuda::DeviceGuard g(static_cast<int>(ordinal_));
  // Two consumers per worker (its compute stream, and its msm stream: ids workers + i), before
  // any worker exists: the filler reads these.
  while (consumed_.size() < 2 * workers) {
    consumed_.emplace_back();
    for (size_t k = 0; k < ready_.size(); ++k) consumed_.back().emplace_back();
  }
}

std::unique_ptr<DeviceWorker> CudaDevice::make_worker(uint32_t i) {
  if (i >= workers_ || consumed_.size() < 2 * size_t(workers_))
    throw std::logic_error(name() + ": worker " + std::to_string(i) + " beyond set_workers");
  return std::make_unique<CudaWorker>(*this, i);
}

}  // namespace snarkd::engine
