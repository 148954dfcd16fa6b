// Progress on stderr for long commands (prove, setup, synth, and the key, circuit and witness
// loading in front of them). Three modes:
//   kAuto   when stderr is a terminal and the command has run for more than a second, a
//           one-line bar "[setup] ████░░░░ 4/12 G1 points (65535)  2.4 s" redrawn every 200 ms
//           by a ticker thread (so a 10-minute step still shows the clock moving); otherwise
//           nothing (logs and pipes stay clean).
//   kLines  one line per step as it starts, "[setup] 4/12 G1 points (65535)  2.4 s", whatever
//           stderr is (--progress: CI logs, tests).
//   kOff    nothing (--no-progress).
#pragma once
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace snarkd::cli {

class Progress {
 public:
  enum class Mode { kAuto, kLines, kOff };

  Progress(std::string command, size_t total_steps, Mode mode);
  ~Progress();  // erases the bar
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(std::string_view name);  // the next step starts

 private:
  void run();
  void draw();

  const std::string command_;
  const size_t total_;
  const bool bar_, lines_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string current_;
  size_t started_ = 0;  // steps started so far
  bool stop_ = false;
  bool drawn_ = false;
  std::thread ticker_;
};

}  // namespace snarkd::cli
