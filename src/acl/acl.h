// Acl: the server's users, who each connection acts as, the log of refusals, and the files the
// users are kept in.
//
// Model. The users live in a map ordered by name (ACL USERS and ACL LIST list them in that
// order). The `default` user always exists: a new connection acts as it, and it starts
// authenticated when the default user is on and has nopass. `requirepass` is a view of the
// default user's password, as in Redis 7.0: setting it (in redis.conf or with CONFIG SET)
// resets the default user's passwords to that one, or to nopass when empty; ACL SETUSER
// default does not change requirepass back.
//
// A connection holds a pointer to its user (Client::user; nullptr stands for the default
// user). A user object is replaced or freed only together with ending every connection that
// acts as it (DelUser, a successful ACL LOAD), so the pointer never dangles: the connection
// that runs the command is closed once its reply is out, the others at once.
//
// The users come from one of two places, as in Redis: `user` lines in redis.conf, or the
// `aclfile` (both at once is a startup error). ACL LOAD and SAVE work on the aclfile only;
// CONFIG REWRITE writes the users as `user` lines when there is no aclfile.
//
// The admission gate asks Check (server/authorizer.h) for every command; a user whose root
// selector allows everything is answered at once, so a server without ACL users pays a test
// and a virtual call per command.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "acl/acl_user.h"
#include "server/authorizer.h"
#include "server/subsystem.h"
#include "util/status.h"

namespace redistp {

class Server;

class Acl : public Subsystem, public Authorizer {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kAcl;
  // The server's ACL, created (and installed as its authorizer) on first use.
  static Acl& Of(Server& server);

  explicit Acl(Server& server);
  ~Acl() override;

  // Loads the users: `user` lines of the config, or the aclfile. Errors stop the startup.
  Status Start() override;

  // Authorizer: judges the call for its principal's user and logs a denial in ACL LOG.
  std::optional<AclDenial> Check(const AdmissionCall& call) override;
  bool DefaultUserAuthenticates() const override;
  std::string_view UserName(const Client& c) const override;

  AclRuleContext rule_context() const;
  const std::map<std::string, std::unique_ptr<AclUser>>& users() const { return users_; }
  AclUser* Find(std::string_view name);
  AclUser& default_user() { return *default_; }
  const AclUser& UserOf(const Client& c) const {
    return c_user(c) != nullptr ? *c_user(c) : *default_;
  }

  // Whether the user of `c` (its caller's, for a script) has a selector that allows `spec`
  // with `args` and may read every key: what SORT's BY and GET patterns need.
  bool MayReadAnyKey(const Client& c, const CommandSpec& spec,
                     const std::vector<std::string_view>& args) const;

  // ACL SETUSER: applies `rules` to the user `name` (created when missing) all or nothing.
  // Returns "" or the full error text. `current` is the connection running the command.
  std::string SetUser(std::string_view name, const std::vector<std::string>& rules,
                      Client* current);
  // ACL DELUSER: removes the users that exist and ends their connections; returns how many.
  int DelUsers(const std::vector<std::string_view>& names, Client* current);

  // AUTH / HELLO AUTH: on success makes `c` act as the user and returns true; on failure logs
  // the attempt (reason "auth", object `command`) and returns false.
  bool Authenticate(Client& c, std::string_view user, std::string_view pass,
                    std::string_view command);

  // SESSION OPEN records the user that opened a session; RESUME asks whether `c` acts as the
  // same user (a session opened before the record, e.g. replayed, belongs to anyone).
  void NoteSessionUser(uint64_t session_id, std::string_view user);
  bool SessionUserIs(uint64_t session_id, const Client& c) const;

  // ACL LOG.
  struct LogEntry {
    uint64_t count = 1;
    std::string reason, context, object, username, client_info;
    int64_t created_ms = 0, updated_ms = 0;
  };
  const std::deque<LogEntry>& log() const { return log_; }
  void ResetLog() { log_.clear(); }
  // Where a refusal happened, as ACL LOG's "context" field names it.
  enum class LogContext : uint8_t { kTopLevel, kMulti, kLua };
  void AddLog(std::string_view reason, LogContext context, std::string_view object,
              std::string_view username, const Client& c);

  // ACL LOAD / ACL SAVE (errors are full texts).
  Status LoadFile(Client* current);
  Status SaveFile();
  // The `user` lines CONFIG REWRITE writes (none when an aclfile keeps the users).
  std::vector<std::string> ConfigLines() const;

  // Ends every connection acting as `u` (`current` once its reply is out).
  void DisconnectUser(const AclUser* u, Client* current);

 private:
  static AclUser* c_user(const Client& c);
  // Parses the users of `lines` (each "user <name> <rule> ..." split in words) into a fresh
  // map; the error names the line as Redis does.
  Status BuildUsers(const std::vector<std::vector<std::string>>& lines,
                    std::map<std::string, std::unique_ptr<AclUser>>* out, bool from_file);
  void ApplyRequirePass();
  // Ends the connections of `user` that hold something its rules no longer allow: a WATCHEX
  // watch of a key it may not read, or a subscription SUBSCRIBE would now refuse (with
  // `plain_channels` false only the `__watchex` ones, whose key rules are ours to judge:
  // Redis's ACL LOAD leaves the default user's other subscriptions alone). `current` closes
  // once its reply is out.
  void CloseRevokedClients(const AclUser& user, Client* current, bool plain_channels);

  Server& server_;
  std::map<std::string, std::unique_ptr<AclUser>> users_;
  AclUser* default_ = nullptr;
  std::deque<LogEntry> log_;
  std::unordered_map<uint64_t, std::string> session_users_;
  size_t session_users_pruned_at_ = 64;
};

}  // namespace redistp
