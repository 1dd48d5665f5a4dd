// Lua scripts: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD/EXISTS/FLUSH/KILL/HELP, as
// Redis 7.0, and SCRIPT SHOW as Valkey 8.0 has it. The handlers parse and reply; the engine
// (scripting/script_engine.h) runs.
#include "commands/help_reply.h"
#include "commands/register.h"
#include "commands/script_rows.h"
#include "protocol/errors.h"
#include "protocol/errors_ldb.h"
#include "scripting/script_engine.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void EvalCommand(CommandContext& c) { ScriptEngine::Of(c.server).Eval(c, false, false); }
void EvalShaCommand(CommandContext& c) { ScriptEngine::Of(c.server).Eval(c, true, false); }
void EvalRoCommand(CommandContext& c) { ScriptEngine::Of(c.server).Eval(c, false, true); }
void EvalShaRoCommand(CommandContext& c) { ScriptEngine::Of(c.server).Eval(c, true, true); }

void ScriptLoadCommand(CommandContext& c) {
  Result<std::string> sha = ScriptEngine::Of(c.server).Load(c.args[2]);
  if (!sha.ok()) {
    c.reply.Error(sha.status().message());
    return;
  }
  c.reply.Bulk(sha.value());
}

void ScriptExistsCommand(CommandContext& c) {
  ScriptEngine& engine = ScriptEngine::Of(c.server);
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) c.reply.Int(engine.Exists(c.args[i]) ? 1 : 0);
}

// SCRIPT SHOW sha1 (Valkey 8.0): the cached script's body as it was sent, or NOSCRIPT.
void ScriptShowCommand(CommandContext& c) {
  const std::string* body = ScriptEngine::Of(c.server).Body(c.args[2]);
  if (body == nullptr) {
    c.reply.Error(err::kNoScript);
    return;
  }
  c.reply.Bulk(*body);
}

void ScriptFlushCommand(CommandContext& c) {
  // ASYNC and SYNC differ only in who frees the memory; the cache is empty at once either way.
  if (c.args.size() > 3 || (c.args.size() == 3 && !EqualsIgnoreCase(c.args[2], "async") &&
                            !EqualsIgnoreCase(c.args[2], "sync"))) {
    c.reply.Error(err::kScriptFlushOption);
    return;
  }
  ScriptEngine::Of(c.server).Flush();
  c.reply.Ok();
}

// SCRIPT DEBUG YES|SYNC|NO: the mode of this connection's next EVAL (scripting/lua_debugger.h).
void ScriptDebugCommand(CommandContext& c) {
  // The session's log goes straight to the socket: replies still pending for this connection
  // (a pipeline, or EXEC's own) would come after it.
  if (c.client.out.Readable() > 0 || c.client.has_flag(kClientInExec)) {
    c.reply.Error(err::kScriptDebugPipeline);
    return;
  }
  LuaDebugger::Mode mode;
  if (EqualsIgnoreCase(c.args[2], "no")) {
    mode = LuaDebugger::Mode::kOff;
  } else if (EqualsIgnoreCase(c.args[2], "yes")) {
    mode = LuaDebugger::Mode::kFork;
  } else if (EqualsIgnoreCase(c.args[2], "sync")) {
    mode = LuaDebugger::Mode::kSync;
  } else {
    c.reply.Error(err::kScriptDebugUsage);
    return;
  }
  ScriptEngine::Of(c.server).debugger().SetMode(c.client.id, mode);
  c.reply.Ok();
}

void ScriptKillCommand(CommandContext& c) {
  Status s = ScriptEngine::Of(c.server).Kill(/*eval=*/true);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void ScriptHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "SCRIPT",
            {
                "DEBUG (YES|SYNC|NO)",
                "    Debug this connection's next EVAL: YES in a forked child (changes are",
                "    dropped), SYNC in the server (it serves no one else meanwhile), NO: off.",
                "EXISTS <sha1> [<sha1> ...]",
                "    For each <sha1>, 1 if a script with that SHA1 is in the script cache, else 0.",
                "FLUSH [ASYNC|SYNC]",
                "    Empty the script cache (ASYNC and SYNC are accepted; the cache is emptied",
                "    at once either way).",
                "KILL",
                "    Stop the script running now, if it has not written yet.",
                "LOAD <script>",
                "    Compile <script> into the script cache without running it; reply its SHA1.",
                "SHOW <sha1>",
                "    The body of the cached script with that SHA1, as it was sent.",
            });
}

// EVAL / EVAL_RO: the flags the body's shebang declares (a bad shebang is refused when run).
uint64_t EvalInvocationFlags(Server&, const std::vector<std::string_view>& args, uint64_t flags) {
  uint32_t script_flags = kScriptEvalCompat;
  size_t code_start = 0;
  if (!ParseShebang(args[1], &script_flags, &code_start).ok()) return flags;
  return DeclaredScriptCallFlags(flags, script_flags);
}

// EVALSHA / EVALSHA_RO: the flags of the cached script (the row's when it is not cached).
uint64_t EvalShaInvocationFlags(Server& server, const std::vector<std::string_view>& args,
                                uint64_t flags) {
  uint32_t script_flags = kScriptEvalCompat;
  const ScriptEngine* engine = server.subsystem<ScriptEngine>();
  if (engine == nullptr || !engine->CachedFlags(args[1], &script_flags)) {
    return flags;
  }
  return DeclaredScriptCallFlags(flags, script_flags);
}

