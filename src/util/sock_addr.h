// Socket addresses as Redis prints them: "ip:port" (CLIENT LIST's addr/laddr, a replica's
// master link, log lines).
#pragma once

#include <sys/socket.h>

#include <string>

namespace redistp {

// "ip:port" of an IPv4 or IPv6 address; "?:0" for any other family.
std::string FormatSockAddr(const sockaddr_storage& ss);

}  // namespace redistp
