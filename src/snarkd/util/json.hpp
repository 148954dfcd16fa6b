// A JSON value for the snarkjs files (proof.json, public.json, verification_key.json), the
// test vectors and the daemon's JSON replies. Parsing and writing are nlohmann-json's (Debian
// nlohmann-json3-dev); this class keeps what our readers need on top:
//
// Reading: RFC 8259 (nlohmann's SAX parser, so no recursion). Numbers are kept as their source
// text (field elements and u64 counts would not survive a double; integers in canonical form).
// Object members keep their file order; a repeated key is an error (checked with a hash set per
// object: linear in the input). Nesting deeper than kMaxDepth is an error. A UTF-8 byte-order
// mark is refused with its own message (JSON forbids it; snarkjs refuses it too). Errors are
// DecodeError("json: line 1, column 6: syntax error ..."), prefixed with the path by load();
// load() reads regular files only (util/file.hpp).
//
// Writing: dump(indent) in the layout of JavaScript's JSON.stringify(value, null, indent): one
// member or element per line, empty containers as [] / {}, strings escaped as JSON.stringify
// does. snarkjs writes its files with indent 1, so a snarkjs file read and dumped again with
// indent 1 gives back the same bytes. indent 0 gives the compact form. Numbers are written from
// their value (integers exactly, others as the shortest round-tripping double).
//
// Field elements in JSON are decimal strings. field_from_decimal / to_decimal convert them for
// any prime field type of snarkd::ff (a template, so this layer does not depend on ff):
// digits only, at least one, value < modulus; otherwise DecodeError naming the field, e.g.
// "decimal value is not below the Fr modulus". Callers prefix the file and the JSON field.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snarkd/util/error.hpp"

namespace snarkd {

class Json {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Member = std::pair<std::string, Json>;
  static constexpr size_t kMaxDepth = 128;

  Json() = default;  // null
  static Json boolean(bool b);
  static Json number(uint64_t v);
  static Json number_text(std::string text);  // must match the JSON number grammar
  static Json string(std::string s);
  static Json array(std::vector<Json> items = {});
  static Json object(std::vector<Member> members = {});

  static Json parse(std::string_view text);
  static Json load(const std::string& path);  // errors: DecodeError("<path>: json: ...")

  std::string dump(int indent = 1) const;
  // Writes dump(indent) (no trailing newline, as snarkjs); std::runtime_error on I/O errors.
  void save(const std::string& path, int indent = 1) const;

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  // Typed access; DecodeError("json: expected a string, found an array") on a kind mismatch.
  const std::string& str() const;
  const std::string& number_text() const;
  bool boolean_value() const;
  uint64_t as_u64() const;  // a number that is a non-negative integer below 2^64
  const std::vector<Json>& items() const;
  const std::vector<Member>& members() const;

  // Array element / object member; DecodeError naming the index or key when absent.
  const Json& operator[](size_t i) const;
  const Json& operator[](std::string_view key) const;
  const Json* find(std::string_view key) const;  // nullptr when absent (or not an object)
  size_t size() const;                           // elements or members; 0 otherwise

  // Building.
  Json& push_back(Json v);                      // arrays only
  Json& set(std::string key, Json v);           // objects only; replaces an existing key

  auto begin() const { return items().begin(); }
  auto end() const { return items().end(); }

  bool operator==(const Json&) const = default;

 private:
  friend class JsonParser;  // json.cpp: nlohmann's SAX events → this tree
  Kind kind_ = Kind::kNull;
  std::string text_;  // string contents, number text, "true"/"false"
  std::vector<Json> items_;
  std::vector<Member> members_;
};

const char* json_kind_name(Json::Kind k);  // "null", "a boolean", "a number", ...

namespace detail {
// Decimal digits → little-endian limbs (n limbs); false if s is empty, has a non-digit, or
// overflows n limbs. Base-10 long arithmetic: one multiply-add by 10^19 per 19 digits.
bool decimal_to_limbs(std::string_view s, uint64_t* limbs, size_t n);
// Limbs → decimal digits ("0" for zero), by repeated division by 10^19.
std::string limbs_to_decimal(std::span<const uint64_t> limbs);
[[noreturn]] void throw_not_decimal(std::string_view s, const char* field_name);
[[noreturn]] void throw_not_below_modulus(const char* field_name);
}  // namespace detail

// F is a snarkd::ff prime field (Fr, Fp); field_name ("Fr", "Fp") is used in error messages.
template <class F>
F field_from_decimal(std::string_view s, const char* field_name) {
  typename F::Repr v;
  if (!detail::decimal_to_limbs(s, v.limb, F::Repr::kLimbs)) detail::throw_not_decimal(s, field_name);
  F out;
  if (!F::from_repr(v, out)) detail::throw_not_below_modulus(field_name);
  return out;
}
template <class F>
std::string to_decimal(const F& x) {
  const typename F::Repr v = x.to_repr();
  return detail::limbs_to_decimal(std::span<const uint64_t>(v.limb, F::Repr::kLimbs));
}

}  // namespace snarkd
