#include "args.hpp"

#include <algorithm>
#include <cstdio>

namespace snarkd::cli {

Args::Args(int argc, char** argv, int first, const std::vector<OptionSpec>& spec)
    : OwnedApp{std::make_unique<CLI::App>("", std::string(argv[0]) + (first > 1 ? std::string(" ") + argv[1] : ""))},
      Options(owned.get()) {
  for (const OptionSpec& o : spec) o.takes_value ? value(o.name, o.help) : flag(o.name, o.help);
  positionals("ARGS", "");
  std::vector<std::string> args(argv + std::min(first, argc), argv + argc);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  try {
    owned->parse(args);
  } catch (const CLI::CallForHelp&) {
    std::fputs(owned->help().c_str(), stdout);
    throw HelpShown{};
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace snarkd::cli
