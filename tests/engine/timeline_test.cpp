// The timeline picture (timeline_svg), its statistics (busy_fraction, stage_medians), the PNG
// converter call and the process memory stats. The SVG is parsed by a minimal XML reader below
// (balanced tags, quoted attributes, known entities only, valid UTF-8) and then queried: lane
// labels, legend, tooltips and box geometry. Set SNARKD_TIMELINE_EXAMPLE=/path/x.svg to also
// write an example picture (and x.png when a converter is on PATH).
#include "snarkd/engine/timeline.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/seed.hpp"
#include "snarkd/util/error.hpp"
#include "snarkd/util/proc_stats.hpp"

namespace {

using snarkd::InvalidArgument;
using snarkd::engine::busy_fraction;
using snarkd::engine::kNumStages;
using snarkd::engine::Stage;
using snarkd::engine::stage_medians;
using snarkd::engine::stage_name;
using snarkd::engine::StageSpan;
using snarkd::engine::Timeline;
using snarkd::engine::timeline_svg;

const std::string kDot = " \xC2\xB7 ";

// ---------------------------------------------------------------- minimal XML reader

struct Node {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // direct character data, entities resolved
  std::vector<size_t> kids;
};

struct Doc {
  std::vector<Node> nodes;  // nodes[0] is the root element
  std::string error;        // empty when well-formed
};

// Every byte sequence must be valid UTF-8 and a character XML 1.0 allows.
std::string check_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return "bad UTF-8 lead byte at " + std::to_string(i);
    if (len == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return "control character at " + std::to_string(i);
    }
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      const unsigned b = static_cast<unsigned char>(s[i + k]);
      if ((b >> 6) != 2) return "bad UTF-8 continuation at " + std::to_string(i + k);
      cp = (cp << 6) | (b & 0x3F);
    }
    const uint32_t min = len == 1 ? 0 : len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000) || cp == 0xFFFE ||
        cp == 0xFFFF) {
      return "forbidden code point at " + std::to_string(i);
    }
    i += len;
  }
  return "";
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  }
}

// Resolves the five predefined entities and character references; false on anything else.
bool unescape(const std::string& in, std::string& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '&') {
      out += in[i];
      continue;
    }
    const size_t semi = in.find(';', i);
    if (semi == std::string::npos) return false;
    const std::string e = in.substr(i + 1, semi - i - 1);
    static const std::map<std::string, char> named = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    if (auto it = named.find(e); it != named.end()) {
      out += it->second;
    } else if (e.size() > 1 && e[0] == '#') {
      const bool hex = e[1] == 'x';
      const std::string digits = e.substr(hex ? 2 : 1);
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") !=
                                std::string::npos) {
        return false;
      }
      put_utf8(out, uint32_t(std::stoul(digits, nullptr, hex ? 16 : 10)));
    } else {
      return false;
    }
    i = semi;
  }
  return true;
}

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':' ||
         (!first && (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'));
}

struct Reader {
  explicit Reader(const std::string& text) : s(text) {}
  const std::string& s;
  size_t i = 0;
  Doc doc;
  std::vector<size_t> open;

  bool fail(const std::string& what) {
    if (doc.error.empty()) doc.error = what + " at byte " + std::to_string(i);
    return false;
  }
  std::string name() {
    const size_t b = i;
    if (i < s.size() && name_char(s[i], true)) ++i;
    while (i < s.size() && name_char(s[i], false)) ++i;
    return s.substr(b, i - b);
  }
  void space() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool attribute(Node& n) {
    const std::string a = name();
    if (a.empty()) return fail("attribute name expected");
    space();
    if (i >= s.size() || s[i] != '=') return fail("'=' expected after " + a);
    ++i;
    space();
    if (i >= s.size() || (s[i] != '"' && s[i] != '\'')) return fail("quoted value expected");
    const char q = s[i++];
    const size_t end = s.find(q, i);
    if (end == std::string::npos) return fail("unterminated attribute " + a);
    const std::string raw = s.substr(i, end - i);
    std::string v;
    if (raw.find('<') != std::string::npos || !unescape(raw, v)) return fail("bad value of " + a);
    if (!n.attrs.emplace(a, v).second) return fail("duplicate attribute " + a);
    i = end + 1;
    return true;
  }
  bool start_tag() {
    Node n;
    n.name = name();
    if (n.name.empty()) return fail("element name expected");
    while (true) {
      const size_t before = i;
      space();
      if (i >= s.size()) return fail("unterminated tag " + n.name);
      if (s[i] == '>' || s.compare(i, 2, "/>") == 0) break;
      if (i == before) return fail("space expected before attribute");
      if (!attribute(n)) return false;
    }
    const bool empty = s[i] == '/';
    i += empty ? 2 : 1;
    if (open.empty() && !doc.nodes.empty()) return fail("second root element");
    doc.nodes.push_back(std::move(n));
    const size_t id = doc.nodes.size() - 1;
    if (!open.empty()) doc.nodes[open.back()].kids.push_back(id);
    if (!empty) open.push_back(id);
    return true;
  }
  bool end_tag() {
    const std::string n = name();
    space();
    if (i >= s.size() || s[i] != '>') return fail("'>' expected in end tag");
    ++i;
    if (open.empty() || doc.nodes[open.back()].name != n) return fail("unbalanced </" + n + ">");
    open.pop_back();
    return true;
  }
  bool text() {
    const size_t end = std::min(s.find('<', i), s.size());
    const std::string raw = s.substr(i, end - i);
    i = end;
    if (open.empty()) {
      if (raw.find_first_not_of(" \t\r\n") != std::string::npos) return fail("text outside root");
      return true;
    }
    std::string v;
    if (raw.find("]]>") != std::string::npos || !unescape(raw, v)) return fail("bad text");
    doc.nodes[open.back()].text += v;
    return true;
  }
  bool markup() {
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t e = s.find("-->", i);
      if (e == std::string::npos) return fail("unterminated comment");
      i = e + 3;
      return true;
    }
    if (s.compare(i, 2, "</") == 0) return i += 2, end_tag();
    if (s.compare(i, 2, "<!") == 0 || s.compare(i, 2, "<?") == 0) return fail("unexpected <! or <?");
    return ++i, start_tag();
  }
  Doc run() {
    if (std::string e = check_utf8(s); !e.empty()) return fail(e), std::move(doc);
    if (s.compare(0, 5, "<?xml") == 0) i = s.find("?>") + 2;
    while (i < s.size()) {
      if (!(s[i] == '<' ? markup() : text())) return std::move(doc);
    }
    if (!open.empty()) fail("unclosed <" + doc.nodes[open.back()].name + ">");
    if (doc.nodes.empty()) fail("no root element");
    return std::move(doc);
  }
};

