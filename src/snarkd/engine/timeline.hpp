// The engine's timeline picture (an SVG of every StageSpan, one lane per device worker) and the
// statistics the bench prints beside it. Spans come from trace.hpp; times are seconds.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "snarkd/engine/trace.hpp"

namespace snarkd::engine {

// A self-contained SVG (no scripts, no external fonts or images) of the timeline:
//  - one lane per (device, worker), labelled "dev D · worker W", grouped under a
//    "device D" header; lanes cover 0..devices-1 × 0..workers_per_device-1 and are
//    extended to any larger index a span carries; the lane of kCopy spans (worker index
//    workers_per_device) is labelled "dev D · copy engine";
//  - a time axis in seconds over 0..max(wall_s, latest span end) with 1-2-5 ticks;
//  - each span a box coloured by stage (legend on top); the lock waits kWaitVram and
//    kWaitCompute drawn hatched on a lighter ground (a pattern is defined only when such
//    spans exist), and drawn under the other stages where boxes overlap;
//  - under each device's lanes a "device busy" strip, the union of its kCompute spans, with
//    busy_fraction(tl, d, 0, axis end) as text;
//  - a <title> tooltip on every box (job, partition, stage, duration, begin → end).
// Size: spans narrower than 0.3 px are merged per lane into pixel bins (one box per run of
// bins with the same dominant stage, opacity by coverage, tooltip counting the merged spans).
// At most 15,000 spans are drawn one by one (the widest ones; the rest are merged) and the bins
// are widened so that lanes × bins ≤ 10,000, which keeps 50,000 spans well under 5 MB.
// Text (title included) is XML-escaped; invalid UTF-8 and control characters become U+FFFD.
// Throws InvalidArgument for a span with a non-finite or negative begin, end < begin, a stage
// outside Stage, or more than 4096 lanes.
std::string timeline_svg(const Timeline& tl, const std::string& title);

// Renders svg_path to png_path with rsvg-convert, else ImageMagick's convert, found on PATH and
// started with posix_spawn (arguments passed as they are, no shell). True when a converter
// exited 0 and png_path is a non-empty file; false otherwise (no converter, or it failed).
bool write_png_if_possible(const std::string& svg_path, const std::string& png_path);

// Length of the union of `device`'s kCompute spans clipped to [t0, t1], divided by t1 − t0
// (so in [0, 1]; overlapping spans count once). Throws InvalidArgument unless t0 < t1 are
// finite, or if one of those spans has non-finite times or end < begin.
double busy_fraction(const Timeline& tl, uint32_t device, double t0, double t1);

// The median of end_s − begin_s over the spans of each stage, indexed by the Stage value (mean
// of the two middle values for an even count). NaN for a stage with no span (0 would read as
// "instant"); test with std::isnan.
std::array<double, kNumStages> stage_medians(const Timeline& tl);

}  // namespace snarkd::engine
