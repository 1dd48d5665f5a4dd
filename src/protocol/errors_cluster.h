// Error texts of cluster mode (Redis 7.0.15's, byte for byte, measured against it).
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

// Every CLUSTER subcommand of a server with cluster-enabled no.
inline constexpr std::string_view kClusterDisabled =
    "ERR This instance has cluster support disabled";
// The keyspace commands that name another database.
inline constexpr std::string_view kSelectInCluster = "ERR SELECT is not allowed in cluster mode";
inline constexpr std::string_view kSwapdbInCluster = "ERR SWAPDB is not allowed in cluster mode";
inline constexpr std::string_view kMoveInCluster = "ERR MOVE is not allowed in cluster mode";
inline constexpr std::string_view kCopyDbInCluster =
    "ERR Copying to another database is not allowed in cluster mode";
inline constexpr std::string_view kReplicaofInCluster =
    "ERR REPLICAOF not allowed in cluster mode.";
inline constexpr std::string_view kFailoverInCluster =
    "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.";

// Redirections and refusals of the slot check (Redis's clusterRedirectClient).
inline constexpr std::string_view kCrossSlot =
    "CROSSSLOT Keys in request don't hash to the same slot";
inline constexpr std::string_view kClusterDown = "CLUSTERDOWN The cluster is down";
inline constexpr std::string_view kClusterDownReadOnly =
    "CLUSTERDOWN The cluster is down and only accepts read commands";
inline constexpr std::string_view kClusterDownUnbound = "CLUSTERDOWN Hash slot not served";
inline constexpr std::string_view kTryAgain =
    "TRYAGAIN Multiple keys request during rehashing of slot";
// redis-tp: a fencing token for a key of a slot whose previous owner's fencing floor has not
// arrived yet (cluster/cluster_bus.h); the client retries, as after any TRYAGAIN.
inline constexpr std::string_view kTryAgainFenceFloor =
    "TRYAGAIN Fencing floor of the slot's previous owner not received yet";
// The same refusals as a script's redis.call sees them.
inline constexpr std::string_view kScriptClusterDownReadOnly =
    "ERR Script attempted to execute a write command while the cluster is down and readonly";
inline constexpr std::string_view kScriptClusterDown =
    "ERR Script attempted to execute a command while the cluster is down";
inline constexpr std::string_view kScriptNonLocalKey =
    "ERR Script attempted to access a non local key in a cluster node";
inline constexpr std::string_view kScriptCrossSlot =
    "ERR Script attempted to access keys that do not hash to the same slot";
inline constexpr std::string_view kScriptNoCluster =
    "ERR Can not run script on cluster, 'no-cluster' flag is set.";

// CLUSTER subcommands.
inline constexpr std::string_view kClusterInvalidSlot = "ERR Invalid or out of range slot";
inline constexpr std::string_view kClusterInvalidSlotShort = "ERR Invalid slot";
inline constexpr std::string_view kClusterInvalidSlotOrCount = "ERR Invalid slot or number of keys";
inline constexpr std::string_view kClusterSetSlotSyntax =
    "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP";
inline constexpr std::string_view kClusterConfigEpochNonZero =
    "ERR Node config epoch is already non-zero";
inline constexpr std::string_view kClusterConfigEpochOthers =
    "ERR The user can assign a config epoch only when the node does not know any other node.";
inline constexpr std::string_view kClusterFlushSlotsNotEmpty =
    "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.";
inline constexpr std::string_view kClusterResetWithKeys =
    "ERR CLUSTER RESET can't be called with master nodes containing keys";
inline constexpr std::string_view kClusterReplicateMyself = "ERR Can't replicate myself";
inline constexpr std::string_view kClusterReplicateReplica =
    "ERR I can only replicate a master, not a replica.";
inline constexpr std::string_view kClusterReplicateNotEmpty =
    "ERR To set a master the node must be empty and without assigned slots.";
inline constexpr std::string_view kClusterForgetMyself =
    "ERR I tried hard but I can't forget myself...";
inline constexpr std::string_view kClusterForgetMyMaster = "ERR Can't forget my master!";
inline constexpr std::string_view kClusterNotMaster = "ERR The specified node is not a master";
inline constexpr std::string_view kClusterFailoverOnMaster =
    "ERR You should send CLUSTER FAILOVER to a replica";
inline constexpr std::string_view kClusterFailoverMasterUnknown =
    "ERR I'm a replica but my master is unknown to me";
inline constexpr std::string_view kClusterFailoverMasterDown =
    "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE";
inline constexpr std::string_view kClusterTargetNotMaster = "ERR Target node is not a master";

inline std::string ClusterUnknownNode(std::string_view id) {
  return "ERR Unknown node " + std::string(id);
}
inline std::string ClusterDontKnowNode(std::string_view id) {
  return "ERR I don't know about node " + std::string(id);
}
inline std::string ClusterSlotBusy(int slot) {
  return "ERR Slot " + std::to_string(slot) + " is already busy";
}
inline std::string ClusterSlotUnassigned(int slot) {
  return "ERR Slot " + std::to_string(slot) + " is already unassigned";
}
inline std::string ClusterSlotRepeated(int slot) {
  return "ERR Slot " + std::to_string(slot) + " specified multiple times";
}
inline std::string ClusterSlotRange(int start, int end) {
  return "ERR start slot number " + std::to_string(start) + " is greater than end slot number " +
         std::to_string(end);
}
inline std::string ClusterNotOwner(int slot) {
  return "ERR I'm not the owner of hash slot " + std::to_string(slot);
}
inline std::string ClusterAlreadyOwner(int slot) {
  return "ERR I'm already the owner of hash slot " + std::to_string(slot);
}
inline std::string ClusterSlotHasKeys(int slot) {
  return "ERR Can't assign hashslot " + std::to_string(slot) +
         " to a different node while I still hold keys for this hash slot.";
}
inline std::string ClusterConfigEpochInvalid(long long epoch) {
  return "ERR Invalid config epoch specified: " + std::to_string(epoch);
}

}  // namespace redistp::err
