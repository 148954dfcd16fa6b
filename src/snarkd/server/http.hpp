// A minimal HTTP/1.1 server for the daemon's side port (GET /metrics, /status, /): one
// request per connection (Connection: close), GET and HEAD only, request head ≤ 16 KiB,
// 5-second socket timeouts, a few worker threads so one slow client cannot stall a scrape.
// No TLS and no auth: bind it to localhost (the default) or put a proxy in front.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace snarkd::server {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// path without the query string; the handler runs on a worker thread and may throw (→ 500).
using HttpHandler = std::function<HttpResponse(const std::string& path)>;

class HttpServer {
 public:
  // listen: "host:port" ("127.0.0.1:0" picks a free port). Throws std::runtime_error if it
  // cannot bind.
  HttpServer(const std::string& listen, HttpHandler handler, size_t workers = 4);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  void accept_loop();
  void worker_loop();
  void serve(int fd);

  HttpHandler handler_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop the accept loop
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> pending_;
  std::thread acceptor_;
  std::vector<std::thread> workers_;
};

// "HTTP/1.1 200 OK\r\n..." for a parsed request head; exposed for tests. method and path are
// the request line's; a malformed head gives 400, other methods 405.
std::string http_response_for(const std::string& head, const HttpHandler& handler);

// Splits "host:port" (IPv6 as "[::1]:80"); throws std::runtime_error naming the text.
std::pair<std::string, std::string> split_host_port(const std::string& s);

}  // namespace snarkd::server
