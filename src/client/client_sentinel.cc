// Finding the master through Redis Sentinel (ClientOptions::sentinels, master_name).
//
// Model. Before each connection attempt the client asks the sentinels, in the order given, for
// the master's address with SENTINEL get-master-addr-by-name; the first sentinel that answers
// with an address wins. A sentinel that cannot be reached, answers nil (it does not know the
// name) or answers an error is skipped. The exchange is blocking, one short request per
// sentinel bounded by connect_timeout for the connect and for the reply, like the host lookup
// that precedes every attempt (getaddrinfo blocks too): the loop is held at most
// sentinels × 2 × connect_timeout, and only while no connection exists anyway. The answer is
// then checked on the connection itself (ROLE in the handshake, client_connection.cc), since a
// sentinel may still name the old master while a failover is under way.
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "client/redistp_client.h"
#include "client/reply.h"

namespace redistp::client {
namespace {

// Splits "host:port" (the last colon, so "::1:26379" works); false when malformed.
bool SplitAddress(const std::string& text, std::string* host, int* port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return false;
  int p = 0;
  for (size_t i = colon + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9' || p > 65535) return false;
    p = p * 10 + (text[i] - '0');
  }
  if (p < 1 || p > 65535) return false;
  *host = text.substr(0, colon);
  *port = p;
  return true;
}

// Waits up to `ms` for `events` on fd; false on timeout or error.
bool WaitFor(int fd, short events, int ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int rc = poll(&p, 1, ms);
    if (rc > 0) return true;
    if (rc < 0 && errno == EINTR) continue;
    return false;
  }
}

// One sentinel's answer: the reply to `request`, or the reason there is none.
bool AskOne(const std::string& host, int port, const std::string& request, int timeout_ms,
            Reply* reply, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) {
    *error = gai_strerror(rc);
    return false;
  }
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    const int fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 &&
        (errno != EINPROGRESS || !WaitFor(fd, POLLOUT, timeout_ms))) {
      *error = errno == EINPROGRESS ? "connect timeout" : std::strerror(errno);
      close(fd);
      continue;
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    if (so_error != 0) {
      *error = std::strerror(so_error);
      close(fd);
      continue;
    }
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      *error = "short write";
      close(fd);
      continue;
    }
    ReplyReader reader;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0 || !WaitFor(fd, POLLIN, static_cast<int>(left))) {
        *error = "no reply in time";
        break;
      }
      char buf[512];
      const ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) {
        *error = n == 0 ? "connection closed" : std::strerror(errno);
        break;
      }
      reader.Feed(buf, static_cast<size_t>(n));
      if (std::optional<Reply> r = reader.Next()) {
        *reply = std::move(*r);
        ok = true;
        break;
      }
      if (reader.failed()) {
        *error = "protocol error: " + reader.error();
        break;
      }
    }
    close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

}  // namespace

bool Client::AskSentinels(std::string* host, int* port, std::string* error) {
  std::string request;
  AppendCommand(request, {"SENTINEL", "get-master-addr-by-name", options_.master_name});
  const int timeout_ms = static_cast<int>(options_.connect_timeout.count());
  std::string reasons;
  for (const std::string& s : options_.sentinels) {
    std::string shost;
    int sport = 0;
    std::string why;
    Reply r;
    if (!SplitAddress(s, &shost, &sport)) {
      why = "not host:port";
    } else if (AskOne(shost, sport, request, timeout_ms, &r, &why)) {
      if (r.is_array() && r.elements.size() == 2 && !r.elements[0].str.empty()) {
        int p = 0;
        if (SplitAddress(r.elements[0].str + ":" + r.elements[1].str, host, &p)) {
          *port = p;
          return true;
        }
        why = "a malformed address";
      } else {
        why = r.is_error() ? r.str : "does not know " + options_.master_name;
      }
    }
    if (!reasons.empty()) reasons += "; ";
    reasons += s + ": " + why;
  }
  *error = reasons.empty() ? "no sentinel given" : reasons;
  return false;
}

}  // namespace redistp::client
