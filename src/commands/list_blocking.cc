// List commands, part three: moving between lists, popping from the first non-empty of several
// lists, and the blocking forms.
//
//   LMOVE src dst LEFT|RIGHT LEFT|RIGHT    RPOPLPUSH src dst (= LMOVE src dst RIGHT LEFT)
//   LMPOP numkeys key... LEFT|RIGHT [COUNT n]
//   BLPOP/BRPOP key... timeout             BLMOVE src dst from to timeout
//   BRPOPLPUSH src dst timeout             BLMPOP timeout numkeys key... LEFT|RIGHT [COUNT n]
//
// Model. A blocking command first tries what its non-blocking twin would do, on its keys in
// the order given: the first key holding a list serves it at once, a key of another type stops
// it with WRONGTYPE (so a non-empty list before a wrong-typed key still serves). When nothing
// serves it, the client waits in the blocking core (watch/blocking.h) on every key it named,
// with a ListWaitState saying which form it ran; inside MULTI (and scripts) it never waits and
// replies what the non-blocking form replies on empty lists: a null array for BLPOP/BRPOP/
// BLMPOP, a null for BLMOVE/BRPOPLPUSH.
//
// Serving (ListPopKind::TryServe) runs when a key the client waits on changed and the command
// or EXEC that changed it has completed. The first waiter of the key in FIFO order, whatever
// kind it is, is offered the key: a list waiter pops from it as its command would have, and
// the next waiter is offered what is left. A key that is missing or holds another type serves
// no list waiter (kKindDone): in Redis 7.0 the waiters stay blocked when their key is retyped.
// A BLMOVE waiter whose destination holds another type gets WRONGTYPE and stops waiting, the
// source untouched. A BLMOVE that pushes onto a key others wait on makes that key ready, and
// the server's serving loop serves them in the same round: a chain of BLMOVEs drains in one go.
// On timeout (or CLIENT UNBLOCK ... TIMEOUT) every form replies a null array, as Redis 7.0.
//
// Propagation, as Redis 7.0 writes its AOF: a blocking command served at once is replayed as
// its non-blocking form (BLPOP k -> LPOP k, BLMPOP -> LPOP/RPOP k <popped count>, BLMOVE ->
// LMOVE with the words the client gave, BRPOPLPUSH -> RPOPLPUSH); LMPOP as LPOP/RPOP k
// <popped count>. A served waiter is replayed the same way (its LMOVE with lower-case "left"/
// "right", as Redis writes it), through Propagator::Emit since no command of its own runs.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/block_util.h"
#include "commands/list.h"
#include "commands/lookup.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/propagation.h"
#include "server/server.h"
#include "types/list.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// ---- the blocking kind ----

// What a waiting list command will do once served.
struct ListWaitState : BlockState {
  enum class Form : uint8_t { kPop, kMPop, kMove };
  Server* server = nullptr;  // for the list limits and propagation
  Form form = Form::kPop;
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;  // kMove
  int64_t count = 1;            // kMPop
  bool rpoplpush = false;       // kMove: replayed as RPOPLPUSH
  std::string dst;              // kMove
};

std::string_view PopWord(ListEnd end) { return end == ListEnd::kHead ? "LPOP" : "RPOP"; }
std::string_view LowerEndWord(ListEnd end) { return end == ListEnd::kHead ? "left" : "right"; }

