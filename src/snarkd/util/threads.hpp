// One thread per task, for a few long blocking tasks (a device's key upload, a multi-GB copy)
// that should not tie up the ThreadPool's workers (thread_pool.hpp): runs fn(k) for k in [0, n)
// on n threads, joins them all, then rethrows the first exception a task threw.
#pragma once
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace snarkd {

template <class Fn>
void run_on_threads(size_t n, Fn&& fn) {
  std::vector<std::exception_ptr> errors(n);
  {
    std::vector<std::jthread> threads;  // joined at the end of this block, also if a start fails
    threads.reserve(n);
    for (size_t k = 0; k < n; ++k)
      threads.emplace_back([&errors, &fn, k] {
        try {
          fn(k);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace snarkd
