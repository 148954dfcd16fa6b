#include "snarkd/util/json.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace snarkd {

const char* json_kind_name(Json::Kind k) {
  switch (k) {
    case Json::Kind::kNull: return "null";
    case Json::Kind::kBool: return "a boolean";
    case Json::Kind::kNumber: return "a number";
    case Json::Kind::kString: return "a string";
    case Json::Kind::kArray: return "an array";
    case Json::Kind::kObject: return "an object";
  }
  return "?";
}

namespace {

[[noreturn]] void kind_error(Json::Kind want, Json::Kind got) {
  throw DecodeError(std::string("json: expected ") + json_kind_name(want) + ", found " + json_kind_name(got));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the JSON number at the start of s (RFC 8259 §6), or 0 if there is none.
size_t number_length(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size() || !is_digit(s[i])) return 0;
  if (s[i] == '0') {
    ++i;
  } else {
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && s[i] == '.') {
    if (++i >= s.size() || !is_digit(s[i])) return 0;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= s.size() || !is_digit(s[i])) return 0;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return i;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

// JSON.stringify's string escaping: the two mandatory escapes, the short forms of control
// characters, \u00XX for the others; everything else (UTF-8 included) verbatim.
void append_quoted(std::string& out, const std::string& s) {
  out += '"';
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void dump_to(std::string& out, const Json& v, int indent, int level);

void newline(std::string& out, int indent, int level) {
  if (indent <= 0) return;
  out += '\n';
  out.append(size_t(indent) * size_t(level), ' ');
}

template <class Seq, class Emit>
void dump_container(std::string& out, const Seq& seq, char open, char close, int indent, int level, Emit emit) {
  out += open;
  if (seq.empty()) {
    out += close;
    return;
  }
  bool first = true;
  for (const auto& x : seq) {
    if (!first) out += ',';
    first = false;
    newline(out, indent, level + 1);
    emit(x);
  }
  newline(out, indent, level);
  out += close;
}

void dump_to(std::string& out, const Json& v, int indent, int level) {
  switch (v.kind()) {
    case Json::Kind::kNull: out += "null"; break;
    case Json::Kind::kBool: out += v.boolean_value() ? "true" : "false"; break;
    case Json::Kind::kNumber: out += v.number_text(); break;
    case Json::Kind::kString: append_quoted(out, v.str()); break;
    case Json::Kind::kArray:
      dump_container(out, v.items(), '[', ']', indent, level,
                     [&](const Json& x) { dump_to(out, x, indent, level + 1); });
      break;
    case Json::Kind::kObject:
      dump_container(out, v.members(), '{', '}', indent, level, [&](const Json::Member& m) {
        append_quoted(out, m.first);
        out += indent > 0 ? ": " : ":";
        dump_to(out, m.second, indent, level + 1);
      });
      break;
  }
}

}  // namespace

// Recursive descent over the whole text; pos_ is the byte offset every error reports.
class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}

