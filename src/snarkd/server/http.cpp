#include "snarkd/server/http.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {

namespace {

constexpr size_t kMaxHead = 16 * 1024;

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return status >= 500 ? "Internal Server Error" : "Error";
  }
}

std::string render(const HttpResponse& r, bool with_body, const char* extra = "") {
  std::string s = "HTTP/1.1 " + std::to_string(r.status) + " " + reason(r.status) + "\r\n";
  s += "Content-Type: " + r.content_type + "\r\n";
  s += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  s += "Cache-Control: no-store\r\nConnection: close\r\n";
  s += extra;
  s += "\r\n";
  if (with_body) s += r.body;
  return s;
}

void send_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;  // the client went away or timed out: nothing to tell it
    off += size_t(n);
  }
}

}  // namespace

std::pair<std::string, std::string> split_host_port(const std::string& s) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon + 1 == s.size()) throw std::runtime_error("'" + s + "' is not host:port");
  std::string host = s.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, s.substr(colon + 1)};
}

std::string http_response_for(const std::string& head, const HttpHandler& handler) {
  const size_t eol = head.find("\r\n");
  const std::string line = head.substr(0, eol);
  const size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  if (sp1 == std::string::npos || sp2 == sp1 || line.compare(sp2 + 1, 5, "HTTP/") != 0)
    return render({400, "text/plain; charset=utf-8", "malformed request line\n"}, true);
  const std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (method != "GET" && method != "HEAD")
    return render({405, "text/plain; charset=utf-8", "only GET and HEAD\n"}, true, "Allow: GET, HEAD\r\n");
  path = path.substr(0, path.find('?'));
  HttpResponse r;
  try {
    r = handler(path);
  } catch (const std::exception& e) {
    r = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n"};
  }
  return render(r, method == "GET");
}

HttpServer::HttpServer(const std::string& listen, HttpHandler handler, size_t workers) : handler_(std::move(handler)) {
  const auto [host, port] = split_host_port(listen);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &res); rc != 0)
    throw std::runtime_error("http: '" + listen + "': " + gai_strerror(rc));
  std::string err = "no address";
  for (addrinfo* a = res; a && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0)
      listen_fd_ = fd;
    else
      err = std::strerror(errno), ::close(fd);
  }
  freeaddrinfo(res);
  if (listen_fd_ < 0) throw std::runtime_error("http: cannot listen on " + listen + ": " + err);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  port_ = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                         : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  acceptor_ = std::thread([this] { accept_loop(); });
  for (size_t k = 0; k < workers; ++k) workers_.emplace_back([this] { worker_loop(); });
}

HttpServer::~HttpServer() {
  stop_ = true;
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  acceptor_.join();
  cv_.notify_all();
  for (auto& t : workers_) t.join();
  for (int fd : pending_) ::close(fd);
  ::close(listen_fd_);
  ::close(wake_fd_);
}

void HttpServer::accept_loop() {
  name_this_thread("snarkd-http");
  while (!stop_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(p, 2, -1) < 0 || (p[1].revents & POLLIN)) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    std::lock_guard l(mu_);
    if (pending_.size() >= 64) {  // overloaded: refuse rather than queue without bound
      send_all(fd, render({503, "text/plain; charset=utf-8", "busy\n"}, true));
      ::close(fd);
      continue;
    }
    pending_.push_back(fd);
    cv_.notify_one();
  }
}

void HttpServer::worker_loop() {
  name_this_thread("snarkd-http");
  for (;;) {
    int fd;
    {
      std::unique_lock l(mu_);
      cv_.wait(l, [&] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      fd = pending_.front();
      pending_.pop_front();
    }
    serve(fd);
    ::close(fd);
  }
}

void HttpServer::serve(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > kMaxHead)
      return send_all(fd, render({431, "text/plain; charset=utf-8", "request head too large\n"}, true));
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;  // closed or timed out before a full head
    head.append(buf, size_t(n));
  }
  send_all(fd, http_response_for(head, handler_));
}

}  // namespace snarkd::server
