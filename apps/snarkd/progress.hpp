// Progress on stderr for long commands: when stderr is a terminal and a command has run for
// more than a second, a one-line bar "[prove] ████░░░░ 3/7 msm_b  2.4 s" is redrawn every
// 200 ms by a ticker thread; otherwise nothing is printed (logs and pipes stay clean).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace snarkd::cli {

class Progress {
 public:
  Progress(std::string command, size_t total_steps);
  ~Progress();  // erases the bar
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(std::string_view name);  // the next step starts

 private:
  void run();
  void draw();

  const std::string command_;
  const size_t total_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string current_;
  size_t done_ = 0;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread ticker_;
};

}  // namespace snarkd::cli
