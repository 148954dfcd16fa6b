// A minimal JSON reader for the known-answer vector files (objects, arrays, strings, numbers,
// true/false/null). Numbers are kept as their source text; string escapes other than \" \\ \/
// \n \t are rejected (the generators never write them).
#pragma once
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace snarkd::test {

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  std::string text;  // string contents, number text, or "true"/"false"
  std::vector<Json> items;
  std::map<std::string, Json> fields;

  const Json& operator[](const std::string& key) const {
    auto it = fields.find(key);
    if (kind != Kind::kObject || it == fields.end()) throw std::runtime_error("json: no key " + key);
    return it->second;
  }
  const Json& operator[](size_t i) const { return items.at(i); }
  size_t size() const { return kind == Kind::kObject ? fields.size() : items.size(); }
  const std::string& str() const {
    if (kind != Kind::kString) throw std::runtime_error("json: not a string");
    return text;
  }
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }

  static Json parse(const std::string& s) {
    size_t pos = 0;
    Json j = parse_value(s, pos);
    skip_ws(s, pos);
    if (pos != s.size()) throw std::runtime_error("json: trailing characters");
    return j;
  }
  static Json load(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("json: cannot open " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str());
  }

 private:
  static void skip_ws(const std::string& s, size_t& pos) {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  static void expect(const std::string& s, size_t& pos, char c) {
    skip_ws(s, pos);
    if (pos >= s.size() || s[pos] != c) throw std::runtime_error(std::string("json: expected ") + c);
    ++pos;
  }
  static std::string parse_string(const std::string& s, size_t& pos) {
    expect(s, pos, '"');
    std::string out;
    while (pos < s.size() && s[pos] != '"') {
      char c = s[pos++];
      if (c == '\\') {
        char e = s.at(pos++);
        if (e == 'n') c = '\n';
        else if (e == 't') c = '\t';
        else if (e == '"' || e == '\\' || e == '/') c = e;
        else throw std::runtime_error("json: unsupported escape");
      }
      out += c;
    }
    expect(s, pos, '"');
    return out;
  }
  static Json parse_value(const std::string& s, size_t& pos) {
    skip_ws(s, pos);
    if (pos >= s.size()) throw std::runtime_error("json: unexpected end");
    Json j;
    char c = s[pos];
    if (c == '"') {
      j.kind = Kind::kString;
      j.text = parse_string(s, pos);
    } else if (c == '[' || c == '{') {
      j.kind = c == '[' ? Kind::kArray : Kind::kObject;
      const char close = c == '[' ? ']' : '}';
      ++pos;
      skip_ws(s, pos);
      if (s.at(pos) == close) return ++pos, j;
      for (;;) {
        if (j.kind == Kind::kArray) {
          j.items.push_back(parse_value(s, pos));
        } else {
          std::string key = parse_string(s, pos);
          expect(s, pos, ':');
          j.fields[key] = parse_value(s, pos);
        }
        skip_ws(s, pos);
        if (s.at(pos) == close) return ++pos, j;
        expect(s, pos, ',');
      }
    } else {
      size_t start = pos;
      while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '-' ||
                                s[pos] == '+' || s[pos] == '.'))
        ++pos;
      j.text = s.substr(start, pos - start);
      if (j.text == "true" || j.text == "false") j.kind = Kind::kBool;
      else if (j.text == "null") j.kind = Kind::kNull;
      else if (!j.text.empty()) j.kind = Kind::kNumber;
      else throw std::runtime_error("json: unexpected character");
    }
    return j;
  }
};

}  // namespace snarkd::test
