// The daemon's log lines. Every message is an event name and key=value fields
// ("job_finished job=3 circuit=fixture state=done seconds=0.120 error=\"…\""): greppable as
// text, and, with `[log] format = "json"`, one JSON object per line for log shippers:
//
//   {"ts":"2026-01-02T03:04:05.678Z","level":"info","thread":4242,"event":"job_finished",
//    "fields":{"job":"3","circuit":"fixture",…},"msg":"job_finished job=3 …"}
//
// "msg" is always the message as written (nothing is lost when a message does not split into
// fields); "event" and "fields" are there when it does. Field values stay strings (a circuit
// id that looks like a number must not change a field's type between lines). Bytes that are
// not UTF-8 (client-supplied text in an error) are replaced, so every line is valid JSON.
//
// spdlog's pattern formatter cannot escape a message for JSON, hence a formatter of our own
// (spdlog::formatter, the extension point spdlog provides for this); the JSON text is written
// by nlohmann-json behind util/json.hpp.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spdlog {
class logger;
}

namespace snarkd::server {

struct LogEvent {
  std::string event;
  std::vector<std::pair<std::string, std::string>> fields;
};

// "event k=v k2=\"v 2\"" → its parts; nullopt when the message is not of that form. A quoted
// value ends at the quote followed by the end or by " key=" (messages quote error texts, which
// may hold quotes themselves).
std::optional<LogEvent> parse_event(std::string_view msg);

// One JSON log line (no newline). level: spdlog's level name ("info", "warning", …).
std::string json_log_line(std::chrono::system_clock::time_point t, std::string_view level, uint64_t thread,
                          std::string_view msg);

// Makes the logger write json_log_line()s.
void use_json_log_format(spdlog::logger& logger);

}  // namespace snarkd::server
