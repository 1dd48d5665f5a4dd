// CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO: the commands of
// client-side caching. The rules (modes, tables, delivery) live in server/tracking.h; these
// handlers parse, check what only a command can check (the redirect target exists now), call
// Tracking, and reply. Their rows are subcommands of CLIENT, added to its row by
// RegisterClientCommands through ClientTrackingSubcommands().
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "server/tracking.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// CLIENT TRACKING ON|OFF [REDIRECT id] [PREFIX p]... [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
// Options are read (and refused) before ON/OFF is looked at, as in Redis; OFF ignores them.
void ClientTrackingCommand(CommandContext& c) {
  Tracking::Options o;
  const size_t argc = c.args.size();
  for (size_t j = 3; j < argc; ++j) {
    std::string_view opt = c.args[j];
    const bool has_value = j + 1 < argc;
    if (EqualsIgnoreCase(opt, "redirect") && has_value) {
      ++j;
      if (o.redirect != 0) {
        c.reply.Error(err::kTrackingRedirectTwice);
        return;
      }
      int64_t id;
      if (!ParseInt64(c.args[j], &id)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      // The target must exist now; if it goes away later the client becomes "broken".
      if (id <= 0 || c.server.FindClient(static_cast<uint64_t>(id)) == nullptr) {
        c.reply.Error(err::kTrackingNoSuchRedirect);
        return;
      }
      o.redirect = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(opt, "bcast")) {
      o.modes |= kTrackingBcast;
    } else if (EqualsIgnoreCase(opt, "optin")) {
      o.modes |= kTrackingOptin;
    } else if (EqualsIgnoreCase(opt, "optout")) {
      o.modes |= kTrackingOptout;
    } else if (EqualsIgnoreCase(opt, "noloop")) {
      o.modes |= kTrackingNoloop;
    } else if (EqualsIgnoreCase(opt, "prefix") && has_value) {
      o.prefixes.push_back(c.args[++j]);
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  std::string_view mode = c.args[2];
  if (EqualsIgnoreCase(mode, "on")) {
    Status s = c.server.tracking().Enable(c.client, o);
    if (!s.ok()) {
      c.reply.Error(s.message());
      return;
    }
  } else if (EqualsIgnoreCase(mode, "off")) {
    c.server.tracking().Disable(c.client);
  } else {
    c.reply.Error(err::kSyntax);
    return;
  }
  c.reply.Ok();
}

// CLIENT CACHING YES|NO: for OPTIN (YES) or OPTOUT (NO) clients, changes whether the next
// command's keys are remembered; Tracking::EndTopLevelCommand ends the effect.
void ClientCachingCommand(CommandContext& c) {
  Client& cl = c.client;
  if ((cl.tracking.flags & kTrackingOn) == 0) {
    c.reply.Error(err::kCachingNotTracking);
    return;
  }
  std::string_view opt = c.args[2];
  if (EqualsIgnoreCase(opt, "yes")) {
    if ((cl.tracking.flags & kTrackingOptin) == 0) {
      c.reply.Error(err::kCachingYesNeedsOptin);
      return;
    }
  } else if (EqualsIgnoreCase(opt, "no")) {
    if ((cl.tracking.flags & kTrackingOptout) == 0) {
      c.reply.Error(err::kCachingNoNeedsOptout);
      return;
    }
  } else {
    c.reply.Error(err::kSyntax);
    return;
  }
  cl.tracking.flags |= kTrackingCaching;
  c.reply.Ok();
}

// The redirect target while tracking is on (0: none), -1 when off.
int64_t RedirectShown(const Client& cl) {
  return (cl.tracking.flags & kTrackingOn) != 0 ? static_cast<int64_t>(cl.tracking.redirect) : -1;
}

void ClientGetRedirCommand(CommandContext& c) { c.reply.Int(RedirectShown(c.client)); }

// A map of three: flags (a set: on|off, bcast, optin + caching-yes, optout + caching-no,
// noloop, broken_redirect, in that order), redirect, prefixes (byte order).
void ClientTrackingInfoCommand(CommandContext& c) {
  const Client& cl = c.client;
  const uint8_t t = cl.tracking.flags;
  std::vector<std::string_view> flags;
  flags.push_back((t & kTrackingOn) != 0 ? "on" : "off");
  if ((t & kTrackingBcast) != 0) flags.push_back("bcast");
  if ((t & kTrackingOptin) != 0) {
    flags.push_back("optin");
    if ((t & kTrackingCaching) != 0) flags.push_back("caching-yes");
  }
  if ((t & kTrackingOptout) != 0) {
    flags.push_back("optout");
    if ((t & kTrackingCaching) != 0) flags.push_back("caching-no");
  }
  if ((t & kTrackingNoloop) != 0) flags.push_back("noloop");
  if ((t & kTrackingBrokenRedir) != 0) flags.push_back("broken_redirect");
  c.reply.Map(3);
  c.reply.Bulk("flags");
  c.reply.Set(flags.size());
  for (std::string_view f : flags) c.reply.Bulk(f);
  c.reply.Bulk("redirect");
  c.reply.Int(RedirectShown(cl));
  c.reply.Bulk("prefixes");
  c.reply.Array(cl.tracking.prefixes.size());
  for (const std::string& p : cl.tracking.prefixes) c.reply.Bulk(p);
}

}  // namespace

using docs::Integer;
using docs::OneOf;
using docs::PureToken;
using docs::String;

std::vector<CommandSpec> ClientTrackingSubcommands() {
  constexpr uint64_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kConnAcl = kAclSlow | kAclConnection;
  std::vector<CommandSpec> rows;
  rows.push_back(CommandSpec{
      .name = "tracking",
      .arity = -3,
      .flags = kBase,
      .acl = kConnAcl,
      .doc = {.summary = "Turns server-assisted client-side caching on or off for this connection",
              .since = "6.0.0",
              .group = "connection",
              .complexity = "O(1). Some options may introduce additional complexity.",
              .args = {OneOf("status", {PureToken("ON"), PureToken("OFF")}),
                       Integer("client-id").Token("REDIRECT").Optional(),
                       String("prefix").Token("PREFIX").Optional().Multiple().MultipleToken(),
                       PureToken("BCAST").Optional(), PureToken("OPTIN").Optional(),
                       PureToken("OPTOUT").Optional(), PureToken("NOLOOP").Optional()}},
      .handler = ClientTrackingCommand});
  rows.push_back(
      CommandSpec{.name = "caching",
                  .arity = 3,
                  .flags = kBase,
                  .acl = kConnAcl,
                  .doc = {.summary = "Says whether the keys of the next command are to be tracked",
                          .since = "6.0.0",
                          .group = "connection",
                          .complexity = "O(1)",
                          .args = {OneOf("mode", {PureToken("YES"), PureToken("NO")})}},
                  .handler = ClientCachingCommand});
  rows.push_back(CommandSpec{
      .name = "getredir",
      .arity = 2,
      .flags = kBase,
      .acl = kConnAcl,
      .doc = {.summary = "Returns the client that tracking invalidations are redirected to",
              .since = "6.0.0",
              .group = "connection",
              .complexity = "O(1)"},
      .handler = ClientGetRedirCommand});
  rows.push_back(
      CommandSpec{.name = "trackinginfo",
                  .arity = 2,
                  .flags = kBase,
                  .acl = kConnAcl,
                  .doc = {.summary = "Describes the client-side caching state of this connection",
                          .since = "6.2.0",
                          .group = "connection",
                          .complexity = "O(1)"},
                  .handler = ClientTrackingInfoCommand});
  return rows;
}

}  // namespace redistp
