// Versions. redis-tp reports the Redis version whose behaviour it implements, so clients that
// gate features on INFO's redis_version keep working; its own version is reported beside it.
#pragma once

namespace redistp {

inline constexpr const char* kRedisVersion = "7.0.15";
// The same as one number, 0x00MMmmpp (Lua scripts read it as redis.REDIS_VERSION_NUM).
inline constexpr int kRedisVersionNum = 0x07000f;
inline constexpr const char* kRedisTpVersion = "0.1.0";

}  // namespace redistp
