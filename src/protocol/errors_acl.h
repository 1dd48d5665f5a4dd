// Error texts of ACL: the ACL command, its rules and files, and SORT's patterns. The NOPERM
// texts of the admission gate are in errors_noperm.h.
#pragma once

#include <string>
#include <string_view>

#include "protocol/errors_common.h"

namespace redistp::err {

// SORT's BY and GET patterns name keys: refused unless the user may read every key.
inline constexpr std::string_view kSortByNoPerm =
    "ERR BY option of SORT denied due to insufficient ACL permissions.";
inline constexpr std::string_view kSortGetNoPerm =
    "ERR GET option of SORT denied due to insufficient ACL permissions.";

// ACL SETUSER and the rules of a user.
inline std::string AclSetUserModifier(std::string_view rule, std::string_view why) {
  return "ERR Error in ACL SETUSER modifier '" + std::string(UpToNul(rule)) +
         "': " + std::string(why);
}
inline std::string AclUnmatchedParen(std::string_view start) {
  return "ERR Unmatched parenthesis in acl selector starting at '" + std::string(UpToNul(start)) +
         "'.";
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
  // Redis prints at most 128 bytes of the name.
  return "ERR Unknown category '" + std::string(UpToNul(name).substr(0, 128)) + "'";
}
inline std::string AclUserNotFound(std::string_view name) {
  return "ERR User '" + std::string(UpToNul(name)) + "' not found";
}
inline std::string AclDryRunNoCommand(std::string_view name) {
  return "ERR Command '" + std::string(UpToNul(name)) + "' not found";
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
