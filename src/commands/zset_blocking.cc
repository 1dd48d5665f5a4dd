// BZPOPMIN, BZPOPMAX and BZMPOP: the sorted-set pops that wait for a member.
//
// Model. The command first tries its keys in order, as ZPOPMIN/ZMPOP would (the first key
// holding a sorted set is popped at once; a key of another type met on the way is WRONGTYPE).
// When none has a member it blocks on all of them in the server's BlockingCore (watch/
// blocking.h) as a ZSetPopKind waiter: FIFO per key across every blocking kind, served after the
// command (or EXEC) that gave one of its keys a member, at most once, and answered nil when its
// timeout passes or CLIENT UNBLOCK ends it. Inside MULTI or a script (c.origin != kClient) it
// never blocks: it answers nil at once, as Redis does.
//
// Serving pops exactly what the command would have popped had the member been there, through
// the same PopZSetPairs (one "zpopmin"/"zpopmax" event; an emptied key is deleted), and
// records the pop for propagation the way Redis 7.0 does: `ZPOPMIN key` for BZPOPMIN,
// `ZPOPMIN key <number popped>` for BZMPOP (MAX alike), since a replay must never block. A ready
// key that holds no sorted set (deleted again, or now another type) serves no waiter of this kind:
// they keep waiting, as in Redis.
//
// Replies: BZPOPMIN/BZPOPMAX [key, member, score]; BZMPOP [key, [[member, score] ...]]; nil
// (RESP2 *-1, RESP3 _) on timeout.
#include <memory>
#include <string>
#include <vector>

#include "commands/block_util.h"
#include "commands/lookup.h"
#include "commands/zset_ops_internal.h"
#include "commands/zset_pop.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/propagation.h"
#include "server/server.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {
namespace {

struct ZPopBlockState : BlockState {
  bool max = false;
  bool mpop = false;  // BZMPOP: nested reply, count propagated
  int64_t count = 1;
  Propagator* propagation = nullptr;
};

// Pops from `e` (a non-empty sorted set at `key`) and writes the whole reply of a BZPOP* or
// BZMPOP. Returns how many members were popped.
size_t ReplyPopped(Database& db, Entry* e, std::string_view key, const ZPopBlockState& st,
                   ReplyBuilder& reply) {
  if (st.mpop) {
    reply.Array(2);
    reply.Bulk(key);
    return PopZSetPairs(db, e, st.max, static_cast<size_t>(st.count), PairShape::kNested, reply);
  }
  reply.Array(3);
  reply.Bulk(key);
  return PopZSetPairs(db, e, st.max, 1, PairShape::kBare, reply);
}

class ZSetPopKind : public BlockKind {
 public:
  ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                       ReplyBuilder& reply) override {
    Database::Typed t = db.Lookup(key, ValueType::kZSet, Access::kWrite);
    if (t.entry == nullptr) return ServeResult::kKindDone;  // absent or another type
    const auto& st = static_cast<const ZPopBlockState&>(*w.state);
    const size_t popped = ReplyPopped(db, t.entry, key, st, reply);
    // Recorded with the number popped, not the COUNT asked, as Redis 7.0's AOF shows.
    const std::string_view cmd = st.max ? "ZPOPMAX" : "ZPOPMIN";
    if (st.mpop) {
      char n[kMaxInt64Chars + 1];
      st.propagation->Emit(db.index(), {cmd, key, std::string_view(n, FormatInt64(popped, n))});
    } else {
      st.propagation->Emit(db.index(), {cmd, key});
    }
    return ServeResult::kServed;
  }
  void TimeoutReply(BlockedClient& /*w*/, ReplyBuilder& reply) override { reply.NullArray(); }
};

// The kind holds no state of its own (each waiter's is in its ZPopBlockState), so one instance
// serves every server in the process.
ZSetPopKind& PopKind() {
  static ZSetPopKind kind;
  return kind;
}

// Pops at once from the first sorted set of `keys`, or blocks on all of them.
void PopOrBlock(CommandContext& c, const std::vector<std::string_view>& keys, int64_t timeout_ms,
                std::unique_ptr<ZPopBlockState> st) {
  Entry* e;
  size_t index;
  if (!FindPoppableZSet(c, keys, &e, &index)) return;
  if (e != nullptr) {
    const std::string_view key = keys[index];
    const size_t popped = ReplyPopped(c.db, e, key, *st, c.reply);
    const std::string_view cmd = st->max ? "ZPOPMAX" : "ZPOPMIN";
    if (st->mpop) {
      char n[kMaxInt64Chars + 1];
      c.ReplicateAs({cmd, key, std::string_view(n, FormatInt64(popped, n))});
    } else {
      c.ReplicateAs({cmd, key});
    }
    return;
  }
  if (c.origin != ExecOrigin::kClient) {
    c.reply.NullArray();  // MULTI and scripts never block
    return;
  }
  st->propagation = &c.propagation;
  c.server.BlockClient(&c.client, keys, &PopKind(), std::move(st), timeout_ms);
}

