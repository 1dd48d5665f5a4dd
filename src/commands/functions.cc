// Functions: FUNCTION LOAD / DELETE / FLUSH / LIST / STATS / DUMP / RESTORE / HELP, FCALL and
// FCALL_RO, as Redis 7.0. The handlers parse and reply; the engine
// (scripting/function_engine.h) keeps the libraries and runs the functions.
//
// Replies. FUNCTION LIST answers one map per library (library_name, engine, functions and,
// with WITHCODE, library_code); each function is a map of name, description (null when none
// was given) and flags (a set of simple strings). FUNCTION STATS answers running_script (null
// when nothing runs, else a map of name, command and duration_ms) and engines (a map of each
// engine to its library and function counts). RESP2 clients see maps and sets as arrays.
// FUNCTION FLUSH ASYNC frees at once too: nothing here is big enough to be worth a thread.
#include <string>
#include <vector>

#include "commands/help_reply.h"
#include "commands/register.h"
#include "commands/script_rows.h"
#include "protocol/errors.h"
#include "scripting/function_engine.h"
#include "scripting/script_engine.h"
#include "server/client.h"
#include "server/server.h"
#include "util/glob.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// "ERR unknown subcommand or wrong number of arguments for 'x'. Try FUNCTION HELP."
std::string FunctionSyntaxError(const CommandContext& c) {
  return err::SubcommandSyntax(c.args[1], "FUNCTION");
}

void FunctionLoadCommand(CommandContext& c) {
  bool replace = false;
  for (size_t i = 2; i + 1 < c.args.size(); ++i) {
    if (!EqualsIgnoreCase(c.args[i], "replace")) {
      c.reply.Error(err::FunctionLoadUnknownOption(c.args[i]));
      return;
    }
    replace = true;
  }
  Result<std::string> name = FunctionEngine::Of(c.server).Load(c.args.back(), replace);
  if (!name.ok()) {
    c.reply.Error(name.status().message());
    return;
  }
  c.ForceReplication();  // libraries are not keys: replicas replay the command itself
  c.reply.Bulk(name.value());
}

void FunctionDeleteCommand(CommandContext& c) {
  Status s = FunctionEngine::Of(c.server).Delete(c.args[2]);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.ForceReplication();
  c.reply.Ok();
}

void FunctionFlushCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(FunctionSyntaxError(c));
    return;
  }
  if (c.args.size() == 3 && !EqualsIgnoreCase(c.args[2], "sync") &&
      !EqualsIgnoreCase(c.args[2], "async")) {
    c.reply.Error(err::kFunctionFlushMode);
    return;
  }
  FunctionEngine::Of(c.server).Flush();
  c.ForceReplication();
  c.reply.Ok();
}

void ReplyFunction(ReplyBuilder& r, const FunctionInfo& f) {
  static constexpr struct {
    uint32_t flag;
    const char* name;
  } kFlagNames[] = {{kScriptNoWrites, "no-writes"},
                    {kScriptAllowOom, "allow-oom"},
                    {kScriptAllowStale, "allow-stale"},
                    {kScriptNoCluster, "no-cluster"},
                    {kScriptAllowCrossSlotKeys, "allow-cross-slot-keys"}};
  r.Map(3);
  r.Bulk("name");
  r.Bulk(f.name);
  r.Bulk("description");
  if (f.has_description) {
    r.Bulk(f.description);
  } else {
    r.Null();
  }
  r.Bulk("flags");
  std::vector<const char*> names;
  for (const auto& [flag, name] : kFlagNames) {
    if ((f.flags & flag) != 0) names.push_back(name);
  }
  r.Set(names.size());
  for (const char* name : names) r.Simple(name);
}

void FunctionListCommand(CommandContext& c) {
  bool with_code = false;
  bool has_pattern = false;
  std::string_view pattern;
  for (size_t i = 2; i < c.args.size(); ++i) {
    if (!with_code && EqualsIgnoreCase(c.args[i], "withcode")) {
      with_code = true;
    } else if (!has_pattern && EqualsIgnoreCase(c.args[i], "libraryname")) {
      if (i + 1 >= c.args.size()) {
        c.reply.Error(err::kFunctionNoLibraryName);
        return;
      }
      has_pattern = true;
      pattern = c.args[++i];
    } else {
      c.reply.Error(err::UnknownArgument(c.args[i]));
      return;
    }
  }
  std::vector<const FunctionLibrary*> libs;
  for (const auto& [name, lib] : FunctionEngine::Of(c.server).libraries().libraries()) {
    if (!has_pattern || GlobMatch(pattern, name, /*nocase=*/true)) libs.push_back(lib.get());
  }
  c.reply.Array(libs.size());
  for (const FunctionLibrary* lib : libs) {
    c.reply.Map(with_code ? 4 : 3);
    c.reply.Bulk("library_name");
    c.reply.Bulk(lib->name);
    c.reply.Bulk("engine");
    c.reply.Bulk(lib->engine);
    c.reply.Bulk("functions");
    c.reply.Array(lib->functions.size());
    for (const auto& f : lib->functions) ReplyFunction(c.reply, *f);
    if (with_code) {
      c.reply.Bulk("library_code");
      c.reply.Bulk(lib->code);
    }
  }
}

