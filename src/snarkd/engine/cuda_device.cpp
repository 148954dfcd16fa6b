#include "snarkd/engine/cuda_device.hpp"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "snarkd/cuda/host_pinning.hpp"
#include "snarkd/cuda/msm.hpp"
#include "snarkd/util/env.hpp"
#include "snarkd/util/error.hpp"

namespace snarkd::engine {

namespace {

constexpr uint64_t kMarginBytes = uint64_t{2} << 30;
// Streaming slots: 4 of min(600 MiB, pool/27) (≈ 6.3·10^6 G1 points with their index entries).
// A PoRep partition on the H200, 3 workers (2026-12-04, docs/PERFORMANCE.md "Slots"): 3 slots of
// pool/24 (683 MiB at 16 GiB) 2.121–2.142 s at 16 GiB; 4 × 600 MiB 2.023 s (24 GiB: 1.984
// against 2.001–2.054), 5 × 600 MiB 2.024, 6 × 400 MiB 2.101. With the fourth slot the one
// step's two MSM lanes keep more chunks in flight (B G2's phase 0.70 → 0.60 s), and the smaller
// chunks shrink the one step (13.53 → 12.88 GiB: tails and scratch are sized per chunk).
constexpr uint64_t kMaxSlotBytes = uint64_t{600} << 20;
constexpr uint64_t kPoolPerSlot = 27;
constexpr uint32_t kDefaultSlots = 4;
// An explicit cap covers everything the engine puts on the device, and the workers' streams and
// events (created after the pool) take device memory outside it: up to 3 MiB with 3 workers on
// the H200 (nvidia-smi 1–3 MiB above cap + context, 2026-12-02..04). The pool leaves them this
// much, or 1/256 of a small cap.
constexpr uint64_t kHandleReserveBytes = uint64_t{8} << 20;

// "12345678 bytes (11.8 MiB)": exact for tests and scripts, readable for people.
std::string bytes_text(uint64_t b) {
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", double(b) / double(uint64_t{1} << 20));
  return std::to_string(b) + " bytes (" + mib + " MiB)";
}

// Whether layout x keeps the planned step sizes: both steps, and the kept range where step 1
// comes after it (two steps).
bool within(const cuda::StreamLayout& x, const cuda::StreamLayout& planned, bool one_step) {
  return x.q_bytes <= planned.q_bytes && x.m_bytes <= planned.m_bytes &&
         (one_step || x.keep_bytes <= planned.keep_bytes);
}

// The layout of H window c and split depth `depth` with the most room for the compact witness's
// others within the planned step sizes, grown to the planned step 0; nullopt where none fits.
std::optional<cuda::StreamLayout> most_room(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit,
                                            const cuda::StreamLimits& limits, const cuda::StreamLayout& planned,
                                            bool one_step, uint32_t c, uint32_t depth) {
  const cuda::StreamLayout empty = cuda::stream_layout(pk, circuit, limits, one_step, c, 0, depth);
  if (!within(empty, planned, one_step)) return std::nullopt;
  // The witness's region starts both steps, so growing it by b bytes grows m_bytes by exactly b
  // and q_bytes by at most b (not at all where the kept range sets v1): step 1's slack, else the
  // smaller of the two (both 256-byte multiples).
  auto with_room = [&](uint64_t bytes) {
    return cuda::stream_layout(pk, circuit, limits, one_step, c, bytes / sizeof(ff::Fr), depth);
  };
  cuda::StreamLayout l = with_room(planned.m_bytes - empty.m_bytes);
  if (!within(l, planned, one_step))
    l = with_room(std::min(planned.q_bytes - empty.q_bytes, planned.m_bytes - empty.m_bytes));
  if (!within(l, planned, one_step)) throw std::logic_error("most_room: the compact witness overran the planned steps");
  l.grow_to(planned.q_bytes);  // the kept [hs | v1] is the reservation's tail
  return l;
}

// The layout of a streamed partition whose witness the kernels read in its compact form
// (cuda::stream_ops::WitnessView: a PoRep partition's 4.17 GB in ≈ 0.25 GB) within the planned
// layout's step sizes, so the plan and its reservations stay as they are. The memory this frees
// goes first to the carried H MSM's window, up to the cost model's window for the whole H query
// rather than for one chunk (c = 22 at a PoRep partition instead of 20: 12 windows instead of
// 13, 3.4 GiB more buckets), and to unsplit H transforms (depth 0: n points of NTT scratch
// instead of n/4, 3.2 GiB more, sharing step 0's head with the witness MSMs' buffers rather than
// with the kept H range), the widest window first, then to room for the witness's values that
// are neither 0 nor 1. A witness with more of those than that room uploads plainly into the
// planned layout. nullopt: SNARKD_WITNESS_IN_PLACE=0 (A/B runs), or no window leaves room.
std::optional<cuda::StreamLayout> in_place_layout(const groth16::ProvingKey& pk, const r1cs::Circuit& circuit,
                                                  const cuda::StreamLimits& limits, const cuda::StreamLayout& planned,
                                                  bool one_step) {
  static const bool enabled = env_u64("SNARKD_WITNESS_IN_PLACE", 1, 0, 1) == 1;
  static const bool unsplit = env_u64("SNARKD_STREAM_UNSPLIT_H", 1, 0, 1) == 1;  // 0: A/B runs
  if (!enabled) return std::nullopt;
  const uint32_t narrow = planned.h_window;  // SNARKD_STREAM_H_WINDOW, when set, holds
  const uint32_t whole = cuda::msm_default_window(pk.h.size());
  const uint32_t wide = std::getenv("SNARKD_STREAM_H_WINDOW") ? narrow : std::max(narrow, whole);
  for (uint32_t c = wide; c >= narrow && c > 0; --c)
    for (const uint32_t depth : {unsplit ? 0u : planned.depth, planned.depth})
      if (auto l = most_room(pk, circuit, limits, planned, one_step, c, depth)) return l;
  return std::nullopt;
}

}  // namespace

std::shared_ptr<const CudaDevice::HostKey> CudaDevice::host_key(const CircuitEntry& c) {
  static std::mutex mu;
  static std::map<const groth16::ProvingKey*, std::weak_ptr<const CudaDevice::HostKey>> cache;
  std::lock_guard l(mu);
  if (auto h = cache[c.pk.get()].lock()) return h;
  auto h = std::make_shared<CudaDevice::HostKey>();
  h->pk = c.pk;
  h->circuit = c.circuit;  // null for an a/b/c-only key: only its points are pinned
  h->a_list = r1cs::density_indices(c.pk->a_density);
  h->b_list = r1cs::density_indices(c.pk->b_density);
  const groth16::ProvingKey& pk = *c.pk;
  std::vector<std::pair<const void*, size_t>> ranges = {
      {pk.a.data(), pk.a.size() * sizeof(ec::G1Affine)},     {pk.b_g1.data(), pk.b_g1.size() * sizeof(ec::G1Affine)},
      {pk.b_g2.data(), pk.b_g2.size() * sizeof(ec::G2Affine)}, {pk.l.data(), pk.l.size() * sizeof(ec::G1Affine)},
      {pk.h.data(), pk.h.size() * sizeof(ec::G1Affine)},     {h->a_list.data(), h->a_list.size() * 4},
      {h->b_list.data(), h->b_list.size() * 4}};
  if (c.circuit) h->short_rows = short_rows_of(*c.circuit);
  for (r1cs::Matrix m : {r1cs::Matrix::A, r1cs::Matrix::B, r1cs::Matrix::C}) {
    if (!c.circuit) break;
    const r1cs::CsrMatrix& csr = c.circuit->matrix(m);
    ranges.push_back({csr.row_ptr.data(), csr.row_ptr.size() * 8});
    ranges.push_back({csr.col.data(), csr.col.size() * 4});
    ranges.push_back({csr.coeff.data(), csr.coeff.size() * 4});
    if (const auto& s = h->short_rows[size_t(m)]) {
      ranges.push_back({s->len.data(), s->len.size()});
      ranges.push_back({s->group_start.data(), s->group_start.size() * 8});
    }
  }
  h->pins = cuda::PinnedRanges::pin(ranges);
  cache[c.pk.get()] = h;
  return h;
}

// The streamer's copies: on the slot's copy stream, after the slot's previous readers.
class CudaBackend final : public ChunkStreamer::Backend {
 public:
  explicit CudaBackend(CudaDevice& d) : d_(d) {}
  void fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>& previous) override {
    d_.fill(slot, chunk, previous);
  }