// BZPOPMIN|BZPOPMAX key [key ...] timeout
void BZPopCommand(CommandContext& c, bool max) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args.back(), &timeout_ms)) return;
  std::vector<std::string_view> keys(c.args.begin() + 1, c.args.end() - 1);
  auto st = std::make_unique<ZPopBlockState>();
  st->max = max;
  PopOrBlock(c, keys, timeout_ms, std::move(st));
}

void BZPopMinCommand(CommandContext& c) { BZPopCommand(c, false); }
void BZPopMaxCommand(CommandContext& c) { BZPopCommand(c, true); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
void BZMPopCommand(CommandContext& c) {
  // Redis 7.0 reads the timeout last here (BZPOPMIN reads it first).
  MPopArgs a;
  if (!ParseMPopArgs(c, 2, &a)) return;
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args[1], &timeout_ms)) return;
  std::vector<std::string_view> keys(
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key),
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key + a.num_keys));
  auto st = std::make_unique<ZPopBlockState>();
  st->max = a.max;
  st->mpop = true;
  st->count = a.count;
  PopOrBlock(c, keys, timeout_ms, std::move(st));
}

}  // namespace

using docs::Double;
using docs::Key;

void RegisterZSetBlockingCommands(CommandTable& t) {
  const char* kComplexity = "O(log(N)) with N being the number of elements in the sorted set.";
  const std::vector<HistoryEntry> kHistory = {
      {"6.0.0", "`timeout` is read as a double instead of an integer."}};
  t.Register({.name = "bzpopmin",
              .arity = -3,
              .flags = kCmdWrite | kCmdNoScript | kCmdBlocking | kCmdFast,
              .first_key = 1,
              .last_key = -2,
              .key_step = 1,
              .acl = kAclWrite | kAclSortedSet | kAclFast | kAclBlocking,
              .doc = {.summary = "Removes and returns the member with the lowest score from the "
                                 "first non-empty sorted set, waiting for one if there is none",
                      .since = "5.0.0",
                      .group = "sorted-set",
                      .complexity = kComplexity,
                      .history = kHistory,
                      .key_specs =
                          {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1, .last_key = -2}},
                      .args = {Key("key", 0).Multiple(), Double("timeout")}},
              .handler = BZPopMinCommand});
  t.Register({.name = "bzpopmax",
              .arity = -3,
              .flags = kCmdWrite | kCmdNoScript | kCmdBlocking | kCmdFast,
              .first_key = 1,
              .last_key = -2,
              .key_step = 1,
              .acl = kAclWrite | kAclSortedSet | kAclFast | kAclBlocking,
              .doc = {.summary = "Removes and returns the member with the highest score from the "
                                 "first non-empty sorted set, waiting for one if there is none",
                      .since = "5.0.0",
                      .group = "sorted-set",
                      .complexity = kComplexity,
                      .history = kHistory,
                      .key_specs =
                          {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1, .last_key = -2}},
                      .args = {Key("key", 0).Multiple(), Double("timeout")}},
              .handler = BZPopMaxCommand});
  std::vector<ArgDoc> bzmpop_args = MPopArgDocs();
  bzmpop_args.insert(bzmpop_args.begin(), Double("timeout"));
  t.Register({.name = "bzmpop",
              .arity = -5,
              .flags = kCmdWrite | kCmdBlocking,
              .acl = kAclWrite | kAclSortedSet | kAclSlow | kAclBlocking,
              .doc = {.summary = "Removes and returns members from the first non-empty sorted set "
                                 "of the keys given, waiting for one if there is none",
                      .since = "7.0.0",
                      .group = "sorted-set",
                      .complexity = kMPopComplexity,
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete,
                                     .index = 2,
                                     .find = KeyFind::kKeynum,
                                     .key_step = 1,
                                     .keynum_index = 0,
                                     .first_key = 1}},
                      .find_keys = KeysAfterCount<2>,
                      .args = std::move(bzmpop_args)},
              .handler = BZMPopCommand});
}

}  // namespace redistp