Doc parse_xml(const std::string& s) { return Reader(s).run(); }

std::vector<size_t> all_named(const Doc& d, const std::string& name) {
  std::vector<size_t> out;
  for (size_t i = 0; i < d.nodes.size(); ++i) {
    if (d.nodes[i].name == name) out.push_back(i);
  }
  return out;
}

// Text of a node's <title> child, or "".
std::string title_of(const Doc& d, size_t n) {
  for (size_t k : d.nodes[n].kids) {
    if (d.nodes[k].name == "title") return d.nodes[k].text;
  }
  return "";
}

// Every <rect> with a tooltip: the drawn boxes (legend swatches and grounds carry none).
std::vector<std::pair<size_t, std::string>> boxes(const Doc& d) {
  std::vector<std::pair<size_t, std::string>> out;
  for (size_t r : all_named(d, "rect")) {
    if (std::string t = title_of(d, r); !t.empty()) out.emplace_back(r, t);
  }
  return out;
}

std::multiset<std::string> texts(const Doc& d) {
  std::multiset<std::string> out;
  for (size_t t : all_named(d, "text")) out.insert(d.nodes[t].text);
  return out;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// ---------------------------------------------------------------- timelines

StageSpan span(uint32_t dev, uint32_t w, uint64_t job, Stage st, double b, double e,
               uint32_t part = 0) {
  StageSpan s;
  s.device = dev, s.worker = w, s.job = job, s.partition = part, s.stage = st;
  s.begin_s = b, s.end_s = e;
  return s;
}

// A plausible engine run: each worker takes partitions in turn through the five stages; the
// compute engine of a device is shared, so wait_compute lasts until it is free.
Timeline pipeline(uint32_t devices, uint32_t workers, size_t partitions, std::mt19937_64& rng) {
  Timeline tl;
  tl.devices = devices, tl.workers_per_device = workers;
  std::exponential_distribution<double> ex(1.0);
  std::vector<double> engine_free(devices, 0), worker_t(size_t(devices) * workers, 0);
  for (size_t p = 0; p < partitions; ++p) {
    const uint32_t d = uint32_t(p % devices), w = uint32_t((p / devices) % workers);
    double& t = worker_t[size_t(d) * workers + w];
    const uint64_t job = p / 7;
    const auto add = [&](Stage st, double len) {
      tl.spans.push_back(span(d, w, job, st, t, t + len, uint32_t(p % 7)));
      t += len;
    };
    add(Stage::kWaitVram, 0.002 * ex(rng) * (p % 3 == 0));
    add(Stage::kUpload, 0.01 * (0.5 + ex(rng)));
    add(Stage::kWaitCompute, std::max(0.0, engine_free[d] - t));
    add(Stage::kCompute, 0.05 * (0.5 + ex(rng)));
    engine_free[d] = t;
    add(Stage::kFinalize, 0.004 * (0.5 + ex(rng)));
    tl.wall_s = std::max(tl.wall_s, t);
  }
  return tl;
}

// ---------------------------------------------------------------- SVG structure

TEST(TimelineSvg, WellFormedWithLanesLegendAndTooltips) {
  auto rng = snarkd::test::rng("timeline-small");
  const Timeline tl = pipeline(2, 3, 24, rng);
  const std::string svg = timeline_svg(tl, "small run");
  const Doc d = parse_xml(svg);
  ASSERT_EQ(d.error, "") << svg.substr(0, 2000);
  EXPECT_EQ(d.nodes[0].name, "svg");
  EXPECT_EQ(d.nodes[0].attrs.at("xmlns"), "http://www.w3.org/2000/svg");
  EXPECT_TRUE(all_named(d, "script").empty());
  EXPECT_EQ(svg.find("@font-face"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);  // nothing external
  const auto t = texts(d);
  for (uint32_t dev = 0; dev < 2; ++dev) {
    EXPECT_EQ(t.count("device " + std::to_string(dev)), 1u);
    for (uint32_t w = 0; w < 3; ++w) {
      EXPECT_EQ(t.count("dev " + std::to_string(dev) + kDot + "worker " + std::to_string(w)), 1u);
    }
  }
  // Legend: one entry per stage inside <g id="legend">.
  const auto groups = all_named(d, "g");
  auto legend = std::find_if(groups.begin(), groups.end(), [&](size_t g) {
    auto it = d.nodes[g].attrs.find("id");
    return it != d.nodes[g].attrs.end() && it->second == "legend";
  });
  ASSERT_NE(legend, groups.end());
  for (size_t k = 0; k < kNumStages; ++k) {
    int found = 0;
    for (size_t kid : d.nodes[*legend].kids) {
      found += d.nodes[kid].name == "text" && starts_with(d.nodes[kid].text, stage_name(Stage(k)));
    }
    EXPECT_EQ(found, 1) << stage_name(Stage(k));
  }
  // Every span here is wider than a pixel: one tooltip box each, naming job/partition/stage.
  std::multiset<std::string> want, got;
  for (const StageSpan& s : tl.spans) {
    want.insert("job " + std::to_string(s.job) + kDot + "partition " +
                std::to_string(s.partition) + kDot + stage_name(s.stage));
  }
  uint64_t merged = 0;
  for (const auto& [r, title] : boxes(d)) {
    if (const size_t p = title.find(" narrow spans merged"); p != std::string::npos) {
      merged += std::stoull(title.substr(0, p));  // e.g. zero-length waits: merged, not dropped
      continue;
    }
    const size_t cut = title.find(kDot, title.find(kDot, title.find(kDot) + 1) + 1);
    got.insert(title.substr(0, cut));
  }
  EXPECT_EQ(got.size() + merged, tl.spans.size());
  for (const std::string& g : got) EXPECT_TRUE(want.count(g)) << g;
  for (const StageSpan& s : tl.spans) {  // 1% of the axis is 14 px: never merged
    if (s.end_s - s.begin_s < 0.01 * tl.wall_s) continue;
    EXPECT_TRUE(got.count("job " + std::to_string(s.job) + kDot + "partition " +
                          std::to_string(s.partition) + kDot + stage_name(s.stage)));
  }
}

TEST(TimelineSvg, HatchPatternOnlyWhenWaitSpansExist) {
  Timeline tl;
  tl.devices = 1, tl.workers_per_device = 1, tl.wall_s = 3;
  tl.spans = {span(0, 0, 1, Stage::kUpload, 0, 1), span(0, 0, 1, Stage::kCompute, 1, 2),
              span(0, 0, 1, Stage::kFinalize, 2, 3)};
  std::string svg = timeline_svg(tl, "no waits");
  ASSERT_EQ(parse_xml(svg).error, "");
  EXPECT_EQ(svg.find("<pattern"), std::string::npos);
  EXPECT_EQ(svg.find("url(#"), std::string::npos);

  tl.spans.push_back(span(0, 0, 2, Stage::kWaitVram, 0.5, 2.5));
  svg = timeline_svg(tl, "vram wait");
  Doc d = parse_xml(svg);
  ASSERT_EQ(d.error, "");
  ASSERT_EQ(all_named(d, "pattern").size(), 1u);
  EXPECT_EQ(d.nodes[all_named(d, "pattern")[0]].attrs.at("id"), "h0");
  EXPECT_NE(svg.find(".s0{fill:url(#h0)}"), std::string::npos);
  EXPECT_EQ(svg.find("url(#h2)"), std::string::npos);

  tl.spans.push_back(span(0, 0, 3, Stage::kWaitCompute, 1, 1.5));
  d = parse_xml(timeline_svg(tl, "both waits"));
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(all_named(d, "pattern").size(), 2u);
  // Waits are drawn before (under) the other stages of their lane.
  const auto b = boxes(d);
  size_t last_wait = 0, first_other = b.size();
  for (size_t k = 0; k < b.size(); ++k) {
    const bool wait = b[k].second.find("wait_") != std::string::npos;
    if (wait) last_wait = k;
    if (!wait) first_other = std::min(first_other, k);
  }
  EXPECT_LT(last_wait, first_other);
}

double attr(const Doc& d, size_t n, const char* a) { return std::stod(d.nodes[n].attrs.at(a)); }

// The plot's extent (x, width) in px, from the first lane ground (class "ln"): 0 .. axis end.
std::pair<double, double> plot_extent(const Doc& d) {
  for (size_t r : all_named(d, "rect")) {
    auto it = d.nodes[r].attrs.find("class");
    if (it != d.nodes[r].attrs.end() && it->second == "ln") return {attr(d, r, "x"), attr(d, r, "width")};
  }
  ADD_FAILURE() << "no lane ground";
  return {0, 1};
}

TEST(TimelineSvg, BoxGeometryFollowsTimes) {
  Timeline tl;
  tl.devices = 1, tl.workers_per_device = 2, tl.wall_s = 2;
  tl.spans = {span(0, 0, 10, Stage::kUpload, 0, 0.25), span(0, 0, 11, Stage::kCompute, 0.25, 1.0),
              span(0, 1, 12, Stage::kCompute, 0.5, 1.25), span(0, 1, 13, Stage::kFinalize, 1.5, 2)};
  const Doc d = parse_xml(timeline_svg(tl, "geometry"));
  ASSERT_EQ(d.error, "");
  const auto [x0, width] = plot_extent(d);  // the lane grounds span 0 .. wall_s
  std::map<uint64_t, std::pair<double, double>> got;
  for (const auto& [r, title] : boxes(d)) {
    got[std::stoull(title.substr(4))] = {attr(d, r, "x"), attr(d, r, "width")};
  }
  ASSERT_EQ(got.size(), 4u);
  for (const StageSpan& s : tl.spans) {
    EXPECT_NEAR(got[s.job].first, x0 + s.begin_s / 2 * width, 0.01) << s.job;
    EXPECT_NEAR(got[s.job].second, (s.end_s - s.begin_s) / 2 * width, 0.01) << s.job;
  }
  // Busy strip text of the device: union of [0.25,1] and [0.5,1.25] = 1 s of 2 s.
  EXPECT_EQ(texts(d).count("device busy 50%"), 1u);
}

TEST(TimelineSvg, EscapesTitleAndRepairsBadText) {
  Timeline tl;
  tl.devices = 1, tl.workers_per_device = 1, tl.wall_s = 1;
  const std::string title = "a<b & \"c\" 'd' > ]]> \x01 \xff \xC3\xA9 \xED\xA0\x80 end";
  const std::string svg = timeline_svg(tl, title);
  const Doc d = parse_xml(svg);
  ASSERT_EQ(d.error, "");
  const std::string fffd = "\xEF\xBF\xBD";
  // U+D800 (ED A0 80) is not a character: each of its three bytes becomes U+FFFD.
  const std::string want = "a<b & \"c\" 'd' > ]]> " + fffd + " " + fffd + " \xC3\xA9 " + fffd +
                           fffd + fffd + " end";
  EXPECT_EQ(d.nodes[all_named(d, "title")[0]].text, want);
  EXPECT_EQ(texts(d).count(want), 1u);
}

TEST(TimelineSvg, EmptyTimelines) {
  Timeline none;
  Doc d = parse_xml(timeline_svg(none, ""));
  ASSERT_EQ(d.error, "");
  EXPECT_TRUE(boxes(d).empty());
  EXPECT_EQ(texts(d).count("(no devices)"), 1u);

  Timeline idle;
  idle.devices = 2, idle.workers_per_device = 2, idle.wall_s = 5;
  const std::string svg = timeline_svg(idle, "idle");
  d = parse_xml(svg);
  ASSERT_EQ(d.error, "");
  EXPECT_TRUE(boxes(d).empty());
  EXPECT_EQ(svg.find("<pattern"), std::string::npos);
  EXPECT_EQ(texts(d).count("device busy 0%"), 2u);
  EXPECT_EQ(texts(d).count("dev 1" + kDot + "worker 1"), 1u);
}

TEST(TimelineSvg, LanesExtendToSpanIndices) {
  Timeline tl;
  tl.devices = 1, tl.workers_per_device = 1, tl.wall_s = 1;
  tl.spans = {span(2, 3, 1, Stage::kCompute, 0.5, 2)};  // beyond the counts and wall_s
  const Doc d = parse_xml(timeline_svg(tl, "x"));
  ASSERT_EQ(d.error, "");
  const auto t = texts(d);
  EXPECT_EQ(t.count("dev 2" + kDot + "worker 3"), 1u);
  EXPECT_EQ(t.count("dev 0" + kDot + "worker 0"), 1u);
  EXPECT_EQ(t.count("device busy 75%"), 1u);  // axis runs to the span's end, 2 s
}

TEST(TimelineSvg, RejectsBadSpans) {
  const auto bad = [](StageSpan s) {
    Timeline tl;
    tl.devices = 1, tl.workers_per_device = 1, tl.wall_s = 1;
    tl.spans = {span(0, 0, 1, Stage::kUpload, 0, 1), s};
    try {
      timeline_svg(tl, "t");
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(bad(span(0, 0, 7, Stage::kCompute, 1, 0.5)).find("span 1"), std::string::npos);
  EXPECT_NE(bad(span(0, 0, 7, Stage::kCompute, NAN, 1)).find("job 7"), std::string::npos);
  EXPECT_NE(bad(span(0, 0, 7, Stage::kCompute, 0, INFINITY)).find("finite"), std::string::npos);
  EXPECT_NE(bad(span(0, 0, 7, Stage::kCompute, -1, 1)).find("before 0"), std::string::npos);
  EXPECT_NE(bad(span(0, 0, 7, Stage(9), 0, 1)).find("stage"), std::string::npos);
  EXPECT_NE(bad(span(5000, 0, 7, Stage::kCompute, 0, 1)).find("lanes"), std::string::npos);
  Timeline huge;
  huge.devices = 0xFFFFFFFFu, huge.workers_per_device = 0xFFFFFFFFu;  // product overflows 64 bits
  EXPECT_THROW(timeline_svg(huge, "t"), InvalidArgument);
}

// Merged spans are counted, not lost: the "N narrow spans merged" tooltips add up. Sparse
// narrow spans give faded boxes; a dense run takes the stage covering the most time.
TEST(TimelineSvg, NarrowSpansAreMergedAndCounted) {
  Timeline tl;
  tl.devices = 1, tl.workers_per_device = 1, tl.wall_s = 100;  // 1400 px: 14 px per second
  for (int i = 0; i < 1000; ++i) {  // sparse: 0.01 s (0.14 px) every 0.03 s, 1/3 covered
    const double b = 10 + i * 0.03;
    tl.spans.push_back(span(0, 0, 100 + i, i % 2 ? Stage::kCompute : Stage::kUpload, b, b + 0.01));
  }
  for (int i = 0; i < 1000; ++i) {  // dense: upload 0.002 s then compute 0.008 s, back to back
    const double b = 50 + i * 0.01;
    tl.spans.push_back(span(0, 0, 2000 + i, Stage::kUpload, b, b + 0.002));
    tl.spans.push_back(span(0, 0, 3000 + i, Stage::kCompute, b + 0.002, b + 0.01));
  }
  tl.spans.push_back(span(0, 0, 7, Stage::kFinalize, 60, 90));
  const Doc d = parse_xml(timeline_svg(tl, "narrow"));
  ASSERT_EQ(d.error, "");
  const auto [x0, width] = plot_extent(d);
  const double dense_x = x0 + 45.0 / 100 * width;
  uint64_t merged = 0, biggest = 0;
  size_t single = 0, sparse_boxes = 0, half_opaque = 0, biggest_box = 0;
  for (const auto& [r, title] : boxes(d)) {
    if (const size_t p = title.find(" narrow spans merged"); p != std::string::npos) {
      const uint64_t n = std::stoull(title.substr(0, p));
      merged += n;
      EXPECT_GE(attr(d, r, "width"), 0.3);
      if (n > biggest) biggest = n, biggest_box = r;
      if (attr(d, r, "x") < dense_x) {
        ++sparse_boxes;
        auto op = d.nodes[r].attrs.find("opacity");
        half_opaque += op != d.nodes[r].attrs.end() && op->second == "0.5";
      }
    } else {
      EXPECT_TRUE(starts_with(title, "job 7" + kDot)) << title;
      ++single;
    }
  }
  EXPECT_EQ(merged, 3000u);
  EXPECT_EQ(single, 1u);
  EXPECT_GE(half_opaque + 4, sparse_boxes);  // all but the edge bins
  EXPECT_GT(half_opaque, 0u);
  // The dense block is (nearly) one box: compute-coloured, opaque, shares 20/80 by time.
  EXPECT_GT(biggest, 1900u);
  EXPECT_EQ(d.nodes[biggest_box].attrs.at("class"), "s3");
  EXPECT_EQ(d.nodes[biggest_box].attrs.count("opacity"), 0u);
  const std::string t = title_of(d, biggest_box);
  EXPECT_NE(t.find("upload"), std::string::npos) << t;
  EXPECT_NE(t.find("(20%)"), std::string::npos) << t;
  EXPECT_NE(t.find("(80%)"), std::string::npos) << t;
}

// 50,000 spans in three shapes stay under 5 MB and well-formed; the widest spans keep their
// own boxes.
TEST(TimelineSvg, FiftyThousandSpansStayUnderFiveMegabytes) {
  auto rng = snarkd::test::rng("timeline-huge");
  std::vector<Timeline> shapes;
  shapes.push_back(pipeline(8, 4, 10000, rng));  // 50,000 spans, realistic
  shapes.push_back(pipeline(1, 1, 10000, rng));  // all in one lane
  Timeline chaos;  // 64 lanes, random overlapping spans from 1 µs to 1 s, 20 wide ones
  chaos.devices = 8, chaos.workers_per_device = 8, chaos.wall_s = 100;
  std::uniform_real_distribution<double> u(0, 1);
  for (uint64_t i = 0; i < 50000; ++i) {
    const double b = 99 * u(rng), len = i < 20 ? 20 : std::pow(10.0, -6 + 6 * u(rng));
    chaos.spans.push_back(span(uint32_t(rng() % 8), uint32_t(rng() % 8), i < 20 ? 1000000 + i : i,
                               Stage(rng() % kNumStages), b, std::min(100.0, b + len)));
  }
  shapes.push_back(chaos);
  for (size_t k = 0; k < shapes.size(); ++k) {
    ASSERT_EQ(shapes[k].spans.size(), 50000u);
    const std::string svg = timeline_svg(shapes[k], "huge " + std::to_string(k));
    EXPECT_LT(svg.size(), 5000000u) << "shape " << k;
    const Doc d = parse_xml(svg);
    ASSERT_EQ(d.error, "") << "shape " << k;
    size_t singles = 0;
    uint64_t merged = 0;
    for (const auto& [r, title] : boxes(d)) {
      if (const size_t p = title.find(" narrow spans merged"); p != std::string::npos) {
        merged += std::stoull(title.substr(0, p));
      } else {
        EXPECT_TRUE(starts_with(title, "job ")) << title;
        ++singles;
      }
    }
    EXPECT_LE(singles, 15000u) << "shape " << k;
    EXPECT_EQ(singles + merged, 50000u) << "shape " << k;
    printf("shape %zu: %zu bytes, %zu single boxes, %llu spans merged\n", k, svg.size(), singles,
           static_cast<unsigned long long>(merged));
    if (k == 2) {
      for (uint64_t j = 0; j < 20; ++j) {
        EXPECT_NE(svg.find("<title>job " + std::to_string(1000000 + j) + kDot), std::string::npos);
      }
    }
  }
}

// ---------------------------------------------------------------- statistics

TEST(BusyFraction, HandMadeOverlaps) {
  Timeline tl;
  tl.devices = 2, tl.workers_per_device = 2, tl.wall_s = 10;
  tl.spans = {span(0, 0, 1, Stage::kCompute, 0, 2),     span(0, 1, 2, Stage::kCompute, 1, 3),
              span(0, 0, 3, Stage::kCompute, 1.5, 2.5),  // nested
              span(0, 1, 4, Stage::kCompute, 5, 6),     span(0, 0, 5, Stage::kCompute, 5, 6),  // dup
              span(0, 0, 6, Stage::kCompute, 8, 8),     // zero length
              span(0, 0, 7, Stage::kUpload, 3, 5),      span(0, 1, 8, Stage::kWaitCompute, 6, 8),
              span(1, 0, 9, Stage::kCompute, 3, 5)};    // other device
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, 0, 10), 0.4);      // [0,3] ∪ [5,6]
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, 1.5, 5.5), 0.5);   // 1.5 + 0.5 of 4
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, 0.5, 1.5), 1.0);
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, 3, 5), 0.0);       // touching ends only
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, 20, 30), 0.0);     // outside every span
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 0, -10, 0), 0.0);
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 1, 0, 10), 0.2);
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 7, 0, 10), 0.0);      // no such device
  EXPECT_THROW(busy_fraction(tl, 0, 1, 1), InvalidArgument);
  EXPECT_THROW(busy_fraction(tl, 0, 2, 1), InvalidArgument);
  EXPECT_THROW(busy_fraction(tl, 0, 0, NAN), InvalidArgument);
  tl.spans.push_back(span(0, 0, 10, Stage::kCompute, 4, 3));
  EXPECT_THROW(busy_fraction(tl, 0, 0, 10), InvalidArgument);
  EXPECT_DOUBLE_EQ(busy_fraction(tl, 1, 0, 10), 0.2);  // only the asked device's spans matter
}

