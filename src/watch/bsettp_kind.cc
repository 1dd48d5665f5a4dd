#include "watch/bsettp_kind.h"

#include "db/database.h"
#include "watch/owners.h"

namespace redistp {

ServeResult BSetTpKind::TryServe(BlockedClient& w, Database& db, std::string_view key,
                                 ReplyBuilder& reply) {
  // Peek expires a key whose TTL passed (emitting its DEL), so an expired key is free.
  if (db.Peek(key) != nullptr) return ServeResult::kKindDone;
  const auto& st = static_cast<const BSetTpState&>(*w.state);
  reply.Int(owners_->CreateOwned(db, key, st.value, w.client, st.fence));
  if (on_handoff_) on_handoff_(db.index(), key, st);
  return ServeResult::kServed;
}

void BSetTpKind::TimeoutReply(BlockedClient& /*w*/, ReplyBuilder& reply) { reply.Int(0); }

}  // namespace redistp
