// The `user` directive as Redis 7.0 judges it while loading a config file: before any ACL
// exists, each line is checked on its own, and a bad line stops the load with a FATAL block.
// Checked here: a user name defined twice, rule words that are not ACL rules at all, and
// password hashes that are not 64 lowercase hex digits. Not checked here (Redis defers these
// to the moment the users are created, after the command table exists, and redis-tp has no
// ACL yet): whether +cmd / +@category names exist, and the inside of (selector) words.
//
// Redis names the offending word with an index into the rule list used against the whole
// line, so a bad first rule is reported as 'user', a bad second one as the user's name, and so
// on; tools compare these messages, so the quirk is kept.
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"
#include "server/config_parse.h"
#include "util/numbers.h"

namespace redistp {

namespace {

bool IsHashRule(std::string_view hex) {
  if (hex.size() != 64) return false;
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Returns "" when `rule` is an ACL rule word, else Redis's error text for it.
std::string_view JudgeRule(std::string_view rule) {
  static constexpr std::string_view kSyntax = "Syntax error";
  static constexpr std::string_view kBadHash =
      "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
      "characters";
  static constexpr std::string_view kKeywords[] = {"on",
                                                   "off",
                                                   "nopass",
                                                   "resetpass",
                                                   "reset",
                                                   "allkeys",
                                                   "resetkeys",
                                                   "allchannels",
                                                   "resetchannels",
                                                   "allcommands",
                                                   "nocommands",
                                                   "clearselectors",
                                                   "skip-sanitize-payload",
                                                   "sanitize-payload"};
  for (std::string_view k : kKeywords) {
    if (EqualsIgnoreCase(rule, k)) return "";
  }
  if (rule.empty()) return kSyntax;
  switch (rule[0]) {
    case '>':
    case '<':
    case '~':
    case '&':
    case '+':
    case '-':
    case '(':  // selectors and command names are judged when the users are created
      return "";
    case '#':
    case '!':
      return IsHashRule(rule.substr(1)) ? "" : kBadHash;
    case '%': {
      // %R~, %W~, %RW~ (permissions in any order, each at most once).
      size_t tilde = rule.find('~');
      if (tilde == std::string_view::npos || tilde == 1) return kSyntax;
      bool r = false, w = false;
      for (char c : rule.substr(1, tilde - 1)) {
        if ((c == 'R' || c == 'r') && !r) {
          r = true;
        } else if ((c == 'W' || c == 'w') && !w) {
          w = true;
        } else {
          return kSyntax;
        }
      }
      return "";
    }
    default:
      return kSyntax;
  }
}

}  // namespace

Status CheckUserDirective(const std::vector<std::string>& args,
                          const std::vector<std::vector<std::string>>& earlier) {
  // args[0] is the user name, the rest its rules. `shown(i)` is the word Redis names for the
  // i-th word of `args` (see the file comment).
  auto shown = [&](size_t i) { return i == 1 ? std::string("user") : args[i - 2]; };
  for (const std::vector<std::string>& u : earlier) {
    if (!u.empty() && u[0] == args[0]) {
      return Status::Error("Error in user declaration '" + args[0] +
                           "': Duplicate user found. A user can only be defined once in config "
                           "files");
    }
  }
  for (size_t i = 1; i < args.size(); ++i) {
    std::string_view err = JudgeRule(args[i]);
    if (!err.empty()) {
      return Status::Error("Error in user declaration '" + shown(i) + "': " + std::string(err));
    }
  }
  return Status::Ok();
}

bool UserDirectiveEnabled(const std::vector<std::string>& args) {
  bool enabled = false;
  for (size_t i = 1; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "on")) {
      enabled = true;
    } else if (EqualsIgnoreCase(args[i], "off") || EqualsIgnoreCase(args[i], "reset")) {
      enabled = false;
    }
  }
  return enabled;
}

}  // namespace redistp
