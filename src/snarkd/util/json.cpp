#include "snarkd/util/json.hpp"

#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_set>

#include "snarkd/util/file.hpp"

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

// nlohmann's message without its "[json.exception.parse_error.101] parse error at " prefix:
// "line 1, column 6: syntax error while parsing object separator - ...".
std::string parse_error_text(const std::string& what) {
  std::string s = what;
  if (const size_t close = s.find("] "); s.rfind("[json.exception.", 0) == 0 && close != std::string::npos)
    s = s.substr(close + 2);
  for (const char* prefix : {"parse error at ", "parse error: "})
    if (s.rfind(prefix, 0) == 0) s = s.substr(std::string_view(prefix).size());
  return s;
}

// Our tree → nlohmann's insertion-ordered value, for its serializer. Numbers keep their value:
// integers exactly, anything else as the nearest double.
nlohmann::ordered_json to_nlohmann(const Json& v) {
  switch (v.kind()) {
    case Json::Kind::kNull: return nullptr;
    case Json::Kind::kBool: return v.boolean_value();
    case Json::Kind::kString: return v.str();
    case Json::Kind::kNumber: {
      const std::string& t = v.number_text();
      const char* end = t.data() + t.size();
      if (t[0] == '-') {
        int64_t i = 0;
        if (auto [p, ec] = std::from_chars(t.data(), end, i); ec == std::errc() && p == end) return i;
      } else {
        uint64_t u = 0;
        if (auto [p, ec] = std::from_chars(t.data(), end, u); ec == std::errc() && p == end) return u;
      }
      return std::strtod(t.c_str(), nullptr);
    }
    case Json::Kind::kArray: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const Json& x : v.items()) a.push_back(to_nlohmann(x));
      return a;
    }
    case Json::Kind::kObject: {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [k, x] : v.members()) o[k] = to_nlohmann(x);
      return o;
    }
  }
  return nullptr;
}

}  // namespace

// nlohmann's SAX events → our tree. Each open object keeps a hash set of its keys, so the
// duplicate-key check is linear in the input (a list scan per key made a 5 MB file take
// minutes). The depth limit is checked at every opening bracket.
class JsonParser {
 public:
  using number_integer_t = int64_t;
  using number_unsigned_t = uint64_t;
  using number_float_t = double;
  using string_t = std::string;
  using binary_t = nlohmann::json::binary_t;

  Json parse(std::string_view text) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF")
      throw DecodeError(
          "json: the file starts with a UTF-8 byte-order mark (BOM), which JSON does not allow "
          "(snarkjs refuses it too): save it without one");
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), this)) {
      if (error_.empty()) error_ = "invalid JSON";
      throw DecodeError("json: " + error_);
    }
    return std::move(root_);
  }

  bool null() { return put(Json()); }
  bool boolean(bool b) { return put(Json::boolean(b)); }
  bool number_integer(int64_t v) { return put(number(std::to_string(v))); }
  bool number_unsigned(uint64_t v) { return put(number(std::to_string(v))); }
  bool number_float(double, const std::string& text) { return put(number(text)); }
  bool string(std::string& s) { return put(Json::string(std::move(s))); }
  bool binary(binary_t&) { return false; }  // JSON text has no binary values
  bool start_object(size_t) { return open(Json::object()); }
  bool start_array(size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (!keys_.back().insert(k).second) {
      error_ = "duplicate member \"" + k + "\"";
      return false;
    }
    key_ = std::move(k);
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& e) {
    error_ = parse_error_text(e.what());
    return false;
  }

 private:
  static Json number(std::string text) {
    Json j;
    j.kind_ = Json::Kind::kNumber;
    j.text_ = std::move(text);
    return j;
  }
  // Attaches v to the innermost open container (or makes it the document).
  bool put(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    Json& top = *stack_.back();
    if (top.kind_ == Json::Kind::kArray)
      top.items_.push_back(std::move(v));
    else
      top.members_.emplace_back(std::move(key_), std::move(v));
    return true;
  }
  bool open(Json container) {
    if (stack_.size() >= Json::kMaxDepth) {
      error_ = "nesting deeper than " + std::to_string(Json::kMaxDepth);
      return false;
    }
    const bool is_object = container.is_object();
    put(std::move(container));
    Json* added = stack_.empty()                               ? &root_
                  : stack_.back()->kind_ == Json::Kind::kArray ? &stack_.back()->items_.back()
                                                               : &stack_.back()->members_.back().second;
    stack_.push_back(added);
    if (is_object) keys_.emplace_back();
    return true;
  }
  bool close() {
    if (stack_.back()->kind_ == Json::Kind::kObject) keys_.pop_back();
    stack_.pop_back();
    return true;
  }

  Json root_;
  std::vector<Json*> stack_;                           // open containers; a child is added only to the innermost one
  std::vector<std::unordered_set<std::string>> keys_;  // the keys of each open object
  std::string key_, error_;
};

Json Json::boolean(bool b) {
  Json j;
  j.kind_ = Kind::kBool;
  j.text_ = b ? "true" : "false";
  return j;
}
Json Json::number(uint64_t v) { return number_text(std::to_string(v)); }
Json Json::number_text(std::string text) {
  // A JSON number and nothing else: nlohmann's grammar, no surrounding whitespace.
  const bool ok = !text.empty() && (text[0] == '-' || is_digit(text[0])) && is_digit(text.back()) &&
                  nlohmann::json::parse(text, nullptr, false).is_number();
  if (!ok) throw InvalidArgument("\"" + text + "\" is not a JSON number");
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

Json Json::parse(std::string_view text) { return JsonParser().parse(text); }

Json Json::load(const std::string& path) {
  const std::string text = read_regular_file(path);
  try {
    return parse(text);
  } catch (const DecodeError& e) {
    throw DecodeError(path + ": " + e.what());
  }
}

std::string Json::dump(int indent) const {
  // JSON.stringify's layout and string escaping; invalid UTF-8 (only from strings built in
  // code: parsed ones are checked) becomes U+FFFD instead of an exception.
  return to_nlohmann(*this).dump(indent > 0 ? indent : -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void Json::save(const std::string& path, int indent) const { write_file(path, dump(indent)); }
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
}  // namespace

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
