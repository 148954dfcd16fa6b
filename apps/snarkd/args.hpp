// Options declared as a list, for a verb that parses its own argv[first..] (serve_cmd.cpp): the
// same CLI11 parsing as the verbs of commands.hpp, with `--help` listing the options (HelpShown:
// exit 0). The verbs main.cpp declares take their Options from there instead.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/options.hpp"

namespace snarkd::cli {

struct OptionSpec {
  std::string name;  // without the leading "--"
  bool takes_value;
  std::string help = {};
};

namespace detail {
struct OwnedApp {  // constructed before the Options base that points into it
  std::unique_ptr<CLI::App> owned;
};
}  // namespace detail

class Args : private detail::OwnedApp, public Options {
 public:
  // Parses argv[first..argc) against `spec` (positional arguments kept in order); a bad option is
  // a UsageError.
  Args(int argc, char** argv, int first, const std::vector<OptionSpec>& spec);
};

}  // namespace snarkd::cli