  Json document() {
    Json v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DecodeError("json: byte " + std::to_string(pos_) + ": " + what);
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    skip_ws();
    if (pos_ >= s_.size()) fail(std::string("unexpected end of input, expected '") + c + "'");
    if (s_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Json value(size_t depth) {
    skip_ws();
    if (pos_ >= s_.size()) fail("unexpected end of input");
    const char c = s_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= Json::kMaxDepth) fail("nesting deeper than " + std::to_string(Json::kMaxDepth));
      return c == '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c == '"') return Json::string(string_body());
    if (literal("true")) return Json::boolean(true);
    if (literal("false")) return Json::boolean(false);
    if (literal("null")) return Json();
    const size_t n = number_length(s_.substr(pos_));
    if (n == 0) fail("unexpected character");
    Json j;
    j.kind_ = Json::Kind::kNumber;
    j.text_ = std::string(s_.substr(pos_, n));
    pos_ += n;
    return j;
  }

  // Both containers: open bracket already seen; members separated by ',' (no trailing comma).
  template <class Element>
  void elements(char close, Element element) {
    ++pos_;
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == close) {
      ++pos_;
      return;
    }
    for (;;) {
      element();
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == close) {
        ++pos_;
        return;
      }
      if (pos_ >= s_.size()) fail(std::string("unexpected end of input, expected ',' or '") + close + "'");
      expect(',');
    }
  }
  Json array(size_t depth) {
    Json j = Json::array();
    elements(']', [&] { j.items_.push_back(value(depth)); });
    return j;
  }
  Json object(size_t depth) {
    Json j = Json::object();
    elements('}', [&] {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') fail("expected a member name (string)");
      const size_t at = pos_;
      std::string key = string_body();
      if (j.find(key)) {
        pos_ = at;
        fail("duplicate member \"" + key + "\"");
      }
      expect(':');
      j.members_.emplace_back(std::move(key), value(depth));
    });
    return j;
  }

  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      const int d = is_digit(c)                ? c - '0'
                    : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                             : -1;
      if (d < 0) fail("bad hex digit in \\u escape");
      v = v * 16 + uint32_t(d);
    }
    return v;
  }
  // \uXXXX, joining a UTF-16 surrogate pair into one code point.
  uint32_t unicode_escape() {
    const uint32_t hi = hex4();
    if (hi >= 0xdc00 && hi <= 0xdfff) fail("unpaired low surrogate in \\u escape");
    if (hi < 0xd800 || hi > 0xdbff) return hi;
    if (!literal("\\u")) fail("unpaired high surrogate in \\u escape");
    const uint32_t lo = hex4();
    if (lo < 0xdc00 || lo > 0xdfff) fail("bad low surrogate in \\u escape");
    return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
  }
  std::string string_body() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      ++pos_;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      const char e = s_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': append_utf8(out, unicode_escape()); break;
        default: --pos_; fail(std::string("unknown escape \\") + e);
      }
    }
    ++pos_;
    return out;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Json Json::boolean(bool b) {
  Json j;
  j.kind_ = Kind::kBool;
  j.text_ = b ? "true" : "false";
  return j;
}
Json Json::number(uint64_t v) { return number_text(std::to_string(v)); }
Json Json::number_text(std::string text) {
  if (text.empty() || number_length(text) != text.size())
    throw InvalidArgument("Json::number_text: \"" + text + "\" is not a JSON number");
  Json j;
  j.kind_ = Kind::kNumber;
  j.text_ = std::move(text);
  return j;
}
Json Json::string(std::string s) {
  Json j;
  j.kind_ = Kind::kString;
  j.text_ = std::move(s);
  return j;
}
Json Json::array(std::vector<Json> items) {
  Json j;
  j.kind_ = Kind::kArray;
  j.items_ = std::move(items);
  return j;
}
Json Json::object(std::vector<Member> members) {
  Json j;
  j.kind_ = Kind::kObject;
  for (auto& m : members) j.set(std::move(m.first), std::move(m.second));
  return j;
}

Json Json::parse(std::string_view text) { return JsonParser(text).document(); }

Json Json::load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DecodeError(path + ": cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    return parse(ss.str());
  } catch (const DecodeError& e) {
    throw DecodeError(path + ": " + e.what());
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, *this, indent, 0);
  return out;
}

void Json::save(const std::string& path, int indent) const {
  const std::string text = dump(indent);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  f.write(text.data(), std::streamsize(text.size()));
  f.close();
  if (!f) throw std::runtime_error(path + ": write failed");
}