void FunctionStatsCommand(CommandContext& c) {
  FunctionEngine& engine = FunctionEngine::Of(c.server);
  const LibrarySet& libs = engine.libraries();
  ScriptRun* run = ScriptEngine::Of(c.server).running();
  const std::vector<std::string_view>* args = engine.running_args();
  c.reply.Map(2);
  c.reply.Bulk("running_script");
  if (run == nullptr || run->is_eval || args == nullptr) {
    c.reply.Null();
  } else {
    c.reply.Map(3);
    c.reply.Bulk("name");
    c.reply.Bulk(run->name);
    c.reply.Bulk("command");
    c.reply.Array(args->size());
    for (std::string_view a : *args) c.reply.Bulk(a);
    c.reply.Bulk("duration_ms");
    c.reply.Int(c.server.NowMs() - run->start_ms);
  }
  c.reply.Bulk("engines");
  c.reply.Map(1);
  c.reply.Bulk("LUA");
  c.reply.Map(2);
  c.reply.Bulk("libraries_count");
  c.reply.Int(static_cast<int64_t>(libs.library_count()));
  c.reply.Bulk("functions_count");
  c.reply.Int(static_cast<int64_t>(libs.function_count()));
}

void FunctionDumpCommand(CommandContext& c) {
  c.reply.Bulk(FunctionEngine::Of(c.server).Dump(c.server.config().rdbcompression));
}

void FunctionRestoreCommand(CommandContext& c) {
  if (c.args.size() > 4) {
    c.reply.Error(FunctionSyntaxError(c));
    return;
  }
  FunctionRestorePolicy policy = FunctionRestorePolicy::kAppend;
  if (c.args.size() == 4) {
    if (EqualsIgnoreCase(c.args[3], "flush")) {
      policy = FunctionRestorePolicy::kFlush;
    } else if (EqualsIgnoreCase(c.args[3], "replace")) {
      policy = FunctionRestorePolicy::kReplace;
    } else if (!EqualsIgnoreCase(c.args[3], "append")) {
      c.reply.Error(err::kFunctionRestorePolicy);
      return;
    }
  }
  Status s = FunctionEngine::Of(c.server).Restore(c.args[2], policy);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.ForceReplication();
  c.reply.Ok();
}

void FunctionHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "FUNCTION",
            {
                "LOAD [REPLACE] <FUNCTION CODE>",
                "    Load a library from its code (which starts with \"#!lua name=<library>\") and",
                "    register its functions; REPLACE replaces a library of the same name.",
                "DELETE <LIBRARY NAME>",
                "    Delete a library and its functions.",
                "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
                "    Return the libraries (those whose name matches PATTERN when given) with their",
                "    engine and functions (name, description, flags); WITHCODE adds their code.",
                "STATS",
                "    Return the running function (nil when none) and each engine's library and",
                "    function counts.",
                "KILL",
                "    Stop the running function, if it has not written yet.",
                "FLUSH [ASYNC|SYNC]",
                "    Delete every library.",
                "DUMP",
                "    Return a payload holding every library, for FUNCTION RESTORE.",
                "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
                "    Load the libraries of a FUNCTION DUMP payload. APPEND (the default) fails if",
                "    a library exists already, REPLACE replaces it, FLUSH deletes every library",
                "    first. Function names must not collide with another library's in any mode.",
            });
}

void FcallCommand(CommandContext& c) { FunctionEngine::Of(c.server).Call(c, false); }
void FcallRoCommand(CommandContext& c) { FunctionEngine::Of(c.server).Call(c, true); }

// FCALL / FCALL_RO: the flags the function declares (the row's when there is no such function).
uint64_t FcallInvocationFlags(Server& server, const std::vector<std::string_view>& args,
                              uint64_t flags) {
  const FunctionEngine* functions = server.subsystem<FunctionEngine>();
  if (functions == nullptr) return flags;
  const FunctionInfo* f = functions->libraries().FindFunction(args[1]);
  if (f == nullptr) return flags;
  return DeclaredScriptCallFlags(flags, f->flags);
}