// Integer end points against a unit-cell count: an independent union length.
TEST(BusyFraction, MatchesUnitCellsOnRandomSpans) {
  auto rng = snarkd::test::rng("busy-random");
  for (int round = 0; round < 200; ++round) {
    Timeline tl;
    tl.devices = 3, tl.workers_per_device = 2;
    const size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      const int b = int(rng() % 100), e = b + int(rng() % 30);
      tl.spans.push_back(span(uint32_t(rng() % 3), uint32_t(rng() % 2), i,
                              Stage(rng() % kNumStages), b, e));
    }
    int t0 = int(rng() % 120) - 10, t1 = int(rng() % 120) - 10;
    if (t0 == t1) ++t1;
    if (t0 > t1) std::swap(t0, t1);
    for (uint32_t dev = 0; dev < 3; ++dev) {
      std::vector<bool> cell(200, false);  // cell c covers [c - 50, c - 49)
      for (const StageSpan& s : tl.spans) {
        if (s.device != dev || s.stage != Stage::kCompute) continue;
        for (int c = int(s.begin_s); c < int(s.end_s); ++c) cell[size_t(c + 50)] = true;
      }
      int covered = 0;
      for (int c = t0; c < t1; ++c) covered += cell[size_t(c + 50)];
      EXPECT_DOUBLE_EQ(busy_fraction(tl, dev, t0, t1), double(covered) / (t1 - t0))
          << "round " << round << " device " << dev << " window [" << t0 << ", " << t1 << ")";
    }
  }
}

