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
#include "snarkd/server/files.hpp"
#include "snarkd/server/grpc_api.hpp"
#include "snarkd/server/build_info.hpp"
#include "snarkd/server/http.hpp"
#include "snarkd/server/log_format.hpp"
#include "snarkd/server/status_page.hpp"
#include "snarkd/util/thread_pool.hpp"

namespace snarkd::server {
namespace {

void setup_logging(const ServerConfig& c) {
  if (!c.log_file.empty()) ensure_file_mode(c.log_file, 0640);  // logs: owner writes, group reads
  spdlog::drop("snarkd");
  std::shared_ptr<spdlog::logger> lg =
      c.log_file.empty() ? spdlog::stderr_logger_mt("snarkd") : spdlog::basic_logger_mt("snarkd", c.log_file);
  // Text: event key=value messages after a timestamp and level (greppable); json: one object
  // per line (log_format.hpp).
  if (c.log_format == "json")
    use_json_log_format(*lg);
  else
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
void prepare_unix_socket(const std::string& path, mode_t mode) {
  if (path.size() >= sizeof(sockaddr_un::sun_path))
    throw std::runtime_error("server.socket '" + path + "' is longer than a unix socket path may be");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::exists(parent)) {
    // Those the socket is for must reach it: search (x) permission where its mode grants access.
    std::filesystem::create_directories(parent);
    const mode_t search = 0700 | (mode & 0070 ? 0010 : 0) | (mode & 0007 ? 0001 : 0);
    if (::chmod(parent.c_str(), search) != 0)
      throw std::runtime_error("cannot chmod " + parent.string() + ": " + std::strerror(errno));
  }
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
  b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a second daemon must not share the port
  std::unique_ptr<grpc::Server> s = b.BuildAndStart();
  if (!s || (port && *port == 0)) throw std::runtime_error("gRPC cannot listen on " + address);
  return s;
}

// The socket file gets socket_mode at bind(2) from the umask (0777 & ~umask): no chmod by path
// afterwards, so nothing can be swapped in between. The process umask is restored at once;
// the daemon's own files take explicit modes anyway.
std::unique_ptr<grpc::Server> start_unix(const ServerConfig& c, GrpcApi& api) {
  prepare_unix_socket(c.socket, c.socket_mode);
  const mode_t old = ::umask(0777 & ~mode_t(c.socket_mode));
  std::unique_ptr<grpc::Server> s;
  try {
    s = start_grpc(c, api, "unix:" + c.socket, nullptr);
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
  return s;
}

HttpResponse http_route(const Service& s, const std::string& path) {
  if (path == "/metrics") return {200, "text/plain; version=0.0.4; charset=utf-8", s.metrics_text()};
  if (path == "/status") return {200, "application/json", proto_to_json(s.status(50)).dump(0) + "\n"};
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", status_page_html()};
  if (path == "/healthz") {
    std::string why;
    return s.ready(&why) ? HttpResponse{200, "text/plain", "ok\n"} : HttpResponse{503, "text/plain", why + "\n"};
  }
  return {404, "text/plain; charset=utf-8", "not found: try /, /status, /metrics or /healthz\n"};
}

void write_ports_file(const ServerConfig& c, int tcp_port, int http_port) {
  if (c.ports_file.empty()) return;
  const std::string text = "{\"tcp\": " + std::to_string(tcp_port) + ", \"http\": " + std::to_string(http_port) +
                           ", \"socket\": \"" + c.socket + "\"}\n";
  write_file_atomically(c.ports_file, text, 0600);
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

// Everything that listens, in start order; destroyed in reverse (the servers are shut down
// before the pools their calls run on are joined).
struct Listeners {
  std::unique_ptr<RpcPool> calls, key_loads;
  std::unique_ptr<GrpcApi> unix_api, tcp_api;
  std::unique_ptr<grpc::Server> unix_server, tcp_server;
  std::unique_ptr<HttpServer> http;
  int tcp_port = 0;
};

Listeners start_listeners(const ServerConfig& c, Service& s) {
  Listeners l;
  l.calls = std::make_unique<RpcPool>("snarkd-rpc", c.max_rpc_threads, c.max_rpc_threads);
  l.key_loads = std::make_unique<RpcPool>("snarkd-keyload", 1, 4);  // one key file read at a time
  if (!c.socket.empty()) {
    l.unix_api = std::make_unique<GrpcApi>(s, false, *l.calls, *l.key_loads);
    l.unix_server = start_unix(c, *l.unix_api);
  }
  if (!c.tcp_listen.empty()) {
    l.tcp_api = std::make_unique<GrpcApi>(s, true, *l.calls, *l.key_loads);
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
  l.tcp_server.reset();
  l.unix_server.reset();
  l.calls.reset();  // runs what is queued (the servers refused the rest), then joins
  l.key_loads.reset();
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
  const v1::StatusReply first = service->status(1);
  const int failed = first.failed_circuits_size();
  const BuildInfo& b = build_info();
  spdlog::log(failed ? spdlog::level::warn : spdlog::level::info,
              "ready socket={} tcp_port={} http_port={} devices={} pid={} failed_circuits={} version={} commit={} "
              "cuda={} compile_check={} nvml=\"{}\"",
              c.socket.empty() ? "-" : c.socket, l.tcp_port, l.http ? l.http->port() : 0, c.devices, ::getpid(),
              failed, b.version, b.git_commit, b.cuda ? "on" : "off", b.cuda_compile_check ? "on" : "off",
              first.nvml());
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
  // Everything the daemon creates is private unless it says otherwise (the log: 0640, the
  // socket: socket_mode); the explicit modes hold whatever the umask, this covers the rest
  // (SQLite's -wal and -shm follow journal.db's mode, 0600, in any case).
  ::umask(077);
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

namespace {

// The nearest existing ancestor of `path` (itself included) must be a directory we may write
// into (or `path` itself one, for a directory that exists).
void check_creatable(const std::string& key, const std::string& path, const std::string& cfg) {
  std::filesystem::path p = std::filesystem::absolute(path);
  while (!std::filesystem::exists(p) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
  if (!std::filesystem::is_directory(p) && p.string() != std::filesystem::absolute(path).string())
    throw std::runtime_error(cfg + ": " + key + ": '" + p.string() + "' is not a directory");
  const std::filesystem::path dir = std::filesystem::is_directory(p) ? p : p.parent_path();
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error(cfg + ": " + key + ": cannot write into '" + dir.string() + "' (" + std::strerror(errno) +
                             ")");
}

void check_dirs_exist(const std::string& key, const std::vector<std::string>& dirs, const std::string& cfg) {
  for (const std::string& d : dirs)
    if (!std::filesystem::is_directory(d))
      throw std::runtime_error(cfg + ": " + key + ": '" + d + "' is not a directory");
}

}  // namespace

// Everything the configuration names is opened or checked as the daemon would use it, without
// starting anything: the devices (a GPU the build or the machine lacks fails), every
// [[circuit]]'s files, the token file, the directories and where state, log, socket and ports
// file will be written.
int check_config(const std::string& config_path) {
  try {
    const ServerConfig c = load_config(config_path);
    resolve_token(c);
    const std::vector<std::string> devices = engine::device_list(c.devices);
    for (const CircuitSpec& spec : c.circuits) check_circuit_files(spec);
    check_dirs_exist("server.witness_dirs", c.witness_dirs, config_path);
    check_dirs_exist("server.key_dirs", c.key_dirs, config_path);
    check_creatable("journal.state_dir", c.state_dir, config_path);
    if (!c.socket.empty()) check_creatable("server.socket", c.socket, config_path);
    if (!c.log_file.empty()) check_creatable("log.file", c.log_file, config_path);
    if (!c.ports_file.empty()) check_creatable("server.ports_file", c.ports_file, config_path);
    std::string names;
    for (const std::string& d : devices) names += (names.empty() ? "" : ",") + d;
    std::printf("%s: ok (%zu circuits, devices %s)\n", config_path.c_str(), c.circuits.size(), names.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "snarkd serve: %s\n", e.what());
    return 2;
  }
}

}  // namespace snarkd::server
