// The command lines of snarkd and snarkctl on CLI11 (Debian libcli11-dev): each verb is a CLI11
// subcommand whose options are declared with their help text and read back by name. `--help`
// works on the binary and on every verb (exit 0), `--version` on the binary; options the parent
// declares (snarkctl's connection options) go before or after the verb.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace snarkd::cli {

// Bad usage: exit code 2 with the message and a pointer to `--help`.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Options {
 public:
  explicit Options(CLI::App* app) : app_(app) {}
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;

  // --name VALUE (given at most once). placeholder is what the help shows for VALUE.
  Options& value(const std::string& name, const std::string& help, const std::string& placeholder = "VALUE");
  Options& flag(const std::string& name, const std::string& help);
  // Positional arguments, any number, in order; `name` is what the help calls them.
  Options& positionals(const std::string& name, const std::string& help);

  bool has(const std::string& name) const;
  std::optional<std::string> get(const std::string& name) const;
  std::string require(const std::string& name) const;  // UsageError "missing --name"
  // A non-negative integer; UsageError naming the option otherwise.
  uint64_t get_u64(const std::string& name, uint64_t fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }
  CLI::App& app() const { return *app_; }

 private:
  CLI::App* app_;
  std::map<std::string, std::string> values_;  // node-based: CLI11 keeps pointers into it
  std::vector<std::string> positional_;
};

// One verb: its name, one line for the binary's help, how it declares its options and what it
// runs (the exit code).
struct Verb {
  const char* name;
  const char* summary;
  void (*declare)(Options&);
  int (*run)(const Options&);
};

// The end of an exception no verb expected: "<context>: error: <what>" (or "out of memory") on
// stderr; returns exit code 2.
int report_exception(const std::string& context, const std::exception_ptr& e);

// Parses argv for `verbs` under `app` (whose own options are already declared) and runs the verb
// chosen. Returns the exit code: the verb's, 0 for --help/--version, 2 for bad usage (the message
// on stderr, naming the binary and the verb). `on_error` maps any other exception escaping the
// verb to an exit code after printing it.
int run_verbs(CLI::App& app, const std::string& binary, const std::vector<Verb>& verbs, int argc, char** argv,
              int (*on_error)(const std::string& context, const std::exception_ptr&));

}  // namespace snarkd::cli
