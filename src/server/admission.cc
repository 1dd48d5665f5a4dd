// The admission gate's checks and their order (model in admission.h).
#include "server/admission.h"

#include "protocol/errors.h"
#include "protocol/errors_noperm.h"
#include "protocol/errors_replica.h"
#include "server/command_docs.h"
#include "server/server.h"

namespace redistp {

// The checks read the server's admission state; Server names this struct a friend.
struct AdmissionAccess {
  using Call = AdmissionCall;
  using Verdict = AdmissionVerdict;

  // The refusals and the rarely armed checks' bodies are kept out of line (kCold), so the
  // list that inlines into Admit is only the cheap guards: the common path neither spills
  // registers for them nor grows past a few cache lines.
#define kCold [[gnu::noinline, gnu::cold]]
  kCold static bool Refuse(Verdict* v, std::string_view text) {
    v->text.assign(text);
    return true;
  }
  kCold static bool Refuse(Verdict* v, std::string&& text) {
    v->text = std::move(text);
    return true;
  }

  // Whether the transaction EXEC is about to run holds a command whose row has `flag` set
  // (want) or clear (!want). Used by the checks that judge EXEC by its queue, as Redis judges
  // EXEC by the flags MULTI accumulated.
  static bool QueueHas(const Call& k, uint64_t flag, bool want, bool resolve_subcommands) {
    for (const std::vector<std::string>& queued : k.client.multi.queue) {
      const CommandSpec* q = k.server.commands_.Find(queued[0]);
      if (q == nullptr) continue;
      if (resolve_subcommands && !q->subcommands.empty() && queued.size() >= 2) {
        const CommandSpec* sub = q->FindSubcommand(queued[1]);
        if (sub != nullptr) q = sub;
      }
      if (((q->flags & flag) != 0) == want) return true;
    }
    return false;
  }

  // A command EXEC runs (the AOF's and the master's transactions too).
  static bool InExec(const Call& k) { return k.client.has_flag(kClientInExec); }
  static bool Obeys(const Call& k) {
    return k.caller == AdmissionCaller::kAofReplay || k.caller == AdmissionCaller::kMasterLink;
  }

  // Arity: N exact, -N at least N (the name counted); a row's widening (a newer server's
  // option, command.h) is asked only when that refuses.
  static bool Arity(const Call& k, Verdict* v) {
    const int argc = static_cast<int>(k.args.size());
    const int arity = k.spec.arity;
    if ((arity > 0 && argc != arity) || argc < -arity) return RefuseArity(k, v);
    return false;
  }
  kCold static bool RefuseArity(const Call& k, Verdict* v) {
    if (k.spec.widen_arity != nullptr && k.spec.widen_arity(k.args)) return false;
    if (k.script != nullptr) return Refuse(v, err::kScriptWrongArgs);
    return Refuse(v, err::WrongArity(k.spec.full_name));
  }

  // A script may not run a no-script command (EVAL, MULTI, ...), unless a test configuration
  // (DEBUG set-disable-deny-scripts) allows it.
  static bool NoScript(const Call& k, Verdict* v) {
    if (k.script == nullptr || (k.spec.flags & kCmdNoScript) == 0) return false;
    if (k.server.scripts_may_run_noscript()) return false;
    return Refuse(v, err::kScriptCommandNotAllowed);
  }

  // NOAUTH: an unauthenticated connection runs only the no-auth commands (AUTH, HELLO, ...),
  // while authentication is required.
  static bool Auth(const Call& k, Verdict* v) {
    if (k.client.authenticated || (k.spec.flags & kCmdNoAuth) != 0) return false;
    if (!k.server.AuthRequired()) return false;
    return Refuse(v, err::kNoAuth);
  }

  // The protected commands (DEBUG; MODULE LOAD, LOADEX, UNLOAD) run only where
  // enable-debug-command / enable-module-command allow them ("yes", or "local" for a local
  // connection). Refused after NOAUTH and before the ACL, as Redis refuses them, so a MULTI
  // that queues one fails at once.
  static bool Protected(const Call& k, Verdict* v) {
    if ((k.spec.flags & kCmdProtected) == 0 || Obeys(k)) return false;
    return RefuseProtected(k, v);
  }
  kCold static bool RefuseProtected(const Call& k, Verdict* v) {
    const bool debug = k.spec.full_name == "debug";
    const Config& cfg = k.server.config();
    const std::string& mode = debug ? cfg.enable_debug_command : cfg.enable_module_command;
    if (mode == "yes" || (mode == "local" && IsLocalClient(k.principal))) return false;
    return Refuse(v, debug ? err::kDebugNotAllowed : err::kModuleNotAllowed);
  }

