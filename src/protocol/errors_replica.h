// Error replies of the replica side of replication (byte-identical to Redis 7.0's).
#pragma once

#include <string_view>

namespace redistp::err {

inline constexpr std::string_view kReadOnlyReplica =
    "READONLY You can't write against a read only replica.";
inline constexpr std::string_view kMasterDown =
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
inline constexpr std::string_view kInvalidMasterPort = "ERR Invalid master port";
inline constexpr std::string_view kUnblockedRoleChange =
    "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
    "replica?)";

}  // namespace redistp::err
