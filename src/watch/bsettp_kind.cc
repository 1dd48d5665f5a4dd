#include "watch/bsettp_kind.h"

#include "db/database.h"
#include "protocol/errors.h"
#include "watch/owners.h"

namespace redistp {

ServeResult BSetTpKind::TryServe(BlockedClient& w, Database& db, std::string_view key,
                                 ReplyBuilder& reply) {
  // Peek expires a key whose TTL passed (emitting its DEL), so an expired key is free.
  if (db.Peek(key) != nullptr) return ServeResult::kKindDone;
  const auto& st = static_cast<const BSetTpState&>(*w.state);
  uint64_t token = 0;
  if (st.fence) {
    // No token could be reserved durably: the waiter's BSETTP ends with the error, and the key
    // stays free for the next waiter.
    Result<uint64_t> drawn = owners_->fences().Next();
    if (!drawn.ok()) {
      reply.Error(err::FenceUnavailable(drawn.status().message()));
      return ServeResult::kServed;
    }
    token = drawn.value();
  }
  owners_->CreateOwned(db, key, st.value, st.owner != 0 ? st.owner : w.client, token);
  reply.Int(st.fence ? static_cast<int64_t>(token) : 1);
  if (on_handoff_) on_handoff_(db.index(), key, st);
  return ServeResult::kServed;
}

void BSetTpKind::TimeoutReply(BlockedClient& /*w*/, ReplyBuilder& reply) { reply.Int(0); }

}  // namespace redistp
