#include "snarkd/engine/timeline.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "snarkd/util/error.hpp"

extern char** environ;

namespace snarkd::engine {

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::kWaitVram: return "wait_vram";
    case Stage::kUpload: return "upload";
    case Stage::kWaitCompute: return "wait_compute";
    case Stage::kCompute: return "compute";
    case Stage::kFinalize: return "finalize";
    case Stage::kCopy: return "copy";
  }
  return "unknown";
}

namespace {

using Interval = std::pair<double, double>;

constexpr const char* kDot = " \xC2\xB7 ";     // " · "
constexpr const char* kArrow = " \xE2\x86\x92 ";  // " → "

// ---- Geometry (px). The plot runs kPlotLeft .. kPlotLeft + kPlotWidth; lane labels sit left.
constexpr double kWidth = 1600, kPlotLeft = 170, kPlotWidth = 1400;
constexpr double kTop = 88;  // below the title, the subtitle and the legend
constexpr double kHeaderH = 18, kLaneH = 16, kBoxH = 12, kBusyPad = 4, kBusyH = 6, kDeviceGap = 8;
constexpr double kAxisH = 44;

// ---- Size bounds (see timeline.hpp): a box with its tooltip is ~150 bytes, so 15,000 single
// boxes plus 10,000 merged runs stay under ~4 MB whatever the span count.
constexpr double kMinBoxPx = 0.3;
constexpr size_t kMaxSingleBoxes = 15000;
constexpr double kMaxBinCells = 10000;
constexpr uint64_t kMaxLanes = 4096;

// Okabe–Ito colours (distinguishable with the common colour-vision deficiencies).
constexpr const char* kStageColour[kNumStages] = {"#e69f00", "#0072b2", "#cc79a7", "#009e73",
                                                  "#d55e00", "#56b4e9"};

bool is_wait(size_t stage) {
  return stage == size_t(Stage::kWaitVram) || stage == size_t(Stage::kWaitCompute);
}

// "#rrggbb" mixed 60% towards white: the ground of the hatched (lock-wait) boxes.
std::string lighter(const char* hex) {
  static const char* digits = "0123456789abcdef";
  std::string out = "#";
  for (int i = 0; i < 3; ++i) {
    const int c = std::stoi(std::string(hex + 1 + 2 * i, 2), nullptr, 16);
    const int l = 255 - (255 - c) * 2 / 5;
    out += digits[l >> 4];
    out += digits[l & 15];
  }
  return out;
}

// ---- Text output

// Length of the UTF-8 sequence at s[i] if it is valid and a character XML 1.0 allows, else 0.
size_t xml_char_len(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c0 = byte(i);
  if (c0 < 0x80) return (c0 >= 0x20 || c0 == '\t' || c0 == '\n' || c0 == '\r') ? 1 : 0;
  size_t len;
  uint32_t cp, min;
  if ((c0 & 0xE0) == 0xC0) {
    len = 2, cp = c0 & 0x1F, min = 0x80;
  } else if ((c0 & 0xF0) == 0xE0) {
    len = 3, cp = c0 & 0x0F, min = 0x800;
  } else if ((c0 & 0xF8) == 0xF0) {
    len = 4, cp = c0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  const bool bad = cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE ||
                   cp == 0xFFFF;
  return bad ? 0 : len;
}

// Appends s escaped for XML text and attribute values; a byte that does not start an allowed
// character becomes U+FFFD (the document must stay well-formed whatever the title holds).
void append_escaped(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = xml_char_len(s, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    switch (s[i]) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.append(s.substr(i, len));
    }
    i += len;
  }
}

// Fixed-point with at most `decimals` digits, trailing zeros dropped; locale-independent.
void append_num(std::string& out, double v, int decimals) {
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (r.ec != std::errc()) r = std::to_chars(buf, buf + sizeof buf, v);  // |v| > 1e300
  char* end = r.ptr;
  if (std::find(buf, end, '.') != end) {
    while (end[-1] == '0') --end;
    if (end[-1] == '.') --end;
  }
  if (end - buf == 2 && buf[0] == '-' && buf[1] == '0') {
    out += '0';
    return;
  }
  out.append(buf, end);
}

std::string num(double v, int decimals) {
  std::string s;
  append_num(s, v, decimals);
  return s;
}

// A duration in the unit that keeps 3–4 significant digits readable.
std::string duration_text(double d) {
  if (d < 1e-3) return num(d * 1e6, 1) + " \xC2\xB5s";
  if (d < 1) return num(d * 1e3, 3) + " ms";
  return num(d, 3) + " s";
}

// ---- Validation

std::string describe(const StageSpan& s, size_t i) {
  std::ostringstream os;
  os << "span " << i << " (device " << s.device << ", worker " << s.worker << ", job " << s.job
     << ", partition " << s.partition << ", stage " << unsigned(s.stage) << ")";
  return os.str();
}

// Finite times with end >= begin and a stage inside Stage; `fn` names the caller.
void check_span(const StageSpan& s, size_t i, const char* fn) {
  if (size_t(s.stage) >= kNumStages) {
    throw InvalidArgument(std::string(fn) + ": " + describe(s, i) + " has no valid stage");
  }
  if (!std::isfinite(s.begin_s) || !std::isfinite(s.end_s) || s.end_s < s.begin_s) {
    std::ostringstream os;
    os << fn << ": " << describe(s, i) << " has times [" << s.begin_s << ", " << s.end_s
       << "]; need finite begin <= end";
    throw InvalidArgument(os.str());
  }
}

// The union of `device`'s kCompute spans clipped to [t0, t1], as sorted disjoint intervals.
std::vector<Interval> compute_union(const Timeline& tl, uint32_t device, double t0, double t1,
                                    const char* fn) {
  std::vector<Interval> iv;
  for (size_t i = 0; i < tl.spans.size(); ++i) {
    const StageSpan& s = tl.spans[i];
    if (s.device != device || s.stage != Stage::kCompute) continue;
    check_span(s, i, fn);
    const double b = std::max(s.begin_s, t0), e = std::min(s.end_s, t1);
    if (e > b) iv.emplace_back(b, e);
  }
  std::sort(iv.begin(), iv.end());
  std::vector<Interval> out;
  for (const Interval& x : iv) {
    if (!out.empty() && x.first <= out.back().second) {
      out.back().second = std::max(out.back().second, x.second);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

// ---- Layout

struct Layout {
  uint64_t devices = 0, workers = 0;
  uint64_t copy_lane = UINT64_MAX;  // the lane index of the copy engine's spans, if any
  double end_s = 1;   // the axis runs 0 .. end_s
  double bin_px = 1;  // width of the bins narrow spans are merged into
  double single_px = kMinBoxPx;  // spans at least this wide are drawn one by one

  double device_h() const {
    return kHeaderH + double(workers) * kLaneH + 2 * kBusyPad + kBusyH + kDeviceGap;
  }
  double device_y(uint64_t d) const { return kTop + double(d) * device_h(); }
  double lane_y(uint64_t d, uint64_t w) const {
    return device_y(d) + kHeaderH + double(w) * kLaneH;
  }
  double busy_y(uint64_t d) const { return lane_y(d, workers) + kBusyPad; }
  double plot_bottom() const { return devices == 0 ? kTop + 24 : device_y(devices); }
  double height() const { return plot_bottom() + kAxisH; }
  double px(double t) const { return t / end_s * kPlotWidth; }  // offset from kPlotLeft
  uint64_t lane(const StageSpan& s) const { return s.device * workers + s.worker; }
};

// Checks every span, sizes the lanes and the axis, and picks the single-box threshold so that
// at most kMaxSingleBoxes spans are drawn one by one (the widest ones).
Layout make_layout(const Timeline& tl) {
  if (!std::isfinite(tl.wall_s) || tl.wall_s < 0) {
    throw InvalidArgument("timeline_svg: wall_s = " + std::to_string(tl.wall_s) +
                          " is not a finite non-negative time");
  }
  Layout L;
  L.devices = tl.devices;
  L.workers = tl.workers_per_device;
  double end = tl.wall_s;
  for (size_t i = 0; i < tl.spans.size(); ++i) {
    const StageSpan& s = tl.spans[i];
    check_span(s, i, "timeline_svg");
    if (s.begin_s < 0) {
      throw InvalidArgument("timeline_svg: " + describe(s, i) + " begins before 0 s");
    }
    L.devices = std::max<uint64_t>(L.devices, uint64_t(s.device) + 1);
    L.workers = std::max<uint64_t>(L.workers, uint64_t(s.worker) + 1);
    if (s.stage == Stage::kCopy) L.copy_lane = s.worker;
    end = std::max(end, s.end_s);
  }
  // Checked without forming the product (two 32-bit counts could overflow 64 bits).
  if (L.devices > kMaxLanes || (L.workers != 0 && L.devices > kMaxLanes / L.workers)) {
    throw InvalidArgument("timeline_svg: " + std::to_string(L.devices) + " devices x " +
                          std::to_string(L.workers) + " workers is more than " +
                          std::to_string(kMaxLanes) + " lanes");
  }
  L.end_s = end > 0 ? end : 1;  // an empty or all-instant timeline still gets an axis
  L.bin_px = std::max(1.0, kPlotWidth * double(L.devices * L.workers) / kMaxBinCells);
  std::vector<double> wide;
  for (const StageSpan& s : tl.spans) {
    const double w = L.px(s.end_s - s.begin_s);
    if (w >= kMinBoxPx) wide.push_back(w);
  }
  if (wide.size() > kMaxSingleBoxes) {
    // Only spans strictly wider than the (k+1)-th widest: at most k of them, ties included.
    auto kth = wide.begin() + kMaxSingleBoxes;
    std::nth_element(wide.begin(), kth, wide.end(), std::greater<>());
    L.single_px = std::nextafter(*kth, std::numeric_limits<double>::infinity());
  }
  return L;
}

// ---- Drawing

struct DrawStats {
  size_t single = 0;      // spans drawn as their own box
  size_t merged = 0;      // spans folded into bins
  size_t merged_boxes = 0;
};

// Opens a box (closed by close_box after the tooltip text) in a lane group at y = 0.
void open_box(std::string& out, double x, double w, size_t stage, int quarter_opacity) {
  out += "<rect x=\"";
  append_num(out, x, 2);
  out += "\" width=\"";
  append_num(out, std::max(w, kMinBoxPx), 2);
  out += "\" height=\"";
  append_num(out, kBoxH, 0);
  out += "\" class=\"s";
  out += char('0' + stage);
  out += '"';
  if (quarter_opacity < 4) {
    out += " opacity=\"";
    append_num(out, quarter_opacity / 4.0, 2);
    out += '"';
  }
  out += "><title>";
}

void close_box(std::string& out) { out += "</title></rect>\n"; }

void draw_single(std::string& out, const Layout& L, const StageSpan& s) {
  const size_t st = size_t(s.stage);
  open_box(out, kPlotLeft + L.px(s.begin_s), L.px(s.end_s - s.begin_s), st, 4);
  out += "job " + std::to_string(s.job) + kDot + "partition " + std::to_string(s.partition) +
         kDot + stage_name(s.stage) + kDot + duration_text(s.end_s - s.begin_s) + kDot +
         num(s.begin_s, 6) + kArrow + num(s.end_s, 6) + " s";
  close_box(out);
}

// What the narrow spans left in one bin (or a run of bins): px covered and count, per stage.
struct Bin {
  std::array<double, kNumStages> px{};
  std::array<uint64_t, kNumStages> count{};
  uint64_t total() const {
    uint64_t n = 0;
    for (uint64_t c : count) n += c;
    return n;
  }
  size_t dominant() const {  // most px covered; among zero-width spans the most numerous
    size_t best = 0;
    for (size_t k = 1; k < kNumStages; ++k) {
      if (px[k] > px[best] || (px[k] == px[best] && count[k] > count[best])) best = k;
    }
    return best;
  }
  void add(const Bin& o) {
    for (size_t k = 0; k < kNumStages; ++k) px[k] += o.px[k], count[k] += o.count[k];
  }
};

// Spreads a narrow span over the bins it touches (it is counted in the bin of its begin).
void add_to_bins(std::vector<Bin>& bins, const Layout& L, const StageSpan& s) {
  const double x0 = L.px(s.begin_s), x1 = L.px(s.end_s);
  const size_t last = bins.size() - 1;
  const size_t k0 = std::min(last, size_t(x0 / L.bin_px));
  const size_t k1 = std::min(last, size_t(x1 / L.bin_px));
  const size_t st = size_t(s.stage);
  bins[k0].count[st]++;
  for (size_t k = k0; k <= k1; ++k) {
    const double lo = std::max(x0, double(k) * L.bin_px);
    const double hi = std::min(x1, double(k + 1) * L.bin_px);
    if (hi > lo) bins[k].px[st] += hi - lo;
  }
}

// Opacity in quarters from the fraction of the bins' width covered (overlaps may exceed 1).
int coverage_quarters(const Bin& b, double width_px) {
  double covered = 0;
  for (double p : b.px) covered += p;
  return std::clamp(int(std::ceil(covered / width_px * 4)), 1, 4);
}

void draw_merged_run(std::string& out, const Layout& L, const Bin& run, size_t k0, size_t k1,
                     int quarters) {
  const double x0 = double(k0) * L.bin_px, x1 = std::min(kPlotWidth, double(k1) * L.bin_px);
  open_box(out, kPlotLeft + x0, x1 - x0, run.dominant(), quarters);
  double covered = 0;
  for (double p : run.px) covered += p;
  out += std::to_string(run.total()) + " narrow spans merged" + kDot + num(x0 / kPlotWidth *
         L.end_s, 6) + kArrow + num(x1 / kPlotWidth * L.end_s, 6) + " s:";
  for (size_t k = 0; k < kNumStages; ++k) {
    if (run.count[k] == 0) continue;
    out += std::string(" ") + stage_name(Stage(k)) + " " + std::to_string(run.count[k]);
    if (covered > 0) out += " (" + num(100 * run.px[k] / covered, 0) + "%)";
  }
  close_box(out);
}

// Emits one box per run of adjacent non-empty bins with the same dominant stage and opacity.
void draw_bins(std::string& out, const Layout& L, const std::vector<Bin>& bins, DrawStats& st) {
  size_t k = 0;
  while (k < bins.size()) {
    if (bins[k].total() == 0) {
      ++k;
      continue;
    }
    const size_t dom = bins[k].dominant();
    const int q = coverage_quarters(bins[k], L.bin_px);
    Bin run = bins[k];
    size_t e = k + 1;
    while (e < bins.size() && bins[e].total() > 0 && bins[e].dominant() == dom &&
           coverage_quarters(bins[e], L.bin_px) == q) {
      run.add(bins[e++]);
    }
    draw_merged_run(out, L, run, k, e, q);
    st.merged_boxes++;
    k = e;
  }
}

// One lane: the merged bins first, then single boxes, lock waits under the other stages.
void draw_lane(std::string& out, const Timeline& tl, const Layout& L, const std::vector<size_t>& idx,
               double y, DrawStats& st) {
  out += "<g transform=\"translate(0,";
  append_num(out, y + (kLaneH - kBoxH) / 2, 2);
  out += ")\">\n";
  std::vector<Bin> bins(size_t(std::ceil(kPlotWidth / L.bin_px)));
  std::vector<size_t> single;
  for (size_t i : idx) {
    const StageSpan& s = tl.spans[i];
    if (L.px(s.end_s - s.begin_s) >= L.single_px) {
      single.push_back(i);
    } else {
      add_to_bins(bins, L, s);
      st.merged++;
    }
  }
  draw_bins(out, L, bins, st);
  std::sort(single.begin(), single.end(), [&](size_t a, size_t b) {
    const StageSpan &sa = tl.spans[a], &sb = tl.spans[b];
    const bool wa = is_wait(size_t(sa.stage)), wb = is_wait(size_t(sb.stage));
    return wa != wb ? wa : sa.begin_s < sb.begin_s;
  });
  for (size_t i : single) draw_single(out, L, tl.spans[i]);
  st.single += single.size();
  out += "</g>\n";
}

// The strip under a device's lanes: union of its compute spans (one path) and its busy share.
void draw_busy_strip(std::string& out, const Timeline& tl, const Layout& L, uint32_t d) {
  const double y = L.busy_y(d);
  const std::string pct = num(100 * busy_fraction(tl, d, 0, L.end_s), 1) + "%";
  out += "<text class=\"lab\" x=\"" + num(kPlotLeft - 8, 0) + "\" y=\"" + num(y + kBusyH, 1) +
         "\">device busy " + pct + "</text>\n";
  out += "<g transform=\"translate(0," + num(y, 1) + ")\"><title>device " + std::to_string(d) +
         " busy " + pct + " of 0" + kArrow + num(L.end_s, 6) +
         " s (union of its compute spans)</title>\n<rect class=\"bg\" x=\"" + num(kPlotLeft, 0) +
         "\" width=\"" + num(kPlotWidth, 0) + "\" height=\"" + num(kBusyH, 0) + "\"/>\n";
  // Intervals closer than half a pixel are joined: the path stays ≤ ~2 segments per pixel.
  std::string d_attr;
  double a = -1, b = -1;
  const auto flush = [&] {
    if (a < 0) return;
    const double w = std::max(b - a, kMinBoxPx);
    d_attr += "M" + num(kPlotLeft + a, 2) + " 0h" + num(w, 2) + "v" + num(kBusyH, 0) + "h-" +
              num(w, 2) + "z";
  };
  for (const Interval& iv : compute_union(tl, d, 0, L.end_s, "timeline_svg")) {
    const double x0 = L.px(iv.first), x1 = L.px(iv.second);
    if (a >= 0 && x0 - b < 0.5) {
      b = std::max(b, x1);
    } else {
      flush();
      a = x0, b = x1;
    }
  }
  flush();
  if (!d_attr.empty()) out += "<path class=\"busy\" d=\"" + d_attr + "\"/>\n";
  out += "</g>\n";
}

// Device headers, lane grounds and labels.
void draw_frame(std::string& out, const Layout& L) {
  if (L.devices == 0) {
    out += "<text x=\"" + num(kPlotLeft, 0) + "\" y=\"" + num(kTop + 14, 0) +
           "\">(no devices)</text>\n";
  }
  for (uint64_t d = 0; d < L.devices; ++d) {
    out += "<text class=\"dev\" x=\"8\" y=\"" + num(L.device_y(d) + 13, 1) + "\">device " +
           std::to_string(d) + "</text>\n";
    out += "<path class=\"ax\" d=\"M8 " + num(L.device_y(d) + 16, 1) + "H" +
           num(kPlotLeft + kPlotWidth, 0) + "\"/>\n";
    for (uint64_t w = 0; w < L.workers; ++w) {
      const double y = L.lane_y(d, w);
      out += "<text class=\"lab\" x=\"" + num(kPlotLeft - 8, 0) + "\" y=\"" + num(y + 12, 1) +
             "\">dev " + std::to_string(d) + kDot + (w == L.copy_lane ? "copy engine" : "worker " + std::to_string(w)) +
             "</text>\n";
      out += "<rect class=\"ln\" x=\"" + num(kPlotLeft, 0) + "\" y=\"" + num(y + 1, 1) +
             "\" width=\"" + num(kPlotWidth, 0) + "\" height=\"" + num(kLaneH - 2, 0) + "\"/>\n";
    }
  }
}

// Grid lines and the time axis with 1-2-5 ticks (about 8 over the axis).
void draw_axis(std::string& out, const Layout& L) {
  const double raw = L.end_s / 8;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / mag;
  double step = (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * mag;
  if (!(step > 0) || !std::isfinite(step)) step = L.end_s;  // end_s subnormal: one tick
  const int decimals = std::max(0, int(-std::floor(std::log10(step) + 1e-9)));
  const double top = kTop, bottom = L.plot_bottom(), y = bottom + 2;
  std::string grid = "<path class=\"g\" d=\"", ticks = "<path class=\"ax\" d=\"", labels;
  for (int k = 0; k <= 20; ++k) {  // 1-2-5 steps give at most ~13 ticks
    const double t = k * step;
    if (t > L.end_s * (1 + 1e-9)) break;
    const std::string x = num(kPlotLeft + L.px(std::min(t, L.end_s)), 2);
    grid += "M" + x + " " + num(top, 0) + "V" + num(bottom, 1);
    ticks += "M" + x + " " + num(y, 1) + "v5";
    labels += "<text class=\"mid\" x=\"" + x + "\" y=\"" + num(y + 17, 1) + "\">" +
              num(t, decimals) + "</text>\n";
  }
  out += grid + "\"/>\n" + ticks + "M" + num(kPlotLeft, 0) + " " + num(y, 1) + "h" +
         num(kPlotWidth, 0) + "\"/>\n" + labels;
  out += "<text class=\"lab\" x=\"" + num(kPlotLeft + kPlotWidth, 0) + "\" y=\"" +
         num(y + 34, 1) + "\">time (s)</text>\n";
}

// <defs> (hatch patterns for the wait stages that occur) and the stylesheet.
std::string styles(const std::array<bool, kNumStages>& present) {
  std::string defs = "<defs>\n", css = "<style>\n";
  css += "text{font-family:sans-serif;font-size:11px;fill:#222}\n"
         ".t{font-size:16px;font-weight:bold}.sub{fill:#555}.dev{font-size:12px;font-weight:bold}"
         ".lab{text-anchor:end}.mid{text-anchor:middle}\n"
         ".ln{fill:#f3f3f3}.bg{fill:#e4e4e4}.busy{fill:#333}"
         ".g{stroke:#d0d0d0;stroke-width:0.5;fill:none}.ax{stroke:#444;stroke-width:1;fill:none}\n";
  for (size_t k = 0; k < kNumStages; ++k) {
    const std::string id = "h" + std::to_string(k), light = lighter(kStageColour[k]);
    if (is_wait(k) && present[k]) {
      defs += "<pattern id=\"" + id + "\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
              "patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"5\" fill=\"" + light +
              "\"/><rect width=\"2\" height=\"5\" fill=\"" + kStageColour[k] + "\"/></pattern>\n";
      css += ".s" + std::to_string(k) + "{fill:url(#" + id + ")}\n";
    } else {
      css += ".s" + std::to_string(k) + "{fill:" + (is_wait(k) ? light : kStageColour[k]) + "}\n";
    }
  }
  return defs + "</defs>\n" + css + "</style>\n";
}

void draw_legend(std::string& out) {
  out += "<g id=\"legend\">\n";
  double x = kPlotLeft;
  for (size_t k = 0; k < kNumStages; ++k) {
    out += "<rect x=\"" + num(x, 0) + "\" y=\"58\" width=\"16\" height=\"11\" class=\"s" +
           std::to_string(k) + "\"/><text x=\"" + num(x + 21, 0) + "\" y=\"68\">" +
           stage_name(Stage(k)) + (is_wait(k) ? " (lock wait)" : "") + "</text>\n";
    x += is_wait(k) ? 175 : 95;  // "wait_compute (lock wait)" is ~140 px at 11 px
  }
  out += "<rect x=\"" + num(x, 0) + "\" y=\"60\" width=\"16\" height=\"6\" class=\"busy\"/>" +
         "<text x=\"" + num(x + 21, 0) + "\" y=\"68\">device busy (union of compute)</text>\n";
  out += "<text class=\"sub\" x=\"" + num(x + 210, 0) + "\" y=\"68\">faded boxes: spans under " +
         num(kMinBoxPx, 1) + " px merged</text>\n</g>\n";
}

}  // namespace

std::string timeline_svg(const Timeline& tl, const std::string& title) {
  const Layout L = make_layout(tl);
  std::array<bool, kNumStages> present{};
  std::vector<std::vector<size_t>> lanes(L.devices * L.workers);
  for (size_t i = 0; i < tl.spans.size(); ++i) {
    present[size_t(tl.spans[i].stage)] = true;
    lanes[L.lane(tl.spans[i])].push_back(i);
  }
  std::string body;
  body.reserve(256 + tl.spans.size() * 150);
  draw_frame(body, L);
  draw_axis(body, L);
  DrawStats st;
  for (uint64_t d = 0; d < L.devices; ++d) {
    for (uint64_t w = 0; w < L.workers; ++w) {
      draw_lane(body, tl, L, lanes[d * L.workers + w], L.lane_y(d, w), st);
    }
    draw_busy_strip(body, tl, L, uint32_t(d));
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth, 0) +
                    "\" height=\"" + num(L.height(), 0) + "\" viewBox=\"0 0 " + num(kWidth, 0) +
                    " " + num(L.height(), 0) + "\">\n<title>";
  append_escaped(out, title);
  out += "</title>\n" + styles(present);
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n<text class=\"t\" x=\"8\" y=\"22\">";
  append_escaped(out, title);
  out += "</text>\n<text class=\"sub\" x=\"8\" y=\"42\">" + std::to_string(L.devices) +
         " devices \xC3\x97 " + std::to_string(L.workers) + " workers" + kDot +
         std::to_string(tl.spans.size()) + " spans (" + std::to_string(st.single) + " drawn, " +
         std::to_string(st.merged) + " merged into " + std::to_string(st.merged_boxes) +
         " boxes)" + kDot + "wall " + num(tl.wall_s, 6) + " s</text>\n";
  draw_legend(out);
  out += body;
  out += "</svg>\n";
  return out;
}

namespace {

// The first executable regular file called `name` in $PATH's directories, or "".
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest(path);
  while (true) {
    const size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";  // POSIX: an empty PATH entry is the current directory
    const std::string cand = dir + "/" + name;
    struct stat sb;
    if (::stat(cand.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) && ::access(cand.c_str(), X_OK) == 0) {
      return cand;
    }
    if (colon == std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
  }
}

// Runs exe with args (argv[0] included) and stdout on /dev/null; true when it exits 0.
bool run_tool(const std::string& exe, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0) return false;
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A path the converters cannot take for an option.
std::string as_operand(const std::string& p) { return p[0] == '-' ? "./" + p : p; }

bool nonempty_file(const std::string& p) {
  struct stat sb;
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

}  // namespace

bool write_png_if_possible(const std::string& svg_path, const std::string& png_path) {
  if (svg_path.empty() || png_path.empty() || !nonempty_file(svg_path)) return false;
  const std::string svg = as_operand(svg_path), png = as_operand(png_path);
  if (const std::string rsvg = find_on_path("rsvg-convert"); !rsvg.empty()) {
    if (run_tool(rsvg, {"rsvg-convert", "-o", png, svg}) && nonempty_file(png_path)) return true;
  }
  if (const std::string convert = find_on_path("convert"); !convert.empty()) {
    // Explicit format prefixes: ImageMagick would otherwise read "x:y" as format "x".
    if (run_tool(convert, {"convert", "svg:" + svg_path, "png:" + png_path}) &&
        nonempty_file(png_path)) {
      return true;
    }
  }
  return false;
}

double busy_fraction(const Timeline& tl, uint32_t device, double t0, double t1) {
  if (!std::isfinite(t0) || !std::isfinite(t1) || !(t0 < t1)) {
    std::ostringstream os;
    os << "busy_fraction: window [" << t0 << ", " << t1 << "] is not finite with t0 < t1";
    throw InvalidArgument(os.str());
  }
  double busy = 0;
  for (const Interval& iv : compute_union(tl, device, t0, t1, "busy_fraction")) {
    busy += iv.second - iv.first;
  }
  return std::min(1.0, busy / (t1 - t0));
}

std::array<double, kNumStages> stage_medians(const Timeline& tl) {
  std::array<std::vector<double>, kNumStages> d;
  for (size_t i = 0; i < tl.spans.size(); ++i) {
    const StageSpan& s = tl.spans[i];
    check_span(s, i, "stage_medians");
    d[size_t(s.stage)].push_back(s.end_s - s.begin_s);
  }
  std::array<double, kNumStages> med;
  for (size_t k = 0; k < kNumStages; ++k) {
    std::vector<double>& v = d[k];
    if (v.empty()) {
      med[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const size_t h = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + h, v.end());
    med[k] = v[h];
    if (v.size() % 2 == 0) {  // the lower middle is the largest of the lower half
      med[k] = (med[k] + *std::max_element(v.begin(), v.begin() + h)) / 2;
    }
  }
  return med;
}

}  // namespace snarkd::engine