 private:
  CudaDevice& d_;
};

int CudaDevice::count() { return cuda::device_count(); }

CudaDevice::CudaDevice(uint32_t ordinal, uint64_t ledger_bytes) : ordinal_(ordinal) {
  cuda::DeviceGuard g(static_cast<int>(ordinal));
  uint64_t bytes = ledger_bytes - std::min(kHandleReserveBytes, ledger_bytes / 256);
  if (ledger_bytes == 0) {
    size_t free_b = 0, total_b = 0;
    SNARKD_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));  // start-up only
    if (free_b <= kMarginBytes) throw InvalidArgument(name() + ": only " + std::to_string(free_b >> 20) + " MiB free");
    bytes = free_b - kMarginBytes;
  }
  pool_bytes_ = bytes / VramLedger::kAlignment * VramLedger::kAlignment;
  pool_ = cuda::DeviceBuffer<std::byte>(pool_bytes_);
  ledger_ = std::make_unique<VramLedger>(pool_bytes_);
  loader_ = cuda::Stream();
  const uint64_t mib = env_u64("SNARKD_SLOT_MIB", 0);
  slot_bytes_ = align_segment(mib ? mib << 20 : std::min(kMaxSlotBytes, pool_bytes_ / kPoolPerSlot));
  const uint32_t slots = uint32_t(env_u64("SNARKD_STREAM_SLOTS", kDefaultSlots));
  if (slots > 0 && uint64_t(slots) * slot_bytes_ <= pool_bytes_ / 2) {
    slots_ = *ledger_->reserve_resident(uint64_t(slots) * slot_bytes_);
    for (uint32_t k = 0; k < slots; ++k) ready_.emplace_back(), copies_.emplace_back();
    backend_ = std::make_unique<CudaBackend>(*this);
    streamer_ = std::make_unique<ChunkStreamer>(slots, *backend_);
  }
  char bus[32] = {};  // a query, not a device-wide call; start-up anyway
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, static_cast<int>(ordinal)) == cudaSuccess) pci_bus_id_ = bus;
}