class ListPopKind : public BlockKind {
 public:
  ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                       ReplyBuilder& reply) override {
    auto& st = static_cast<ListWaitState&>(*w.state);
    Database::Typed src = db.Lookup(key, ValueType::kList, Access::kWrite);
    if (src.entry == nullptr) return ServeResult::kKindDone;  // missing or not a list
    Propagator& prop = st.server->propagator();
    switch (st.form) {
      case ListWaitState::Form::kPop: {
        reply.Array(2);
        reply.Bulk(key);
        Mutation m = db.Mutate(src.entry, PopNotice(st.from));
        Quicklist& ql = ListOf(m.value());
        Quicklist::Cursor c = st.from == ListEnd::kHead ? ql.First() : ql.Last();
        ReplyListEntry(reply, ql.Get(c));
        ql.Delete(c);
        prop.Emit(db.index(), {PopWord(st.from), key});
        break;
      }
      case ListWaitState::Form::kMPop: {
        size_t n =
            std::min<uint64_t>(static_cast<uint64_t>(st.count), ListOf(src.entry->value).Size());
        char buf[kMaxInt64Chars + 1];
        std::string_view popped(buf, FormatInt64(static_cast<int64_t>(n), buf));
        ListPopReplyWithKey(db, src.entry, key, st.from, st.count, reply);
        prop.Emit(db.index(), {PopWord(st.from), key, popped});
        break;
      }
      case ListWaitState::Form::kMove: {
        Database::Typed dst = db.Lookup(st.dst, ValueType::kList, Access::kWrite);
        if (dst.wrong_type) {
          reply.Error(err::kWrongType);  // the wait ends; the source is left as it is
          break;
        }
        // dst may be the source key itself: the lookup then found the same entry.
        ListMoveReply(db, src.entry, st.dst, dst.entry, st.from, st.to,
                      st.server->keyspace().limits, reply);
        if (st.rpoplpush) {
          prop.Emit(db.index(), {"RPOPLPUSH", key, st.dst});
        } else {
          prop.Emit(db.index(), {"LMOVE", key, st.dst, LowerEndWord(st.from), LowerEndWord(st.to)});
        }
        break;
      }
    }
    return ServeResult::kServed;
  }

  void TimeoutReply(BlockedClient& /*w*/, ReplyBuilder& reply) override { reply.NullArray(); }
};

// Stateless: one instance serves every server.
BlockKind* ListKind() {
  static ListPopKind kind;
  return &kind;
}

// Blocks the running client on `keys` with `state` (the caller checked origin == kClient).
void Wait(CommandContext& c, const std::vector<std::string_view>& keys,
          std::unique_ptr<ListWaitState> state, int64_t timeout_ms) {
  state->server = &c.server;
  c.server.BlockClient(&c.client, keys, ListKind(), std::move(state), timeout_ms);
}

// ---- LMOVE / RPOPLPUSH / BLMOVE / BRPOPLPUSH ----

// Looks up src (and, when it exists, dst) for a move. Returns false after replying WRONGTYPE;
// *src is null when the source does not exist (dst then not looked at, as in Redis).
bool LookupMove(CommandContext& c, std::string_view src_key, std::string_view dst_key, Entry** src,
                Entry** dst) {
  if (!LookupTyped(c, src_key, ValueType::kList, Access::kWrite, src)) return false;
  *dst = nullptr;
  if (*src == nullptr) return true;
  return LookupTyped(c, dst_key, ValueType::kList, Access::kWrite, dst);
}

// The shared body of the four move commands; timeout_ms < 0 means non-blocking.
void MoveCommand(CommandContext& c, ListEnd from, ListEnd to, bool blocking, int64_t timeout_ms,
                 bool rpoplpush) {
  std::string_view src_key = c.args[1], dst_key = c.args[2];
  Entry *src, *dst;
  if (!LookupMove(c, src_key, dst_key, &src, &dst)) return;
  if (src != nullptr) {
    ListMoveReply(c.db, src, dst_key, dst, from, to, c.server.keyspace().limits, c.reply);
    if (blocking) {
      if (rpoplpush) {
        c.ReplicateAs({"RPOPLPUSH", src_key, dst_key});
      } else {
        c.ReplicateAs({"LMOVE", src_key, dst_key, c.args[3], c.args[4]});
      }
    }
    return;
  }
  if (!blocking || c.origin != ExecOrigin::kClient) {
    c.reply.Null();
    return;
  }
  auto state = std::make_unique<ListWaitState>();
  state->form = ListWaitState::Form::kMove;
  state->from = from;
  state->to = to;
  state->rpoplpush = rpoplpush;
  state->dst.assign(dst_key);
  Wait(c, {src_key}, std::move(state), timeout_ms);
}

