// Dispatch: from parsed arguments to an executed command.
//
// ProcessInput runs every complete request in a client's query buffer. Execute is the one
// admission gate every caller goes through (network, MULTI/EXEC, scripts, the AOF's replay and
// the master's stream): command and subcommand lookup, then the ordered list of checks of
// server/admission.h (arity, NOAUTH, ACL, OOM, MISCONF, ..., and last CLIENT PAUSE, which holds
// an admitted top-level command whole until the pause ends); Dispatch adds reply suppression
// (CLIENT REPLY). Handlers trust their input after it. After the handler: command statistics,
// error statistics, slowlog, latency monitor and MONITOR feed.
#include <algorithm>
#include <cstdio>

#include "protocol/errors.h"
#include "server/admission.h"
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
  // The end of one request is the start of the next (server.h, next_start_us_): a pipeline
  // reads the clock once per command, not twice. Only a small request carries it, so the parse
  // it folds into the next command's time stays a matter of nanoseconds.
  constexpr size_t kCarryMaxRequest = 1024;
  int64_t carry_us = 0;
  while (!c->closed && !c->blocking.active && !c->has_flag(kClientCloseAfterReply) &&
         c->query.Readable() > 0) {
    ParserLimits limits;
    limits.max_bulk_len = config_.proto_max_bulk_len;
    limits.authenticated = c->authenticated || !AuthRequired();
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
    next_start_us_ = c->parser.consumed() <= kCarryMaxRequest ? carry_us : 0;
    last_end_us_ = 0;
    Dispatch(c);
    next_start_us_ = 0;
    carry_us = last_end_us_;
    const uint64_t executions = executions_;
    if (c->closed) break;
    // The master link: the replica side counts the applied bytes and proxies them to this
    // server's own replicas (server/replica_role.h). A request CLIENT PAUSE holds is counted
    // when it runs, after the pause.
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
    if (executions_ != executions) carry_us = 0;  // waiters ran since: read the clock again
  }
  c->set_flag(kClientExecuting, false);
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
  // Keys evicted for this command were removed before it ran: their invalidations, held as
  // the running client's own would be, go out now, before its reply (as in Redis 7.0).
  // Nothing else is held here: a top-level command's admission follows the previous
  // command's SendHeldInvalidations and ReleaseHeldPushes.
  tracking_.SendHeldInvalidations();
  // So do the pushes the evictions made for the connection itself (held while it executes).
  if (c->pending_pushes.Readable() != 0) {
    if (Client* self = FindClient(c->id); self != nullptr) ReleaseHeldPushes(*self);
  }
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
  // ASKING holds for the next command only (a transaction keeps it until EXEC).
  if (c->has_flag(kClientAsking) && !c->multi.active && c->last_cmd != "asking") {
    c->set_flag(kClientAsking, false);
  }
  ++stats_.total_commands_processed;
  if (c->has_flag(kClientReplySkip)) c->set_flag(kClientReplySkip, false);
  c->reply.SetEnabled(true);
  if (!c->closed) CheckOutputLimits(c);
}

