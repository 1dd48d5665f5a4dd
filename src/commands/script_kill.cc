// FUNCTION KILL: stops the running function (Redis 7.0). The row lives here, apart from the
// FUNCTION container (functions.cc), which takes it with FunctionKillSubcommand(). SCRIPT KILL,
// its twin for EVAL scripts, is in scripting.cc. Both only ask: the script engine stops the
// script at its next hook (scripting/script_engine.h), and only while the server is busy can a
// kill arrive at all (server/busy.cc).
#include "commands/register.h"
#include "scripting/script_engine.h"
#include "server/server.h"

namespace redistp {
namespace {

// NOTBUSY when nothing runs, UNKILLABLE when the script wrote, BUSY (the SCRIPT KILL text) when
// the running script is an EVAL one.
void FunctionKillCommand(CommandContext& c) {
  Status s = ScriptEngine::Of(c.server).Kill(/*eval=*/false);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

}  // namespace

CommandSpec FunctionKillSubcommand() {
  return CommandSpec{
      .name = "kill",
      .arity = 2,
      .flags = kCmdNoScript | kCmdAllowBusy,
      .acl = kAclSlow | kAclScripting,
      .doc = {.summary = "Stops the running function if it has not written",
              .since = "7.0.0",
              .group = "scripting",
              .complexity = "O(1)",
              .tips = {"request_policy:all_shards", "response_policy:one_succeeded"}},
      .handler = FunctionKillCommand};
}

}  // namespace redistp
