// The ACL slot of the admission gate (server/admission.h).
//
// The server does not know users, rules or passwords: it only asks. The ACL layer (src/acl)
// implements Authorizer and installs it with Server::set_authorizer; while none is installed
// (no ACL users configured) every command is allowed and the check costs one pointer test.
//
// The gate asks once per admitted call, in Redis 7.0's place in the order: after the command
// is known, its arity right and the connection authenticated (or the command needs no
// authentication), and after the transaction rule (no-multi inside MULTI); before every state
// check (OOM, MISCONF, READONLY, ...). It asks for a client's own commands, for each command
// EXEC runs (the rules may have changed since the command was queued) and for each redis.call of
// a script (with the script caller's user). The AOF's replay and the master's stream are never
// asked: they act for no user.
//
// The authorizer answers what it denied; the gate turns that into the caller's text (NOPERM
// at top level and in EXEC, the script's own ERR text inside a script) and counts the
// rejection. Logging the denial (ACL LOG, with its context) is the authorizer's job: it sees
// the whole call, its caller included.
#pragma once

#include <cstdint>
#include <optional>

namespace redistp {

struct AdmissionCall;

// Who asks for a command to run. ACL LOG's context is derived from it: kClient "toplevel",
// kExec "multi", kScript "lua".
enum class AdmissionCaller : uint8_t {
  kClient,      // a connection's own request (queued by MULTI or run at once)
  kExec,        // a command EXEC runs from the transaction's queue
  kScript,      // a script's redis.call / redis.pcall
  kAofReplay,   // the AOF being replayed at startup (or DEBUG LOADAOF)
  kMasterLink,  // this replica's master's stream
};

// What an authorizer denied.
struct AclDenial {
  enum class Reason : uint8_t {
    kCommand,  // the command (or subcommand) itself
    kKey,      // a key the command names (arg_index says which)
    kChannel,  // a Pub/Sub channel or pattern the command names (arg_index says which)
  };
  Reason reason = Reason::kCommand;
  // Position in the call's args of the denied key or channel; 0 for the command.
  int arg_index = 0;
};

// Installed by the ACL layer; the server only asks.
class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // nullopt: allowed. Otherwise what was denied. `call.principal` is the connection whose user
  // is asked for (a script's caller for the script's commands); `call.spec` is the resolved
  // (sub)command, `call.args` the arguments as sent (args[0] the command name). Called only
  // for kClient, kExec and kScript callers. May log the denial (ACL LOG).
  virtual std::optional<AclDenial> Check(const AdmissionCall& call) = 0;
};

}  // namespace redistp
