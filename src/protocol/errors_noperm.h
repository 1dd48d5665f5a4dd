// ACL refusals of the admission gate (server/admission.h): the NOPERM texts a denied command
// gets at top level and inside EXEC, and a script's texts for a denied redis.call. Byte-identical
// to Redis 7.0's (without '-' and CRLF). Included by the gate only (not gathered by errors.h).
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

// ---- a connection's own command (queued by MULTI or run at once) ----
inline std::string NoPermCommand(std::string_view full_name) {
  std::string s = "NOPERM this user has no permissions to run the '";
  s.append(full_name);
  s.append("' command");
  return s;
}
inline constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
inline constexpr std::string_view kNoPermChannel =
    "NOPERM this user has no permissions to access one of the channels used as arguments";

// ---- a command EXEC runs, denied by rules changed since it was queued (prefix + reason) ----
inline constexpr std::string_view kNoPermExecPrefix =
    "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC "
    "call. This command is no longer allowed for the following reason: ";
inline constexpr std::string_view kNoPermExecCommand =
    "no permission to execute the command or subcommand";
inline constexpr std::string_view kNoPermExecKey = "no permission to touch the specified keys";
inline constexpr std::string_view kNoPermExecChannel =
    "no permission to access one of the channels used as arguments";

// ---- a script's redis.call / redis.pcall ----
inline constexpr std::string_view kNoPermScriptCommand =
    "ERR The user executing the script can't run this command or subcommand";
inline constexpr std::string_view kNoPermScriptKey =
    "ERR The user executing the script can't access at least one of the keys mentioned in the "
    "command arguments";
inline constexpr std::string_view kNoPermScriptChannel =
    "ERR The user executing the script can't publish to the channel mentioned in the command";

}  // namespace redistp::err
