// Dispatch: from parsed arguments to an executed command.
//
// ProcessInput runs every complete request in a client's query buffer. Execute is the one
// admission gate every caller goes through (network, MULTI/EXEC, scripts): command lookup,
// subcommand lookup, arity, authentication, subscribed context, BUSY, maxmemory, MISCONF, and
// last CLIENT PAUSE, which holds an admitted top-level command whole until the pause ends;
// Dispatch adds reply suppression (CLIENT REPLY). Handlers trust their input after it. After
// the handler: command statistics, error statistics, slowlog, latency monitor and MONITOR feed.
#include <algorithm>
#include <cstdio>

#include "protocol/errors.h"
#include "protocol/errors_replica.h"
#include "server/server.h"
#include "util/numbers.h"
#include "util/repr.h"

namespace redistp {
namespace {

std::string UnknownCommandError(const std::vector<std::string_view>& args) {
  std::string rest;
  for (size_t i = 1; i < args.size() && rest.size() < 128; ++i) {
    rest.push_back('\'');
    rest.append(err::UpToNul(args[i]).substr(0, 128 - (rest.size() - 1)));
    rest.append("' ");
  }
  return err::UnknownCommand(args[0], rest);
}

}  // namespace

void Server::ProcessInput(Client* c) {
  c->set_flag(kClientExecuting, true);
  while (!c->closed && !c->blocking.active && !c->has_flag(kClientCloseAfterReply) &&
         c->query.Readable() > 0) {
    ParserLimits limits;
    limits.max_bulk_len = config_.proto_max_bulk_len;
    limits.authenticated = c->authenticated;
    RequestParser::Status st = c->parser.Parse(c->query.View(), limits);
    if (st == RequestParser::Status::kNeedMore) break;
    if (st == RequestParser::Status::kError) {
      log_.Log(LogLevel::kVerbose, "Protocol error (%s) from client: %s", c->parser.error().c_str(),
               c->addr.c_str());
      c->reply.SetEnabled(true);
      c->reply.Error(c->parser.error());
      c->set_flag(kClientCloseAfterReply, true);
      c->query.Clear();
      c->parser.Reset();
      break;
    }
    if (st == RequestParser::Status::kEmpty) {
      c->query.Consume(c->parser.consumed());
      c->parser.Reset();
      continue;
    }
    Dispatch(c);
    if (c->closed) break;
    // The master link: the replica side counts the applied bytes and proxies them to this
    // server's own replicas (server/replica_role.h). A held (paused) request is never the
    // master's: its commands are not held.
    if (c->kind() == ClientKind::kMasterLink && replica_role_.observer != nullptr &&
        !c->has_flag(kClientPostponed)) {
      replica_role_.observer->OnMasterCommandApplied(
          *c, c->query.View().substr(0, c->parser.consumed()), c->parser.args());
      if (c->closed) break;
    }
    if (c->has_flag(kClientPostponed)) {
      // Admitted but held by CLIENT PAUSE: the request stays in the buffer and is parsed and
      // admitted again when the pause ends (UnpauseClients). Until then the client counts as
      // blocked (INFO blocked_clients, flag b), as in Redis 7.0.
      c->set_flag(kClientPostponed, false);
      c->parser.Reset();
      if (!c->has_flag(kClientPaused)) {
        c->set_flag(kClientPaused, true);
        paused_.push_back(c);
      }
      break;
    }
    c->query.Consume(c->parser.consumed());
    c->parser.Reset();
    // Waiters of keys this command made ready are served once it has completed (after EXEC
    // as a whole); then the pushes it caused follow its reply. The client's own tracking
    // invalidations, held until now as Redis 7.0 does, go first.
    tracking_.SendHeldInvalidations();
    ServeReadyKeys();
    ReleaseHeldPushes(*c);
  }
  c->set_flag(kClientExecuting, false);
  if (!c->closed && c->query.Readable() == 0) c->query.ShrinkIfIdle(64 * 1024);
}

uint64_t Server::InvocationFlagsOf(const CommandSpec* spec,
                                   const std::vector<std::string_view>& args) {
  if (spec->invocation_flags == nullptr) return spec->flags;
  return spec->invocation_flags(*this, args, spec->flags);
}

bool Server::ShouldPause(const Client* c, const CommandSpec* spec,
                         const std::vector<std::string_view>& args) {
  if (!any_pause() || spec == nullptr) return false;
  if (c->has_flag(kClientMonitor)) return false;
  if (pause_end_ms_ != 0 && !pause_writes_only_) {
    // ALL mode holds every command, CLIENT UNPAUSE included, as Redis does: the pause ends
    // by its timeout or from a connection whose command was already running.
    return true;
  }
  // WRITE mode (and the server's own pauses) hold what may change data or be propagated:
  // writes, may-replicate commands
  // (PUBLISH, PFCOUNT ...), EVAL/FCALL unless the script declares no-writes, and an EXEC whose
  // transaction holds one of those. Inside MULTI such a command is held before it is queued.
  constexpr uint64_t kHeld = kCmdWrite | kCmdMayReplicate;
  if ((InvocationFlagsOf(spec, args) & kHeld) != 0) return true;
  if (spec->full_name == "exec" && c->multi.active) {
    std::vector<std::string_view> queued_args;
    for (const std::vector<std::string>& queued : c->multi.queue) {
      const CommandSpec* q = commands_.Find(queued[0]);
      if (q == nullptr) continue;
      queued_args.assign(queued.begin(), queued.end());
      if (!q->subcommands.empty() && queued.size() >= 2) {
        const CommandSpec* sub = q->FindSubcommand(queued[1]);
        if (sub != nullptr) q = sub;
      }
      if ((InvocationFlagsOf(q, queued_args) & kHeld) != 0) return true;
    }
  }
  return false;
}

bool Server::RefuseForMemory(const Client* c, const CommandSpec* spec) {
  // During CLIENT PAUSE nothing is evicted and nothing refused for memory (Redis 7.0: the data
  // must not change while paused; writes wait for the pause anyway).
  if (any_pause()) {
    pre_command_oom_ = false;
    return false;
  }
  // Every command gives eviction its chance, whatever its flags (Redis evicts before each).
  pre_command_oom_ = evictor_.Perform() == Evictor::Result::kFail;
  if (!pre_command_oom_) return false;
  if ((spec->flags & kCmdDenyOom) != 0) return true;
  // Inside MULTI queueing itself takes memory, so everything is refused but the commands that
  // end the transaction or the connection; EXEC only if it would run a deny-oom command.
  const std::string& name = spec->full_name;
  if (name == "exec") {
    for (const std::vector<std::string>& queued : c->multi.queue) {
      const CommandSpec* q = commands_.Find(queued[0]);
      if (q != nullptr && (q->flags & kCmdDenyOom) != 0) return true;
    }
    return false;
  }
  return c->multi.active && name != "discard" && name != "quit" && name != "reset";
}

bool Server::RefuseForDiskError(const Client* c, const CommandSpec* spec, bool from_script) const {
  if ((spec->flags & kCmdWrite) != 0) return true;
  const std::string& name = spec->full_name;
  if (name == "ping") return !from_script;
  if (name == "exec") {
    for (const std::vector<std::string>& queued : c->multi.queue) {
      const CommandSpec* q = commands_.Find(queued[0]);
      if (q != nullptr && (q->flags & kCmdWrite) != 0) return true;
    }
  }
  return false;
}

std::string Server::ReplicaRefusal(const Client* c, const CommandSpec* spec,
                                   const std::vector<std::string_view>& args) {
  // Redis's processCommand order: READONLY (a write, or an EXEC whose queue holds one), then
  // MASTERDOWN (a command without the stale flag, or an EXEC whose queue holds one).
  auto queue_has = [&](uint64_t flag, bool want) {
    for (const std::vector<std::string>& queued : c->multi.queue) {
      const CommandSpec* q = commands_.Find(queued[0]);
      if (q == nullptr) continue;
      if (!q->subcommands.empty() && queued.size() >= 2) {
        const CommandSpec* sub = q->FindSubcommand(queued[1]);
        if (sub != nullptr) q = sub;
      }
      if (((q->flags & flag) != 0) == want) return true;
    }
    return false;
  };
  const bool is_exec = spec->full_name == "exec";
  const uint64_t flags = InvocationFlagsOf(spec, args);
  if (config_.replica_read_only &&
      ((flags & kCmdWrite) != 0 || (is_exec && queue_has(kCmdWrite, true)))) {
    return std::string(err::kReadOnlyReplica);
  }
  if (!replica_role_.link_up && !config_.replica_serve_stale_data &&
      ((flags & kCmdStale) == 0 || (is_exec && queue_has(kCmdStale, false)))) {
    // A script that was let run (allow-stale) is told of each such command in its own words.
    if (c->kind() == ClientKind::kScript) return std::string(err::kScriptStaleReplica);
    return std::string(err::kMasterDown);
  }
  return {};
}

void Server::PauseClients(int64_t until_ms, bool writes_only) {
  // A new pause extends, never shortens; ALL wins over WRITE while both are active, so a
  // WRITE pause never downgrades a running ALL pause (CLIENT fix: it used to).
  if (pause_end_ms_ == 0) {
    pause_writes_only_ = writes_only;
  } else if (!writes_only) {
    pause_writes_only_ = false;
  }
  if (until_ms > pause_end_ms_) pause_end_ms_ = until_ms;
  // Expiry and eviction stop during any pause (keyspace_.expiry, RefuseForMemory).
  keyspace_.expiry.SetPaused(true);
}

void Server::UnpauseClients() {
  pause_end_ms_ = 0;
  pause_writes_only_ = false;
  ResumePausedClients();
}

void Server::SetWritePause(WritePause why, bool on) {
  const uint8_t before = server_pauses_;
  server_pauses_ = on ? (server_pauses_ | why) : (server_pauses_ & ~why);
  if (server_pauses_ != 0) {
    keyspace_.expiry.SetPaused(true);
  } else if (before != 0 && pause_end_ms_ == 0) {
    ResumePausedClients();
  }
}

void Server::ResumePausedClients() {
  // Another pause may still hold writes: then expiry stays stopped, and the clients resumed
  // below whose command it holds are held again by ProcessInput.
  if (!any_pause()) {
    keyspace_.expiry.SetPaused(false);
    // Watched keys whose TTL passed during the pause get their DEL now.
    if (watches_.next_deadline() != 0) OnWatchDeadlineChanged(watches_.next_deadline());
  }
  std::vector<Client*> resume;
  resume.swap(paused_);
  for (Client* c : resume) {
    if (c->closed) continue;
    c->set_flag(kClientPaused, false);
    ProcessInput(c);
    if (!c->closed) FlushClient(c);
  }
}

void Server::Dispatch(Client* c) {
  // CLIENT REPLY OFF/SKIP decide whether this command's reply is sent at all.
  const bool skip_next = c->has_flag(kClientReplySkipNext);
  if (skip_next) {
    c->set_flag(kClientReplySkipNext, false);
    c->set_flag(kClientReplySkip, true);
  }
  // The master link's replies are never sent (the replica side answers REPLCONF GETACK itself).
  c->reply.SetEnabled(!c->has_flag(kClientReplyOff) && !c->has_flag(kClientReplySkip) &&
                      c->kind() != ClientKind::kMasterLink);
  // Client-side caching: the key table is held to tracking-table-max-keys before each command.
  if (tracking_.clients() > 0) tracking_.EnforceLimit(config_.tracking_table_max_keys);
  Execute(c, c->parser.args());
  if (c->has_flag(kClientPostponed)) {
    // Held by CLIENT PAUSE, not run: nothing counted, and a CLIENT REPLY SKIP still applies to
    // it when it runs.
    if (skip_next) {
      c->set_flag(kClientReplySkip, false);
      c->set_flag(kClientReplySkipNext, true);
    }
    c->reply.SetEnabled(true);
    return;
  }
  Tracking::EndTopLevelCommand(*c, c->parser.args()[0]);
  ++stats_.total_commands_processed;
  if (c->has_flag(kClientReplySkip)) c->set_flag(kClientReplySkip, false);
  c->reply.SetEnabled(true);
  if (!c->closed) CheckOutputLimits(c);
}

void Server::Execute(Client* c, const std::vector<std::string_view>& args) {
  int64_t start_us = NowUs();
  // Inside a script time stands still for the keyspace: a key does not expire between two
  // commands of one script (Redis 7.0 uses the script's start time). The script engine holds
  // the command clock frozen while the script runs, so this Update changes nothing there.
  const bool from_script = c->kind() == ClientKind::kScript;
  keyspace_.command_clock.Update(start_us / 1000);
  if (!from_script) c->last_interaction_ms = start_us / 1000;

  uint64_t errors_before = c->reply.errors_written();
  uint64_t uncounted_before = c->reply.errors_uncounted();
  const CommandSpec* spec = commands_.Find(args[0]);
  const CommandSpec* rejected_spec = nullptr;
  std::string rejection;
  if (spec == nullptr) {
    rejection = UnknownCommandError(args);
    if (!c->has_flag(kClientInExec) && !from_script) c->last_cmd = "NULL";
  } else {
    if (!spec->subcommands.empty() && args.size() >= 2) {
      const CommandSpec* sub = spec->FindSubcommand(args[1]);
      // The propagation stream's own records exist only for the ones replaying it.
      if (sub == nullptr &&
          (c->kind() == ClientKind::kAofLoading || c->kind() == ClientKind::kMasterLink)) {
        sub = spec->FindInternalSubcommand(args[1]);
      }
      if (sub == nullptr) {
        std::string upper(spec->name);
        for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        rejection = err::UnknownSubcommand(args[1].substr(0, 128), upper);
        rejected_spec = spec;
      } else {
        spec = sub;
      }
    }
    // CLIENT LIST's cmd= names the command being run, set as soon as it is looked up (even if
    // rejected below), as Redis does; commands run by EXEC leave it at "exec".
    if (!c->has_flag(kClientInExec) && !from_script)
      c->last_cmd =
          rejection.empty() ? std::string_view(spec->full_name) : std::string_view("NULL");
    if (rejection.empty()) {
      int argc = static_cast<int>(args.size());
      if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
        rejection = err::WrongArity(spec->full_name);
        rejected_spec = spec;
      } else if (!c->authenticated && (spec->flags & kCmdNoAuth) == 0) {
        rejection = std::string(err::kNoAuth);
        rejected_spec = spec;
      } else if (c->has_flag(kClientInExec) && (spec->flags & kCmdNoMulti) != 0) {
        rejection = std::string(err::kNotAllowedInMulti);
        rejected_spec = spec;
      } else if ((spec->flags & kCmdSubscribedContext) == 0 && c->reply.resp() == 2 &&
                 !c->has_flag(kClientInExec) && PubSub::Subscribed(*c)) {
        // RESP2 subscribed mode: the connection reads messages, not replies (RESP3 tells the
        // two apart, so it is not restricted).
        rejection = err::SubscribedContext(spec->full_name);
        rejected_spec = spec;
      } else if (loading_ && (spec->flags & kCmdLoading) == 0 && !from_script &&
                 c->kind() != ClientKind::kAofLoading) {
        // Only reachable while a busy script of the AOF being loaded serves the others.
        rejection = std::string(err::kLoading);
        rejected_spec = spec;
      } else if (busy_caller_ != nullptr && (spec->flags & kCmdAllowBusy) == 0 && !from_script) {
        // A script has run past busy-reply-threshold (server/busy.cc): only the commands that
        // can end it, or that touch no data, are served. Inside MULTI this fails the
        // transaction like any rejection, as in Redis.
        rejection = std::string(BusyError());
        rejected_spec = spec;
      } else if ((c->has_flag(kClientMonitor) || c->kind() == ClientKind::kReplica) &&
                 (spec->flags & (kCmdWrite | kCmdReadOnly | kCmdMayReplicate)) != 0) {
        // A MONITOR connection is a replica to Redis, and replicas may not touch keys (checked
        // after the subscribed context and BUSY, in Redis's order).
        rejection = std::string(err::kReplicaKeyspace);
        rejected_spec = spec;
      }
      // maxmemory comes after authentication and before MULTI queueing, as in Redis; commands
      // EXEC runs were admitted (or refused) as a whole when EXEC was.
      // Scripts apply their own OOM rule (scripting/script_engine.h). While a script is busy
      // nothing is evicted (the script's keys stay put) and nothing refused for memory.
      // The AOF's replay is never refused: Redis neither evicts nor refuses while loading.
      if (rejection.empty() && config_.maxmemory != 0 && busy_caller_ == nullptr &&
          c->kind() != ClientKind::kAofLoading && c->kind() != ClientKind::kMasterLink &&
          !c->has_flag(kClientInExec) && !from_script && RefuseForMemory(c, spec)) {
        rejection = std::string(err::kOom);
        rejected_spec = spec;
      }
      // Persistence errors (stop-writes-on-bgsave-error, AOF write errors) come after maxmemory,
      // as in Redis: write commands and PING get the MISCONF text, and EXEC when its queue
      // holds a write (the commands EXEC runs were admitted with it). Inside a script each
      // write is refused on its own, PING is not.
      if (rejection.empty() && refusal_hooks_.n != 0 && c->kind() != ClientKind::kAofLoading &&
          c->kind() != ClientKind::kMasterLink && !c->has_flag(kClientInExec)) {
        std::string_view refusal = WriteRefusal();
        if (!refusal.empty() && RefuseForDiskError(c, spec, from_script)) {
          rejection = std::string(refusal);
          rejected_spec = spec;
        }
      }
      // A replica (server/replica_role.h): READONLY for its own clients' writes (a script's
      // writes too), MASTERDOWN while the link is down and stale data must not be served. The
      // master link (and a script it runs) and the AOF's replay obey; commands EXEC runs were
      // judged with EXEC.
      if (rejection.empty() && replica_role_.following &&
          c->session().kind() != ClientKind::kMasterLink && c->kind() != ClientKind::kAofLoading &&
          !c->has_flag(kClientInExec)) {
        rejection = ReplicaRefusal(c, spec, args);
        if (!rejection.empty()) rejected_spec = spec;
      }
      // min-replicas-to-write not met (the replication layer keeps the flag): write commands,
      // and EXEC when its queue holds one, get NOREPLICAS after MISCONF, as in Redis. A script's
      // writes are judged by the script engine (only until the script's first write). The AOF's
      // replay and the master's stream are exempt.
      if (rejection.empty() && repl_too_few_replicas && !c->has_flag(kClientInExec) &&
          c->kind() == ClientKind::kNormal && RefuseForDiskError(c, spec, true)) {
        rejection = std::string(err::kNoReplicas);
        rejected_spec = spec;
      }
    }
  }

