#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace snarkd::cli {

Progress::Progress(std::string command, size_t total_steps, Mode mode)
    : command_(std::move(command)),
      total_(total_steps),
      bar_(mode == Mode::kAuto && isatty(STDERR_FILENO) == 1),
      lines_(mode == Mode::kLines),
      start_(std::chrono::steady_clock::now()) {
  if (bar_) ticker_ = std::thread([this] { run(); });
}

Progress::~Progress() {
  if (!bar_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  ticker_.join();
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void Progress::step(std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  ++started_;
  current_ = name;
  if (lines_) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "[%s] %zu/%zu %s  %.1f s\n", command_.c_str(), started_, total_, current_.c_str(), s);
    std::fflush(stderr);
  }
}

void Progress::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) {
    if (std::chrono::steady_clock::now() - start_ >= std::chrono::seconds(1)) draw();
  }
}

void Progress::draw() {  // mu_ held
  constexpr size_t kWidth = 20;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const size_t done = started_ == 0 ? 0 : started_ - 1;
  const size_t filled = total_ == 0 ? 0 : std::min(done, total_) * kWidth / total_;
  std::string bar;
  for (size_t i = 0; i < kWidth; ++i) bar += i < filled ? "\u2588" : "\u2591";
  std::fprintf(stderr, "\r\033[K[%s] %s %zu/%zu %s  %.1f s", command_.c_str(), bar.c_str(), started_, total_,
               current_.c_str(), s);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace snarkd::cli
