// Error texts of ACL: the ACL command, NOPERM refusals, and the script's own refusal texts.
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

// Refusals at the admission gate (a client's command, or one queued in MULTI).
inline constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
inline constexpr std::string_view kNoPermChannel =
    "NOPERM this user has no permissions to access one of the channels used as arguments";
inline std::string NoPermCommand(std::string_view full_name) {
  return "NOPERM this user has no permissions to run the '" + std::string(full_name) + "' command";
}
// A command EXEC runs that the user lost the right to since it was queued; `reason` is one of
// the three below.
inline std::string NoPermInExec(std::string_view reason) {
  return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
         "EXEC call. This command is no longer allowed for the following reason: " +
         std::string(reason);
}
inline constexpr std::string_view kExecReasonCommand =
    "no permission to execute the command or subcommand";
inline constexpr std::string_view kExecReasonKey = "no permission to touch the specified keys";
inline constexpr std::string_view kExecReasonChannel =
    "no permission to access one of the channels used as arguments";

// SORT's BY and GET patterns name keys: refused unless the user may read every key.
inline constexpr std::string_view kSortByNoPerm =
    "ERR BY option of SORT denied due to insufficient ACL permissions.";
inline constexpr std::string_view kSortGetNoPerm =
    "ERR GET option of SORT denied due to insufficient ACL permissions.";

// redis.call / redis.pcall refused by ACL.
inline constexpr std::string_view kScriptNoPermCommand =
    "ERR The user executing the script can't run this command or subcommand";
inline constexpr std::string_view kScriptNoPermKey =
    "ERR The user executing the script can't access at least one of the keys mentioned in the "
    "command arguments";
inline constexpr std::string_view kScriptNoPermChannel =
    "ERR The user executing the script can't publish to the channel mentioned in the command";

// ACL SETUSER and the rules of a user.
inline std::string AclSetUserModifier(std::string_view rule, std::string_view why) {
  return "ERR Error in ACL SETUSER modifier '" + std::string(rule) + "': " + std::string(why);
}
inline std::string AclUnmatchedParen(std::string_view start) {
  return "ERR Unmatched parenthesis in acl selector starting at '" + std::string(start) + "'.";
}
inline constexpr std::string_view kAclRuleSyntax = "Syntax error";
inline constexpr std::string_view kAclUnknownName = "Unknown command or category name in ACL";
inline constexpr std::string_view kAclBadHash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";
inline constexpr std::string_view kAclNoSuchPassword =
    "The password you are trying to remove from "
    "the user does not exist";
inline constexpr std::string_view kAclKeyAfterAll =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have "
    "any effect. Try 'resetkeys' to start with an empty list of patterns";
inline constexpr std::string_view kAclChannelAfterAll =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not "
    "have any effect. Try 'resetchannels' to start with an empty list of channels";
inline constexpr std::string_view kAclSelectorInSelector = "Syntax error";
inline constexpr std::string_view kAclFirstArgSub =
    "Allowing first-arg of a subcommand is not supported";
inline constexpr std::string_view kAclFirstArgDeny = "Unknown command or category name in ACL";
inline constexpr std::string_view kAclBadUserName =
    "ERR Usernames can't contain spaces or null characters";
inline constexpr std::string_view kAclCantDeleteDefault =
    "ERR The 'default' user cannot be removed";
inline constexpr std::string_view kAclGenpassBits =
    "ERR ACL GENPASS argument must be the number of bits for the output password, a positive "
    "number up to 4096";
inline std::string AclUnknownCategory(std::string_view name) {
  return "ERR Unknown category '" + std::string(name) + "'";
}
inline std::string AclUserNotFound(std::string_view name) {
  return "ERR User '" + std::string(name) + "' not found";
}
inline std::string AclDryRunNoCommand(std::string_view name) {
  return "ERR Command '" + std::string(name) + "' not found";
}
inline std::string AclDryRunKey(std::string_view key) {
  return "This user has no permissions to access the '" + std::string(key) + "' key";
}
inline std::string AclDryRunChannel(std::string_view ch) {
  return "This user has no permissions to access the '" + std::string(ch) + "' channel";
}
inline std::string AclDryRunCommand(std::string_view full_name) {
  return "This user has no permissions to run the '" + std::string(full_name) + "' command";
}
inline constexpr std::string_view kAclLoadNoFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
    "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
    "Redis configuration file set) in order to store users in the Redis configuration.";

}  // namespace redistp::err
