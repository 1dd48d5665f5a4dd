// Loopback RESP connection with bounded waits; see connection.h for the model.
#include "connection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "clock.h"

namespace coordbench {
namespace {

constexpr size_t kInitialBuffer = 4 * 1024;

std::string ErrnoText(const char* what) { return std::string(what) + ": " + strerror(errno); }

}  // namespace

std::unique_ptr<Connection> Connection::Open(int port, int timeout_ms, std::string* error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = ErrnoText("socket");
    return nullptr;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    if (errno != EINPROGRESS) {
      *error = ErrnoText("connect");
      close(fd);
      return nullptr;
    }
    pollfd pfd{fd, POLLOUT, 0};
    int ready = poll(&pfd, 1, timeout_ms);
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (ready <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0) {
      *error = ready <= 0 ? std::string("connect: timed out")
                          : std::string("connect: ") + strerror(so_error);
      close(fd);
      return nullptr;
    }
  }
  return std::unique_ptr<Connection>(new Connection(fd));
}

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

bool Connection::Fail(std::string message) {
  error_ = std::move(message);
  return false;
}

bool Connection::WaitFor(bool for_write, int64_t deadline_ns) {
  if (fd_ < 0) return Fail("connection is closed");
  for (;;) {
    pollfd pfd{fd_, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    int ready = poll(&pfd, 1, MsUntil(deadline_ns));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return Fail(ErrnoText("poll"));
    if (ready == 0 && NowNs() >= deadline_ns) return Fail("timed out waiting for the server");
  }
}

bool Connection::Send(std::string_view bytes, int64_t deadline_ns) {
  while (!bytes.empty()) {
    if (fd_ < 0) return Fail("connection is closed");
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!WaitFor(true, deadline_ns)) return false;
    } else {
      return Fail(ErrnoText("send"));
    }
  }
  return true;
}

bool Connection::SendCommand(const std::vector<std::string>& args, int64_t deadline_ns) {
  return Send(EncodeCommand(args), deadline_ns);
}

long Connection::ReadSome() {
  if (fd_ < 0) {
    Fail("connection is closed");
    return -1;
  }
  if (in_pos_ == in_end_) {
    in_pos_ = in_end_ = 0;
  } else if (in_pos_ > 0 && in_end_ == in_.size()) {
    std::copy(in_.begin() + in_pos_, in_.begin() + in_end_, in_.begin());
    in_end_ -= in_pos_;
    in_pos_ = 0;
  }
  if (in_end_ == in_.size()) in_.resize(in_.empty() ? kInitialBuffer : in_.size() * 2);
  ssize_t n;
  do {
    n = recv(fd_, in_.data() + in_end_, in_.size() - in_end_, 0);
  } while (n < 0 && errno == EINTR);
  if (n > 0) {
    in_end_ += static_cast<size_t>(n);
    return n;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  Fail(n == 0 ? std::string("the server closed the connection") : ErrnoText("recv"));
  return -1;
}

int Connection::PopFrame(Frame* frame) {
  if (in_pos_ >= in_end_) return 0;
  std::string_view pending(in_.data() + in_pos_, in_end_ - in_pos_);
  long used = ParseFrame(pending, frame);
  if (used < 0) {
    Fail("protocol error near: " + std::string(pending.substr(0, 60)));
    return -1;
  }
  in_pos_ += static_cast<size_t>(used);
  return used > 0 ? 1 : 0;
}

bool Connection::NextReply(Frame* reply, int64_t deadline_ns) {
  for (;;) {
    int got = PopFrame(reply);
    if (got < 0) return false;
    if (got > 0) {
      if (!IsPush(*reply)) return true;
      pushes_.push_back(std::move(*reply));
      continue;
    }
    long n = ReadSome();
    if (n < 0) return false;
    if (n == 0 && !WaitFor(false, deadline_ns)) return false;
  }
}

bool Connection::NextPush(Frame* push, int64_t deadline_ns) {
  for (;;) {
    if (!pushes_.empty()) {
      *push = std::move(pushes_.front());
      pushes_.pop_front();
      return true;
    }
    Frame frame;
    int got = PopFrame(&frame);
    if (got < 0) return false;
    if (got > 0) {
      if (!IsPush(frame))
        return Fail("unexpected reply while waiting for a push: " + frame.Describe());
      pushes_.push_back(std::move(frame));
      continue;
    }
    long n = ReadSome();
    if (n < 0) return false;
    if (n == 0 && !WaitFor(false, deadline_ns)) return false;
  }
}

bool Connection::Call(const std::vector<std::string>& args, Frame* reply, int64_t deadline_ns) {
  return SendCommand(args, deadline_ns) && NextReply(reply, deadline_ns);
}

void Connection::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void Connection::Abort() {
  if (fd_ < 0) return;
  linger hard{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &hard, sizeof(hard));
  close(fd_);
  fd_ = -1;
}

std::vector<std::unique_ptr<Connection>> OpenMany(int port, size_t count, int timeout_ms,
                                                  std::string* error) {
  std::vector<std::unique_ptr<Connection>> conns;
  conns.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    std::unique_ptr<Connection> conn = Connection::Open(port, timeout_ms, error);
    if (!conn) {
      *error =
          "connection " + std::to_string(i + 1) + " of " + std::to_string(count) + ": " + *error;
      return {};
    }
    conns.push_back(std::move(conn));
  }
  return conns;
}

}  // namespace coordbench