CommandSpec FcallRow(const char* name, bool read_only, CommandHandler handler) {
  const KeySpec keys = ScriptCallKeySpec(
      read_only, read_only ? std::string_view("We cannot tell how the keys will be used so we "
                                              "assume the worst, RO and ACCESS")
                           : kScriptKeysRwNote);
  return {.name = name,
          .arity = -3,
          .flags = ScriptCallFlags(read_only),
          .acl = kAclSlow | kAclScripting,
          .doc = {.summary = read_only ? "Runs a read-only function of a loaded library"
                                       : "Runs a function of a loaded library",
                  .since = "7.0.0",
                  .group = "scripting",
                  .complexity = "Depends on the function that is executed.",
                  .key_specs = {keys},
                  .find_keys = KeysAfterCount<2>,
                  .args = {docs::String("function"), docs::Integer("numkeys"),
                           docs::Key("key", 0).Optional().Multiple(),
                           docs::String("arg").Optional().Multiple()}},
          .handler = handler,
          .invocation_flags = FcallInvocationFlags};
}

}  // namespace

using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterFunctionCommands(CommandTable& t) {
  t.Register(FcallRow("fcall", false, FcallCommand));
  t.Register(FcallRow("fcall_ro", true, FcallRoCommand));
  constexpr uint64_t kScript = kAclSlow | kAclScripting;
  constexpr uint64_t kWriteScript = kAclWrite | kScript;
  const std::vector<std::string_view> kAllShards = {"request_policy:all_shards",
                                                    "response_policy:all_succeeded"};
  t.Register(
      {.name = "function",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that manage function libraries",
               .since = "7.0.0",
               .group = "scripting",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           {.name = "delete",
            .arity = 3,
            .flags = kCmdWrite | kCmdNoScript,
            .acl = kWriteScript,
            .doc = {.summary = "Deletes a library and its functions",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(1)",
                    .tips = kAllShards,
                    .args = {String("library-name")}},
            .handler = FunctionDeleteCommand},
           {.name = "dump",
            .arity = 2,
            .flags = kCmdNoScript,
            .acl = kScript,
            .doc = {.summary = "Serializes every library into a payload for FUNCTION RESTORE",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(N) where N is the number of functions"},
            .handler = FunctionDumpCommand},
           {.name = "flush",
            .arity = -2,
            .flags = kCmdWrite | kCmdNoScript,
            .acl = kWriteScript,
            .doc = {.summary = "Removes every function library",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(N) where N is the number of functions deleted",
                    .tips = kAllShards,
                    .args = {OneOf("async", {PureToken("ASYNC"), PureToken("SYNC")}).Optional()}},
            .handler = FunctionFlushCommand},
           FunctionKillSubcommand(),
           {.name = "help",
            .arity = 2,
            .flags = kCmdLoading | kCmdStale,
            .acl = kScript,
            .doc = {.summary = "Lists the FUNCTION subcommands with a short description of each",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(1)"},
            .handler = FunctionHelpCommand},
           {.name = "list",
            .arity = -2,
            .flags = kCmdNoScript,
            .acl = kScript,
            .doc = {.summary = "Lists the loaded function libraries and their functions",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(N) where N is the number of functions",
                    .tips = {"nondeterministic_output_order"},
                    .args = {String("library-name-pattern").Token("LIBRARYNAME").Optional(),
                             PureToken("WITHCODE").Optional()}},
            .handler = FunctionListCommand},
           {.name = "load",
            .arity = -3,
            .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript,
            .acl = kWriteScript,
            .doc = {.summary = "Loads a library of functions from its code",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(1) (considering compilation time is redundant)",
                    .tips = kAllShards,
                    .args = {PureToken("REPLACE").Optional(), String("function-code")}},
            .handler = FunctionLoadCommand},
           {.name = "restore",
            .arity = -3,
            .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript,
            .acl = kWriteScript,
            .doc = {.summary = "Loads the libraries of a FUNCTION DUMP payload",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(N) where N is the number of functions on the payload",
                    .tips = kAllShards,
                    .args = {String("serialized-value"),
                             OneOf("policy",
                                   {PureToken("FLUSH"), PureToken("APPEND"), PureToken("REPLACE")})
                                 .Optional()}},
            .handler = FunctionRestoreCommand},
           {.name = "stats",
            .arity = 2,
            .flags = kCmdNoScript | kCmdAllowBusy,
            .acl = kScript,
            .doc = {.summary = "Reports the running function and the available engines",
                    .since = "7.0.0",
                    .group = "scripting",
                    .complexity = "O(1)",
                    .tips = {"nondeterministic_output", "request_policy:all_shards",
                             "response_policy:special"}},
            .handler = FunctionStatsCommand},
       }});
}

}  // namespace redistp
