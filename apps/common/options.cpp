#include "options.hpp"

#include <charconv>
#include <cstdio>
#include <memory>
#include <new>

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

// The verb CLI11 parsed (also after a parse error), or npos.
size_t chosen_verb(const std::vector<CLI::App*>& subs) {
  for (size_t i = 0; i < subs.size(); ++i)
    if (subs[i]->parsed()) return i;
  return std::string::npos;
}

// Arguments nobody declared (CLI11 collects them: allow_extras), named in the verb's terms.
std::string unexpected(const std::string& arg, bool verb_chosen) {
  if (arg.rfind("-", 0) == 0) return "unknown option " + arg;
  return (verb_chosen ? "unexpected argument '" : "unknown command '") + arg + "'";
}

}  // namespace

int report_exception(const std::string& context, const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of memory\n", context.c_str());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "%s: error: %s\n", context.c_str(), ex.what());
  } catch (...) {
    std::fprintf(stderr, "%s: error: unknown exception\n", context.c_str());
  }
  return 2;
}

int run_verbs(CLI::App& app, const std::string& binary, const std::vector<Verb>& verbs, int argc, char** argv,
              int (*on_error)(const std::string& context, const std::exception_ptr&)) {
  app.require_subcommand(0, 1);
  app.fallthrough();  // a verb's unknown options go to the binary's (connection options after the verb)
  std::vector<std::unique_ptr<Options>> options;
  std::vector<CLI::App*> subs;
  for (const Verb& v : verbs) {
    subs.push_back(app.add_subcommand(v.name, v.summary));
    options.push_back(std::make_unique<Options>(subs.back()));
    v.declare(*options.back());
  }
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const CLI::ParseError& e) {
    const size_t i = chosen_verb(subs);
    const std::string ctx = i == std::string::npos ? binary : binary + " " + verbs[i].name;
    usage_error(ctx, e.what(), ctx);
    return 2;
  }
  const size_t i = chosen_verb(subs);
  const std::vector<std::string> extra = app.remaining();
  if (i == std::string::npos && extra.empty()) {
    std::fputs(app.help().c_str(), stderr);
    return 2;
  }
  const std::string ctx = i == std::string::npos ? binary : binary + " " + verbs[i].name;
  if (!extra.empty()) {
    usage_error(ctx, unexpected(extra[0], i != std::string::npos), ctx);
    return 2;
  }
  try {
    return verbs[i].run(*options[i]);
  } catch (const UsageError& e) {
    usage_error(ctx, e.what(), ctx);
    return 2;
  } catch (...) {
    return on_error(ctx, std::current_exception());
  }
}

}  // namespace snarkd::cli
