#include "snarkd/engine/residency.hpp"

#include <algorithm>
#include <cstdio>

#include "snarkd/util/error.hpp"

namespace snarkd::engine {

namespace {

constexpr KeyPart kResidentOrder[] = {KeyPart::kA, KeyPart::kB1, KeyPart::kL, KeyPart::kB2, KeyPart::kH};

uint64_t prefix_bytes(const QueryShape& q, uint64_t points) {
  return points == 0 ? 0 : query_chunk_bytes(q, points);
}

std::string gib(uint64_t b) {
  char s[40];
  if (b >= (uint64_t{1} << 30)) std::snprintf(s, sizeof s, "%.3f GiB", double(b) / double(uint64_t{1} << 30));
  else if (b >= (uint64_t{1} << 20)) std::snprintf(s, sizeof s, "%.1f MiB", double(b) / double(uint64_t{1} << 20));
  else std::snprintf(s, sizeof s, "%llu bytes", (unsigned long long)b);
  return s;
}

}  // namespace

uint64_t resident_layout_bytes(const KeyCatalogue& k, uint64_t fixed_bytes, bool matrices,
                               const std::array<uint64_t, kQueryParts>& points) {
  uint64_t b = align_segment(fixed_bytes) + (matrices ? k.matrices_bytes : 0);
  for (size_t i = 0; i < kQueryParts; ++i) b += prefix_bytes(k.query[i], points[i]);
  return b;
}

ResidencyPlan plan_residency(const KeyCatalogue& k, const ResidencyInput& in) {
  ResidencyPlan p;
  const uint32_t workers = std::max<uint32_t>(in.workers, 1);
  std::array<uint64_t, kQueryParts> all{};
  for (size_t i = 0; i < kQueryParts; ++i) all[i] = k.query[i].len;
  const uint64_t full_key = resident_layout_bytes(k, in.fixed_bytes, true, all);
  if (full_key <= in.gap && in.gap - full_key >= std::max(uint64_t(workers) * in.sizes.full, in.keep_gap)) {
    p.full = p.matrices = true;
    p.resident_points = all;
    for (size_t i = 0; i < kQueryParts; ++i) p.resident_chunks[i] = uint32_t(k.chunks[size_t(KeyPart::kA) + i].size());
    p.key_bytes = full_key;
    p.steps = {{in.sizes.full, true}};
    return p;
  }
  const uint64_t base = align_segment(in.fixed_bytes) + in.slots_bytes;
  // One step (the witness uploaded once) wherever it fits. On the H200 at 24 GiB (PoRep, 3
  // workers) the one step of 12.9 GiB ran 2.011 s/partition against 2.104–2.157 s for two steps
  // of 12.9 and 6.4 GiB side by side (three leases, 2026-12-04): two partitions overlapping
  // share the device's SMs and PCIe and gain nothing, and two steps upload the witness twice.
  const uint64_t avail = in.gap > base ? in.gap - base : 0;
  const bool one_step = in.sizes.one && in.steps != StepPolicy::kTwo && base + std::max(in.sizes.one, in.keep_gap) <= in.gap;
  const uint64_t first = one_step ? in.sizes.one : in.sizes.q;  // the largest step
  const uint64_t one = std::max({first, one_step ? 0 : in.sizes.m, in.keep_gap});
  if (base + one > in.gap)
    throw InvalidArgument("the device is too small for this circuit even with its key streamed: " + gib(base) +
                          " resident (tables, streaming slots) + " + gib(one) + " for one partition > " +
                          gib(in.gap) + " free");
  p.slots = in.slots_bytes > 0;
  // Room kept for partitions in flight: one step, as many whole ones as fit now (the rest of the
  // gap holds key parts); two steps, one at its peak and the other workers in their smaller step.
  const uint64_t in_flight_one = one_step ? std::clamp<uint64_t>(avail / in.sizes.one, 1, workers) : 0;
  const uint64_t want = one_step ? std::max(in_flight_one * in.sizes.one, one)
                                 : std::max(first + uint64_t(workers - 1) * std::max(in.sizes.m, in.sizes.q_shrunk), one);
  uint64_t budget = in.gap > base + want ? in.gap - base - want : 0;
  if (k.matrices_bytes <= budget) {
    p.matrices = true;
    budget -= k.matrices_bytes;
  }
  for (KeyPart part : kResidentOrder) {
    const size_t i = query_index(part);
    const QueryShape& q = k.query[i];
    const uint32_t chunks = uint32_t(k.of(part).size());
    uint32_t n = 0;
    while (n < chunks && prefix_bytes(q, std::min(q.len, uint64_t(n + 1) * q.chunk_points)) <= budget) ++n;
    p.resident_chunks[i] = n;
    p.resident_points[i] = std::min(q.len, uint64_t(n) * q.chunk_points);
    budget -= prefix_bytes(q, p.resident_points[i]);
  }
  p.key_bytes = resident_layout_bytes(k, in.fixed_bytes, p.matrices, p.resident_points);
  for (size_t part = 0; part < kKeyParts; ++part)
    for (const StreamChunk& c : k.chunks[part])
      if (!p.resident(KeyPart(part), c.index)) p.streamed_bytes_per_partition += c.bytes;
  // One step: Q, the witness MSMs on the same witness, then the H MSM on the kept tail.
  p.one_step_bytes = in.sizes.one;
  p.kept_bytes = in.sizes.q_shrunk;
  if (one_step) p.steps = {{in.sizes.one, true}};
  else p.steps = {{in.sizes.q, true}, {in.sizes.m, true}};
  return p;
}

std::string describe(const KeyCatalogue& k, const ResidencyPlan& p) {
  if (p.full) return "fully resident (" + gib(p.key_bytes) + ")";
  std::string s = std::string("streaming: matrices ") + (p.matrices ? "resident" : "streamed");
  if (!p.matrices && (k.short_rows[0] || k.short_rows[1]))
    s += std::string(" (short rows in pass ") + (k.short_rows[0] && k.short_rows[1] ? "1 and 2" : k.short_rows[0] ? "1" : "2") + ")";
  for (size_t i = 0; i < kQueryParts; ++i) {
    char b[64];
    const uint64_t len = k.query[i].len;
    std::snprintf(b, sizeof b, ", %s %.0f%% resident", key_part_name(KeyPart(size_t(KeyPart::kA) + i)),
                  len ? 100.0 * double(p.resident_points[i]) / double(len) : 100.0);
    s += b;
  }
  s += " (" + gib(p.key_bytes) + " resident, " + gib(p.streamed_bytes_per_partition) + " streamed per partition";
  const std::string kept = p.kept_bytes ? " (" + gib(p.kept_bytes) + " kept for the H MSM)" : "";
  if (p.steps.size() == 1) return s + "; one step of " + gib(p.steps[0].bytes) + kept + ")";
  s += "; two steps of " + gib(p.steps[0].bytes) + kept + " and " + gib(p.steps.back().bytes);
  return s + (p.one_step_bytes ? ", one would need " + gib(p.one_step_bytes) + ")" : ")");
}

}  // namespace snarkd::engine
