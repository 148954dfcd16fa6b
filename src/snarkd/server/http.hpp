// The daemon's HTTP side port (GET and HEAD of /metrics, /status, /, /healthz) on cpp-httplib
// (Debian's libcpp-httplib: it parses the requests). One request per connection; each
// connection gets one deadline for the whole exchange — reading the request and writing the
// reply — and at most kMaxRequestBytes of request, so a client that trickles a header byte
// every few seconds is cut off at the deadline instead of holding a thread. Connections run on
// `workers` threads with `queue` more waiting; beyond that a connection is answered 503 at once.
// No TLS and no auth: bind it to localhost (the default) or put a proxy in front.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace snarkd::server {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// path without the query string; the handler runs on a worker thread and may throw (→ 500).
using HttpHandler = std::function<HttpResponse(const std::string& path)>;

struct HttpOptions {
  size_t workers = 16;
  size_t queue = 64;
  std::chrono::milliseconds deadline{10000};  // per connection, from accept to the reply's end
};
inline constexpr size_t kMaxRequestBytes = 16 * 1024;

class HttpServer {
 public:
  // listen: "host:port" ("127.0.0.1:0" picks a free port). Throws std::runtime_error if it
  // cannot bind (the port is never shared: no SO_REUSEPORT).
  HttpServer(const std::string& listen, HttpHandler handler, HttpOptions opt = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const { return port_; }

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
};

// The bytes the server answers to the bytes of one request (the same parser and routing, on an
// in-memory stream): for tests and the fuzz target.
std::string http_response_for(const std::string& request, const HttpHandler& handler);

// Splits "host:port" (IPv6 as "[::1]:80"); throws std::runtime_error naming the text.
std::pair<std::string, std::string> split_host_port(const std::string& s);

}  // namespace snarkd::server