TEST(StageMedians, KnownData) {
  Timeline tl;
  const auto add = [&](Stage s, double b, double len) { tl.spans.push_back(span(0, 0, 0, s, b, b + len)); };
  for (double len : {5.0, 1.0, 3.0}) add(Stage::kUpload, 10, len);             // odd: 3
  for (double len : {4.0, 1.0, 2.0, 10.0}) add(Stage::kCompute, 2, len);       // even: (2+4)/2
  add(Stage::kFinalize, 7, 0.25);                                               // single
  for (double len : {0.0, 0.0}) add(Stage::kWaitCompute, 1, len);              // zeros: 0, not NaN
  const auto m = stage_medians(tl);
  EXPECT_DOUBLE_EQ(m[size_t(Stage::kUpload)], 3.0);
  EXPECT_DOUBLE_EQ(m[size_t(Stage::kCompute)], 3.0);
  EXPECT_DOUBLE_EQ(m[size_t(Stage::kFinalize)], 0.25);
  EXPECT_DOUBLE_EQ(m[size_t(Stage::kWaitCompute)], 0.0);
  EXPECT_TRUE(std::isnan(m[size_t(Stage::kWaitVram)]));  // absent
  for (double v : stage_medians(Timeline{})) EXPECT_TRUE(std::isnan(v));
  tl.spans.push_back(span(0, 0, 0, Stage::kUpload, 2, 1));
  EXPECT_THROW(stage_medians(tl), InvalidArgument);
}

