#include "snarkd/engine/sim_device.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <thread>

#include "snarkd/util/cancel.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

template <class T>
uint64_t bytes_of(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

// The streamer's copies: memcpy into the arena's slot on the device's copy engine.
class SimBackend final : public ChunkStreamer::Backend {
 public:
  explicit SimBackend(SimDevice& d) : d_(d) {}
  void fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>&) override { d_.fill(slot, chunk); }

 private:
  SimDevice& d_;
};

void SimDevice::FifoLock::lock(const std::stop_token& stop) {
  std::unique_lock l(mu_);
  const uint64_t ticket = next_++;
  if (cv_.wait(l, stop, [&] { return serving_ == ticket; })) return;
  abandoned_.insert(ticket);
  throw Cancelled("simulated device: cancelled while waiting for the compute engine");
}

void SimDevice::FifoLock::unlock() {
  std::lock_guard l(mu_);
  ++serving_;
  while (abandoned_.erase(serving_)) ++serving_;
  cv_.notify_all();
}

SimDevice::SimDevice(const SimDeviceConfig& cfg)
    : cfg_(cfg), copy_engine_(std::make_unique<FifoLock>()), compute_engine_(std::make_unique<FifoLock>()),
      msm_lane_(std::make_unique<FifoLock>()) {
  if (cfg.vram_bytes == 0 || cfg.vram_bytes > (uint64_t{4} << 30))
    throw InvalidArgument("simulated device: vram_bytes must be in (0, 4 GiB], got " + std::to_string(cfg.vram_bytes));
  slot_bytes_ = cfg.slot_bytes ? cfg.slot_bytes : std::clamp<uint64_t>(cfg.vram_bytes / 16, 4096, uint64_t{1} << 30);
  slot_bytes_ = align_segment(slot_bytes_);
  arena_.reset(new std::byte[cfg.vram_bytes]);  // default-initialised: untouched pages cost no RSS
  ledger_ = std::make_unique<VramLedger>(cfg.vram_bytes);
  // The streaming slots are carved at start-up, at the top of the region, like a GPU's. A tiny
  // device with default slots has none (its keys must fit); configured ones must fit in half.
  uint32_t slots = cfg.slots;
  if (uint64_t(slots) * slot_bytes_ > ledger_->capacity() / 2) {
    if (cfg.slot_bytes != 0)
      throw InvalidArgument("simulated device: " + std::to_string(slots) + " streaming slots of " +
                            std::to_string(slot_bytes_) + " bytes take more than half of its " +
                            std::to_string(cfg.vram_bytes) + " bytes");
    slots = 0;
  }
  if (slots > 0) {
    slots_ = *ledger_->reserve_resident(uint64_t(slots) * slot_bytes_);
    backend_ = std::make_unique<SimBackend>(*this);
    streamer_ = std::make_unique<ChunkStreamer>(slots, *backend_);
  }
}

SimDevice::~SimDevice() = default;

uint64_t SimDevice::resident_bytes() const {
  std::lock_guard l(mu_);
  uint64_t sum = 0;
  for (const auto& [id, c] : loaded_) sum += c->plan.key_bytes;
  return sum;
}

StepSizes SimDevice::sizes(const CircuitEntry& c) {
  const uint64_t w = VramLedger::round_up(c.witness_bytes()), n = c.domain_size();
  const uint64_t v = VramLedger::round_up(n * sizeof(ff::Fr)), s = VramLedger::round_up(n * sizeof(ff::Fr) / 4);
  StepSizes z;
  z.full = w + 4 * v;
  z.q = w + v + s + v;
  z.q_shrunk = s + v;
  z.m = w + VramLedger::round_up(v / 2);
  z.one = z.q;  // [w | b | scratch | a]: the witness MSMs read w, the kept [scratch | H] is the tail
  return z;
}

std::shared_ptr<const SimDevice::Loaded> SimDevice::loaded(const std::string& id) const {
  std::lock_guard l(mu_);
  auto it = loaded_.find(id);
  if (it == loaded_.end()) throw InvalidArgument(name() + ": circuit '" + id + "' is not loaded");
  return it->second;
}

bool SimDevice::wait_while_held(const std::string& hold_file, const std::stop_token& stop) {
  while (!hold_file.empty() && std::filesystem::exists(hold_file))
    if (!sleep_until(Clock::now() + std::chrono::milliseconds(5), stop)) return false;
  return true;
}