const std::string& Json::str() const {
  if (kind_ != Kind::kString) kind_error(Kind::kString, kind_);
  return text_;
}
const std::string& Json::number_text() const {
  if (kind_ != Kind::kNumber) kind_error(Kind::kNumber, kind_);
  return text_;
}
bool Json::boolean_value() const {
  if (kind_ != Kind::kBool) kind_error(Kind::kBool, kind_);
  return text_ == "true";
}
uint64_t Json::as_u64() const {
  const std::string& t = number_text();
  uint64_t v = 0;
  for (char c : t) {
    if (!is_digit(c)) throw DecodeError("json: " + t + " is not a non-negative integer");
    const uint64_t d = uint64_t(c - '0');
    if (v > (UINT64_MAX - d) / 10) throw DecodeError("json: " + t + " does not fit in 64 bits");
    v = v * 10 + d;
  }
  return v;
}
const std::vector<Json>& Json::items() const {
  if (kind_ != Kind::kArray) kind_error(Kind::kArray, kind_);
  return items_;
}
const std::vector<Json::Member>& Json::members() const {
  if (kind_ != Kind::kObject) kind_error(Kind::kObject, kind_);
  return members_;
}
const Json& Json::operator[](size_t i) const {
  const auto& v = items();
  if (i >= v.size())
    throw DecodeError("json: index " + std::to_string(i) + " out of range (array of " + std::to_string(v.size()) + ")");
  return v[i];
}
const Json& Json::operator[](std::string_view key) const {
  members();  // kind check
  const Json* j = find(key);
  if (!j) throw DecodeError("json: missing field \"" + std::string(key) + "\"");
  return *j;
}
const Json* Json::find(std::string_view key) const {
  if (kind_ != Kind::kObject) return nullptr;
  for (const Member& m : members_)
    if (m.first == key) return &m.second;
  return nullptr;
}
size_t Json::size() const {
  return kind_ == Kind::kArray ? items_.size() : kind_ == Kind::kObject ? members_.size() : 0;
}
Json& Json::push_back(Json v) {
  if (kind_ != Kind::kArray) throw InvalidArgument("Json::push_back on " + std::string(json_kind_name(kind_)));
  items_.push_back(std::move(v));
  return items_.back();
}
Json& Json::set(std::string key, Json v) {
  if (kind_ != Kind::kObject) throw InvalidArgument("Json::set on " + std::string(json_kind_name(kind_)));
  for (Member& m : members_)
    if (m.first == key) return m.second = std::move(v);
  members_.emplace_back(std::move(key), std::move(v));
  return members_.back().second;
}

namespace detail {

namespace {
using u128 = unsigned __int128;
constexpr uint64_t kTen19 = 10000000000000000000ULL;  // largest power of ten below 2^64
}

bool decimal_to_limbs(std::string_view s, uint64_t* limbs, size_t n) {
  if (s.empty()) return false;
  for (size_t i = 0; i < n; ++i) limbs[i] = 0;
  for (size_t start = 0; start < s.size();) {
    // The first chunk takes the leftover digits so that every later one has 19.
    const size_t len = start == 0 ? (s.size() - 1) % 19 + 1 : 19;
    uint64_t chunk = 0, scale = 1;
    for (size_t k = 0; k < len; ++k) {
      const char c = s[start + k];
      if (!is_digit(c)) return false;
      chunk = chunk * 10 + uint64_t(c - '0');
      scale *= 10;
    }
    start += len;
    u128 carry = chunk;  // limbs = limbs·scale + chunk
    for (size_t i = 0; i < n; ++i) {
      const u128 t = u128(limbs[i]) * scale + carry;
      limbs[i] = uint64_t(t);
      carry = t >> 64;
    }
    if (carry) return false;
  }
  return true;
}

std::string limbs_to_decimal(std::span<const uint64_t> limbs) {
  std::vector<uint64_t> v(limbs.begin(), limbs.end());
  std::vector<uint64_t> chunks;  // base 10^19 digits, least significant first
  auto nonzero = [&] {
    for (uint64_t x : v)
      if (x) return true;
    return false;
  };
  while (nonzero()) {
    u128 rem = 0;
    for (size_t i = v.size(); i-- > 0;) {
      const u128 cur = (rem << 64) | v[i];
      v[i] = uint64_t(cur / kTen19);
      rem = cur % kTen19;
    }
    chunks.push_back(uint64_t(rem));
  }
  if (chunks.empty()) return "0";
  std::string out = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    const std::string part = std::to_string(chunks[i]);
    out.append(19 - part.size(), '0');
    out += part;
  }
  return out;
}

void throw_not_decimal(std::string_view s, const char* field_name) {
  const std::string shown = s.size() > 100 ? std::string(s.substr(0, 100)) + "..." : std::string(s);
  throw DecodeError("\"" + shown + "\" is not a decimal " + field_name + " element (digits only, below the modulus)");
}
void throw_not_below_modulus(const char* field_name) {
  throw DecodeError(std::string("decimal value is not below the ") + field_name + " modulus");
}

}  // namespace detail

}  // namespace snarkd