TEST(StageMedians, RandomAgainstFullSort) {
  auto rng = snarkd::test::rng("medians-random");
  std::uniform_real_distribution<double> u(0, 1);
  for (int round = 0; round < 50; ++round) {
    Timeline tl;
    std::vector<double> lens[kNumStages];
    const size_t n = rng() % 64;
    for (size_t i = 0; i < n; ++i) {
      const size_t st = rng() % kNumStages;
      const double b = 10 * u(rng), len = (rng() % 4 == 0) ? 0.5 : u(rng);  // with duplicates
      tl.spans.push_back(span(0, 0, i, Stage(st), b, b + len));
      lens[st].push_back(b + len - b);
    }
    const auto m = stage_medians(tl);
    for (size_t k = 0; k < kNumStages; ++k) {
      auto& v = lens[k];
      if (v.empty()) {
        EXPECT_TRUE(std::isnan(m[k]));
        continue;
      }
      std::sort(v.begin(), v.end());
      const double want = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
      EXPECT_DOUBLE_EQ(m[k], want) << "round " << round << " stage " << k;
    }
  }
}

TEST(StageName, AllStages) {
  EXPECT_STREQ(stage_name(Stage::kWaitVram), "wait_vram");
  EXPECT_STREQ(stage_name(Stage::kUpload), "upload");
  EXPECT_STREQ(stage_name(Stage::kWaitCompute), "wait_compute");
  EXPECT_STREQ(stage_name(Stage::kCompute), "compute");
  EXPECT_STREQ(stage_name(Stage::kFinalize), "finalize");
  EXPECT_STREQ(stage_name(Stage(200)), "unknown");
}

