#include "snarkd/server/rpc_pool.hpp"

#include <stdexcept>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

RpcPool::RpcPool(std::string name, size_t threads, size_t queue)
    : name_(std::move(name)), max_threads_(threads), max_queue_(queue) {
  if (threads == 0) throw std::invalid_argument("RpcPool: no threads");
}

RpcPool::~RpcPool() {
  {
    std::lock_guard l(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool RpcPool::try_post(std::function<void()> fn) {
  std::lock_guard l(mu_);
  // Accepted = running + queued: at most one per thread plus the queue's places.
  if (stopping_ || running_ + queue_.size() >= max_threads_ + max_queue_) return false;
  queue_.push_back(std::move(fn));
  if (queue_.size() > idle_ && threads_.size() < max_threads_)
    threads_.emplace_back([this] { loop(); });
  else
    cv_.notify_one();
  return true;
}

void RpcPool::loop() {
  name_this_thread(name_.c_str());
  std::unique_lock l(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping, nothing left to run
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    l.unlock();
    fn();  // the bodies catch everything themselves (grpc_api.cpp)
    l.lock();
    --running_;
  }
}

}  // namespace snarkd::server
