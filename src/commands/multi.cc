// Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, as Redis 7.0.
//
// MULTI makes the dispatcher queue commands (after the admission checks; a command that fails
// them flags the transaction and EXEC answers EXECABORT). EXEC runs the queue through the same
// Server::Execute gate with kClientInExec set, so blocking commands do not block and pushes the
// transaction causes reach this client after the whole EXEC reply. WATCH marks keys whose
// change (any key event, from any cause) makes the next EXEC return a null array.
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"

namespace redistp {
namespace {

void MultiCommand(CommandContext& c) {
  if (c.client.multi.active) {
    c.reply.Error(err::kMultiNested);
    return;
  }
  c.client.multi.active = true;
  c.reply.Ok();
}

void ExecCommand(CommandContext& c) {
  Client& cl = c.client;
  if (!cl.multi.active) {
    c.reply.Error(err::kExecWithoutMulti);
    return;
  }
  if (cl.multi.failed) {
    cl.DiscardTransaction(c.server.exec_watches());
    c.reply.Error(err::kExecAbortQueued);
    return;
  }
  if (c.server.exec_watches().IsDirty(cl.id)) {
    cl.DiscardTransaction(c.server.exec_watches());
    c.reply.NullArray();
    return;
  }
  std::vector<std::vector<std::string>> queue;
  queue.swap(cl.multi.queue);
  cl.DiscardTransaction(c.server.exec_watches());
  c.reply.Array(queue.size());
  cl.set_flag(kClientInExec, true);
  std::vector<std::string_view> args;
  for (const std::vector<std::string>& cmd : queue) {
    if (cl.closed) break;
    args.assign(cmd.begin(), cmd.end());
    c.server.Execute(&cl, args);
  }
  cl.set_flag(kClientInExec, false);
}

void DiscardCommand(CommandContext& c) {
  if (!c.client.multi.active) {
    c.reply.Error(err::kDiscardWithoutMulti);
    return;
  }
  c.client.DiscardTransaction(c.server.exec_watches());
  c.reply.Ok();
}

void WatchCommand(CommandContext& c) {
  if (c.client.multi.active) {
    c.reply.Error(err::kWatchInMulti);
    return;
  }
  for (size_t i = 1; i < c.args.size(); ++i) {
    // Whether the key is stale (there but logically expired) is read without deleting it, as
    // WATCH does no lookup.
    const Entry* e = c.db.FindRaw(c.args[i]);
    c.server.exec_watches().Watch(c.client.id, c.client.db_index, c.args[i],
                                  e != nullptr && c.db.IsExpired(e));
  }
  c.reply.Ok();
}

void UnwatchCommand(CommandContext& c) {
  c.server.exec_watches().UnwatchAll(c.client.id);
  c.reply.Ok();
}

}  // namespace

using docs::Key;

void RegisterTransactionCommands(CommandTable& t) {
  constexpr uint64_t kTx = kAclTransaction;
  t.Register(
      {.name = "multi",
       .arity = 1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy | kCmdRunsInMulti,
       .acl = kTx | kAclFast,
       .doc = {.summary = "Starts queueing commands for a transaction",
               .since = "1.2.0",
               .group = "transactions",
               .complexity = "O(1)"},
       .handler = MultiCommand});
  t.Register({.name = "exec",
              .arity = 1,
              .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdSkipSlowlog | kCmdRunsInMulti |
                       kCmdAbortsMultiOnReject,
              .acl = kTx | kAclSlow,
              .doc = {.summary = "Runs the queued commands of a transaction as one unit",
                      .since = "1.2.0",
                      .group = "transactions",
                      .complexity = "Depends on commands in the transaction"},
              .handler = ExecCommand});
  t.Register(
      {.name = "discard",
       .arity = 1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy | kCmdRunsInMulti,
       .acl = kTx | kAclFast,
       .doc = {.summary = "Drops the queued commands of a transaction",
               .since = "2.0.0",
               .group = "transactions",
               .complexity = "O(N), when N is the number of queued commands"},
       .handler = DiscardCommand});
  t.Register(
      {.name = "watch",
       .arity = -2,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy | kCmdRunsInMulti,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kTx | kAclFast,
       .doc = {.summary = "Makes the next transaction fail if any of the given keys changes first",
               .since = "2.2.0",
               .group = "transactions",
               .complexity = "O(1) for every key.",
               .key_specs = {{.flags = kKeyRO, .index = 1, .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = WatchCommand});
  t.Register({.name = "unwatch",
              .arity = 1,
              .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdAllowBusy,
              .acl = kTx | kAclFast,
              .doc = {.summary = "Stops watching every key this connection watches",
                      .since = "2.2.0",
                      .group = "transactions",
                      .complexity = "O(1)"},
              .handler = UnwatchCommand});
}

}  // namespace redistp
