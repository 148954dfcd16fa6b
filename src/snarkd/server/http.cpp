#include "snarkd/server/http.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

namespace {

using Clock = std::chrono::steady_clock;

void peer_of(int sock, bool remote, std::string& ip, int& port) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  const int rc = remote ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&ss), &len)
                        : ::getsockname(sock, reinterpret_cast<sockaddr*>(&ss), &len);
  char buf[INET6_ADDRSTRLEN] = {};
  port = 0;
  if (rc == 0 && ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof buf);
    port = ntohs(a->sin_port);
  } else if (rc == 0 && ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof buf);
    port = ntohs(a->sin6_port);
  }
  ip = buf;
}

// A connection's socket with one deadline for everything read and written, and a cap on the
// request's bytes: httplib's own stream times out per read, which a client defeats by sending
// a byte before each timeout.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, Clock::time_point deadline) : sock_(sock), deadline_(deadline) {}

  bool is_readable() const override { return wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }
  ssize_t read(char* ptr, size_t size) override {
    if (received_ >= kMaxRequestBytes || !wait(POLLIN)) return -1;
    ssize_t n;
    do n = ::recv(sock_, ptr, std::min(size, kMaxRequestBytes - received_), 0);
    while (n < 0 && errno == EINTR);
    if (n > 0) received_ += size_t(n);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT)) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { peer_of(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { peer_of(sock_, false, ip, port); }
  int socket() const override { return sock_; }

 private:
  bool wait(short events) const {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{sock_, events, 0};
      const int rc = ::poll(&p, 1, int(std::min<long long>(left, 1 << 30)));
      if (rc > 0) return true;  // ready, or an error/hang-up the next call reports
      if (rc == 0 || errno != EINTR) return false;
    }
  }

  int sock_;
  Clock::time_point deadline_;
  size_t received_ = 0;
};

// One request's bytes in, the reply's bytes out (http_response_for).
class MemoryStream final : public httplib::Stream {
 public:
  explicit MemoryStream(const std::string& in) : in_(in) {}
  bool is_readable() const override { return pos_ < in_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    const size_t n = std::min(size, in_.size() - pos_);
    std::copy_n(in_.data() + pos_, n, ptr);
    pos_ += n;
    return ssize_t(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    out.append(ptr, size);
    return ssize_t(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 0; }
  void get_local_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 0; }
  int socket() const override { return -1; }
  std::string out;

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

// Set while a connection is turned away on the accepting thread (the queue is full).
thread_local bool t_shedding = false;

// httplib's connection queue with a bound: a connection beyond it runs at once on the accepting
// thread in "shed" mode, which answers 503 without reading and never blocks.
class BoundedQueue final : public httplib::TaskQueue {
 public:
  BoundedQueue(size_t workers, size_t cap) : cap_(cap) {
    for (size_t k = 0; k < workers; ++k) threads_.emplace_back([this] { loop(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard l(mu_);
      if (jobs_.size() < cap_) {
        jobs_.push_back(std::move(fn));
        cv_.notify_one();
        return;
      }
    }
    t_shedding = true;
    fn();
    t_shedding = false;
  }
  void shutdown() override {
    {
      std::lock_guard l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void loop() {
    name_this_thread("snarkd-http");
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock l(mu_);
        cv_.wait(l, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        fn = std::move(jobs_.front());
        jobs_.pop_front();
      }
      fn();
    }
  }

  const size_t cap_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace

class HttpServer::Impl final : public httplib::Server {
 public:
  Impl(HttpHandler handler, HttpOptions opt) : opt_(opt) {
    new_task_queue = [this] { return new BoundedQueue(opt_.workers, opt_.queue); };
    set_socket_options([](int sock) {  // SO_REUSEADDR only: httplib's default SO_REUSEPORT would share the port
      const int one = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    });
    set_payload_max_length(kMaxRequestBytes);
    set_default_headers({{"Cache-Control", "no-store"}});
    set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (req.method == "GET" || req.method == "HEAD") return HandlerResponse::Unhandled;
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content("only GET and HEAD\n", "text/plain; charset=utf-8");
      return HandlerResponse::Handled;
    });
    Get(R"(.*)", [h = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
      HttpResponse r;
      try {
        r = h(req.path);
      } catch (const std::exception& e) {
        r = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n"};
      }
      res.status = r.status;
      res.set_content(r.body, r.content_type.c_str());
    });
  }

  std::string answer(const std::string& request) {
    MemoryStream s(request);
    bool closed = false;
    process_request(s, true, closed, nullptr);
    return s.out;
  }

  std::thread listener;

 private:
  bool process_and_close_socket(int sock) override {
    bool ok = false;
    if (t_shedding) {
      static constexpr char k503[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 5\r\nConnection: close\r\n\r\nbusy\n";
      (void)!::send(sock, k503, sizeof k503 - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    } else {
      DeadlineStream s(sock, Clock::now() + opt_.deadline);
      bool closed = false;
      ok = process_request(s, true, closed, nullptr);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
  }

  const HttpOptions opt_;
};

std::pair<std::string, std::string> split_host_port(const std::string& s) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon + 1 == s.size()) throw std::runtime_error("'" + s + "' is not host:port");
  std::string host = s.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, s.substr(colon + 1)};
}

HttpServer::HttpServer(const std::string& listen, HttpHandler handler, HttpOptions opt)
    : impl_(std::make_unique<Impl>(std::move(handler), opt)) {
  const auto [host, port_text] = split_host_port(listen);
  int port = -1;
  try {
    size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size() || port < 0 || port > 65535) port = -1;
  } catch (const std::exception&) {
  }
  if (port < 0) throw std::runtime_error("http: '" + listen + "': '" + port_text + "' is not a port");
  const int bound = port == 0 ? impl_->bind_to_any_port(host) : (impl_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw std::runtime_error("http: cannot listen on " + listen);
  port_ = uint16_t(bound);
  std::atomic<bool> returned{false};
  impl_->listener = std::thread([this, &returned] {
    name_this_thread("snarkd-http");
    impl_->listen_after_bind();
    returned = true;
  });
  // stop() only stops a server that is running: wait until the accept loop has started.
  while (!impl_->is_running() && !returned) std::this_thread::yield();
  if (returned) {
    impl_->listener.join();
    throw std::runtime_error("http: the server on " + listen + " did not start");
  }
}

HttpServer::~HttpServer() {
  impl_->stop();
  impl_->listener.join();
}

std::string http_response_for(const std::string& request, const HttpHandler& handler) {
  HttpServer::Impl server(handler, HttpOptions{});
  return server.answer(request);
}

}  // namespace snarkd::server
