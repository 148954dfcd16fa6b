// A partition's engine timestamps as the proto's stage durations, shared by the local service
// (Await/Status) and the cluster node (results it writes for other hosts) so both report alike.
#pragma once
#include <algorithm>

#include "snarkd/engine/engine.hpp"
#include "snarkd/v1/snarkd.pb.h"

namespace snarkd::server {

// Durations between consecutive stamps; 0 where either stamp is missing.
inline void fill_timings(const engine::PartitionTiming& t, v1::StageTimings& out) {
  auto span = [](double a, double b) { return a > 0 && b > 0 ? std::max(0.0, b - a) : 0.0; };
  out.set_queued_s(span(t.submitted_s, t.dequeued_s));
  out.set_wait_vram_s(span(t.dequeued_s, t.reserved_s));
  out.set_upload_s(span(t.reserved_s, t.uploaded_s));
  out.set_compute_s(span(t.uploaded_s, t.computed_s));
  out.set_finalize_s(span(t.computed_s, t.finalized_s));
}

}  // namespace snarkd::server
