// SYNC, PSYNC, REPLCONF, WAIT, WAITAOF: the master side's commands (replication/master_side.h acts;
// this file parses the arguments and answers bad input with Redis's errors, 7.2's for WAITAOF).
//
// REPLCONF takes option/value pairs, each checked in order, as Redis does: a failing pair
// answers its error and the pairs before it have taken effect. ACK and GETACK never reply
// (a replica's ACKs are fire-and-forget; GETACK is answered by an ACK on a replica's master
// link, which the replica side sends). rdb-only and rdb-filter-only shape the snapshot the
// connection's SYNC gets (replication/master_handshake.cc).
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "replication/failover.h"
#include "replication/master_side.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/command.h"
#include "server/config_parse.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

namespace {

// Longest REPLCONF ip-address Redis accepts (NET_HOST_STR_LEN - 1).
constexpr size_t kMaxAnnouncedIp = 255;

void SyncCommand(CommandContext& c) {
  Replication::Of(c.server).master().SyncCommand(c.client, false, {}, 0);
}

void PsyncCommand(CommandContext& c) {
  int64_t offset = 0;
  if (!ParseInt64(c.args[2], &offset)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  // PSYNC <replid> <offset> FAILOVER: our master hands over to us (replication/failover.h);
  // once promoted the PSYNC goes on as any master's. Other extra arguments are ignored.
  if (c.args.size() > 3 && EqualsIgnoreCase(c.args[3], "failover")) {
    std::string_view error =
        Replication::Of(c.server).failover().AcceptFailoverPsync(c.client, c.args[1]);
    if (!error.empty()) {
      c.reply.Error(error);
      return;
    }
  }
  Replication::Of(c.server).master().SyncCommand(c.client, true, c.args[1], offset);
}

// REPLCONF rdb-filter-only <filters>: the value holds words split as Redis splits arguments,
// each naming a part of the snapshot to include (`functions`: the function libraries); the
// keys are never included. As Redis 7.0 does, no word at all (redis-cli --replica's "") asks
// for neither part: an empty snapshot. A bad word answers its error with the words before it
// already applied. False when it replied an error.
bool SetRdbFilter(CommandContext& c, MasterSide& m, std::string_view val) {
  std::vector<std::string> words;
  if (!SplitConfigLine(val, &words)) {
    c.reply.Error(err::kRdbFilterMissing);
    return false;
  }
  uint8_t exclude = kExcludeData | kExcludeFunctions;
  for (const std::string& w : words) {
    if (!EqualsIgnoreCase(w, "functions")) {
      m.SetRdbExclude(c.client, exclude);
      c.reply.Error(err::UnsupportedRdbFilter(w));
      return false;
    }
    exclude &= static_cast<uint8_t>(~kExcludeFunctions);
  }
  m.SetRdbExclude(c.client, exclude);
  return true;
}

void ReplconfCommand(CommandContext& c) {
  if (c.args.size() % 2 == 0) {
    c.reply.Error(err::kSyntax);
    return;
  }
  MasterSide& m = Replication::Of(c.server).master();
  for (size_t i = 1; i + 1 < c.args.size(); i += 2) {
    std::string_view opt = c.args[i];
    std::string_view val = c.args[i + 1];
    if (EqualsIgnoreCase(opt, "listening-port")) {
      int64_t port = 0;
      if (!ParseInt64(val, &port)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      m.SetListeningPort(c.client, static_cast<int>(port));
    } else if (EqualsIgnoreCase(opt, "ip-address")) {
      if (val.size() > kMaxAnnouncedIp) {
        c.reply.Error(err::ReplconfIpTooLong(val.size()));
        return;
      }
      m.SetAnnouncedIp(c.client, val);
    } else if (EqualsIgnoreCase(opt, "capa")) {
      m.AddCapa(c.client, val);  // unknown capabilities are ignored, as Redis does
    } else if (EqualsIgnoreCase(opt, "ack")) {
      // REPLCONF ACK <offset> [FACK <aofoffset>]: only a replica's count; never a reply.
      // The FACK pair (Redis 7.2 replicas) is the offset their AOF has fsynced (WAITAOF).
      int64_t offset = 0;
      int64_t fack = -1;
      if (i + 3 < c.args.size() && EqualsIgnoreCase(c.args[i + 2], "fack") &&
          !ParseInt64(c.args[i + 3], &fack)) {
        fack = -1;
      }
      if (ParseInt64(val, &offset)) m.Ack(c.client, offset, fack);
      return;
    } else if (EqualsIgnoreCase(opt, "getack")) {
      // Meaningful on a replica's master link only (the replica side answers it); never a
      // reply.
      return;
    } else if (EqualsIgnoreCase(opt, "rdb-only")) {
      int64_t v = 0;
      if (!ParseInt64(val, &v)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (v != 0 && v != 1) {
        c.reply.Error(err::kRdbOnlyRange);
        return;
      }
      m.SetRdbOnly(c.client, v == 1);
    } else if (EqualsIgnoreCase(opt, "rdb-filter-only")) {
      if (!SetRdbFilter(c, m, val)) return;
    } else {
      c.reply.Error(err::UnrecognizedReplconf(opt));
      return;
    }
  }
  c.reply.Ok();
}

void WaitCommand(CommandContext& c) {
  Replication& repl = Replication::Of(c.server);
  if (repl.is_replica()) {
    c.reply.Error(err::kWaitOnReplica);
    return;
  }
  int64_t numreplicas = 0;
  if (!ParseInt64(c.args[1], &numreplicas)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  int64_t timeout = 0;
  if (!ParseInt64(c.args[2], &timeout)) {
    c.reply.Error(err::kTimeoutNotInteger);
    return;
  }
  if (timeout < 0) {
    c.reply.Error(err::kTimeoutNegative);
    return;
  }
  repl.master().WaitCommand(c.client, c.client.has_flag(kClientInExec), numreplicas, timeout);
}

// WAITAOF numlocal numreplicas timeout (Redis 7.2). The arguments are checked first, then the
// role, then whether a local fsync can be asked for, as Redis 7.2 orders them.
void WaitAofCommand(CommandContext& c) {
  int64_t numlocal = 0;
  if (!ParseInt64(c.args[1], &numlocal)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (numlocal < 0 || numlocal > 1) {
    c.reply.Error(err::kNumLocalRange);
    return;
  }
  int64_t numreplicas = 0;
  if (!ParseInt64(c.args[2], &numreplicas)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (numreplicas < 0) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  int64_t timeout = 0;
  if (!ParseInt64(c.args[3], &timeout)) {
    c.reply.Error(err::kTimeoutNotInteger);
    return;
  }
  if (timeout < 0) {
    c.reply.Error(err::kTimeoutNegative);
    return;
  }
  Replication& repl = Replication::Of(c.server);
  if (repl.is_replica()) {
    c.reply.Error(err::kWaitAofOnReplica);
    return;
  }
  if (numlocal > 0 && !Persistence::Of(c.server).aof().enabled()) {
    c.reply.Error(err::kWaitAofNoAof);
    return;
  }
  repl.master().WaitAofCommand(c.client, c.client.has_flag(kClientInExec), numlocal, numreplicas,
                               timeout);
}

}  // namespace

void RegisterReplMasterCommands(CommandTable& t) {
  t.Register({.name = "sync",
              .arity = 1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading | kCmdNoMulti,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "An internal command used in replication",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = ""},
              .handler = SyncCommand});
  t.Register({.name = "psync",
              .arity = -3,
              .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading | kCmdNoMulti,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "An internal command used in replication",
                      .since = "2.8.0",
                      .group = "server",
                      .complexity = "",
                      .args = {docs::String("replicationid"), docs::Integer("offset")}},
              .handler = PsyncCommand});
  t.Register({.name = "replconf",
              .arity = -1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdAllowBusy,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "An internal command for configuring the replication stream",
                      .since = "3.0.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .doc_flags = kDocSysCmd},
              .handler = ReplconfCommand});
  t.Register({.name = "wait",
              .arity = 3,
              .flags = kCmdNoScript,
              .acl = kAclSlow | kAclConnection,
              .doc = {.summary = "Wait for the synchronous replication of all the write commands "
                                 "sent in the context of the current connection",
                      .since = "3.0.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .tips = {"request_policy:all_shards", "response_policy:agg_min"},
                      .args = {docs::Integer("numreplicas"), docs::Integer("timeout")}},
              .handler = WaitCommand});
  t.Register({.name = "waitaof",
              .arity = 4,
              .flags = kCmdNoScript,
              .acl = kAclSlow | kAclConnection,
              .doc = {.summary = "Waits until the writes of this connection are fsynced to the "
                                 "local AOF and/or to the AOF of a number of replicas",
                      .since = "7.2.0",
                      .group = "generic",
                      .complexity = "O(1)",
                      .tips = {"request_policy:all_shards", "response_policy:agg_min"},
                      .args = {docs::Integer("numlocal"), docs::Integer("numreplicas"),
                               docs::Integer("timeout")}},
              .handler = WaitAofCommand});
}

}  // namespace redistp