void CudaDevice::profile(bool on) { SNARKD_CUDA_CHECK(on ? cudaProfilerStart() : cudaProfilerStop()); }

CudaDevice::~CudaDevice() {
  streamer_.reset();  // joins the filler before the streams and events go
  for (const cuda::Stream& c : copies_) cudaStreamSynchronize(c);
}

uint64_t CudaDevice::memory_used(uint32_t ordinal) {
  cuda::DeviceGuard g(static_cast<int>(ordinal));
  size_t free_b = 0, total_b = 0;
  SNARKD_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));  // start-up only (callers: the bench)
  return total_b - free_b;
}

uint64_t CudaDevice::resident_bytes() const {
  std::lock_guard l(mu_);
  uint64_t sum = 0;
  for (const auto& [id, k] : loaded_) sum += k->plan.key_bytes;
  return sum;
}

std::shared_ptr<const CudaDevice::Loaded> CudaDevice::loaded(const std::string& id) const {
  std::lock_guard l(mu_);
  auto it = loaded_.find(id);
  if (it == loaded_.end()) throw InvalidArgument(name() + ": circuit '" + id + "' is not resident");
  return it->second;
}

void CudaDevice::load_abc_only(const CircuitEntry& c) {
  auto l = std::make_shared<Loaded>();
  l->entry = c;
  l->host = host_key(c);
  const uint64_t bytes = cuda::AbcDeviceKey::region_bytes(*c.pk);
  const uint64_t keep = loaded_working_set_bytes();  // the keys already here must still fit
  if (keep > 0 && ledger_->largest_working_gap(bytes) < VramLedger::round_up(keep))
    throw InvalidArgument("placing the key's " + std::to_string(bytes >> 20) + " MiB would leave " + name() +
                          " too little room for the working sets of the keys already loaded");
  if (bytes > ledger_->largest_working_gap())  // reserve_resident would throw less clearly
    throw InvalidArgument("the key's " + std::to_string(bytes >> 20) + " MiB of points and tables do not fit " + name() +
                          "'s ledger (the a/b/c form does not stream keys)");
  l->key = *ledger_->reserve_resident(bytes);
  l->abc = std::make_unique<cuda::AbcDeviceKey>(int(ordinal_), *c.pk, pool() + l->key.offset(), loader_);
  l->abc_layout = cuda::abc_layout(l->abc->view());
  l->plan.key_bytes = bytes;
  l->plan.full = true;
  std::lock_guard g2(mu_);
  loaded_[c.id] = std::move(l);
}

