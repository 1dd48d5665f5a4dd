// Authorizer: the slot through which the ACL layer (src/acl) judges each command.
//
// The server layer cannot see the ACL layer above it, so the admission gate only asks: the
// ACL subsystem installs itself with Server::set_authorizer, and the gate calls Check for every
// command a client, EXEC or a script runs. With no authorizer installed everything is allowed.
// The gate formats Redis's refusal text for its caller (NOPERM for a client and MULTI/EXEC,
// the script's own text for redis.call) from the denial; the ACL layer records the entry of
// ACL LOG when the gate tells it to (LogDenial), so DRYRUN can judge without logging.
//
// Clients carry their user as an opaque pointer (Client::user, nullptr for the default user):
// only the ACL layer knows what it points at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace redistp {

class Client;
struct CommandSpec;

struct AclDenial {
  enum class Kind : uint8_t { kCommand, kKey, kChannel };
  Kind kind = Kind::kCommand;
  std::string object;  // the command's full name, the key or the channel refused
};

// Where a refused command came from, as ACL LOG's "context" field names it.
enum class AclContext : uint8_t { kTopLevel, kMulti, kLua };

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // nullopt when the client's user may run `spec` with `args` (args[0] the command name);
  // otherwise what was denied first (the command, then keys, then channels, as Redis checks).
  virtual std::optional<AclDenial> Check(const Client& c, const CommandSpec& spec,
                                         const std::vector<std::string_view>& args) = 0;
  // Records a denial Check returned in ACL LOG.
  virtual void LogDenial(const Client& c, const AclDenial& denial, AclContext context) = 0;
  // Whether a new connection starts authenticated (the default user is on and has nopass).
  virtual bool DefaultUserAuthenticates() const = 0;
  // The name of the client's user (CLIENT LIST's user=).
  virtual std::string_view UserName(const Client& c) const = 0;
};

}  // namespace redistp