// Parses LMOVE-style wherefrom/whereto at args[i], args[i + 1]; replies a syntax error.
bool ParseMoveEnds(CommandContext& c, size_t i, ListEnd* from, ListEnd* to) {
  if (!ParseListEnd(c.args[i], from) || !ParseListEnd(c.args[i + 1], to)) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  return true;
}

void LMoveCommand(CommandContext& c) {
  ListEnd from, to;
  if (!ParseMoveEnds(c, 3, &from, &to)) return;
  MoveCommand(c, from, to, false, 0, false);
}

void RPopLPushCommand(CommandContext& c) {
  MoveCommand(c, ListEnd::kTail, ListEnd::kHead, false, 0, true);
}

void BLMoveCommand(CommandContext& c) {
  ListEnd from, to;
  if (!ParseMoveEnds(c, 3, &from, &to)) return;
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args[5], &timeout_ms)) return;
  MoveCommand(c, from, to, true, timeout_ms, false);
}

void BRPopLPushCommand(CommandContext& c) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args[3], &timeout_ms)) return;
  MoveCommand(c, ListEnd::kTail, ListEnd::kHead, true, timeout_ms, true);
}

// ---- BLPOP / BRPOP ----

void BlockingPopCommand(CommandContext& c, ListEnd end) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(c, c.args.back(), &timeout_ms)) return;
  const size_t last_key = c.args.size() - 2;
  for (size_t i = 1; i <= last_key; ++i) {
    Entry* e;
    if (!LookupTyped(c, c.args[i], ValueType::kList, Access::kWrite, &e)) return;
    if (e == nullptr) continue;
    c.reply.Array(2);
    c.reply.Bulk(c.args[i]);
    Mutation m = c.db.Mutate(e, PopNotice(end));
    Quicklist& ql = ListOf(m.value());
    Quicklist::Cursor cur = end == ListEnd::kHead ? ql.First() : ql.Last();
    ReplyListEntry(c.reply, ql.Get(cur));
    ql.Delete(cur);
    c.ReplicateAs({PopWord(end), c.args[i]});
    return;
  }
  if (c.origin != ExecOrigin::kClient) {
    c.reply.NullArray();
    return;
  }
  auto state = std::make_unique<ListWaitState>();
  state->form = ListWaitState::Form::kPop;
  state->from = end;
  std::vector<std::string_view> keys(c.args.begin() + 1, c.args.begin() + 1 + last_key);
  Wait(c, keys, std::move(state), timeout_ms);
}

void BLPopCommand(CommandContext& c) { BlockingPopCommand(c, ListEnd::kHead); }
void BRPopCommand(CommandContext& c) { BlockingPopCommand(c, ListEnd::kTail); }

// ---- LMPOP / BLMPOP ----

// LMPOP's arguments from numkeys at args[first]: numkeys key... LEFT|RIGHT [COUNT n].
struct MPopArgs {
  size_t first_key = 0;
  size_t numkeys = 0;
  ListEnd end = ListEnd::kHead;
  int64_t count = -1;  // -1: not given (pops one, replied as a one-element array)
};