uint64_t CudaDevice::loaded_working_set_bytes() const {
  std::lock_guard g(mu_);
  uint64_t keep = 0;
  for (const auto& [id, other] : loaded_) {
    for (const DeviceStep& st : other->plan.steps) keep = std::max(keep, st.bytes);
    if (other->abc) keep = std::max(keep, other->abc_layout.total);  // a/b/c partitions too
  }
  return keep;
}

// The key is placed whole at the top of the ledger (a resident reservation) on the loader stream;
// the copies come from the bound key's host vectors (pageable: a load is set-up time and a BN254
// key is not re-read per partition, so it is not page-locked as streamed keys are). The workspace
// layout asks CUB for its sort's temporary bytes here, once, not in a worker's path.
void CudaDevice::load_bn254(const CircuitEntry& c) {
  using Key = cuda::SnarkjsDeviceKey<groth16::Bn254>;
  const groth16::BoundKeyT<groth16::Bn254>& key = c.key_of<groth16::Bn254>();
  const uint64_t bytes = Key::region_bytes(key);  // InvalidArgument for a key the prover cannot take
  const uint64_t work = Key::workspace_layout_for(key).total;
  const uint64_t keep = std::max(work, loaded_working_set_bytes());
  if (ledger_->largest_working_gap(bytes) < VramLedger::round_up(keep)) {
    std::string why = "the BN254 key's " + bytes_text(bytes) +
                      " of points, matrices and NTT tables and one partition's working set of " + bytes_text(work);
    if (keep > work) why += " (" + bytes_text(keep) + " for the circuits already loaded)";
    throw InvalidArgument(why + " do not fit " + name() + "'s ledger of " + bytes_text(pool_bytes_) + ", " +
                          bytes_text(ledger_->largest_working_gap()) + " of it beside its resident data " +
                          "(BN254 keys do not stream: a larger --vram-gib, or fewer circuits)");
  }
  auto l = std::make_shared<Loaded>();
  l->entry = c;
  l->key = *ledger_->reserve_resident(bytes);
  l->bn254 = std::make_unique<Key>(int(ordinal_), key, pool() + l->key.offset(), loader_);
  if (l->bn254->workspace_bytes() != work)
    throw std::logic_error("cuda device: the BN254 key's workspace and its shape's disagree");
  l->plan.full = true;
  l->plan.matrices = true;
  l->plan.key_bytes = bytes;
  l->plan.steps = {DeviceStep{work, true}};
  l->plan.one_step_bytes = work;
  std::lock_guard g2(mu_);
  loaded_[c.id] = std::move(l);
}

