// The threads the daemon's blocking RPC bodies run on (Submit's spooling and fsyncs, Cancel's
// journal commit and stop wait, EvictKey, Prove's submission; PreloadKey on a pool of its own):
// gRPC's callback API gives each call to a handler that must not block, the handler posts the
// body here and finishes the call from the pool thread. Bounded twice: at most `threads` threads
// (started as work arrives) and `queue` calls waiting for one; beyond, try_post refuses and the
// call gets RESOURCE_EXHAUSTED at once. Await, Status and Metrics never come here.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace snarkd::server {

class RpcPool {
 public:
  // name: the threads' name (top -H); threads ≥ 1.
  RpcPool(std::string name, size_t threads, size_t queue);
  ~RpcPool();  // runs what is queued, then joins
  RpcPool(const RpcPool&) = delete;
  RpcPool& operator=(const RpcPool&) = delete;

  // Queues fn; false (fn dropped) when `queue` calls wait already.
  bool try_post(std::function<void()> fn);
  size_t threads() const { return max_threads_; }

 private:
  void loop();

  const std::string name_;
  const size_t max_threads_, max_queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0, running_ = 0;
  bool stopping_ = false;
};

}  // namespace snarkd::server
