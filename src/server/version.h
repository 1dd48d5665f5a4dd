// Versions. redis-tp reports the Redis version whose behaviour it implements, so clients that
// gate features on INFO's redis_version keep working; its own version is reported beside it.
//
// The reported version is a setting, compat-version (docs/compat-version.md). Its default is
// 7.0.15, the version whose every answer we reproduce; it may be raised to a 7.2 or 7.4
// release, which changes what we *report* and *write*, not what we answer: INFO's
// redis_version, HELLO's version, the RDB format version of files, DUMP payloads and FUNCTION
// DUMP payloads (7.0: 10, 7.2: 11, 7.4: 12), the newest DUMP payload RESTORE accepts, and the
// redis-ver aux field. Commands newer than 7.0 are served whatever it says. What stays fixed:
// `redis-server --version` (read before any configuration), the startup banner, the crash
// report, Lua's redis.REDIS_VERSION, and HELLO's `server` field ("redis").
#pragma once

#include <string_view>

namespace redistp {

inline constexpr const char* kRedisVersion = "7.0.15";
// The same as one number, 0x00MMmmpp (Lua scripts read it as redis.REDIS_VERSION_NUM).
inline constexpr int kRedisVersionNum = 0x07000f;
inline constexpr const char* kRedisTpVersion = "0.1.0";

// A version compat-version accepts, decoded.
struct CompatVersion {
  int num = kRedisVersionNum;  // 0x00MMmmpp
  int rdb_version = 10;        // the RDB format that version writes
};

// The versions we model: exactly 7.0.15, or 7.2.P / 7.4.P for a patch level P of 0..255
// written in plain decimal ("7.2.4", "7.4.0"). Anything else is false, with *why set to the
// error CONFIG SET reports.
bool ParseCompatVersion(std::string_view text, CompatVersion* out, std::string_view* why);

}  // namespace redistp