void CudaDevice::load(const CircuitEntry& c) {
  std::lock_guard ll(load_mu_);
  cuda::DeviceGuard g(static_cast<int>(ordinal_));
  if (c.curve() == groth16::CurveId::kBn254) return load_bn254(c);
  if (c.abc_only()) return load_abc_only(c);
  const groth16::ProvingKey& pk = *c.pk;
  auto l = std::make_shared<Loaded>();
  l->entry = c;
  l->host = host_key(c);
  const CatalogueHost ch = catalogue_host(l->host->a_list.data(), l->host->b_list.data(), l->host->short_rows);
  l->cat = make_catalogue(pk, *c.circuit, ch, slot_bytes_);
  cuda::StreamLimits limits;
  for (size_t i = 0; i < kQueryParts; ++i) {
    limits.chunk_points[i] = std::min(l->cat.query[i].chunk_points, std::max<uint64_t>(l->cat.query[i].len, 1));
    limits.chunks[i] = l->cat.chunks[size_t(KeyPart::kA) + i].size();
  }
  // Two layouts: the one step's can need more than the two steps' larger one (its v1 moves up
  // past the witness MSMs' workspace); the planner takes it only where it fits.
  const cuda::StreamLayout two = cuda::stream_layout(pk, *c.circuit, limits, false);
  const cuda::StreamLayout one = cuda::stream_layout(pk, *c.circuit, limits, true);
  l->sizes = {cuda::DeviceProvingKey::full_workspace_bytes(*c.key), two.q_bytes, two.keep_bytes, two.m_bytes,
              one.q_bytes};
  ResidencyInput in;
  if (const char* e = std::getenv("SNARKD_STREAM_STEPS"))  // "1" or "2": A/B runs and tests
    in.steps = std::string_view(e) == "1" ? StepPolicy::kOne : std::string_view(e) == "2" ? StepPolicy::kTwo : in.steps;
  in.gap = ledger_->largest_working_gap();
  in.workers = workers_;
  in.fixed_bytes = cuda::DeviceProvingKey::layout_for(*c.key, cuda::KeyResidency{false, {0, 0, 0, 0, 0}}).total;
  in.sizes = l->sizes;
  in.keep_gap = loaded_working_set_bytes();
  l->plan = plan_residency(l->cat, in);
  l->layout = l->plan.steps.size() == 1 && !l->plan.full ? one : two;
  if (!l->plan.full) l->in_place = in_place_layout(pk, *c.circuit, limits, l->layout, l->plan.steps.size() == 1);
  if (l->plan.streamed_bytes_per_partition > 0 && !streamer_)
    throw InvalidArgument("the key does not fit beside the working sets and the device has no streaming slots");
  const cuda::KeyResidency res{l->plan.matrices, l->plan.resident_points};
  if (cuda::DeviceProvingKey::layout_for(*c.key, res).total != l->plan.key_bytes)
    throw std::logic_error("cuda device: the key's layout and the residency plan disagree on its size");
  l->key = *ledger_->reserve_resident(l->plan.key_bytes);
  l->dkey = std::make_unique<cuda::DeviceProvingKey>(int(ordinal_), *c.key, res, pool() + l->key.offset(), loader_);
  if (pk.flavour == groth16::KeyFlavour::kBellperson && l->dkey->fully_resident()) {  // the a/b/c form too
    l->abc = std::make_unique<cuda::AbcDeviceKey>(*l->dkey);
    l->abc_layout = cuda::abc_layout(l->abc->view());
  }
  if (!l->plan.full && streamer_) l->ids = add_streamed(*streamer_, l->cat, l->plan);
  std::lock_guard g2(mu_);
  loaded_[c.id] = std::move(l);
}

void CudaDevice::unload(const std::string& circuit_id) {
  // The key's memory goes back to the ledger (no partition of the circuit runs: unregister
  // refuses while any is queued or in flight, and every step waited for its stream).
  unload_streamed(load_mu_, mu_, loaded_, streamer_.get(), circuit_id);
}

uint64_t CudaDevice::working_set_bytes(const CircuitEntry& c) const {
  uint64_t m = 0;
  for (const DeviceStep& s : steps(c)) m = std::max(m, s.bytes);
  return m;
}

std::vector<DeviceStep> CudaDevice::steps(const CircuitEntry& c) const { return loaded(c.id)->plan.steps; }

