// BSetTpKind: how a BSETTP waiter is served by the blocking core (watch/blocking.h).
//
// Contract (spec, BSETTP): "When the key stops existing, the server creates it for the first
// live waiter in the queue, atomically, with that waiter's value and ownership, and replies 1
// to it. Nobody else wakes up." A ready key that exists serves nobody of this kind (kKindDone),
// so a value change, a retype or a re-creation leaves the waiters queued; the first waiter
// offered an absent key takes it, and the key then exists for everyone behind it. On timeout
// the reply is 0. After each hand-off the kind calls its hook, through which the server records
// the hand-off for propagation as the SETTP it became (a replay must never block).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "watch/blocking.h"

namespace redistp {

class OwnerIndex;

struct BSetTpState : BlockState {
  std::string value;   // the value the waiter wants the key to hold
  bool fence = false;  // reply with a fencing token instead of 1
  // Who will own the key: the waiter's session when one is attached (Server::OwnerIdOf at
  // BSETTP time; a waiter runs no command, so it cannot change), else 0 for the waiter itself.
  uint64_t owner = 0;
};

class BSetTpKind : public BlockKind {
 public:
  using HandOffHook = std::function<void(int db, std::string_view key, const BSetTpState& st)>;
  BSetTpKind(OwnerIndex* owners, HandOffHook on_handoff)
      : owners_(owners), on_handoff_(std::move(on_handoff)) {}
  ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                       ReplyBuilder& reply) override;
  void TimeoutReply(BlockedClient& w, ReplyBuilder& reply) override;

 private:
  OwnerIndex* owners_;
  HandOffHook on_handoff_;
};

}  // namespace redistp
