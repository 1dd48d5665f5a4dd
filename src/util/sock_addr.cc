#include "util/sock_addr.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>

namespace redistp {

std::string FormatSockAddr(const sockaddr_storage& ss) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    const auto* s = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    const auto* s = reinterpret_cast<const sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(s->sin6_port));
  }
  return "?:0";
}

int BindSourceAddr(int fd, int family, const std::string& addr) {
  addrinfo hints{};
  hints.ai_family = family;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (getaddrinfo(addr.c_str(), nullptr, &hints, &res) != 0) return EADDRNOTAVAIL;
  int err = EADDRNOTAVAIL;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      err = 0;
      break;
    }
    err = errno;
  }
  freeaddrinfo(res);
  return err;
}

int StartConnect(const addrinfo* res, FunctionRef<void(int fd, int family)> prepare, int* err) {
  *err = 0;
  for (const addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      *err = errno;
      continue;
    }
    prepare(fd, ai->ai_family);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) return fd;
    *err = errno;
    close(fd);
  }
  return -1;
}

}  // namespace redistp
