// Test support: starting and stopping a real server, running an event loop with a deadline.
#include "test_server.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

namespace redistp::client::testing {

std::string ServerBinary() {
  if (const char* env = std::getenv("REDISTP_SERVER"); env != nullptr && *env != '\0') {
    return env;
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return "redis-server";
  std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + "redis-server";
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = 0;
  socklen_t len = sizeof(sa);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) == 0) {
    port = ntohs(sa.sin_port);
  }
  close(fd);
  return port;
}

namespace {

bool CanConnect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  close(fd);
  return ok;
}

// True when the server answering on `port` reports `pid` as its process id (INFO server), so
// a server of someone else that grabbed the port meanwhile is not mistaken for ours.
bool ServedBy(int port, pid_t pid) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(static_cast<uint16_t>(port));
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
    const std::string request = "*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (int i = 0; i < 20 && answer.find("tcp_port:") == std::string::npos; ++i) {
        const ssize_t n = read(fd, buf, sizeof(buf));
        if (n <= 0) break;
        answer.append(buf, static_cast<size_t>(n));
      }
    }
  }
  close(fd);
  return answer.find("process_id:" + std::to_string(pid) + "\r\n") != std::string::npos;
}

}  // namespace

TestServer::~TestServer() {
  Stop();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

bool TestServer::Start(int port) {
  // A free port can be taken by another process before the server binds it: try a few.
  for (int attempt = 0; attempt < (port == 0 ? 3 : 1); ++attempt) {
    if (StartOn(port != 0 ? port : FreePort())) return true;
  }
  return false;
}

bool TestServer::StartOn(int port) {
  Stop();
  port_ = port;
  const std::string binary = ServerBinary();
  if (access(binary.c_str(), X_OK) != 0) {
    error_ = "no server binary at " + binary + " (set REDISTP_SERVER)";
    return false;
  }
  if (dir_.empty()) {
    char tmpl[] = "/tmp/redistp-client-test.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = "cannot make a directory for the server";
      return false;
    }
    dir_ = tmpl;
  }
  const std::string port_arg = std::to_string(port_);
  pid_ = fork();
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    std::vector<const char*> argv = {
        binary.c_str(), "--port", port_arg.c_str(), "--bind", "127.0.0.1", "--save",     "",
        "--appendonly", "no",     "--daemonize",    "no",     "--dir",     dir_.c_str(), nullptr};
    execv(binary.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  for (int i = 0; i < 500; ++i) {
    if (CanConnect(port_) && ServedBy(port_, pid_)) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "the server exited at start (port " + port_arg + ")";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  error_ = "the server did not accept connections within 5 s";
  Stop();
  return false;
}

void TestServer::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

namespace {
void SetFlag(evutil_socket_t, short, void* arg) { *static_cast<bool*>(arg) = true; }
}  // namespace

bool RunUntil(event_base* base, const std::function<bool()>& done,
              std::chrono::milliseconds timeout) {
  if (done()) return true;
  bool expired = false;
  event* timer = evtimer_new(base, &SetFlag, &expired);
  timeval tv;
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  evtimer_add(timer, &tv);
  // A predicate may read state the loop never hears about (a server's INFO through another
  // connection): a tick every few milliseconds re-checks it even when no event comes, or the
  // loop would sleep until the timeout with the condition long true.
  event* tick = event_new(
      base, -1, EV_PERSIST, [](evutil_socket_t, short, void*) {}, nullptr);
  const timeval tick_tv{0, 5000};
  event_add(tick, &tick_tv);
  while (!done() && !expired) {
    if (event_base_loop(base, EVLOOP_ONCE) != 0) break;
  }
  event_free(tick);
  event_free(timer);
  return done();
}

void RunFor(event_base* base, std::chrono::milliseconds duration) {
  RunUntil(
      base, [] { return false; }, duration);
}

}  // namespace redistp::client::testing