uint64_t CudaDevice::abc_working_set_bytes(const CircuitEntry& c) const {
  const auto l = loaded(c.id);
  return l->abc ? l->abc_layout.total : 0;
}

std::string CudaDevice::residency(const std::string& circuit_id) const {
  std::lock_guard g(mu_);
  auto it = loaded_.find(circuit_id);
  if (it == loaded_.end()) return std::string();
  if (it->second->entry.abc_only()) return "fully resident (a/b/c form: points and NTT tables)";
  if (it->second->bn254)
    return "fully resident (BN254 snarkjs key: points, A/B matrices and NTT tables, " +
           bytes_text(it->second->plan.key_bytes) + "; never streamed)";
  const Loaded& l = *it->second;
  if (!l.in_place) return describe(l.cat, l.plan);
  return describe(l.cat, l.plan) + "; a compact witness with up to " + std::to_string(l.in_place->compact_capacity) +
         " values other than 0 and 1 is read in place, the H MSM's window then " +
         std::to_string(l.in_place->h_window) + " bits (" + std::to_string(l.layout.h_window) +
         " for a plain witness)" + (l.in_place->depth == l.layout.depth ? "" : " and the H transforms unsplit");
}

namespace {

// One fill's copy span, timed by host functions on the copy stream (they run when the stream
// reaches them: the start after the waits for the slot's readers, the end after the copies).
struct FillSpan {
  CudaDevice* device;
  std::chrono::steady_clock::time_point begin;
  uint64_t bytes;
  void (*done)(FillSpan*);
};

}  // namespace

void CudaDevice::fill(uint32_t slot, const StreamChunk& chunk, const std::vector<uint32_t>& previous) {
  cuda::DeviceGuard g(static_cast<int>(ordinal_));
  cudaStream_t copy = copies_[slot];
  for (uint32_t c : previous)
    if (c < consumed_.size()) consumed_[c][slot].wait_in(copy);
  auto* span = new FillSpan{this, {}, chunk.bytes, [](FillSpan* s) {
                              const auto end = std::chrono::steady_clock::now();
                              CudaDevice& d = *s->device;
                              std::lock_guard l(d.mu_);
                              const auto from = std::max(s->begin, d.copy_busy_until_);  // the union
                              if (end > from) d.copy_busy_s_ += std::chrono::duration<double>(end - from).count();
                              d.copy_busy_until_ = std::max(d.copy_busy_until_, end);
                              if (d.record_spans_) d.spans_.push_back(CopySpan{s->begin, end, s->bytes});
                              delete s;
                            }};
  SNARKD_CUDA_CHECK(cudaLaunchHostFunc(
      copy, [](void* p) { static_cast<FillSpan*>(p)->begin = std::chrono::steady_clock::now(); }, span));
  std::byte* dst = pool() + slots_.offset() + uint64_t(slot) * slot_bytes_;
  for (const CopySegment& s : chunk.segments)
    cuda::copy_to_device_async(dst + s.offset, s.host, s.bytes, copy);
  ready_[slot].record(copy);
  SNARKD_CUDA_CHECK(cudaLaunchHostFunc(
      copy, [](void* p) { auto* s = static_cast<FillSpan*>(p); s->done(s); }, span));
}

StreamStats CudaDevice::stream_stats() const {
  StreamStats s;
  put_streamer_stats(streamer_.get(), s);
  s.key_resident_bytes = resident_bytes();
  s.slot_bytes = slots_.bytes();
  s.pinned_host_bytes = cuda::pinned_host_bytes();
  std::lock_guard g(mu_);
  s.copy_busy_s = copy_busy_s_;
  s.witness_bytes = witness_bytes_;
  return s;
}

void CudaDevice::record_copy_spans(bool on) {
  std::lock_guard g(mu_);
  record_spans_ = on;
}

std::vector<CopySpan> CudaDevice::copy_spans() const {
  std::lock_guard g(mu_);
  return spans_;
}

}  // namespace snarkd::engine
