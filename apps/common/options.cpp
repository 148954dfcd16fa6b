#include "options.hpp"

#include <charconv>
#include <cstdio>
#include <memory>

namespace snarkd::cli {

Options& Options::value(const std::string& name, const std::string& help, const std::string& placeholder) {
  app_->add_option("--" + name, values_[name], help)->type_name(placeholder);
  return *this;
}

Options& Options::flag(const std::string& name, const std::string& help) {
  app_->add_flag("--" + name, help);
  return *this;
}

Options& Options::positionals(const std::string& name, const std::string& help) {
  app_->add_option(name, positional_, help)->type_name("");
  return *this;
}

bool Options::has(const std::string& name) const { return app_->count("--" + name) != 0; }

std::optional<std::string> Options::get(const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return values_.at(name);
}

std::string Options::require(const std::string& name) const {
  auto v = get(name);
  if (!v || v->empty()) throw UsageError("missing --" + name);
  return *v;
}

uint64_t Options::get_u64(const std::string& name, uint64_t fallback) const {
  auto v = get(name);
  if (!v) return fallback;
  uint64_t out = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size() || v->empty())
    throw UsageError("--" + name + " expects a non-negative integer, got '" + *v + "'");
  return out;
}

namespace {

void usage_error(const std::string& context, const std::string& what, const std::string& help_cmd) {
  std::fprintf(stderr, "%s: %s\n(see %s --help)\n", context.c_str(), what.c_str(), help_cmd.c_str());
}

}  // namespace

int run_verbs(CLI::App& app, const std::string& binary, const std::vector<Verb>& verbs, int argc, char** argv,
              int (*on_error)(const std::string& context, const std::exception_ptr&)) {
  app.require_subcommand(0, 1);
  app.fallthrough();  // a verb's unknown options go to the binary's (connection options after the verb)
  std::vector<std::unique_ptr<Options>> options;
  std::vector<CLI::App*> subs;
  for (const Verb& v : verbs) {
    CLI::App* sub = app.add_subcommand(v.name, v.summary);
    options.push_back(std::make_unique<Options>(sub));
    v.declare(*options.back());
    subs.push_back(sub);
  }
  // Collected, not refused, by CLI11: the messages below name the verb and what was wrong.
  app.allow_extras();
  const CLI::App* chosen = nullptr;
  size_t index = 0;
  try {
    app.parse(argc, argv);
    for (size_t i = 0; i < subs.size(); ++i)
      if (subs[i]->parsed()) chosen = subs[i], index = i;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    for (size_t i = 0; i < subs.size(); ++i)
      if (subs[i]->parsed()) chosen = subs[i];
    const std::string ctx = chosen ? binary + " " + chosen->get_name() : binary;
    usage_error(ctx, e.what(), chosen ? ctx : binary);
    return 2;
  }
  const std::vector<std::string> extra = app.remaining();
  if (!chosen) {
    if (extra.empty()) {
      std::fputs(app.help().c_str(), stderr);
      return 2;
    }
    const bool is_option = extra[0].rfind("-", 0) == 0;
    usage_error(binary, (is_option ? "unknown option " : "unknown command '") + extra[0] + (is_option ? "" : "'"),
                binary);
    return 2;
  }
  const std::string ctx = binary + " " + chosen->get_name();
  if (!extra.empty()) {
    const bool is_option = extra[0].rfind("-", 0) == 0;
    usage_error(ctx, (is_option ? "unknown option " : "unexpected argument '") + extra[0] + (is_option ? "" : "'"), ctx);
    return 2;
  }
  try {
    return verbs[index].run(*options[index]);
  } catch (const UsageError& e) {
    usage_error(ctx, e.what(), ctx);
    return 2;
  } catch (const HelpShown&) {
    return 0;
  } catch (...) {
    return on_error(ctx, std::current_exception());
  }
}

}  // namespace snarkd::cli