  // A no-multi command (SYNC, SHUTDOWN ...) is refused inside MULTI, before it is queued, and
  // if it reaches EXEC's queue some other way.
  static bool NoMulti(const Call& k, Verdict* v) {
    if ((k.spec.flags & kCmdNoMulti) == 0) return false;
    if (!InExec(k) && !(k.client.multi.active && (k.spec.flags & kCmdRunsInMulti) == 0)) {
      return false;
    }
    return Refuse(v, err::kNotAllowedInMulti);
  }

  // A stale replica (link down, replica-serve-stale-data no): a script's command without the
  // stale flag is refused before its permissions are asked, as Redis's script path does.
  static bool ScriptStale(const Call& k, Verdict* v) {
    if (k.script == nullptr) return false;
    return MasterDownFor(k, v);
  }

  // ACL: the installed authorizer (none: everything allowed). The AOF and the master's stream
  // act for no user.
  static bool Acl(const Call& k, Verdict* v) {
    Authorizer* a = k.server.authorizer_;
    if (a == nullptr || Obeys(k)) return false;
    return AskAuthorizer(k, v, a);
  }
  [[gnu::noinline]] static bool AskAuthorizer(const Call& k, Verdict* v, Authorizer* a) {
    std::optional<AclDenial> denial = a->Check(k);
    if (!denial.has_value()) return false;
    return Refuse(v, AclDenialText(*denial, k.spec, k.caller));
  }

  // Cluster mode: the slot check (server/cluster_router.h) for a connection's own commands
  // (queued in MULTI one by one, EXEC's queue as a whole) after the ACL, as Redis's
  // processCommand; a script's commands get theirs after the OOM checks (ScriptCluster).
  static bool ClusterRoute(const Call& k, Verdict* v) {
    ClusterRouter* r = k.server.cluster_router_;
    if (r == nullptr || k.caller != AdmissionCaller::kClient) return false;
    return AskRouter(k, v, r);
  }
  static bool ScriptCluster(const Call& k, Verdict* v) {
    ClusterRouter* r = k.server.cluster_router_;
    if (r == nullptr || k.script == nullptr || k.principal.kind() == ClientKind::kMasterLink ||
        k.principal.kind() == ClientKind::kAofLoading) {
      return false;
    }
    return AskRouter(k, v, r);
  }
  [[gnu::noinline]] static bool AskRouter(const Call& k, Verdict* v, ClusterRouter* r) {
    const bool exec = k.spec.full_name == "exec";
    // Keyless rows are never routed (EXEC is judged by its queue).
    if (!exec && !CommandHasKeys(k.spec) && (k.spec.flags & kCmdPubSub) == 0) return false;
    std::string text = r->Route(k);
    if (text.empty()) return false;
    v->redirect = exec;
    return Refuse(v, std::move(text));
  }

  // A read-only script (EVAL_RO, FCALL_RO, no-writes) may neither write nor publish.
  static bool ScriptReadOnly(const Call& k, Verdict* v) {
    if (k.script == nullptr || !k.script->read_only) return false;
    if ((k.spec.flags & (kCmdWrite | kCmdMayReplicate)) == 0) return false;
    return Refuse(v, err::kScriptReadOnlyWrite);
  }

  // maxmemory, for a connection's own commands: evict as the policy allows, then refuse what
  // may grow memory (inside MULTI, nearly everything; see Server::RefuseForMemory). Not for
  // EXEC's commands (admitted with EXEC), a script's (their own rule below), the AOF's replay
  // or the master's stream (Redis neither evicts nor refuses for them), nor while a script is
  // busy (its keys stay put).
  static bool Oom(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (s.config_.maxmemory == 0 || k.caller != AdmissionCaller::kClient) return false;
    if (s.busy_caller_ != nullptr) return false;
    if (!s.RefuseForMemory(&k.client, &k.spec)) return false;
    return Refuse(v, err::kOom);
  }

  // Persistence errors (stop-writes-on-bgsave-error, AOF write errors): writes and PING get the
  // MISCONF text, and EXEC when its queue holds a write; inside a script each write on its
  // own, PING not.
  static bool Misconf(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (s.refusal_hooks_.n == 0 || Obeys(k) || InExec(k)) return false;
    return MisconfArmed(k, v);
  }
  kCold static bool MisconfArmed(const Call& k, Verdict* v) {
    Server& s = k.server;
    std::string_view refusal = s.WriteRefusal();
    if (refusal.empty() || !s.RefuseForDiskError(&k.client, &k.spec, k.script != nullptr)) {
      return false;
    }
    return Refuse(v, refusal);
  }

