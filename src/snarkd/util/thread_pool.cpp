#include "snarkd/util/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifdef __linux__
#include <pthread.h>
#endif

namespace snarkd {

struct ThreadPool::State {
  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::vector<std::thread> workers;
  const std::function<void(size_t)>* fn = nullptr;
  size_t tasks = 0;
  std::atomic<size_t> next{0};
  size_t active = 0;       // workers inside the current batch
  uint64_t generation = 0; // bumps once per run()
  bool stop = false;
  std::exception_ptr error;
  std::mutex run_mu;       // one batch at a time

  void drain() {
    for (;;) {
      size_t t = next.fetch_add(1);
      if (t >= tasks) return;
      try {
        (*fn)(t);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu);
        if (!error) error = std::current_exception();
      }
    }
  }
};

namespace {
thread_local bool t_inside_pool = false;
size_t g_default_threads = 0;
}  // namespace

ThreadPool::ThreadPool(size_t threads) : state_(new State), threads_(std::max<size_t>(1, threads)) {
  for (size_t i = 1; i < threads_; ++i) {
    state_->workers.emplace_back([s = state_] {
      name_this_thread("snarkd-pool");
      t_inside_pool = true;
      uint64_t seen = 0;
      for (;;) {
        std::unique_lock<std::mutex> lk(s->mu);
        s->work_cv.wait(lk, [&] { return s->stop || s->generation != seen; });
        if (s->stop) return;
        seen = s->generation;
        ++s->active;
        lk.unlock();
        s->drain();
        lk.lock();
        if (--s->active == 0) s->done_cv.notify_all();
      }
    });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> g(state_->mu);
    state_->stop = true;
  }
  state_->work_cv.notify_all();
  for (auto& t : state_->workers) t.join();
  delete state_;
}

void ThreadPool::run(size_t tasks, const std::function<void(size_t)>& fn) {
  if (tasks == 0) return;
  if (t_inside_pool || threads_ == 1 || tasks == 1) {
    for (size_t t = 0; t < tasks; ++t) fn(t);
    return;
  }
  std::lock_guard<std::mutex> batch(state_->run_mu);
  State* s = state_;
  {
    // A worker that woke late for the previous batch may still be inside drain(); let it
    // leave before the shared fields change, so no worker reads them while they are written.
    std::unique_lock<std::mutex> g(s->mu);
    s->done_cv.wait(g, [&] { return s->active == 0; });
    s->fn = &fn;
    s->tasks = tasks;
    s->next = 0;
    s->error = nullptr;
    ++s->generation;
  }
  s->work_cv.notify_all();
  t_inside_pool = true;
  s->drain();
  t_inside_pool = false;
  std::unique_lock<std::mutex> lk(s->mu);
  s->done_cv.wait(lk, [&] { return s->active == 0 && s->next.load() >= s->tasks; });
  // Workers that wake late see next >= tasks and leave at once; fn stays valid until here.
  s->fn = nullptr;
  if (s->error) std::rethrow_exception(s->error);
}

InlinePoolScope::InlinePoolScope() : previous_(t_inside_pool) { t_inside_pool = true; }
InlinePoolScope::~InlinePoolScope() { t_inside_pool = previous_; }

ThreadPool& ThreadPool::global() {
  static ThreadPool pool(g_default_threads ? g_default_threads
                                           : std::max(1u, std::thread::hardware_concurrency()));
  return pool;
}

void ThreadPool::set_default_threads(size_t threads) { g_default_threads = threads; }

void name_this_thread(const char* name) {
#ifdef __linux__
  const std::string kept = std::string(name).substr(0, 15);  // the kernel's limit (16 with NUL)
  pthread_setname_np(pthread_self(), kept.c_str());
#else
  (void)name;
#endif
}

void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, size_t parts) {
  if (n == 0) return;
  ThreadPool& pool = ThreadPool::global();
  if (parts == 0) parts = pool.size();
  parts = std::min(parts, n);
  pool.run(parts, [&](size_t p) {
    size_t b = n * p / parts, e = n * (p + 1) / parts;
    if (b < e) fn(b, e);
  });
}

void parallel_blocks(size_t n, size_t block, const std::function<void(size_t, size_t)>& fn) {
  const size_t blocks = (n + block - 1) / block;
  parallel_for(blocks, [&](size_t b0, size_t b1) {
    for (size_t b = b0; b < b1; ++b) fn(b * block, std::min(n, (b + 1) * block));
  });
}

}  // namespace snarkd
