// A minimal JSON reader for the known-answer files under tests/vectors (objects, arrays,
// strings without escapes beyond \" and \\, numbers kept as text, true/false/null). Throws
// std::runtime_error on malformed input so a broken vector file fails the test loudly.
#pragma once
#include <cctype>
#include <cstddef>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace snarkd::test::json {

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  std::string text;  // string contents, number or literal text
  std::vector<Value> items;
  std::map<std::string, Value> members;

  const Value& operator[](const std::string& key) const {
    auto it = members.find(key);
    if (kind != Kind::kObject || it == members.end())
      throw std::runtime_error("json: no key " + key);
    return it->second;
  }
  const Value& operator[](size_t i) const {
    if (kind != Kind::kArray || i >= items.size()) throw std::runtime_error("json: bad index");
    return items[i];
  }
  size_t size() const { return kind == Kind::kObject ? members.size() : items.size(); }
  const std::string& str() const {
    if (kind != Kind::kString) throw std::runtime_error("json: not a string");
    return text;
  }
};

class Parser {
 public:
  explicit Parser(std::string s) : s_(std::move(s)) {}
  Value parse() {
    Value v = value();
    skip();
    if (pos_ != s_.size()) fail("trailing data");
    return v;
  }

 private:
  std::string s_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(pos_));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  char peek() {
    skip();
    if (pos_ >= s_.size()) fail("unexpected end");
    return s_[pos_];
  }
  void expect(char c) {
    if (peek() != c) fail("unexpected character");
    ++pos_;
  }
  std::string string_body() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && ++pos_ >= s_.size()) fail("bad escape");
      out += s_[pos_++];
    }
    expect('"');
    return out;
  }
  Value value() {
    Value v;
    char c = peek();
    if (c == '{') {
      v.kind = Value::Kind::kObject;
      ++pos_;
      if (peek() != '}') {
        for (;;) {
          std::string key = string_body();
          expect(':');
          v.members[key] = value();
          if (peek() != ',') break;
          ++pos_;
        }
      }
      expect('}');
    } else if (c == '[') {
      v.kind = Value::Kind::kArray;
      ++pos_;
      if (peek() != ']') {
        for (;;) {
          v.items.push_back(value());
          if (peek() != ',') break;
          ++pos_;
        }
      }
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::kString;
      v.text = string_body();
    } else {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
                                  s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.'))
        ++pos_;
      if (start == pos_) fail("unexpected character");
      v.text = s_.substr(start, pos_ - start);
      v.kind = (v.text == "true" || v.text == "false") ? Value::Kind::kBool
               : v.text == "null"                      ? Value::Kind::kNull
                                                       : Value::Kind::kNumber;
    }
    return v;
  }
};

inline Value parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("json: cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Parser(ss.str()).parse();
}

}  // namespace snarkd::test::json
