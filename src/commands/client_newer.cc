// CLIENT subcommands that newer servers (Redis 7.2 to 8.x, Valkey 8) added and that current
// client libraries send on every connection: SETINFO, NO-TOUCH, CAPA, MAINT_NOTIFICATIONS.
//
// Model. Each one records something about the caller's own connection and nothing else; the
// server reads it back where it matters: CLIENT LIST/INFO show lib-name= and lib-ver= (always,
// empty until set, after resp= as Redis 7.2 places them) and the flag letter T; the
// dispatcher turns kClientNoTouch into the keyspace's no_touch for the length of a command;
// a planned shutdown or failover pushes a notice to the connections that asked for
// maintenance notifications (server/shutdown.cc, replication/failover.cc).
//
// Why always accept. A library pipelines SETINFO after authentication and, written for newer
// servers, some fail their handshake when it is refused; the attributes cost two strings per
// connection. RESET keeps them (Redis 7.2 does too: the library is still the same).
//
// These rows are ours as far as Redis 7.0 is concerned: the differential tester never sends
// them (utils/difftest/policy.cc), and the tests that use them carry the tag redistp.
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// An attribute value must keep a CLIENT LIST line parseable as space-separated key=value
// pairs: printable ASCII without spaces ('!' .. '~'); the empty value clears it.
bool IsValidAttribute(std::string_view v) {
  for (unsigned char ch : v) {
    if (ch < '!' || ch > '~') return false;
  }
  return true;
}

// CLIENT SETINFO LIB-NAME|LIB-VER value. The attribute is named in the error as typed.
void ClientSetInfoCommand(CommandContext& c) {
  std::string_view attr = c.args[2];
  std::string* dest = nullptr;
  if (EqualsIgnoreCase(attr, "lib-name")) {
    dest = &c.client.lib_name;
  } else if (EqualsIgnoreCase(attr, "lib-ver")) {
    dest = &c.client.lib_ver;
  } else {
    c.reply.Error(err::UnrecognizedOption(attr));
    return;
  }
  if (!IsValidAttribute(c.args[3])) {
    c.reply.Error(err::BadClientAttribute(attr));
    return;
  }
  dest->assign(c.args[3]);
  c.reply.Ok();
}

// Parses ON|OFF (any case); nullopt-like false return means neither.
bool ParseOnOff(std::string_view v, bool* on) {
  if (EqualsIgnoreCase(v, "on")) {
    *on = true;
  } else if (EqualsIgnoreCase(v, "off")) {
    *on = false;
  } else {
    return false;
  }
  return true;
}

// CLIENT NO-TOUCH ON|OFF (Redis 7.2).
void ClientNoTouchCommand(CommandContext& c) {
  bool on;
  if (!ParseOnOff(c.args[2], &on)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  c.client.set_flag(kClientNoTouch, on);
  c.reply.Ok();
}

// CLIENT CAPA capability [capability ...] (Redis 8.0): capabilities this server does not know
// are accepted and ignored, so a library can announce what it understands; `redirect` is
// recorded (no replica of ours sends -REDIRECT yet).
void ClientCapaCommand(CommandContext& c) {
  for (size_t i = 2; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "redirect")) c.client.set_flag(kClientCapaRedirect, true);
  }
  c.reply.Ok();
}

// CLIENT MAINT_NOTIFICATIONS ON|OFF [moving-endpoint-type <type>] (Redis 8.2): the endpoint
// type names the address a MOVING notice would carry; this server never moves a connection
// (it has no endpoint to offer), so the type is checked and not kept.
void ClientMaintNotificationsCommand(CommandContext& c) {
  bool on;
  if (!ParseOnOff(c.args[2], &on)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  for (size_t i = 3; i < c.args.size(); i += 2) {
    if (!EqualsIgnoreCase(c.args[i], "moving-endpoint-type") || i + 1 >= c.args.size()) {
      c.reply.Error(err::kSyntax);
      return;
    }
    std::string_view type = c.args[i + 1];
    static constexpr std::string_view kTypes[] = {"internal-ip", "internal-fqdn", "external-ip",
                                                  "external-fqdn", "none"};
    bool known = false;
    for (std::string_view t : kTypes) known = known || EqualsIgnoreCase(type, t);
    if (!known) {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  c.client.set_flag(kClientMaintNotify, on);
  c.reply.Ok();
}

}  // namespace

using docs::OneOf;
using docs::PureToken;
using docs::String;

std::vector<CommandSpec> ClientNewerSubcommands() {
  constexpr uint64_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kConnAcl = kAclSlow | kAclConnection;
  std::vector<CommandSpec> rows;
  rows.push_back(
      CommandSpec{.name = "setinfo",
                  .arity = 4,
                  .flags = kBase,
                  .acl = kConnAcl,
                  .doc = {.summary = "Records the client library's name or version for CLIENT LIST",
                          .since = "7.2.0",
                          .group = "connection",
                          .complexity = "O(1)",
                          .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"},
                          .args = {OneOf("attr", {String("libname").Token("LIB-NAME"),
                                                  String("libver").Token("LIB-VER")})}},
                  .handler = ClientSetInfoCommand});
  rows.push_back(CommandSpec{
      .name = "no-touch",
      .arity = 3,
      .flags = kBase,
      .acl = kConnAcl,
      .doc = {.summary = "Lets this connection's commands leave the keys' access times alone",
              .since = "7.2.0",
              .group = "connection",
              .complexity = "O(1)",
              .args = {OneOf("enabled", {PureToken("ON"), PureToken("OFF")})}},
      .handler = ClientNoTouchCommand});
  rows.push_back(
      CommandSpec{.name = "capa",
                  .arity = -3,
                  .flags = kBase,
                  .acl = kConnAcl,
                  .doc = {.summary = "Announces the capabilities this client understands",
                          .since = "8.0.0",
                          .group = "connection",
                          .complexity = "O(1)",
                          .args = {String("capability").Multiple()}},
                  .handler = ClientCapaCommand});
  rows.push_back(CommandSpec{
      .name = "maint_notifications",
      .arity = -3,
      .flags = kBase,
      .acl = kConnAcl,
      .doc = {.summary = "Asks for a push before planned maintenance (failover, shutdown)",
              .since = "8.2.0",
              .group = "connection",
              .complexity = "O(1)",
              .args = {OneOf("enabled", {PureToken("ON"), PureToken("OFF")}),
                       String("endpoint-type").Token("MOVING-ENDPOINT-TYPE").Optional()}},
      .handler = ClientMaintNotificationsCommand});
  return rows;
}

}  // namespace redistp
