// Versions. redis-tp reports the Redis version whose behaviour it implements, so clients that
// gate features on INFO's redis_version keep working; its own version is reported beside it.
#pragma once

namespace redistp {

inline constexpr const char* kRedisVersion = "7.0.15";
inline constexpr const char* kRedisTpVersion = "0.1.0";

}  // namespace redistp
