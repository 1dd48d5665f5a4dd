// BGREWRITEAOF: rewrites the append-only file's base in a forked child (persistence/aof.h,
// aof_rewrite.cc do the work).
//
// Replies, as Redis 7.0: an AOF rewrite already running is an error; another child (a BGSAVE)
// or a call inside MULTI/EXEC schedules it for when the child is gone; else it starts now.
// Also scheduled: a rewrite while a failed AOF write holds records back (Aof::RewriteMustWait).
// It works with appendonly no too: the rewrite then leaves a base and a manifest only.
#include "commands/register.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"

namespace redistp {
namespace {

void BgrewriteaofCommand(CommandContext& c) {
  Persistence& p = Persistence::Of(c.server);
  Aof& aof = p.aof();
  if (p.child_kind() == ChildKind::kAof) {
    c.reply.Error(err::kAofRewriteInProgress);
  } else if (p.HasActiveChild() || c.client.has_flag(kClientInExec) || aof.RewriteMustWait()) {
    aof.ScheduleRewrite();
    c.reply.Simple("Background append only file rewriting scheduled");
  } else if (aof.StartRewrite().ok()) {
    c.reply.Simple("Background append only file rewriting started");
  } else {
    c.reply.Error(err::kAofRewriteFailed);
  }
}

}  // namespace

void RegisterAofCommands(CommandTable& t) {
  t.Register({.name = "bgrewriteaof",
              .arity = 1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Rewrites the append-only file's base from a forked child",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(1)"},
              .handler = BgrewriteaofCommand});
}

}  // namespace redistp