CommandSpec EvalRow(const char* name, bool by_sha, bool read_only, CommandHandler handler) {
  const KeySpec keys =
      ScriptCallKeySpec(read_only, read_only ? std::string_view() : kScriptKeysRwNote);
  return {.name = name,
          .arity = -3,
          .flags = ScriptCallFlags(read_only),
          .acl = kAclSlow | kAclScripting,
          .doc = {.summary = by_sha ? "Runs a cached Lua script by its SHA1"
                                    : "Runs a Lua script on the server",
                  .since = read_only ? "7.0.0" : "2.6.0",
                  .group = "scripting",
                  .complexity = "Depends on the script that is executed.",
                  .key_specs = {keys},
                  .find_keys = KeysAfterCount<2>,
                  .args = {docs::String(by_sha ? "sha1" : "script"), docs::Integer("numkeys"),
                           docs::Key("key", 0).Optional().Multiple(),
                           docs::String("arg").Optional().Multiple()}},
          .handler = handler,
          .invocation_flags = by_sha ? EvalShaInvocationFlags : EvalInvocationFlags};
}

}  // namespace

void RegisterScriptingCommands(CommandTable& t) {
  t.Register(EvalRow("eval", false, false, EvalCommand));
  t.Register(EvalRow("evalsha", true, false, EvalShaCommand));
  t.Register(EvalRow("eval_ro", false, true, EvalRoCommand));
  t.Register(EvalRow("evalsha_ro", true, true, EvalShaRoCommand));
  constexpr uint64_t kAcl = kAclSlow | kAclScripting;
  t.Register(
      {.name = "script",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Manages the Lua script cache",
               .since = "2.6.0",
               .group = "scripting",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           CommandSpec{.name = "debug",
                       .arity = 3,
                       .flags = kCmdNoScript,
                       .acl = kAcl,
                       .doc = {.summary = "Sets the debug mode of server-side Lua scripts",
                               .since = "3.2.0",
                               .group = "scripting",
                               .complexity = "O(1)",
                               .args = {docs::OneOf(
                                   "mode", {docs::PureToken("YES"), docs::PureToken("SYNC"),
                                            docs::PureToken("NO")})}},
                       .handler = ScriptDebugCommand},
           CommandSpec{
               .name = "exists",
               .arity = -3,
               .flags = kCmdNoScript,
               .acl = kAcl,
               .doc = {.summary = "Tells which scripts are in the script cache",
                       .since = "2.6.0",
                       .group = "scripting",
                       .complexity = "O(N) with N being the number of scripts to check "
                                     "(so checking a single script is an O(1) operation).",
                       .tips = {"request_policy:all_shards", "response_policy:agg_logical_and"},
                       .args = {docs::String("sha1").Multiple()}},
               .handler = ScriptExistsCommand},
           CommandSpec{
               .name = "flush",
               .arity = -2,
               .flags = kCmdNoScript,
               .acl = kAcl,
               .doc = {.summary = "Empties the script cache",
                       .since = "2.6.0",
                       .group = "scripting",
                       .complexity = "O(N) with N being the number of scripts in cache",
                       .history = {{"6.2.0",
                                    "Added the `ASYNC` and `SYNC` flushing mode modifiers."}},
                       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"},
                       .args = {docs::OneOf("async",
                                            {docs::PureToken("ASYNC"), docs::PureToken("SYNC")})
                                    .Since("6.2.0")
                                    .Optional()}},
               .handler = ScriptFlushCommand},
           CommandSpec{.name = "help",
                       .arity = 2,
                       .flags = kCmdLoading | kCmdStale,
                       .acl = kAcl,
                       .doc = {.summary = "Lists the SCRIPT subcommands with a short description "
                                          "of each",
                               .since = "5.0.0",
                               .group = "scripting",
                               .complexity = "O(1)"},
                       .handler = ScriptHelpCommand},
           CommandSpec{
               .name = "kill",
               .arity = 2,
               .flags = kCmdNoScript | kCmdAllowBusy,
               .acl = kAcl,
               .doc = {.summary = "Stops the running script if it has not written",
                       .since = "2.6.0",
                       .group = "scripting",
                       .complexity = "O(1)",
                       .tips = {"request_policy:all_shards", "response_policy:one_succeeded"}},
               .handler = ScriptKillCommand},
           CommandSpec{
               .name = "load",
               .arity = 3,
               .flags = kCmdNoScript | kCmdStale,
               .acl = kAcl,
               .doc = {.summary = "Compiles a script into the script cache",
                       .since = "2.6.0",
                       .group = "scripting",
                       .complexity = "O(N) with N being the length in bytes of the script "
                                     "body.",
                       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"},
                       .args = {docs::String("script")}},
               .handler = ScriptLoadCommand},
           // Valkey 8.0's row: its flags and ACL categories (keyspace and read among them).
           CommandSpec{.name = "show",
                       .arity = 3,
                       .flags = kCmdNoScript | kCmdStale,
                       .acl = kAclKeyspace | kAclRead | kAclScripting | kAclSlow,
                       .doc = {.summary = "Returns the body of a script in the script cache",
                               .since = "8.0.0",
                               .group = "scripting",
                               .complexity = "O(1).",
                               .args = {docs::String("sha1")}},
                       .handler = ScriptShowCommand},
       }});
}

}  // namespace redistp
