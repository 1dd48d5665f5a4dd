// HoldDeadline: the client-side deadline of a lock or leadership held under a lease or a
// session, so that a holder cut off from the server stops its command before the server can
// give the key to anyone else.
//
// The arithmetic. The server frees a temporary key of a silent owner no sooner than `bound`
// after it last heard from that owner: bound = the CLIENT LEASE (no session: the lease runs from
// the last bytes the server received), or the session's grace (a session's keys live until
// grace after its connection ends, and the connection cannot end before the server received
// what we sent last). We cannot know when the server received a request, but we know it was not
// before we sent it. So every reply to a request sent at time S proves the key is safe until at
// least S + bound. This class sends a PING every bound/8 and keeps S of the newest request that
// was answered (S_last). At S_last + 0.6*bound it reports "stop" (the tool sends SIGTERM to the
// command's group); at S_last + 0.8*bound "kill" (SIGKILL). So the command is dead at least
// 0.2*bound before the earliest moment the server could hand the key over, the margin covering
// our own timer lateness and the time a killed process takes to go. Clock rates (not clocks)
// are assumed equal on both machines; their drift is parts per million. Until the first PING
// is answered, S_last is taken as bound/3 before the hold began: a waiter blocked in BSETTP
// renews its lease only every lease/3.
//
// Not covered: an operator who deletes the key or kills the connection (CLIENT KILL) frees it
// at once; the tool learns of that through its watch and the connection, not through here.
// Without a lease or a session the server may keep a silent connection's key forever (TCP
// keepalive aside), so there is no deadline to keep.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "client/redistp_client.h"

namespace redistp::tools {

class HoldDeadline {
 public:
  // `on_expire(false)` at 0.6*bound without an answered request, `on_expire(true)` at
  // 0.8*bound; each at most once. Starts counting now.
  HoldDeadline(client::Client& client, std::chrono::milliseconds bound,
               std::function<void(bool kill)> on_expire);
  ~HoldDeadline();
  HoldDeadline(const HoldDeadline&) = delete;
  HoldDeadline& operator=(const HoldDeadline&) = delete;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace redistp::tools