  // min-replicas-to-write not met (the replication layer keeps the flag): writes, and EXEC
  // when its queue holds one; a script's writes one by one, until its first write (a script
  // that wrote may finish even if replicas dropped meanwhile, as Redis lets it).
  static bool NoReplicas(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (!s.repl_too_few_replicas || InExec(k)) return false;
    if (k.client.kind() != ClientKind::kNormal && k.script == nullptr) return false;
    if (k.script != nullptr && k.script->wrote) return false;
    if (!s.RefuseForDiskError(&k.client, &k.spec, true)) return false;
    return Refuse(v, err::kNoReplicas);
  }

  // Whether the replica rules apply: this server follows a master, and the command is not the
  // master's (nor a script the master link runs), the AOF's, or one EXEC runs.
  static bool ReplicaRulesApply(const Call& k) {
    return k.server.replica_role_.following && k.principal.kind() != ClientKind::kMasterLink &&
           k.caller != AdmissionCaller::kAofReplay && !InExec(k);
  }

  // READONLY: a replica's own clients may not write (an EXEC whose queue holds a write, a
  // script's write included).
  static bool ReadOnlyReplica(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (!ReplicaRulesApply(k) || !s.config_.replica_read_only) return false;
    return ReadOnlyReplicaArmed(k, v);
  }
  kCold static bool ReadOnlyReplicaArmed(const Call& k, Verdict* v) {
    Server& s = k.server;
    const bool write = (s.InvocationFlagsOf(&k.spec, k.args) & kCmdWrite) != 0 ||
                       (k.spec.full_name == "exec" && QueueHas(k, kCmdWrite, true, true));
    if (!write) return false;
    return Refuse(v, err::kReadOnlyReplica);
  }

  // A script's OOM rule: before the script's first write, a deny-oom command is refused while
  // the server was out of memory when the script started, unless the script allows OOM (after
  // a write, failing would leave half a script applied).
  static bool ScriptOom(const Call& k, Verdict* v) {
    ScriptCallGate* g = k.script;
    if (g == nullptr || g->wrote || g->allow_oom) return false;
    if ((k.spec.flags & (kCmdWrite | kCmdDenyOom)) != (kCmdWrite | kCmdDenyOom)) return false;
    if (k.server.config_.maxmemory == 0 || !k.server.pre_command_oom()) return false;
    return Refuse(v, err::kOom);
  }

  // RESP2 subscribed mode: the connection reads messages, not replies (RESP3 tells the two
  // apart, so it is not restricted).
  static bool Subscribed(const Call& k, Verdict* v) {
    if ((k.spec.flags & kCmdSubscribedContext) != 0 || InExec(k)) return false;
    if (k.client.reply.resp() != 2 || !PubSub::Subscribed(k.client)) return false;
    return RefuseSubscribed(k, v);
  }
  kCold static bool RefuseSubscribed(const Call& k, Verdict* v) {
    return Refuse(v, err::SubscribedContext(k.spec.full_name));
  }

  // MASTERDOWN: the link is down and stale data must not be served: a command without the
  // stale flag, or an EXEC whose queue holds one.
  static bool MasterDownFor(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (!ReplicaRulesApply(k) || s.replica_role_.link_up || s.config_.replica_serve_stale_data) {
      return false;
    }
    return MasterDownArmed(k, v);
  }
  kCold static bool MasterDownArmed(const Call& k, Verdict* v) {
    Server& s = k.server;
    const bool stale_ok = (s.InvocationFlagsOf(&k.spec, k.args) & kCmdStale) != 0 &&
                          !(k.spec.full_name == "exec" && QueueHas(k, kCmdStale, false, true));
    if (stale_ok) return false;
    // A script that was let run (allow-stale) is told of each such command in its own words.
    if (k.script != nullptr) return Refuse(v, err::kScriptStaleReplica);
    return Refuse(v, err::kMasterDown);
  }
  static bool MasterDown(const Call& k, Verdict* v) {
    if (k.script != nullptr) return false;  // judged before ACL (ScriptStale)
    return MasterDownFor(k, v);
  }

  // LOADING: only reachable while a busy script of the AOF being loaded serves the others.
  static bool Loading(const Call& k, Verdict* v) {
    if (!k.server.loading_ || (k.spec.flags & kCmdLoading) != 0) return false;
    if (k.script != nullptr || k.caller == AdmissionCaller::kAofReplay) return false;
    return Refuse(v, err::kLoading);
  }

