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
  const uint64_t first = in.sizes.one ? in.sizes.one : in.sizes.q;  // the largest step
  const uint64_t one = std::max({first, in.sizes.m, in.keep_gap});
  if (base + one > in.gap)
    throw InvalidArgument("the device is too small for this circuit even with its key streamed: " + gib(base) +
                          " resident (tables, streaming slots) + " + gib(one) + " for one partition > " +
                          gib(in.gap) + " free");
  p.slots = in.slots_bytes > 0;
  const uint64_t want =
      std::max(first + uint64_t(workers - 1) * std::max(in.sizes.m, in.sizes.q_shrunk), one);
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
  if (in.sizes.one) p.steps = {{in.sizes.one, true}};
  else p.steps = {{in.sizes.q, true}, {in.sizes.m, true}};
  return p;
}

std::string describe(const KeyCatalogue& k, const ResidencyPlan& p) {
  if (p.full) return "fully resident (" + gib(p.key_bytes) + ")";
  std::string s = std::string("streaming: matrices ") + (p.matrices ? "resident" : "streamed");
  for (size_t i = 0; i < kQueryParts; ++i) {
    char b[64];
    const uint64_t len = k.query[i].len;
    std::snprintf(b, sizeof b, ", %s %.0f%% resident", key_part_name(KeyPart(size_t(KeyPart::kA) + i)),
                  len ? 100.0 * double(p.resident_points[i]) / double(len) : 100.0);
    s += b;
  }
  return s + " (" + gib(p.key_bytes) + " resident, " + gib(p.streamed_bytes_per_partition) + " streamed per partition)";
}

}  // namespace snarkd::engine