// ---------------------------------------------------------------- proc stats

TEST(ProcStats, PeakAtLeastCurrentAndGrowsWithTouchedMemory) {
  const uint64_t cur0 = snarkd::current_rss_bytes(), peak0 = snarkd::peak_rss_bytes();
  EXPECT_GT(cur0, 0u);
  EXPECT_GE(peak0, cur0);
  const size_t n = size_t(64) << 20;
  std::vector<char> block(n);
  for (size_t i = 0; i < n; i += 4096) block[i] = char(i >> 12);  // touch every page
  const uint64_t cur1 = snarkd::current_rss_bytes(), peak1 = snarkd::peak_rss_bytes();
  EXPECT_GE(cur1, cur0 + (uint64_t(48) << 20));
  EXPECT_GE(peak1, cur1);
  EXPECT_GE(peak1, peak0);
  volatile char sink = block[n - 4096];
  (void)sink;
}

// ---------------------------------------------------------------- PNG conversion

// A fresh folder under /tmp, removed with its contents at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/snarkd_timeline_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// Sets an environment variable for the scope of a test and restores it afterwards.
struct ScopedEnv {
  std::string name, saved;
  bool had;
  ScopedEnv(const char* n, const std::string& value) : name(n) {
    const char* old = std::getenv(n);
    had = old != nullptr;
    if (had) saved = old;
    setenv(n, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had) {
      setenv(name.c_str(), saved.c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
};

void write_file(const std::string& path, const std::string& text, bool exec = false) {
  std::ofstream(path, std::ios::binary) << text;
  if (exec) chmod(path.c_str(), 0755);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// PATH is replaced by a folder of fake converters: the arguments reach them verbatim (no
// shell), a failing converter gives false, a missing one gives false.
TEST(WritePng, SpawnsConverterFromPathWithoutShell) {
  const TempDir tmp;
  const std::string dir = tmp.path, bin = dir + "/bin";
  mkdir(bin.c_str(), 0755);
  const std::string svg = dir + "/a b'\";$(x).svg", png = dir + "/out $HOME.png";
  write_file(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
  const ScopedEnv path("PATH", bin), args("SNARKD_FAKE_ARGS", dir + "/args");
  EXPECT_FALSE(snarkd::engine::write_png_if_possible(svg, png));  // no converter
  write_file(bin + "/rsvg-convert", "#!/bin/sh\nexit 3\n", true);
  EXPECT_FALSE(snarkd::engine::write_png_if_possible(svg, png));  // converter fails
  write_file(bin + "/rsvg-convert",
             "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$SNARKD_FAKE_ARGS\"\nprintf PNG > \"$2\"\n", true);
  EXPECT_TRUE(snarkd::engine::write_png_if_possible(svg, png));
  EXPECT_EQ(read_file(dir + "/args"), "-o\n" + png + "\n" + svg + "\n");
  EXPECT_EQ(read_file(png), "PNG");
  EXPECT_FALSE(snarkd::engine::write_png_if_possible(dir + "/missing.svg", png));
  EXPECT_FALSE(snarkd::engine::write_png_if_possible("", png));
}

// The real converter, when the machine has one: the output is a PNG.
TEST(WritePng, RealConverterWritesPngWhenInstalled) {
  auto rng = snarkd::test::rng("timeline-example");
  const Timeline tl = pipeline(2, 3, 60, rng);
  const char* env = std::getenv("SNARKD_TIMELINE_EXAMPLE");
  const TempDir tmp;
  const std::string svg_path = env ? std::string(env) : tmp.path + "/example.svg";
  const std::string png_path = svg_path.substr(0, svg_path.rfind('.')) + ".png";
  write_file(svg_path, timeline_svg(tl, "example: 2 devices x 3 workers, 60 partitions"));
  if (!snarkd::engine::write_png_if_possible(svg_path, png_path)) {
    GTEST_SKIP() << "no working rsvg-convert or convert on PATH";
  }
  const std::string png = read_file(png_path);
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  if (env) printf("wrote %s and %s\n", svg_path.c_str(), png_path.c_str());
}

}  // namespace