  // BUSY: a script has run past busy-reply-threshold (server/busy.cc): only the commands that
  // can end it, or that touch no data, are served. Inside MULTI this fails the transaction.
  static bool Busy(const Call& k, Verdict* v) {
    if (k.server.busy_caller_ == nullptr || (k.spec.flags & kCmdAllowBusy) != 0) return false;
    if (k.script != nullptr) return false;
    return RefuseBusy(k, v);
  }
  kCold static bool RefuseBusy(const Call& k, Verdict* v) {
    return Refuse(v, k.server.BusyError());
  }

  // A replica's connection (and a MONITOR connection, a replica to Redis) may not touch keys.
  static bool ReplicaKeyspace(const Call& k, Verdict* v) {
    if (!k.client.has_flag(kClientMonitor) && k.client.kind() != ClientKind::kReplica) {
      return false;
    }
    if ((k.spec.flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate)) == 0) return false;
    return Refuse(v, err::kReplicaKeyspace);
  }

  // CLIENT PAUSE, last: an admitted top-level command the pause holds waits whole, before it is
  // run or queued in MULTI. EXEC's and a script's commands were admitted with them; the AOF's
  // replay is never held. The master's stream is, as in Redis 7.0: a paused replica keeps
  // reading it (slave_read_repl_offset grows) but applies none of its writes, so its data and
  // slave_repl_offset stand still until the pause ends.
  static bool Pause(const Call& k, Verdict* v) {
    Server& s = k.server;
    if (!s.any_pause()) return false;
    if (k.caller != AdmissionCaller::kClient && k.caller != AdmissionCaller::kMasterLink) {
      return false;
    }
    if (!s.ShouldPause(&k.client, &k.spec, k.args)) return false;
    v->hold = true;
    return true;
  }
#undef kCold
};

namespace {

using Check = bool (*)(const AdmissionCall&, AdmissionVerdict*);

// A compile-time list: Run tries each check in order and stops at the first that decides.
template <Check... kChecks>
struct CheckList {
  static bool Run(const AdmissionCall& call, AdmissionVerdict* verdict) {
    return (kChecks(call, verdict) || ...);
  }
};

using A = AdmissionAccess;
// The order (admission.h explains it).
using AdmissionOrder =
    CheckList<&A::Arity, &A::NoScript, &A::Auth, &A::Protected, &A::NoMulti, &A::ScriptStale,
              &A::Acl, &A::ClusterRoute, &A::ScriptReadOnly, &A::Oom, &A::Misconf, &A::NoReplicas,
              &A::ReadOnlyReplica, &A::ScriptOom, &A::ScriptCluster, &A::Subscribed, &A::MasterDown,
              &A::Loading, &A::Busy, &A::ReplicaKeyspace, &A::Pause>;

}  // namespace

AdmissionCaller CallerOf(const Client& c) {
  switch (c.kind()) {
    case ClientKind::kScript:
      return AdmissionCaller::kScript;
    case ClientKind::kAofLoading:
      return AdmissionCaller::kAofReplay;
    case ClientKind::kMasterLink:
      return AdmissionCaller::kMasterLink;
    default:
      return c.has_flag(kClientInExec) ? AdmissionCaller::kExec : AdmissionCaller::kClient;
  }
}

bool Admit(const AdmissionCall& call, AdmissionVerdict* verdict) {
  return AdmissionOrder::Run(call, verdict);
}

std::string AclDenialText(const AclDenial& denial, const CommandSpec& spec,
                          AdmissionCaller caller) {
  using R = AclDenial::Reason;
  if (caller == AdmissionCaller::kScript) {
    switch (denial.reason) {
      case R::kCommand:
        return std::string(err::kNoPermScriptCommand);
      case R::kKey:
        return std::string(err::kNoPermScriptKey);
      case R::kChannel:
        return std::string(err::kNoPermScriptChannel);
    }
  }
  if (caller == AdmissionCaller::kExec) {
    std::string text(err::kNoPermExecPrefix);
    text.append(denial.reason == R::kCommand ? err::kNoPermExecCommand
                : denial.reason == R::kKey   ? err::kNoPermExecKey
                                             : err::kNoPermExecChannel);
    return text;
  }
  switch (denial.reason) {
    case R::kCommand:
      return err::NoPermCommand(spec.full_name);
    case R::kKey:
      return std::string(err::kNoPermKey);
    case R::kChannel:
      break;
  }
  return std::string(err::kNoPermChannel);
}

}  // namespace redistp
