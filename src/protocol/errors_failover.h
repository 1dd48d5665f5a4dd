// Error texts of FAILOVER and of the FAILOVER variant of PSYNC (one of the headers errors.h
// gathers), byte-identical to Redis 7.0's (without '-' and CRLF).
#pragma once

#include <string_view>

namespace redistp::err {

inline constexpr std::string_view kFailoverTimeoutNotPositive =
    "ERR FAILOVER timeout must be greater than 0";
inline constexpr std::string_view kFailoverNotInProgress = "ERR No failover in progress.";
inline constexpr std::string_view kFailoverOnReplica =
    "ERR FAILOVER is not valid when server is a replica.";
inline constexpr std::string_view kFailoverInProgress = "ERR FAILOVER already in progress.";
inline constexpr std::string_view kFailoverNoReplicas = "ERR FAILOVER requires connected replicas.";
inline constexpr std::string_view kFailoverForceNeedsTimeoutAndTarget =
    "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
inline constexpr std::string_view kFailoverTargetNotReplica =
    "ERR FAILOVER target HOST and PORT is not a replica.";
inline constexpr std::string_view kFailoverTargetNotOnline =
    "ERR FAILOVER target replica is not online.";
// REPLICAOF while a failover runs.
inline constexpr std::string_view kReplicaofDuringFailover =
    "ERR REPLICAOF not allowed while failing over.";
// PSYNC <replid> <offset> FAILOVER sent to a master, or with another history than ours.
inline constexpr std::string_view kPsyncFailoverToMaster =
    "ERR PSYNC FAILOVER can't be sent to a master.";
inline constexpr std::string_view kPsyncFailoverReplidMismatch =
    "ERR PSYNC FAILOVER replid must match my replid.";

}  // namespace redistp::err