  // CLIENT PAUSE comes after every other admission check, as in Redis 7.0: a command that is
  // refused (unknown, arity, NOAUTH, OOM, MISCONF, BUSY ...) is answered at once, one that the
  // pause holds waits whole, before it is run or queued in MULTI. Commands EXEC or a script
  // runs were admitted with it; the AOF's replay is never held.
  // The master link's stream is never held either (a replica applies what its master did).
  if (rejection.empty() && any_pause() && !c->has_flag(kClientInExec) && !from_script &&
      c->kind() != ClientKind::kAofLoading && c->kind() != ClientKind::kMasterLink &&
      ShouldPause(c, spec, args)) {
    c->set_flag(kClientPostponed, true);
    return;
  }

  if (!rejection.empty() && spec != nullptr && (spec->flags & kCmdAbortsMultiOnReject) != 0) {
    // EXEC itself rejected (arity, NOAUTH, ...): Redis 7.0 answers EXECABORT and discards the
    // transaction and the WATCHed keys, inside MULTI or not ("EXEC x" alone gets EXECABORT too).
    c->reply.Error(err::ExecAbort(rejection));
    if (rejected_spec != nullptr) ++rejected_spec->stats.rejected_calls;
    c->DiscardTransaction(exec_watches_);
  } else if (c->multi.active && !c->has_flag(kClientInExec) &&
             (spec == nullptr || !rejection.empty() || (spec->flags & kCmdRunsInMulti) == 0)) {
    // Queue (or flag the transaction as failed), replying QUEUED or the error.
    if (!rejection.empty()) {
      c->multi.failed = true;
      c->reply.Error(rejection);
      if (rejected_spec != nullptr) ++rejected_spec->stats.rejected_calls;
    } else if ((spec->flags & kCmdNoMulti) != 0) {
      c->multi.failed = true;
      c->reply.Error(err::kNotAllowedInMulti);
    } else {
      c->multi.queue.emplace_back(args.begin(), args.end());
      c->reply.Simple("QUEUED");
    }
  } else if (!rejection.empty()) {
    if (spec != nullptr && (spec->flags & kCmdAbortsMultiOnReject) != 0 &&
        !c->has_flag(kClientInExec)) {
      // Redis answers any rejected EXEC with EXECABORT, even outside MULTI, and drops the
      // connection's WATCHes as a discarded transaction does.
      c->reply.Error(err::ExecAbort(rejection));
      exec_watches_.UnwatchAll(c->id);
    } else {
      c->reply.Error(rejection);
    }
    if (rejected_spec != nullptr) ++rejected_spec->stats.rejected_calls;
  } else {
    CommandContext ctx{
        *this,
        *c,
        *c->db,
        args,
        c->reply,
        *spec,
        propagator_,
        from_script ? ExecOrigin::kScript
                    : (c->has_flag(kClientInExec) ? ExecOrigin::kMulti : ExecOrigin::kClient)};
    const int db_index = c->db_index;
    // Records are only built while a consumer (AOF, replica, a test) is attached, or inside a
    // command that is bracketed itself (so a nested command's wishes stay its own); otherwise
    // the bracket is skipped altogether, which keeps the common path free of it.
    const bool propagate = propagator_.wants_frames();
    Propagator::Frame frame{};
    if (propagate) frame = propagator_.BeginCommand();
    // EXEC runs its commands from inside its own handler: restore the outer one afterwards.
    const Client* outer_client = running_client_;
    const std::vector<std::string_view>* outer_args = running_args_;
    const CommandSpec* outer_spec = running_spec_;
    // A script's commands run for its caller: changes are the caller's (tracking's NOLOOP).
    running_client_ = &c->session();
    running_args_ = &args;
    running_spec_ = spec;
    // A write that runs during CLIENT PAUSE (the rest of the transaction that paused) sees and
    // deletes expired keys as usual: it may create the key anew (keyspace_state.h, LiftPause).
    // On a replica the same holds for a write of its own clients (a writable replica), and
    // the master link sees every key its master still has: nothing expires under it (Redis's
    // replicas leave expiry to the master's DELs).
    {
      ExpiryGate::Scope lift =
          keyspace_.expiry.LiftPause((spec->flags & kCmdWrite) != 0 && keyspace_.expiry.holding());
      ExpiryGate::Scope from_master =
          keyspace_.expiry.Suspend(c->kind() == ClientKind::kMasterLink);
      spec->handler(ctx);
    }
    running_client_ = outer_client;
    running_args_ = outer_args;
    running_spec_ = outer_spec;
    // A tracking client remembers the keys its command read. A read inside a script makes Redis 7.0
    // remember the keys of the script call itself (EVAL's declared KEYS) for the caller.
    if (!from_script) {
      tracking_.AfterCommand(*c, *spec, args);
    } else if ((spec->flags & kCmdReadOnly) != 0 && outer_spec != nullptr &&
               outer_args != nullptr) {
      tracking_.RememberCallerKeys(c->session(), *outer_spec, *outer_args);
    }
    if (propagate) propagator_.EndCommand(frame, db_index, args);
    int64_t duration = NowUs() - start_us;
    ++spec->stats.calls;
    spec->stats.usec += static_cast<uint64_t>(duration);
    if (c->reply.errors_written() != errors_before) ++spec->stats.failed_calls;
    RecordCall(c, spec, args, duration);
    // A script's commands count as processed commands too (Redis 7.0); the network path counts
    // its own in Dispatch.
    if (from_script) ++stats_.total_commands_processed;
  }
  if (c->reply.errors_written() - errors_before > c->reply.errors_uncounted() - uncounted_before) {
    ++stats_.total_error_replies;
    ++stats_.error_counts[std::string(c->reply.last_error_prefix())];
  }
}