// Parses with Redis 7.0's errors, in its order; replies the error and returns false.
bool ParseMPop(CommandContext& c, size_t numkeys_at, MPopArgs* out) {
  int64_t numkeys;
  if (!ParseInt64(c.args[numkeys_at], &numkeys) || numkeys <= 0) {
    c.reply.Error(err::kNumKeysPositive);
    return false;
  }
  const size_t argc = c.args.size();
  // The where argument comes after the keys: too few arguments for numkeys is a syntax error.
  if (static_cast<uint64_t>(numkeys) > argc - numkeys_at - 2) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  out->first_key = numkeys_at + 1;
  out->numkeys = static_cast<size_t>(numkeys);
  size_t where_at = out->first_key + out->numkeys;
  if (!ParseListEnd(c.args[where_at], &out->end)) {
    c.reply.Error(err::kSyntax);
    return false;
  }
  for (size_t i = where_at + 1; i < argc; ++i) {
    if (out->count == -1 && i + 1 < argc && EqualsIgnoreCase(c.args[i], "count")) {
      int64_t n;
      if (!ParseInt64(c.args[++i], &n) || n <= 0) {
        c.reply.Error(err::kCountPositive);
        return false;
      }
      out->count = n;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  return true;
}

// LMPOP and BLMPOP (whose timeout, at args[1], Redis 7.0 parses after the other arguments).
void MPopCommand(CommandContext& c, size_t numkeys_at, bool blocking) {
  MPopArgs a;
  if (!ParseMPop(c, numkeys_at, &a)) return;
  int64_t timeout_ms = 0;
  if (blocking && !ParseBlockTimeout(c, c.args[1], &timeout_ms)) return;
  const int64_t count = a.count == -1 ? 1 : a.count;
  for (size_t i = a.first_key; i < a.first_key + a.numkeys; ++i) {
    Entry* e;
    if (!LookupTyped(c, c.args[i], ValueType::kList, Access::kWrite, &e)) return;
    if (e == nullptr) continue;
    size_t n = std::min<uint64_t>(static_cast<uint64_t>(count), ListOf(e->value).Size());
    ListPopReplyWithKey(c.db, e, c.args[i], a.end, count, c.reply);
    char buf[kMaxInt64Chars + 1];
    c.ReplicateAs({PopWord(a.end), c.args[i],
                   std::string_view(buf, FormatInt64(static_cast<int64_t>(n), buf))});
    return;
  }
  if (!blocking || c.origin != ExecOrigin::kClient) {
    c.reply.NullArray();
    return;
  }
  auto state = std::make_unique<ListWaitState>();
  state->form = ListWaitState::Form::kMPop;
  state->from = a.end;
  state->count = count;
  std::vector<std::string_view> keys(
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key),
      c.args.begin() + static_cast<ptrdiff_t>(a.first_key + a.numkeys));
  Wait(c, keys, std::move(state), timeout_ms);
}

void LMPopCommand(CommandContext& c) { MPopCommand(c, 1, false); }
void BLMPopCommand(CommandContext& c) { MPopCommand(c, 2, true); }

}  // namespace

using docs::Double;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;

namespace {
ArgDoc EndArg(std::string_view name) {
  return OneOf(name, {PureToken("LEFT"), PureToken("RIGHT")});
}
constexpr HistoryEntry kTimeoutDouble{
    "6.0.0", "`timeout` is interpreted as a double instead of an integer."};
}  // namespace

