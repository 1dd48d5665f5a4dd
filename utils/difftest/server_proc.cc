// Starting and stopping the two servers under comparison (see server_proc.h).
#include "server_proc.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace difftest {

int PickFreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    socklen_t len = sizeof addr;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port = ntohs(addr.sin_port);
    }
  }
  ::close(fd);
  return port;
}

ServerProcess::~ServerProcess() { Stop(); }

bool ServerProcess::Start() {
  char tmpl[] = "/tmp/difftest.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    error_ = "mkdtemp failed";
    return false;
  }
  dir_ = tmpl;
  // A port picked this way can be taken by someone else before the server binds it: retry.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = PickFreePort();
    if (port_ != 0 && Spawn() && WaitReady()) return true;
    Stop(true);
  }
  if (error_.empty()) error_ = "could not start " + binary_;
  return false;
}

bool ServerProcess::Spawn(const std::vector<std::string>& extra) {
  std::string log = dir_ + "/server.log";
  std::vector<std::string> args = {binary_, "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                   "--save", "", "--appendonly", "no", "--dir", dir_, "--logfile",
                                   log, "--daemonize", "no",
                                   // DEBUG RELOAD steps and the persistence round trips.
                                   "--enable-debug-command", "yes"};
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = ::fork();
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }
  if (pid_ == 0) {
    // A server must not outlive the tester, even one killed by a signal.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      ::dup2(null_fd, 0);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
    }
    // Nothing else of the tester's: a server restarted in the middle of a run would otherwise
    // keep the tester's sockets to the other server open for its whole life, and a connection
    // the tester closes (an old subscriber) would stay subscribed there.
    ::close_range(3, ~0U, 0);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary_.c_str(), argv.data());
    ::_exit(127);
  }
  return true;
}

bool ServerProcess::WaitReady() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!Running()) {
      error_ = label_ + " exited at start; log: " + LogTail(5);
      return false;
    }
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error_ = label_ + " did not accept connections within 10 s";
  return false;
}

bool ServerProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    pid_ = -1;
    return false;
  }
  return r == 0;
}

bool ServerProcess::Restart(const std::vector<std::string>& extra) {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  return Spawn(extra) && WaitReady();
}

void ServerProcess::Stop(bool keep_dir) {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && Running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }
  if (!keep_dir && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::string ServerProcess::LogTail(int lines) const {
  std::ifstream in(dir_ + "/server.log");
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
  for (size_t i = from; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

}  // namespace difftest
