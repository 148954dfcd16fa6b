#include "snarkd/server/daemon.hpp"

#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

#include "snarkd/engine/devices.hpp"
#include "snarkd/server/grpc_api.hpp"
#include "snarkd/server/http.hpp"
#include "snarkd/server/status_page.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {
namespace {

void setup_logging(const ServerConfig& c) {
  spdlog::drop("snarkd");
  std::shared_ptr<spdlog::logger> lg =
      c.log_file.empty() ? spdlog::stderr_logger_mt("snarkd") : spdlog::basic_logger_mt("snarkd", c.log_file);
  // key=value messages after a timestamp and level: greppable, and parseable by log shippers.
  lg->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
  lg->flush_on(spdlog::level::info);
  spdlog::set_default_logger(lg);
  spdlog::set_level(spdlog::level::from_str(c.log_level));
}

// systemd's service notification (sd_notify(3); Type=notify in packaging/snarkd.service): one
// datagram to the unix socket named by $NOTIFY_SOCKET ('@': abstract namespace); nothing when
// started otherwise. Written out rather than linking libsystemd for three fixed messages.
void notify_systemd(const char* state) {
  const char* path = std::getenv("NOTIFY_SOCKET");
  sockaddr_un addr{};
  if (!path || (path[0] != '/' && path[0] != '@') || std::strlen(path) >= sizeof(addr.sun_path)) return;
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path, std::strlen(path));
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + std::strlen(path));
  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::sendto(fd, state, std::strlen(state), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr), len) < 0)
    spdlog::warn("sd_notify_failed state={} error=\"{}\"", state, std::strerror(errno));
  if (fd >= 0) ::close(fd);
}

// A stale socket file (a killed daemon's) is removed; a live one means another daemon.
void prepare_unix_socket(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    throw std::runtime_error("server.socket '" + path + "' is longer than a unix socket path may be");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode)) throw std::runtime_error("server.socket '" + path + "' exists and is not a socket");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  const bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  if (live) throw std::runtime_error("another daemon is listening on " + path);
  ::unlink(path.c_str());
}

std::unique_ptr<grpc::Server> start_grpc(const ServerConfig& c, GrpcApi& api, const std::string& address, int* port) {
  grpc::ServerBuilder b;
  b.AddListeningPort(address, grpc::InsecureServerCredentials(), port);
  b.RegisterService(&api);
  b.SetMaxReceiveMessageSize(int(std::min<uint64_t>(c.max_message_bytes, INT_MAX)));
  b.SetMaxSendMessageSize(INT_MAX);
  grpc::ResourceQuota quota("snarkd");
  quota.SetMaxThreads(int(c.max_rpc_threads));
  b.SetResourceQuota(quota);
  b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a second daemon must not share the port
  std::unique_ptr<grpc::Server> s = b.BuildAndStart();
  if (!s || (port && *port == 0)) throw std::runtime_error("gRPC cannot listen on " + address);
  return s;
}

