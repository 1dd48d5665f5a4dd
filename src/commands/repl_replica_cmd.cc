// REPLICAOF, SLAVEOF: the replica side's commands (replication/replica_side.h holds the rules).
//
// REPLICAOF host port makes this server follow that master (connecting at once; "+OK Already
// connected to specified master" when it already follows it), REPLICAOF NO ONE makes it a
// master again. Both are served on stale replicas and inside MULTI (Sentinel sends SLAVEOF in a
// transaction with CONFIG REWRITE), not from scripts. SLAVEOF is the deprecated name.
#include <string>

#include "commands/register.h"
#include "protocol/errors_cluster.h"
#include "protocol/errors_failover.h"
#include "protocol/errors_replica.h"
#include "replication/failover.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/command.h"
#include "util/numbers.h"

namespace redistp {

namespace {

constexpr std::string_view kReplicaClientError =
    "ERR Command is not valid when client is a replica.";

void ReplicaOfCommand(CommandContext& c) {
  // A cluster node replicates by CLUSTER REPLICATE only.
  if (c.server.config().cluster_enabled) {
    c.reply.Error(err::kReplicaofInCluster);
    return;
  }
  ReplicaSide& replica = Replication::Of(c.server).replica();
  // A FAILOVER decides the role until it ends (or FAILOVER ABORT), as in Redis.
  if (Replication::Of(c.server).failover().state() != Failover::State::kNone) {
    c.reply.Error(err::kReplicaofDuringFailover);
    return;
  }
  if (EqualsIgnoreCase(c.args[1], "no") && EqualsIgnoreCase(c.args[2], "one")) {
    replica.Unfollow("user request from '" + c.server.ClientInfoLine(c.client) + "'");
    c.reply.Ok();
    return;
  }
  // A replica's own connection cannot make its master follow someone else.
  if (c.client.kind() == ClientKind::kReplica) {
    c.reply.Error(kReplicaClientError);
    return;
  }
  int64_t port = 0;
  if (!ParseInt64(c.args[2], &port) || port < 0 || port > 65535) {
    c.reply.Error(err::kInvalidMasterPort);
    return;
  }
  if (!replica.Follow(std::string(c.args[1]), static_cast<int>(port),
                      c.server.ClientInfoLine(c.client))) {
    c.reply.Simple("OK Already connected to specified master");
    return;
  }
  c.reply.Ok();
}

CommandSpec ReplicaOfRow(const char* name, bool deprecated) {
  CommandDoc doc{
      .summary = "Make the server a replica of another instance, or promote it as master.",
      .since = deprecated ? "1.0.0" : "5.0.0",
      .group = "server",
      .complexity = "O(1)",
      .args = {docs::OneOf(
          "args", {docs::Block("host-port", {docs::String("host"), docs::Integer("port")}),
                   docs::Block("no-one", {docs::PureToken("NO"), docs::PureToken("ONE")})})}};
  if (deprecated) {
    doc.doc_flags = kDocDeprecated;
    doc.deprecated_since = "5.0.0";
    doc.replaced_by = "`REPLICAOF`";
  }
  return {.name = name,
          .arity = 3,
          .flags = kCmdAdmin | kCmdNoScript | kCmdStale | kCmdNoAsyncLoading,
          .acl = kAclAdmin | kAclSlow | kAclDangerous,
          .doc = doc,
          .handler = ReplicaOfCommand};
}

}  // namespace

void RegisterReplReplicaCommands(CommandTable& t) {
  t.Register(ReplicaOfRow("replicaof", false));
  t.Register(ReplicaOfRow("slaveof", true));
}

}  // namespace redistp
