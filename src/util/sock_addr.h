// Socket addresses as Redis prints them: "ip:port" (CLIENT LIST's addr/laddr, a replica's
// master link, log lines), and the source address of outgoing connections.
#pragma once

#include <sys/socket.h>

#include <string>

#include "util/function_ref.h"

struct addrinfo;

namespace redistp {

// "ip:port" of an IPv4 or IPv6 address; "?:0" for any other family.
std::string FormatSockAddr(const sockaddr_storage& ss);

// Binds the not yet connected socket `fd` (of address family `family`) to the local address
// `addr` on a port the kernel picks, for an outgoing connection that must leave from that
// address (bind-source-addr). Returns 0, or an errno-style code when no address `addr`
// resolves to could be bound (EADDRNOTAVAIL when it resolves to none of this family).
int BindSourceAddr(int fd, int family, const std::string& addr);

// Starts a non-blocking TCP connect to the addresses of the getaddrinfo list `res`, in order:
// for each, a non-blocking close-on-exec socket, `prepare(fd, family)` (bind a source address,
// say), then connect. Returns the first socket whose connect succeeded at once or is in
// progress (completion is the caller's writable event), or -1 with *err the errno of the last
// failure.
int StartConnect(const addrinfo* res, FunctionRef<void(int fd, int family)> prepare, int* err);

}  // namespace redistp