std::byte* SimDevice::slot_data(uint32_t slot) const { return arena_.get() + slots_.offset() + uint64_t(slot) * slot_bytes_; }

void SimDevice::fill(uint32_t slot, const StreamChunk& chunk) {
  std::lock_guard engine(*copy_engine_);
  const auto t0 = Clock::now();
  std::byte* dst = slot_data(slot);
  for (const CopySegment& s : chunk.segments) std::memcpy(dst + s.offset, s.host, s.bytes);
  if (cfg_.copy_bytes_per_s > 0) std::this_thread::sleep_until(t0 + seconds(double(chunk.bytes) / cfg_.copy_bytes_per_s));
  if (cfg_.hold_fills) wait_while_held(cfg_.hold_file);
  const auto t1 = Clock::now();
  std::lock_guard l(mu_);
  copy_busy_s_ += std::chrono::duration<double>(t1 - t0).count();
  if (record_spans_) spans_.push_back(CopySpan{t0, t1, chunk.bytes});
}

// The resident part of a streamed circuit: matrices (if resident), then each query prefix
// (points, index), laid out as residency.hpp's resident_layout_bytes counts them.
void SimDevice::copy_resident(Loaded& l) {
  uint64_t at = l.key.offset() + align_segment(0);
  auto put = [&](const void* src, uint64_t bytes) {
    const uint64_t here = at;
    if (bytes) std::memcpy(arena_.get() + here, src, bytes);
    at += align_segment(bytes);
    return here;
  };
  Loaded& m = l;  // offsets are filled once, before the circuit is published
  const r1cs::Circuit& c = *l.entry.circuit;
  if (l.plan.matrices)
    for (r1cs::Matrix mx : l.cat.matrices()) {
      const r1cs::CsrMatrix& csr = c.matrix(mx);
      auto& o = m.matrix_at[size_t(mx)];
      o[0] = put(csr.row_ptr.data(), bytes_of(csr.row_ptr));
      o[1] = put(csr.col.data(), bytes_of(csr.col));
      o[2] = put(csr.coeff.data(), bytes_of(csr.coeff));
    }
  for (size_t i = 0; i < kQueryParts; ++i) {
    const QueryShape& q = l.cat.query[i];
    const uint64_t pts = l.plan.resident_points[i];
    if (pts == 0) continue;
    m.part_at[i][0] = put(q.points, pts * q.point_bytes);
    if (q.index) m.part_at[i][1] = put(q.index, pts * 4);
  }
  if (at > l.key.offset() + l.key.bytes()) throw std::logic_error("simulated device: resident layout overflows its reservation");
}

void SimDevice::load(const CircuitEntry& c) {
  std::lock_guard ll(load_mu_);
  if (cfg_.load_s > 0) std::this_thread::sleep_for(seconds(cfg_.load_s));
  if (c.abc_only()) return;  // a/b/c form only: nothing resident (abc_layout)
  auto l = std::make_shared<Loaded>();
  l->entry = c;
  if (c.curve() != groth16::CurveId::kBls12_381) {
    load_whole(*l);
    std::lock_guard g(mu_);
    loaded_[c.id] = std::move(l);
    return;
  }
  l->a_index = r1cs::density_indices(c.pk->a_density);
  l->b_index = r1cs::density_indices(c.pk->b_density);
  l->short_rows = short_rows_of(*c.circuit);
  const CatalogueHost ch = catalogue_host(l->a_index.data(), l->b_index.data(), l->short_rows);
  l->cat = make_catalogue(*c.pk, *c.circuit, ch, slot_bytes_);
  l->sizes = sizes(c);
  if (!cfg_.one_step) l->sizes.one = 0;
  ResidencyInput in;
  in.steps = cfg_.one_step ? StepPolicy::kOne : StepPolicy::kTwo;
  in.gap = ledger_->largest_working_gap();
  in.workers = workers_;
  in.sizes = l->sizes;
  {
    std::lock_guard g(mu_);
    for (const auto& [id, other] : loaded_)
      for (const DeviceStep& s : other->plan.steps) in.keep_gap = std::max(in.keep_gap, s.bytes);
  }
  l->plan = plan_residency(l->cat, in);
  if (l->plan.streamed_bytes_per_partition > 0 && !streamer_)
    throw InvalidArgument("the key does not fit beside the working sets and the device has no streaming slots");
  if (l->plan.key_bytes) l->key = *ledger_->reserve_resident(l->plan.key_bytes);
  if (!l->plan.full) {
    copy_resident(*l);
    if (streamer_) l->ids = add_streamed(*streamer_, l->cat, l->plan);
  }
  std::lock_guard g(mu_);
  loaded_[c.id] = std::move(l);
}

