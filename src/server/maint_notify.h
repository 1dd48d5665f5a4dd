// Maintenance notifications (CLIENT MAINT_NOTIFICATIONS, Redis 8.2's client handshake): before
// a planned change of who serves this address -- a FAILOVER to a replica, a SHUTDOWN -- the
// connections that asked for them get a RESP3 push, so a client library can move its
// connections (and, here, recreate its temporary keys, which die with their connection)
// before the old server stops answering instead of after.
//
// What is sent: ["MOVING", <seq>, <seconds>, <endpoint>] where <endpoint> is the new master's
// "ip:port" for a FAILOVER to a named replica, and null when the successor is not known yet (a
// FAILOVER to any replica, a SHUTDOWN): the client reconnects through its configured address.
// <seconds> is how long the old server may still answer (the FAILOVER's or shutdown-timeout's
// bound, 0 when none). <seq> is the Unix time in milliseconds, which only grows across the
// notices of one server. Only RESP3 connections get it: in RESP2 an unsolicited array would
// be read as the reply of the next command.
#pragma once

#include <cstdint>
#include <string_view>

namespace redistp {

class Server;

// Pushes the MOVING notice to every RESP3 connection with kClientMaintNotify; an empty
// `endpoint` sends null. Returns how many connections got it.
size_t PushMaintenanceMoving(Server& server, int64_t seconds, std::string_view endpoint);

}  // namespace redistp
