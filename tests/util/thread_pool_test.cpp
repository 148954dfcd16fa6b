#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "snarkd/util/thread_pool.hpp"
#include "snarkd/util/threads.hpp"

namespace snarkd {
namespace {

TEST(ThreadPool, EveryTaskRunsOnce) {
  ThreadPool pool(4);
  for (size_t n : {1u, 2u, 3u, 17u, 1000u}) {
    std::vector<std::atomic<int>> hits(n);
    pool.run(n, [&](size_t t) { hits[t]++; });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " task " << i;
  }
}

TEST(ThreadPool, ManyBatchesBackToBack) {
  ThreadPool pool(3);
  std::atomic<uint64_t> sum{0};
  for (int b = 0; b < 2000; ++b) pool.run(5, [&](size_t t) { sum += t; });
  EXPECT_EQ(sum.load(), 2000u * 10u);
}

TEST(ThreadPool, RethrowsTaskException) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.run(8, [](size_t t) { if (t == 5) throw std::runtime_error("boom"); }),
               std::runtime_error);
  std::atomic<int> c{0};
  pool.run(8, [&](size_t) { c++; });  // still usable afterwards
  EXPECT_EQ(c.load(), 8);
}

TEST(RunOnThreads, EveryTaskRunsOnceAndAllFinishBeforeARethrow) {
  for (size_t n : {0u, 1u, 4u, 9u}) {
    std::vector<std::atomic<int>> hits(n);
    run_on_threads(n, [&](size_t k) { hits[k]++; });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " task " << i;
  }
  std::atomic<int> done{0};
  EXPECT_THROW(run_on_threads(6,
                              [&](size_t k) {
                                if (k == 2) throw std::runtime_error("boom");
                                done++;
                              }),
               std::runtime_error);
  EXPECT_EQ(done.load(), 5);  // the other tasks ran to the end before the exception came out
}

TEST(ParallelFor, CoversRangeExactly) {
  for (size_t n : {0u, 1u, 7u, 1001u}) {
    std::vector<std::atomic<int>> hits(n);
    parallel_for(n, [&](size_t b, size_t e) { for (size_t i = b; i < e; ++i) hits[i]++; }, 3);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1);
  }
}

TEST(ParallelFor, NestedCallsRunSerially) {
  std::atomic<int> c{0};
  parallel_for(4, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) parallel_for(10, [&](size_t b2, size_t e2) { c += int(e2 - b2); });
  });
  EXPECT_EQ(c.load(), 40);
}

}  // namespace
}  // namespace snarkd

#ifdef __linux__
// /proc/self/task/TID/comm of the calling thread.
static std::string own_comm() {
  std::ifstream f("/proc/thread-self/comm");
  std::string name;
  std::getline(f, name);
  return name;
}

TEST(ThreadPool, NamesThreadsAndCutsAt15Characters) {
  std::string seen_short, seen_long;
  std::thread([&] {
    snarkd::name_this_thread("snarkd-test");
    seen_short = own_comm();
    snarkd::name_this_thread("snarkd-a-name-longer-than-15");
    seen_long = own_comm();
  }).join();
  EXPECT_EQ(seen_short, "snarkd-test");
  EXPECT_EQ(seen_long, "snarkd-a-name-l");  // the kernel keeps 15 characters
}

TEST(ThreadPool, PoolThreadsCarryTheirName) {
  snarkd::ThreadPool pool(3);
  std::mutex mu;
  std::set<std::string> names;
  pool.run(200, [&](size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // let every worker take some
    std::lock_guard l(mu);
    names.insert(own_comm());
  });
  names.erase(own_comm());  // the calling thread runs tasks too, under its own name
  ASSERT_FALSE(names.empty());
  for (const std::string& n : names) EXPECT_EQ(n, "snarkd-pool");
}
#endif
