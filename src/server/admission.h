// The admission gate: one ordered list of named checks every command passes before it runs.
//
// Every caller goes through it: a connection's own request (run at once or queued by MULTI),
// each command EXEC runs, each redis.call / redis.pcall of a script, the AOF's replay and the
// master's stream (Server::Execute builds the call; the script engine passes its script state).
// A check looks at the call and either lets it pass, refuses it with an error text, or (CLIENT
// PAUSE only) holds it whole until the pause ends. The first check that decides wins, so the
// order is the order of Redis 7.0's processCommand (and of its scriptCall for a script's
// commands, whose texts differ):
//
//   arity → no-script (scripts) → NOAUTH → protected (DEBUG, MODULE LOAD) → no-multi →
//   stale replica (scripts) → ACL → cluster redirection (top level) →
//   read-only script → OOM → MISCONF → NOREPLICAS → READONLY → OOM (scripts) →
//   subscribed context → MASTERDOWN → LOADING → BUSY → replica keyspace → CLIENT PAUSE
//
// (the command lookup, unknown command and unknown subcommand, comes before the list: it is
// what gives the checks a command row.) A check applies to the callers it names; most state
// checks do not apply to EXEC's commands (the transaction was admitted with EXEC) nor to the
// AOF's replay and the master's stream (they obey). Redis's script path orders READONLY before
// MISCONF and NOREPLICAS; here one list serves both paths, so a script's write that meets a
// read-only replica and a persistence error at once sees MISCONF.
//
// Each check is a small function with a stated rule; the list is a compile-time sequence, so
// the checks inline into Server::Execute and a server with nothing armed (no ACL users, no
// maxmemory, no pause, not a replica) pays for a handful of predictable tests per command.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/authorizer.h"

namespace redistp {

class Client;
class Server;
struct CommandSpec;

// What a script's redis.call adds to a call: the script's own rules, and what the gate tells
// the script back. Filled by the script engine for every call of a running script.
struct ScriptCallGate {
  bool read_only = false;  // the script may not write (EVAL_RO, FCALL_RO, flags=no-writes)
  bool allow_oom = false;  // the script declared allow-oom
  // In: whether an earlier command of this script wrote (then OOM refuses nothing more: half a
  // script applied is worse). Out: set when a write command is admitted.
  bool wrote = false;
  // Cluster mode: whether the script may use keys of several slots (a script without a shebang,
  // or flags=allow-cross-slot-keys), and the slot its keys so far hash to (-1: none yet; in:
  // the script's, out: set by the first keyed command).
  bool allow_cross_slot = true;
  int slot = -1;
};

// One request to run a command, as the checks see it.
struct AdmissionCall {
  Server& server;
  Client& client;           // the connection the command runs on (the script pseudo-client)
  const Client& principal;  // whose permissions count: the client, or a script's caller
  const CommandSpec& spec;  // the resolved command or subcommand
  const std::vector<std::string_view>& args;
  AdmissionCaller caller;
  ScriptCallGate* script;  // non-null exactly for kScript
};

// The outcome of a check that decided.
struct AdmissionVerdict {
  bool hold = false;  // CLIENT PAUSE: run the command later, whole; otherwise refused
  // A cluster redirection of EXEC: the text is replied as it is (not wrapped in EXECABORT)
  // and the transaction is discarded, as Redis 7.0 redirects a transaction.
  bool redirect = false;
  std::string text;  // the refusal's error text (code included)
};

// The caller kind of a command `c` is about to run (Server::Execute's view of the client).
AdmissionCaller CallerOf(const Client& c);

// Runs the ordered list on `call`. Returns false when every check let it pass; otherwise true
// with `verdict` filled. May evict keys (the OOM check gives eviction its chance first).
bool Admit(const AdmissionCall& call, AdmissionVerdict* verdict);

// The text of an ACL denial for `caller` (NOPERM at top level and in EXEC, ERR in a script).
std::string AclDenialText(const AclDenial& denial, const CommandSpec& spec, AdmissionCaller caller);

}  // namespace redistp
