#include "util/sock_addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>

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

}  // namespace redistp
