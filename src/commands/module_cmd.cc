// MODULE: the module commands of a server that has no module API.
//
// Model. redis-tp loads no native extensions: there is no module API for a library to call,
// so no library is ever opened (opening one would run its initialisers inside the server for
// nothing). What remains is what Redis 7.0 answers when a load fails:
//  * MODULE LIST is always empty.
//  * MODULE LOAD/LOADEX/UNLOAD are refused, as in Redis, unless enable-module-command allows
//    them (yes, or local for a local connection). Then LOAD and LOADEX fail with Redis's
//    "Error loading the extension" after logging why (the path cannot be opened, or redis-tp
//    does not load modules; LOADEX's malformed CONFIG/ARGS are logged as Redis logs them), and
//    UNLOAD finds no module of that name.
//  * A loadmodule directive in redis.conf stops the start as a module that fails to load
//    stops Redis's (main.cc, CheckNoModules below).
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "commands/help_reply.h"
#include "commands/register.h"
#include "commands/server_info.h"
#include "protocol/errors_server.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// MODULE LOAD/LOADEX/UNLOAD are protected: enable-module-command is checked by the admission
// list (server/admission.cc, Protected), which every caller passes, so a handler here is only
// reached when the configuration allows it.

void ModuleListCommand(CommandContext& c) { c.reply.Array(0); }

void ModuleLoadCommand(CommandContext& c) {
  LogModuleLoadFailure(c.server.log(), c.args[2]);
  c.reply.Error(err::kModuleLoadFailed);
}

// LOADEX path [CONFIG name value ...] [ARGS arg ...]: the arguments are checked as Redis checks
// them (each malformed form has its log line), and then the load fails as LOAD's does.
void ModuleLoadexCommand(CommandContext& c) {
  for (size_t i = 3; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "config")) {
      if (i + 2 >= c.args.size()) {
        c.server.log().Log(LogLevel::kNotice, "CONFIG specified without name value pair");
        c.reply.Error(err::kModuleLoadFailed);
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(c.args[i], "args")) {
      break;  // the rest is the module's own arguments
    } else {
      c.server.log().Log(LogLevel::kNotice, "Syntax Error from arguments to loadex around %s.",
                         std::string(c.args[i]).c_str());
      c.reply.Error(err::kModuleLoadFailed);
      return;
    }
  }
  LogModuleLoadFailure(c.server.log(), c.args[2]);
  c.reply.Error(err::kModuleLoadFailed);
}

void ModuleUnloadCommand(CommandContext& c) { c.reply.Error(err::kModuleUnloadNoSuchModule); }

void ModuleHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "MODULE",
            {
                "LIST",
                "    The loaded modules (redis-tp loads none).",
                "LOAD <path> [<arg> ...]",
                "    Load the module at <path>; redis-tp has no module API, so this fails.",
                "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
                "    LOAD with module configurations; fails as LOAD does.",
                "UNLOAD <name>",
                "    Unload the module <name>.",
            });
}

}  // namespace

void LogModuleLoadFailure(Logger& log, std::string_view path) {
  std::string p(path);
  struct stat st;
  std::string why;
  if (stat(p.c_str(), &st) != 0) {
    // The text the dynamic loader gives for a path it cannot open.
    why = p + ": cannot open shared object file: " + std::strerror(errno);
  } else {
    why = "redis-tp has no module API and does not load modules";
  }
  log.Log(LogLevel::kWarning, "Module %s failed to load: %s", p.c_str(), why.c_str());
}

bool CheckNoModules(Server& server) {
  for (const std::vector<std::string>& directive : server.config().loadmodules) {
    if (directive.empty()) continue;
    LogModuleLoadFailure(server.log(), directive[0]);
    server.log().Log(LogLevel::kWarning, "Can't load module from %s: server aborting",
                     directive[0].c_str());
    return false;
  }
  return true;
}

using docs::Block;
using docs::String;

void RegisterModuleCommands(CommandTable& t) {
  constexpr uint64_t kAdminAcl = kAclAdmin | kAclSlow | kAclDangerous;
  constexpr uint64_t kLoadFlags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading | kCmdProtected;
  t.Register(
      {.name = "module",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the module commands",
               .since = "4.0.0",
               .group = "server",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           CommandSpec{.name = "list",
                       .arity = 2,
                       .flags = kCmdAdmin | kCmdNoScript,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Lists the loaded modules",
                               .since = "4.0.0",
                               .group = "server",
                               .complexity = "O(N) where N is the number of loaded modules.",
                               .tips = {"nondeterministic_output_order"}},
                       .handler = ModuleListCommand},
           CommandSpec{.name = "load",
                       .arity = -3,
                       .flags = kLoadFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Loads a module",
                               .since = "4.0.0",
                               .group = "server",
                               .complexity = "O(1)",
                               .args = {String("path"), String("arg").Optional().Multiple()}},
                       .handler = ModuleLoadCommand},
           CommandSpec{
               .name = "loadex",
               .arity = -3,
               .flags = kLoadFlags,
               .acl = kAdminAcl,
               .doc =
                   {.summary = "Loads a module with configurations and arguments",
                    .since = "7.0.0",
                    .group = "server",
                    .complexity = "O(1)",
                    .args = {String("path"),
                             Block("configs", {String("name"), String("value")})
                                 .Token("CONFIG")
                                 .Optional()
                                 .Multiple()
                                 .MultipleToken(),
                             Block("args", {String("arg")}).Token("ARGS").Optional().Multiple()}},
               .handler = ModuleLoadexCommand},
           CommandSpec{.name = "unload",
                       .arity = 3,
                       .flags = kLoadFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Unloads a module",
                               .since = "4.0.0",
                               .group = "server",
                               .complexity = "O(1)",
                               .args = {String("name")}},
                       .handler = ModuleUnloadCommand},
           CommandSpec{
               .name = "help",
               .arity = 2,
               .flags = kCmdLoading | kCmdStale,
               .acl = kAclSlow,
               .doc = {.summary = "Lists the MODULE subcommands with a short description of "
                                  "each",
                       .since = "5.0.0",
                       .group = "server",
                       .complexity = "O(1)"},
               .handler = ModuleHelpCommand},
       }});
}

}  // namespace redistp
