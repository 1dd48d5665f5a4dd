// SAVE and BGSAVE [SCHEDULE]: the RDB snapshot commands (persistence/persistence.h does the
// work; LASTSAVE and SHUTDOWN are in server_cmds.cc, DEBUG RELOAD in debug_cmd.cc).
//
// SAVE writes the file in the server process and replies when it is on disk. BGSAVE forks a
// child and replies at once; while any child runs (an AOF rewrite too) it is refused, unless
// SCHEDULE (or it runs inside MULTI/EXEC), which starts it as soon as the child is gone.
#include "commands/register.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void SaveCommand(CommandContext& c) {
  Status s = Persistence::Of(c.server).SaveNow();
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void BgsaveCommand(CommandContext& c) {
  bool schedule = false;
  if (c.args.size() > 1) {
    if (c.args.size() > 2 || !EqualsIgnoreCase(c.args[1], "schedule")) {
      c.reply.Error(err::kSyntax);
      return;
    }
    schedule = true;
  }
  Persistence& p = Persistence::Of(c.server);
  if (p.child_kind() == ChildKind::kRdb) {
    c.reply.Error(err::kBgsaveInProgress);
    return;
  }
  if (p.HasActiveChild() || c.client.has_flag(kClientInExec)) {
    if (schedule || c.client.has_flag(kClientInExec)) {
      p.ScheduleBackgroundSave();
      c.reply.Simple("Background saving scheduled");
    } else {
      c.reply.Error(err::kBgsaveOtherChild);
    }
    return;
  }
  Status s = p.StartBackgroundSave();
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Simple("Background saving started");
}

}  // namespace

void RegisterPersistenceCommands(CommandTable& t) {
  using docs::PureToken;
  t.Register({.name = "save",
              .arity = 1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading | kCmdNoMulti,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Writes the dataset to the RDB file, blocking the server",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(N) where N is the total number of keys in all databases"},
              .handler = SaveCommand});
  t.Register({.name = "bgsave",
              .arity = -1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Writes the dataset to the RDB file from a forked child",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .history = {{"3.2.2", "Added the `SCHEDULE` option."}},
                      .args = {PureToken("SCHEDULE").Since("3.2.2").Optional()}},
              .handler = BgsaveCommand});
}

}  // namespace redistp