void Server::Execute(Client* c, const std::vector<std::string_view>& args, ScriptCallGate* script) {
  ++executions_;
  int64_t start_us = next_start_us_ != 0 ? next_start_us_ : NowUs();
  next_start_us_ = 0;
  // Inside a script time stands still for the keyspace: a key does not expire between two
  // commands of one script (Redis 7.0 uses the script's start time). The script engine holds
  // the command clock frozen while the script runs, so this Update changes nothing there.
  const bool from_script = c->kind() == ClientKind::kScript;
  keyspace_.command_clock.Update(start_us / 1000);
  if (!from_script) c->last_interaction_ms = start_us / 1000;

  const uint64_t errors_before = c->reply.errors_written();
  const uint64_t uncounted_before = c->reply.errors_uncounted();
  const uint64_t exec_counted_before = exec_counted_errors_;
  const CommandSpec* ran = nullptr;  // the command, when it ran (for failed_calls)
  // The lookup gives the checks their row: an unknown command or subcommand is refused here
  // (a script's call with its own text, counted against no row, as Redis's script path).
  const CommandSpec* spec = commands_.Find(args[0]);
  const CommandSpec* rejected_spec = nullptr;
  std::string rejection;
  bool redirect = false;  // a cluster redirection of EXEC (AdmissionVerdict::redirect)
  if (spec == nullptr) {
    rejection = from_script ? std::string(err::kScriptUnknownCommand) : UnknownCommandError(args);
    if (!c->has_flag(kClientInExec) && !from_script) c->last_cmd = "NULL";
  } else {
    if (!spec->subcommands.empty() && args.size() >= 2) {
      const CommandSpec* sub = spec->FindSubcommand(args[1]);
      // The propagation stream's own records exist only for the ones replaying it.
      if (sub == nullptr &&
          (c->kind() == ClientKind::kAofLoading || c->kind() == ClientKind::kMasterLink)) {
        sub = spec->FindInternalSubcommand(args[1]);
      }
      if (sub == nullptr && from_script) {
        rejection = std::string(err::kScriptUnknownCommand);
      } else if (sub == nullptr) {
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
    // Client eviction comes before the admission checks and key eviction, as in Redis: the
    // replies of the commands this connection ran since it was last counted may have taken the
    // connections past maxmemory-clients, and closing connections may spare keys. A connection
    // closed here (this one included) runs nothing more.
    if (rejection.empty() && config_.maxmemory_clients != 0 && c->kind() == ClientKind::kNormal &&
        !c->has_flag(kClientInExec) && !from_script && !UpdateClientMemoryAndEvict(c)) {
      return;
    }
    if (rejection.empty()) {
      // The ordered checks (server/admission.h): refused, held by CLIENT PAUSE, or admitted.
      AdmissionVerdict verdict;
      const AdmissionCall call{*this, *c, c->session(), *spec, args, CallerOf(*c), script};
      if (Admit(call, &verdict)) {
        if (verdict.hold) {
          // Held whole until the pause ends: ProcessInput keeps the request in the buffer.
          c->set_flag(kClientPostponed, true);
          return;
        }
        rejection = std::move(verdict.text);
        rejected_spec = spec;
        redirect = verdict.redirect;
      } else if (script != nullptr && (spec->flags & kCmdWrite) != 0) {
        // The script has written from here on (its OOM rule, SCRIPT KILL's UNKILLABLE).
        script->wrote = true;
      }
    }
  }

  if (redirect) {
    // A cluster redirection of EXEC: the plain text, and the transaction is gone.
    c->reply.Error(rejection);
    if (rejected_spec != nullptr) ++rejected_spec->stats.rejected_calls;
    c->DiscardTransaction(exec_watches_);
  } else if (!rejection.empty() && spec != nullptr &&
             (spec->flags & kCmdAbortsMultiOnReject) != 0 && !from_script) {
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
    } else {
      c->multi.queue.emplace_back(args.begin(), args.end());
      c->reply.Simple("QUEUED");
    }
  } else if (!rejection.empty()) {
    if (spec != nullptr && (spec->flags & kCmdAbortsMultiOnReject) != 0 &&
        !c->has_flag(kClientInExec) && !from_script) {
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
      // CLIENT NO-TOUCH: the connection's reads (a script's too: session()) leave the keys'
      // access data, except TOUCH, whose purpose is to touch.
      // Only such a connection pays for it (a nested command restores its caller's setting).
      const bool no_touch_client = c->session().has_flag(kClientNoTouch);
      const bool outer_no_touch = keyspace_.no_touch;
      if (no_touch_client) keyspace_.no_touch = spec->full_name != "touch";
      spec->handler(ctx);
      if (no_touch_client) keyspace_.no_touch = outer_no_touch;
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
    const int64_t end_us = NowUs();
    last_end_us_ = end_us;
    int64_t duration = end_us - start_us;
    ran = spec;
    if (c->blocking.active && !from_script) {
      // It blocked: accounted when the block ends (RecordBlockedCall); MONITOR sees it now.
      BlockedCall& call = blocked_calls_[c->id];
      call.spec = spec;
      call.duration_us = duration;
      call.args.assign(args.begin(), args.end());
      RecordCall(c, spec, args, duration, /*timed=*/false);
    } else {
      ++spec->stats.calls;
      spec->stats.usec += static_cast<uint64_t>(duration);
      if (config_.latency_tracking) {
        spec->stats.latency.Record(static_cast<uint64_t>(duration) * 1000);
      }
      RecordCall(c, spec, args, duration);
    }
    // A script's commands count as processed commands too (Redis 7.0); the network path counts
    // its own in Dispatch.
    if (from_script) ++stats_.total_commands_processed;
  }
  // Error statistics count an error reply once, where it arose: errors a script's command
  // already counted (ErrorCounted) and those the commands EXEC ran counted are not counted
  // again for the script call or the EXEC.
  const uint64_t counted_elsewhere = (c->reply.errors_uncounted() - uncounted_before) +
                                     (exec_counted_errors_ - exec_counted_before);
  if (c->reply.errors_written() - errors_before > counted_elsewhere) {
    ++stats_.total_error_replies;
    ++stats_.error_counts[std::string(c->reply.last_error_prefix())];
    if (c->has_flag(kClientInExec) && !from_script) ++exec_counted_errors_;
  }
  // Redis 7.0's rule for failed_calls: errors were counted since the previous command ended,
  // wherever written (CLIENT UNBLOCK ... ERROR fails too: its target's error is counted during
  // it), or the command replied an error counted inside it (a script's). So EXEC, whose
  // commands counted their own errors as they ended, is not failed by them.
  if (ran != nullptr && (stats_.total_error_replies != error_mark_ ||
                         c->reply.errors_uncounted() != uncounted_before)) {
    ++ran->stats.failed_calls;
  }
  error_mark_ = stats_.total_error_replies;
}

void Server::RecordBlockedCall(Client* c) {
  auto it = blocked_calls_.find(c->id);
  if (it == blocked_calls_.end()) return;
  BlockedCall call = std::move(it->second);
  blocked_calls_.erase(it);
  const CommandSpec* spec = call.spec;
  ++spec->stats.calls;
  spec->stats.usec += static_cast<uint64_t>(call.duration_us);
  if (config_.latency_tracking) {
    spec->stats.latency.Record(static_cast<uint64_t>(call.duration_us) * 1000);
  }
  std::vector<std::string_view> args(call.args.begin(), call.args.end());
  RecordCall(c, spec, args, call.duration_us, /*timed=*/true, /*monitored=*/false);
}

void Server::RecordCall(Client* c, const CommandSpec* spec,
                        const std::vector<std::string_view>& args, int64_t duration_us, bool timed,
                        bool monitored) {
  bool to_slowlog = timed && (spec->flags & kCmdSkipSlowlog) == 0 &&
                    config_.slowlog_log_slower_than >= 0 &&
                    duration_us >= config_.slowlog_log_slower_than;
  bool to_monitors =
      monitored && !monitors_.empty() && (spec->flags & (kCmdSkipMonitor | kCmdAdmin)) == 0;
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
  if (timed && config_.latency_monitor_threshold > 0 &&
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