std::unique_ptr<grpc::Server> start_unix(const ServerConfig& c, GrpcApi& api) {
  prepare_unix_socket(c.socket);
  const mode_t old = ::umask(077);  // no window in which the socket is open to others
  std::unique_ptr<grpc::Server> s;
  try {
    s = start_grpc(c, api, "unix:" + c.socket, nullptr);
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
  if (::chmod(c.socket.c_str(), c.socket_mode) != 0)
    throw std::runtime_error("cannot chmod " + c.socket + ": " + std::strerror(errno));
  return s;
}

HttpResponse http_route(const Service& s, const std::string& path) {
  if (path == "/metrics") return {200, "text/plain; version=0.0.4; charset=utf-8", s.metrics_text()};
  if (path == "/status") return {200, "application/json", proto_to_json(s.status(50)).dump(0) + "\n"};
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", status_page_html()};
  if (path == "/healthz")
    return s.draining() ? HttpResponse{503, "text/plain", "draining\n"} : HttpResponse{200, "text/plain", "ok\n"};
  return {404, "text/plain; charset=utf-8", "not found: try /, /status, /metrics or /healthz\n"};
}

void write_ports_file(const ServerConfig& c, int tcp_port, int http_port) {
  if (c.ports_file.empty()) return;
  const std::string tmp = c.ports_file + ".tmp";
  {
    std::ofstream f(tmp);
    f << "{\"tcp\": " << tcp_port << ", \"http\": " << http_port << ", \"socket\": \"" << c.socket << "\"}\n";
    if (!f.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, c.ports_file);
}

std::unique_ptr<engine::Engine> make_engine(const ServerConfig& c) {
  engine::DeviceOptions d;
  d.vram_bytes = c.vram_bytes;
  d.sim.upload_s = c.sim_upload_ms / 1e3;
  d.sim.compute_s = c.sim_compute_ms / 1e3;
  d.sim.hold_file = c.sim_hold_file;
  engine::EngineConfig e;
  e.workers_per_device = c.workers_per_device;
  e.host_budget_bytes = c.host_budget_bytes;
  e.self_check = c.self_check;
  e.watchdog_s = c.watchdog_s;
  e.record_timeline = false;  // the spans would grow without bound in a long-running process
  return std::make_unique<engine::Engine>(engine::make_devices(c.devices, d), e);
}

// Everything that listens, in start order; destroyed in reverse.
struct Listeners {
  std::unique_ptr<GrpcApi> unix_api, tcp_api;
  std::unique_ptr<grpc::Server> unix_server, tcp_server;
  std::unique_ptr<HttpServer> http;
  int tcp_port = 0;
};

Listeners start_listeners(const ServerConfig& c, Service& s) {
  Listeners l;
  if (!c.socket.empty()) {
    l.unix_api = std::make_unique<GrpcApi>(s, false);
    l.unix_server = start_unix(c, *l.unix_api);
  }
  if (!c.tcp_listen.empty()) {
    l.tcp_api = std::make_unique<GrpcApi>(s, true);
    l.tcp_server = start_grpc(c, *l.tcp_api, c.tcp_listen, &l.tcp_port);
  }
  if (!c.http_listen.empty())
    l.http = std::make_unique<HttpServer>(c.http_listen, [&s](const std::string& p) { return http_route(s, p); });
  return l;
}

void stop_listeners(Listeners& l, const ServerConfig& c) {
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(2);
  if (l.tcp_server) l.tcp_server->Shutdown(deadline);
  if (l.unix_server) l.unix_server->Shutdown(deadline);
  l.http.reset();
  if (!c.socket.empty()) ::unlink(c.socket.c_str());
}

void reload(Service& s, const std::string& path) {
  notify_systemd("RELOADING=1");
  try {
    ServerConfig next = load_config(path);
    spdlog::set_level(spdlog::level::from_str(next.log_level));
    for (const std::string& what : s.reload(next)) spdlog::warn("reload_not_applied what=\"{}\"", what);
    spdlog::info("config_reloaded path={}", path);
  } catch (const std::exception& e) {
    spdlog::error("config_reload_failed path={} error=\"{}\"", path, e.what());
  }
  notify_systemd("READY=1");
}

// SIGTERM: drain while still answering a second SIGTERM/SIGINT, which stops the wait.
void drain(Service& s, const ServerConfig& c, const sigset_t& set) {
  notify_systemd("STOPPING=1");
  s.begin_drain();
  auto done = std::async(std::launch::async, [&] { return s.drain(c.drain_timeout_s); });
  while (done.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
    const timespec zero{0, 0};
    const int sig = ::sigtimedwait(&set, nullptr, &zero);
    if (sig == SIGTERM || sig == SIGINT) {
      spdlog::warn("drain_interrupted signal={}", sig);
      s.stop();
    }
  }
  spdlog::info("drain_finished in_flight_work_done={}", done.get());
}

int serve(const ServerConfig& c, const sigset_t& set) {
  if (c.threads) ThreadPool::set_default_threads(c.threads);
  auto service = std::make_unique<Service>(c, make_engine(c), std::make_unique<Journal>(c.state_dir));
  service->start();
  Listeners l = start_listeners(c, *service);
  write_ports_file(c, l.tcp_port, l.http ? l.http->port() : 0);
  spdlog::info("ready socket={} tcp_port={} http_port={} devices={} pid={}", c.socket.empty() ? "-" : c.socket,
               l.tcp_port, l.http ? l.http->port() : 0, c.devices, ::getpid());
  notify_systemd("READY=1");  // circuits loaded (Service::start), listeners up
  for (;;) {
    int sig = 0;
    if (::sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      reload(*service, c.path);
      continue;
    }
    spdlog::info("signal_received signal={} action=drain", sig);
    break;
  }
  drain(*service, c, set);
  service->stop();
  stop_listeners(l, c);
  l = Listeners();
  service.reset();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int run_daemon(const std::string& config_path) {
  // Blocked before any thread exists, so only sigwait sees them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error code, not the end of the daemon
  ServerConfig c;
  try {
    c = load_config(config_path);
    resolve_token(c);
    setup_logging(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd serve: %s\n", e.what());
    return 2;
  }
  try {
    return serve(c, set);
  } catch (const std::exception& e) {
    spdlog::critical("startup_failed error=\"{}\"", e.what());
    std::fprintf(stderr, "snarkd serve: %s\n", e.what());
    return 2;
  }
}

int check_config(const std::string& config_path) {
  try {
    const ServerConfig c = load_config(config_path);
    resolve_token(c);
    std::printf("%s: ok (%zu circuits, devices %s)\n", config_path.c_str(), c.circuits.size(), c.devices.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd serve: %s\n", e.what());
    return 2;
  }
}

}  // namespace snarkd::server