void Server::RecordCall(Client* c, const CommandSpec* spec,
                        const std::vector<std::string_view>& args, int64_t duration_us) {
  bool to_slowlog = (spec->flags & kCmdSkipSlowlog) == 0 && config_.slowlog_log_slower_than >= 0 &&
                    duration_us >= config_.slowlog_log_slower_than;
  bool to_monitors = !monitors_.empty() && (spec->flags & (kCmdSkipMonitor | kCmdAdmin)) == 0;
  std::vector<std::string_view> shown;  // args with secrets redacted, built only when logged
  if (to_slowlog || to_monitors) {
    shown = args;
    if (spec->redact != nullptr) spec->redact(shown);
  }
  if (to_slowlog) {
    SlowlogEntry e;
    e.id = slowlog_next_id_++;
    e.time_sec = NowMs() / 1000;
    e.duration_us = duration_us;
    constexpr size_t kMaxArgs = 32, kMaxArgLen = 128;
    size_t n = std::min(shown.size(), kMaxArgs);
    for (size_t i = 0; i < n; ++i) {
      if (i == kMaxArgs - 1 && shown.size() > kMaxArgs) {
        e.args.push_back("... (" + std::to_string(shown.size() - kMaxArgs + 1) +
                         " more arguments)");
        break;
      }
      if (shown[i].size() > kMaxArgLen) {
        e.args.push_back(std::string(shown[i].substr(0, kMaxArgLen)) + "... (" +
                         std::to_string(shown[i].size() - kMaxArgLen) + " more bytes)");
      } else {
        e.args.emplace_back(shown[i]);
      }
    }
    e.peer = c->addr;
    e.name = c->name;
    slowlog_.push_front(std::move(e));
    while (slowlog_.size() > static_cast<size_t>(std::max<int64_t>(config_.slowlog_max_len, 0))) {
      slowlog_.pop_back();
    }
  }
  if (config_.latency_monitor_threshold > 0 &&
      duration_us / 1000 >= config_.latency_monitor_threshold) {
    LatencyAddSample((spec->flags & kCmdFast) ? "fast-command" : "command",
                     static_cast<uint32_t>(duration_us / 1000));
  }
  if (to_monitors) FeedMonitors(*c, shown);
}

