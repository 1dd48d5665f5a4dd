#include "acl/acl.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "protocol/errors.h"
#include "server/admission.h"
#include "server/client.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {

namespace {

// Two log entries within this long of each other for the same refusal are counted as one.
constexpr int64_t kLogGroupingMs = 60000;

std::string_view ContextName(Acl::LogContext c) {
  switch (c) {
    case Acl::LogContext::kTopLevel:
      return "toplevel";
    case Acl::LogContext::kMulti:
      return "multi";
    case Acl::LogContext::kLua:
      return "lua";
  }
  return "toplevel";
}

// Splits a line of an ACL file on spaces and tabs (no quoting, as Redis).
std::vector<std::string> SplitWords(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

}  // namespace

Acl& Acl::Of(Server& server) {
  Acl* a = server.subsystem<Acl>();
  if (a == nullptr) a = &server.AttachSubsystem(std::make_unique<Acl>(server));
  return *a;
}

Acl::Acl(Server& server) : server_(server) {
  auto d = std::make_unique<AclUser>("default");
  d->selectors.emplace_back();
  AclRuleContext ctx = rule_context();
  for (std::string_view r : {"+@all", "~*", "&*", "on", "nopass"}) ApplyUserRule(*d, r, ctx);
  RefreshUnrestricted(*d, ctx);
  default_ = d.get();
  users_.emplace("default", std::move(d));
  ApplyRequirePass();
  server_.set_authorizer(this);
  server_.config().OnChange("requirepass", [this] {
    ApplyRequirePass();
    return Status::Ok();
  });
  server_.config().SetRewriteLines("user", [this] { return ConfigLines(); });
}

Acl::~Acl() {
  if (server_.authorizer() == this) server_.set_authorizer(nullptr);
}

AclUser* Acl::c_user(const Client& c) { return c.user; }

AclRuleContext Acl::rule_context() const {
  return AclRuleContext{&server_.commands(), server_.config().acl_pubsub_default_allchannels};
}

void Acl::ApplyRequirePass() {
  AclRuleContext ctx = rule_context();
  ApplyUserRule(*default_, "resetpass", ctx);
  const std::string& pass = server_.config().requirepass;
  if (pass.empty()) {
    ApplyUserRule(*default_, "nopass", ctx);
  } else {
    ApplyUserRule(*default_, ">" + pass, ctx);
  }
}

Status Acl::Start() {
  const Config& cfg = server_.config();
  if (!cfg.users.empty() && !cfg.aclfile.empty()) {
    server_.log().Log(LogLevel::kWarning,
                      "Configuring Redis with users defined in redis.conf and at the same setting "
                      "an ACL file path is invalid. This setup is very likely to lead to "
                      "configuration errors and security holes, please define either an ACL "
                      "file or declare users directly in your redis.conf, but not both.");
    return Status::Error("acl");
  }
  if (!cfg.aclfile.empty()) {
    Status s = LoadFile(nullptr);
    if (!s.ok()) {
      server_.log().Log(LogLevel::kWarning, "Aborting Redis startup because of ACL errors: %s",
                        s.message().c_str());
      return s;
    }
    return Status::Ok();
  }
  AclRuleContext ctx = rule_context();
  for (const std::vector<std::string>& line : cfg.users) {
    if (line.empty()) continue;
    std::vector<std::string> rules;
    std::string bad;
    std::vector<std::string> raw(line.begin() + 1, line.end());
    if (!JoinSelectorWords(raw, &rules, &bad)) {
      server_.log().Log(LogLevel::kWarning,
                        "Error loading ACL rule '%s' for the user named '%s': %s", bad.c_str(),
                        line[0].c_str(), "Unmatched parenthesis in acl selector");
      server_.log().Log(LogLevel::kWarning, "Critical error while loading ACLs. Exiting.");
      return Status::Error("acl");
    }
    AclUser* u = Find(line[0]);
    std::unique_ptr<AclUser> fresh;
    if (u == nullptr) {
      fresh = NewAclUser(line[0], ctx);
      u = fresh.get();
    } else {
      ApplyUserRule(*u, "reset", ctx);
    }
    for (const std::string& r : rules) {
      std::string e = ApplyUserRule(*u, r, ctx);
      if (!e.empty()) {
        server_.log().Log(LogLevel::kWarning,
                          "Error loading ACL rule '%s' for the user named '%s': %s", r.c_str(),
                          line[0].c_str(), e.c_str());
        server_.log().Log(LogLevel::kWarning, "Critical error while loading ACLs. Exiting.");
        return Status::Error("acl");
      }
    }
    RefreshUnrestricted(*u, ctx);
    if (fresh) users_.emplace(line[0], std::move(fresh));
  }
  return Status::Ok();
}

AclUser* Acl::Find(std::string_view name) {
  auto it = users_.find(std::string(name));
  return it == users_.end() ? nullptr : it->second.get();
}

std::optional<AclDenial> Acl::Check(const AdmissionCall& call) {
  const AclUser& u = UserOf(call.principal);
  if (u.unrestricted) return std::nullopt;
  AclVerdict v = AclCheckCommand(u, call.spec, call.args);
  if (v.kind == AclVerdict::kOk) return std::nullopt;
  AclDenial denial;
  denial.arg_index = v.position;
  std::string_view reason = "command";
  std::string_view object = call.spec.full_name;
  if (v.kind == AclVerdict::kKey) {
    denial.reason = AclDenial::Reason::kKey;
    reason = "key";
    object = call.args[static_cast<size_t>(v.position)];
  } else if (v.kind == AclVerdict::kChannel) {
    denial.reason = AclDenial::Reason::kChannel;
    reason = "channel";
    object = call.args[static_cast<size_t>(v.position)];
  }
  // A command refused while MULTI queues it is logged as "multi", as Redis does.
  LogContext context = call.caller == AdmissionCaller::kScript ? LogContext::kLua
                       : call.caller == AdmissionCaller::kExec || call.client.multi.active
                           ? LogContext::kMulti
                           : LogContext::kTopLevel;
  AddLog(reason, context, object, u.name(), call.principal);
  return denial;
}

bool Acl::MayReadAnyKey(const Client& c, const CommandSpec& spec,
                        const std::vector<std::string_view>& args) const {
  const AclUser& u = UserOf(c.session());
  if (u.unrestricted) return true;
  return AclMayReadEveryKey(u, spec, args);
}

void Acl::NoteSessionUser(uint64_t session_id, std::string_view user) {
  if (session_id == 0) return;
  session_users_[session_id] = std::string(user);
  // Sessions end without telling ACL: forget the ended ones whenever the map has doubled.
  if (session_users_.size() >= 2 * session_users_pruned_at_) {
    for (auto it = session_users_.begin(); it != session_users_.end();) {
      it = server_.sessions().Find(it->first) == nullptr ? session_users_.erase(it) : ++it;
    }
    session_users_pruned_at_ = std::max<size_t>(64, session_users_.size());
  }
}

bool Acl::SessionUserIs(uint64_t session_id, const Client& c) const {
  auto it = session_users_.find(session_id);
  return it == session_users_.end() || it->second == UserOf(c.session()).name();
}

bool Acl::DefaultUserAuthenticates() const {
  return default_->enabled() && (default_->flags & kAclUserNoPass) != 0;
}

std::string_view Acl::UserName(const Client& c) const { return UserOf(c).name(); }

void Acl::AddLog(std::string_view reason, LogContext context, std::string_view object,
                 std::string_view username, const Client& c) {
  if (server_.config().acllog_max_len <= 0) return;
  const Client& who = c.session();
  int64_t now = server_.NowMs();
  std::string_view ctx_name = ContextName(context);
  for (auto it = log_.begin(); it != log_.end(); ++it) {
    if (it->reason == reason && it->context == ctx_name && it->object == object &&
        it->username == username && now - it->updated_ms <= kLogGroupingMs) {
      LogEntry e = std::move(*it);
      log_.erase(it);
      ++e.count;
      e.updated_ms = now;
      e.client_info = server_.ClientInfoLine(who);
      log_.push_front(std::move(e));
      return;
    }
  }
  LogEntry e;
  e.reason = reason;
  e.context = ctx_name;
  e.object = object;
  e.username = username;
  e.client_info = server_.ClientInfoLine(who);
  e.created_ms = e.updated_ms = now;
  log_.push_front(std::move(e));
  while (log_.size() > static_cast<size_t>(server_.config().acllog_max_len)) log_.pop_back();
}

bool Acl::Authenticate(Client& c, std::string_view user, std::string_view pass,
                       std::string_view command) {
  AclUser* u = Find(user);
  bool ok = false;
  if (u != nullptr && u->enabled()) {
    if ((u->flags & kAclUserNoPass) != 0) {
      ok = true;
    } else {
      std::string h = AclHashPassword(pass);
      for (const std::string& p : u->passwords) {
        // Constant-time comparison: the time taken says nothing about how much matched.
        if (p.size() == h.size() && CRYPTO_memcmp(p.data(), h.data(), h.size()) == 0) ok = true;
      }
    }
  }
  if (!ok) {
    // Inside a transaction (AUTH or HELLO queued and run by EXEC) the entry's context is
    // "multi", as Redis's.
    const bool in_multi = c.has_flag(kClientInExec) || c.multi.active;
    AddLog("auth", in_multi ? LogContext::kMulti : LogContext::kTopLevel, command, user, c);
    return false;
  }
  c.user = u == default_ ? nullptr : u;
  c.authenticated = true;
  c.ever_authenticated = true;
  return true;
}

void Acl::DisconnectUser(const AclUser* u, Client* current) {
  std::vector<Client*> doomed;
  for (const auto& [id, cl] : server_.clients()) {
    if (cl->user == u && !cl->closed) doomed.push_back(cl);
  }
  for (Client* cl : doomed) {
    if (cl == current) {
      cl->set_flag(kClientCloseAfterReply, true);
      // Until it closes it acts as the default user: the object it points at is going away.
      cl->user = nullptr;
    } else {
      server_.CloseClient(cl, "ACL user removed");
    }
  }
}

void Acl::CloseRevokedClients(const AclUser& user, Client* current, bool plain_channels) {
  std::vector<Client*> doomed;
  for (const auto& [id, cl] : server_.clients()) {
    if (cl->closed || &UserOf(*cl) != &user) continue;
    bool channel_denied = false;
    for (int kind = 0; kind < 3 && !channel_denied; ++kind) {
      const bool pattern = kind == PubSub::kPattern;
      cl->pubsub.subscriptions[kind].ForEach([&](const PubSubTopic* t) {
        if (channel_denied) return;
        if (!plain_channels && !AclTouchesWatchexChannels(t->name(), pattern)) return;
        if (!AclMaySubscribe(user, t->name(), pattern)) channel_denied = true;
      });
    }
    bool watch_denied = false;
    if (!channel_denied) {
      for (const auto& [db, key] : server_.watches().KeysOf(cl->id)) {
        if (!AclCheckKey(user, key, kAclKeyRead)) {
          watch_denied = true;
          break;
        }
      }
    }
    if (channel_denied || watch_denied) doomed.push_back(cl);
  }
  for (Client* cl : doomed) {
    if (cl == current) {
      cl->set_flag(kClientCloseAfterReply, true);
    } else {
      server_.CloseClient(cl, "ACL permissions revoked");
    }
  }
}

std::string Acl::SetUser(std::string_view name, const std::vector<std::string>& raw_rules,
                         Client* current) {
  // Any white space (as isspace: tab, CR, LF, VT, FF too) or NUL, as Redis checks it.
  for (char ch : name) {
    if (std::isspace(static_cast<unsigned char>(ch)) || ch == '\0') {
      return std::string(err::kAclBadUserName);
    }
  }
  std::vector<std::string> rules;
  std::string bad;
  if (!JoinSelectorWords(raw_rules, &rules, &bad)) return err::AclUnmatchedParen(bad);
  AclRuleContext ctx = rule_context();
  AclUser* existing = Find(name);
  // The rules go to a copy: a bad word leaves the user as it was.
  std::unique_ptr<AclUser> copy =
      existing != nullptr ? std::make_unique<AclUser>(*existing) : NewAclUser(name, ctx);
  for (const std::string& r : rules) {
    std::string e = ApplyUserRule(*copy, r, ctx);
    if (!e.empty()) return err::AclSetUserModifier(r, e);
  }
  RefreshUnrestricted(*copy, ctx);
  if (existing != nullptr) {
    // Connections keep pointing at the same object: the new rules are copied into it.
    *existing = *copy;
    CloseRevokedClients(*existing, current, true);
  } else {
    users_.emplace(std::string(name), std::move(copy));
  }
  return "";
}

int Acl::DelUsers(const std::vector<std::string_view>& names, Client* current) {
  int n = 0;
  for (std::string_view name : names) {
    auto it = users_.find(std::string(name));
    if (it == users_.end()) continue;
    DisconnectUser(it->second.get(), current);
    users_.erase(it);
    ++n;
  }
  return n;
}

Status Acl::BuildUsers(const std::vector<std::vector<std::string>>& lines,
                       std::map<std::string, std::unique_ptr<AclUser>>* out, bool from_file) {
  (void)from_file;
  AclRuleContext ctx = rule_context();
  const std::string& path = server_.config().aclfile;
  std::string errors;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string>& words = lines[i];
    if (words.empty()) continue;
    std::string where = path + ":" + std::to_string(i + 1);
    if (words[0] != "user" || words.size() < 2) {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (out->count(words[1]) != 0) {
      return Status::Error("WARNING: Duplicate user '" + words[1] + "' found on line " +
                           std::to_string(i + 1) + ". ");
    }
    std::vector<std::string> rules;
    std::string bad;
    std::vector<std::string> raw(words.begin() + 2, words.end());
    if (!JoinSelectorWords(raw, &rules, &bad)) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    std::unique_ptr<AclUser> u = NewAclUser(words[1], ctx);
    for (const std::string& r : rules) {
      std::string e = ApplyUserRule(*u, r, ctx);
      if (!e.empty()) {
        errors += where + ": Error in applying operation '" + r + "': " + e + ". ";
        break;
      }
    }
    RefreshUnrestricted(*u, ctx);
    out->emplace(words[1], std::move(u));
  }
  if (!errors.empty()) return Status::Error(errors);
  return Status::Ok();
}

Status Acl::LoadFile(Client* current) {
  const std::string& path = server_.config().aclfile;
  if (path.empty()) return Status::Error(std::string(err::kAclLoadNoFile));
  std::ifstream in(path);
  if (!in) {
    return Status::Error("ERR Error loading ACLs, opening file '" + path +
                         "': " + std::strerror(errno));
  }
  std::vector<std::vector<std::string>> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(SplitWords(line));
  std::map<std::string, std::unique_ptr<AclUser>> fresh;
  Status s = BuildUsers(lines, &fresh, true);
  if (!s.ok()) {
    return Status::Error("ERR " + s.message() +
                         "WARNING: ACL errors detected, no change to the previously active ACL "
                         "rules was performed");
  }
  // The default user object stays (connections point at it); it takes the file's rules, or
  // a fresh default's when the file has none.
  AclRuleContext ctx = rule_context();
  auto d = fresh.find("default");
  if (d != fresh.end()) {
    *default_ = *d->second;
    fresh.erase(d);
  } else {
    AclUser nd("default");
    nd.selectors.emplace_back();
    for (std::string_view r : {"+@all", "~*", "&*", "on", "nopass"}) ApplyUserRule(nd, r, ctx);
    *default_ = nd;
  }
  RefreshUnrestricted(*default_, ctx);
  // Every other user's connections close below; the default user's stay, minus those holding
  // a watch or a `__watchex` subscription its new key rules refuse.
  CloseRevokedClients(*default_, current, false);
  for (auto it = users_.begin(); it != users_.end();) {
    if (it->second.get() == default_) {
      ++it;
      continue;
    }
    DisconnectUser(it->second.get(), current);
    it = users_.erase(it);
  }
  for (auto& [name, u] : fresh) users_.emplace(name, std::move(u));
  return Status::Ok();
}

Status Acl::SaveFile() {
  const std::string& path = server_.config().aclfile;
  if (path.empty()) return Status::Error(std::string(err::kAclLoadNoFile));
  AclRuleContext ctx = rule_context();
  std::string text;
  for (const auto& [name, u] : users_) text += "user " + name + " " + DescribeUser(*u, ctx) + "\n";
  std::string tmp = path + ".tmp-" + std::to_string(server_.NowMs());
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) {
    server_.log().Log(LogLevel::kWarning, "Opening temp ACL file for ACL SAVE: %s",
                      std::strerror(errno));
    return Status::Error(
        "ERR There was an error trying to save the ACLs. Please check the "
        "server logs for more information");
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fflush(f) == 0) && ok;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::Error(
        "ERR There was an error trying to save the ACLs. Please check the "
        "server logs for more information");
  }
  return Status::Ok();
}

std::vector<std::string> Acl::ConfigLines() const {
  std::vector<std::string> lines;
  if (!server_.config().aclfile.empty()) return lines;
  AclRuleContext ctx = rule_context();
  for (const auto& [name, u] : users_) {
    lines.push_back("user " + name + " " + DescribeUser(*u, ctx));
  }
  return lines;
}

}  // namespace redistp
