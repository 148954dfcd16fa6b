// A persistent worker pool with a blocking parallel_for. NTT and MSM split their work into
// contiguous chunks; a pool avoids the ~20 us cost of spawning threads per call.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

namespace snarkd {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return threads_; }

  // Runs fn(task) for task in [0, tasks) on the pool and the calling thread; returns when all
  // are done. Rethrows the first exception a task threw. Nested calls run serially.
  void run(size_t tasks, const std::function<void(size_t)>& fn);

  // The process-wide pool, sized by set_default_threads() or hardware_concurrency().
  static ThreadPool& global();
  static void set_default_threads(size_t threads);

 private:
  struct State;
  State* state_;
  size_t threads_;
};

// While alive, every pool call made by the constructing thread runs inline on it (as nested
// calls do). For callers that run many tiny jobs concurrently (the simulated device's workers):
// waking pool threads for 100-row work costs more than the work, and under CPU contention a
// wake-up can take a scheduler quantum.
class InlinePoolScope {
 public:
  InlinePoolScope();
  ~InlinePoolScope();
  InlinePoolScope(const InlinePoolScope&) = delete;
  InlinePoolScope& operator=(const InlinePoolScope&) = delete;

 private:
  bool previous_;
};

// Names the calling thread (Linux: at most 15 characters are kept; elsewhere a no-op), so that
// top -H, perf and /proc/PID/task/*/comm tell provers from the daemon's own threads
// (tests/server/overhead.sh adds up CPU time by these names).
void name_this_thread(const char* name);

// Splits [0, n) into at most `parts` contiguous ranges (parts = 0: pool size) and calls
// fn(begin, end) for each, in parallel on the global pool.
void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t parts = 0);

// Calls fn(begin, end) for the consecutive blocks [k·block, min(n, (k+1)·block)) of [0, n), the
// blocks shared out by parallel_for. For loops whose per-block set-up (a batch inversion, a
// starting power x^begin) must be amortised over a fixed number of elements, whatever the pool
// size.
void parallel_blocks(size_t n, size_t block, const std::function<void(size_t, size_t)>& fn);

}  // namespace snarkd
