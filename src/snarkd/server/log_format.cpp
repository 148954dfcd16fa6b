#include "snarkd/server/log_format.hpp"

#include <spdlog/formatter.h>
#include <spdlog/logger.h>

#include <ctime>

#include "snarkd/util/json.hpp"

namespace snarkd::server {
namespace {

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// Length of a key followed by '=' at the start of s; 0 if s does not start that way.
size_t key_length(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && key_char(s[n])) ++n;
  return n > 0 && n < s.size() && s[n] == '=' ? n : 0;
}

// A quoted value starting after its opening quote: its length, or npos when unterminated.
size_t quoted_length(std::string_view s) {
  for (size_t p = s.find('"'); p != std::string_view::npos; p = s.find('"', p + 1))
    if (p + 1 == s.size() || (s[p + 1] == ' ' && key_length(s.substr(p + 2)) > 0)) return p;
  return std::string_view::npos;
}

std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = std::time_t(ms / 1000 - (ms % 1000 < 0));
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", int(((ms % 1000) + 1000) % 1000));
  return buf;
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& m, spdlog::memory_buf_t& dest) override {
    const auto level = spdlog::level::to_string_view(m.level);
    const std::string line = json_log_line(m.time, std::string_view(level.data(), level.size()), m.thread_id,
                                           std::string_view(m.payload.data(), m.payload.size()));
    dest.append(line.data(), line.data() + line.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};

}  // namespace

std::optional<LogEvent> parse_event(std::string_view msg) {
  LogEvent e;
  size_t n = 0;
  while (n < msg.size() && key_char(msg[n]) && msg[n] != '.') ++n;
  if (n == 0) return std::nullopt;
  e.event = std::string(msg.substr(0, n));
  std::string_view rest = msg.substr(n);
  while (!rest.empty()) {
    if (rest[0] != ' ') return std::nullopt;
    rest.remove_prefix(1);
    const size_t k = key_length(rest);
    if (k == 0) return std::nullopt;
    std::string key(rest.substr(0, k));
    rest.remove_prefix(k + 1);
    size_t len;
    if (!rest.empty() && rest[0] == '"') {
      len = quoted_length(rest.substr(1));
      if (len == std::string_view::npos) return std::nullopt;
      e.fields.emplace_back(std::move(key), std::string(rest.substr(1, len)));
      rest.remove_prefix(len + 2);
    } else {
      len = std::min(rest.find(' '), rest.size());
      e.fields.emplace_back(std::move(key), std::string(rest.substr(0, len)));
      rest.remove_prefix(len);
    }
  }
  return e;
}

std::string json_log_line(std::chrono::system_clock::time_point t, std::string_view level, uint64_t thread,
                          std::string_view msg) {
  Json line = Json::object();
  line.set("ts", Json::string(utc_timestamp(t)));
  line.set("level", Json::string(std::string(level)));
  line.set("thread", Json::number(thread));
  if (std::optional<LogEvent> e = parse_event(msg)) {
    line.set("event", Json::string(e->event));
    Json fields = Json::object();
    for (auto& [k, v] : e->fields) fields.set(k, Json::string(std::move(v)));
    line.set("fields", std::move(fields));
  }
  line.set("msg", Json::string(std::string(msg)));
  return line.dump(0);
}

void use_json_log_format(spdlog::logger& logger) { logger.set_formatter(std::make_unique<JsonFormatter>()); }

}  // namespace snarkd::server
