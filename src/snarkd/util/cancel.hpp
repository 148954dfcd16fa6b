// Cooperative cancellation for long computations: the standard library's std::stop_token (a
// shared flag with callbacks; a default-constructed token can never be stopped) plus what the
// layers above need around it. The engine owns one std::stop_source per job and hands its
// token down through groth16::ProveOptions, msm::Options, a device worker's compute stage and
// cuda::prove_on_stream; each checks it at its phase boundaries and throws Cancelled, so a
// cancelled partition gives its memory back after at most one phase (one MSM window chunk on
// the CPU, one kernel phase on the GPU).
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>

namespace snarkd {

// The work was stopped through its token before it finished; nothing it produced is valid.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws Cancelled("<where>: cancelled") if a stop was requested. One relaxed atomic load
// otherwise: cheap enough for every few thousand points of an MSM.
inline void throw_if_stopped(const std::stop_token& stop, const char* where) {
  if (stop.stop_requested()) throw Cancelled(std::string(where) + ": cancelled");
}

// Sleeps until `deadline` or until a stop is requested, whichever comes first (no polling: the
// token's callback wakes the wait). Returns false if it returned because of the stop.
template <class Clock, class Duration>
bool sleep_until(std::chrono::time_point<Clock, Duration> deadline, const std::stop_token& stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock l(m);
  cv.wait_until(l, stop, deadline, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace snarkd
