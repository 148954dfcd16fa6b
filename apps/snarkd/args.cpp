#include "args.hpp"

#include <charconv>

namespace snarkd::cli {

Args::Args(int argc, char** argv, int first, const std::vector<OptionSpec>& spec) {
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    const size_t eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const OptionSpec* s = nullptr;
    for (const auto& o : spec)
      if (o.name == name) s = &o;
    if (!s) throw UsageError("unknown option --" + name);
    if (values_.count(name)) throw UsageError("--" + name + " given twice");
    if (s->takes_value && !inline_value) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      value = argv[++i];
    } else if (!s->takes_value && inline_value) {
      throw UsageError("--" + name + " takes no value");
    }
    values_[name] = value;
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::require(const std::string& name) const {
  auto v = get(name);
  if (!v || v->empty()) throw UsageError("missing --" + name);
  return *v;
}

uint64_t Args::get_u64(const std::string& name, uint64_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  uint64_t out = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size())
    throw UsageError("--" + name + " expects a non-negative integer, got '" + *v + "'");
  return out;
}

}  // namespace snarkd::cli