namespace {

// The bytes a device holds for a key placed whole (cuda::SnarkjsDeviceKey's parts): every query
// point, the A and B matrices (row pointers, columns, coefficient indices) and the dictionary.
template <class E>
uint64_t whole_key_bytes(const groth16::BoundKeyT<E>& k) {
  const auto& pk = k.pk();
  const auto& c = k.circuit();
  uint64_t b = (pk.a.size() + pk.b_g1.size() + pk.l.size() + pk.h.size()) * sizeof(typename E::G1Affine) +
               pk.b_g2.size() * sizeof(typename E::G2Affine) + c.coeffs.size() * sizeof(typename E::Fr);
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B}) {
    const auto& csr = c.matrix(m);
    b += csr.row_ptr.size() * sizeof(csr.row_ptr[0]) + csr.col.size() * sizeof(csr.col[0]) +
         csr.coeff.size() * sizeof(csr.coeff[0]);
  }
  return VramLedger::round_up(b);
}

}  // namespace

void SimDevice::load_whole(Loaded& l) {
  const CircuitEntry& c = l.entry;
  l.plan.key_bytes = groth16::with_curve(c.curve(), [&](auto e) { return whole_key_bytes(c.key_of<decltype(e)>()); });
  l.sizes = sizes(c);
  l.plan.full = true;
  l.plan.one_step_bytes = l.sizes.full;
  l.plan.steps = {{l.sizes.full, true}};
  const uint64_t gap = ledger_->largest_working_gap();
  if (VramLedger::round_up(l.plan.key_bytes) + VramLedger::round_up(l.sizes.full) > gap)
    throw InvalidArgument(std::string("the ") + r1cs::curve_name(c.curve()) + " key's " +
                          std::to_string(l.plan.key_bytes) + " bytes and one partition's " +
                          std::to_string(l.sizes.full) + " do not fit beside the ledger's resident data (" +
                          std::to_string(gap) + " bytes free; keys of this curve do not stream)");
  l.key = *ledger_->reserve_resident(l.plan.key_bytes);
}

void SimDevice::unload(const std::string& circuit_id) {
  unload_streamed(load_mu_, mu_, loaded_, streamer_.get(), circuit_id);  // no partition of it runs
}

uint64_t SimDevice::working_set_bytes(const CircuitEntry& c) const {
  uint64_t m = 0;
  for (const DeviceStep& s : steps(c)) m = std::max(m, s.bytes);
  return m;
}

std::vector<DeviceStep> SimDevice::steps(const CircuitEntry& c) const { return loaded(c.id)->plan.steps; }

SimDevice::AbcLayout SimDevice::abc_layout(const CircuitEntry& c) {
  const uint64_t n = c.pk->domain_size(), vec = VramLedger::round_up(n * sizeof(ff::Fr));
  AbcLayout l;
  l.a = VramLedger::round_up(c.witness_bytes());
  l.b = l.a + vec;
  l.c = l.b + vec;
  l.words = l.c + vec;
  l.end = l.words + abc_density_words(c.num_inputs(), c.num_vars() - c.num_inputs()) * 8;
  l.total = VramLedger::round_up(l.end) + vec;
  return l;
}

uint64_t SimDevice::abc_working_set_bytes(const CircuitEntry& c) const { return abc_layout(c).total; }

double SimDevice::compute_busy_s() const { return busy_ns_.load() * 1e-9; }

std::string SimDevice::residency(const std::string& circuit_id) const {
  std::lock_guard g(mu_);
  auto it = loaded_.find(circuit_id);
  return it == loaded_.end() ? std::string() : describe(it->second->cat, it->second->plan);
}

StreamStats SimDevice::stream_stats() const {
  StreamStats s;
  put_streamer_stats(streamer_.get(), s);
  s.witness_bytes = witness_bytes_.load();
  s.key_resident_bytes = resident_bytes();
  s.slot_bytes = slots_.bytes();
  std::lock_guard g(mu_);
  s.copy_busy_s = copy_busy_s_;
  return s;
}

void SimDevice::record_copy_spans(bool on) {
  std::lock_guard g(mu_);
  record_spans_ = on;
}

std::vector<CopySpan> SimDevice::copy_spans() const {
  std::lock_guard g(mu_);
  return spans_;
}

}  // namespace snarkd::engine