void RegisterListBlockingCommands(CommandTable& t) {
  const std::vector<KeySpec> move_keys = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1},
                                          {.flags = kKeyRW | kKeyInsert, .index = 2}};
  t.Register({.name = "lmove",
              .arity = 5,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Moves an element from one end of a list to an end of another",
                      .since = "6.2.0",
                      .group = "list",
                      .complexity = "O(1)",
                      .key_specs = move_keys,
                      .args = {Key("source", 0), Key("destination", 1), EndArg("wherefrom"),
                               EndArg("whereto")}},
              .handler = LMoveCommand});
  t.Register({.name = "rpoplpush",
              .arity = 3,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Moves the last element of a list to the head of another",
                      .since = "1.2.0",
                      .group = "list",
                      .complexity = "O(1)",
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`LMOVE` with the `RIGHT` and `LEFT` arguments",
                      .key_specs = move_keys,
                      .args = {Key("source", 0), Key("destination", 1)}},
              .handler = RPopLPushCommand});
  t.Register({.name = "lmpop",
              .arity = -4,
              .flags = kCmdWrite,
              .first_key = 0,
              .last_key = 0,
              .key_step = 0,
              .acl = kAclWrite | kAclList | kAclSlow,
              .doc = {.summary = "Pops elements from the first non-empty list of several",
                      .since = "7.0.0",
                      .group = "list",
                      .complexity = "O(N+M) where N is the number of provided keys and M is the "
                                    "number of elements returned.",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete,
                                     .index = 1,
                                     .find = KeyFind::kKeynum,
                                     .keynum_index = 0,
                                     .first_key = 1}},
                      .find_keys = KeysAfterCount<1>,
                      .args = {Integer("numkeys"), Key("key", 0).Multiple(), EndArg("where"),
                               Integer("count").Token("COUNT").Optional()}},
              .handler = LMPopCommand});
  for (bool left : {true, false}) {
    t.Register(
        {.name = left ? "blpop" : "brpop",
         .arity = -3,
         .flags = kCmdWrite | kCmdNoScript | kCmdBlocking,
         .first_key = 1,
         .last_key = -2,
         .key_step = 1,
         .acl = kAclWrite | kAclList | kAclSlow | kAclBlocking,
         .doc = {.summary = left ? "Pops the first element of the first non-empty list, or waits "
                                   "for one"
                                 : "Pops the last element of the first non-empty list, or waits "
                                   "for one",
                 .since = "2.0.0",
                 .group = "list",
                 .complexity = "O(N) where N is the number of provided keys.",
                 .history = {kTimeoutDouble},
                 .key_specs =
                     {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1, .last_key = -2}},
                 .args = {Key("key", 0).Multiple(), Double("timeout")}},
         .handler = left ? BLPopCommand : BRPopCommand});
  }
  t.Register({.name = "blmove",
              .arity = 6,
              .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript | kCmdBlocking,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow | kAclBlocking,
              .doc = {.summary = "Moves an element between lists, or waits for one to move",
                      .since = "6.2.0",
                      .group = "list",
                      .complexity = "O(1)",
                      .key_specs = move_keys,
                      .args = {Key("source", 0), Key("destination", 1), EndArg("wherefrom"),
                               EndArg("whereto"), Double("timeout")}},
              .handler = BLMoveCommand});
  t.Register({.name = "brpoplpush",
              .arity = 4,
              .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript | kCmdBlocking,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclList | kAclSlow | kAclBlocking,
              .doc = {.summary = "Moves the last element of a list to the head of another, or "
                                 "waits for one",
                      .since = "2.2.0",
                      .group = "list",
                      .complexity = "O(1)",
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
                      .history = {kTimeoutDouble},
                      .key_specs = move_keys,
                      .args = {Key("source", 0), Key("destination", 1), Double("timeout")}},
              .handler = BRPopLPushCommand});
  t.Register({.name = "blmpop",
              .arity = -5,
              .flags = kCmdWrite | kCmdBlocking,
              .first_key = 0,
              .last_key = 0,
              .key_step = 0,
              .acl = kAclWrite | kAclList | kAclSlow | kAclBlocking,
              .doc = {.summary = "Pops elements from the first non-empty list of several, or "
                                 "waits for one",
                      .since = "7.0.0",
                      .group = "list",
                      .complexity = "O(N+M) where N is the number of provided keys and M is the "
                                    "number of elements returned.",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete,
                                     .index = 2,
                                     .find = KeyFind::kKeynum,
                                     .keynum_index = 0,
                                     .first_key = 1}},
                      .find_keys = KeysAfterCount<2>,
                      .args = {Double("timeout"), Integer("numkeys"), Key("key", 0).Multiple(),
                               EndArg("where"), Integer("count").Token("COUNT").Optional()}},
              .handler = BLMPopCommand});
}

}  // namespace redistp
