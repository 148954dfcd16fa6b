// Command-line parsing for `snarkd <verb> [--option value | --flag]...`. Each verb declares
// the options it takes; anything else is a UsageError (exit code 2 with the verb's usage).
#pragma once
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace snarkd::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;   // without the leading "--"
  bool takes_value;
};

class Args {
 public:
  // Parses argv[first..argc) against `spec`; positional arguments are kept in order.
  Args(int argc, char** argv, int first, const std::vector<OptionSpec>& spec);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;  // UsageError "missing --name"
  uint64_t get_u64(const std::string& name, uint64_t fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

}  // namespace snarkd::cli