void Server::FeedMonitors(const Client& c, const std::vector<std::string_view>& args) {
  int64_t now_us = NowUs();
  char head[96];
  // A script's commands show as "lua" (its client's peer address is "?:0", as SLOWLOG shows).
  std::string where = c.kind() == ClientKind::kScript ? std::string("lua")
                      : c.has_flag(kClientUnixSocket) ? "unix:" + config_.unixsocket
                                                      : c.addr;
  std::snprintf(head, sizeof(head), "+%ld.%06ld [%d ", static_cast<long>(now_us / 1000000),
                static_cast<long>(now_us % 1000000), c.db_index);
  std::string line = head;
  line.append(where);
  line.push_back(']');
  for (std::string_view a : args) {
    line.push_back(' ');
    AppendRepr(&line, a);
  }
  line.append("\r\n");
  for (Client* m : monitors_) {
    if (m->closed) continue;
    m->out.Append(line);
    ScheduleFlush(m);
  }
}

void Server::LatencyAddSample(const std::string& event, uint32_t ms) {
  LatencyEvent& ev = latency_[event];
  int64_t now = NowMs() / 1000;
  if (!ev.history.empty() && ev.history.back().time_sec == now) {
    ev.history.back().latency_ms = std::max(ev.history.back().latency_ms, ms);
  } else {
    ev.history.push_back({now, ms});
    if (ev.history.size() > 160) ev.history.pop_front();
  }
  ev.max_ms = std::max(ev.max_ms, ms);
}

Status Server::SelectDb(Client& c, int64_t index) {
  if (index < 0 || index >= db_count()) return Status::Error(std::string(err::kDbIndexRange));
  c.db_index = static_cast<int>(index);
  c.db = dbs_[static_cast<size_t>(index)].get();
  return Status::Ok();
}

}  // namespace redistp
