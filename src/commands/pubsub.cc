// Pub/Sub commands: the handlers over the server's registry (server/pubsub.h).
//
//   SUBSCRIBE / UNSUBSCRIBE        exact channels
//   PSUBSCRIBE / PUNSUBSCRIBE      glob patterns (KEYS syntax)
//   SSUBSCRIBE / SUNSUBSCRIBE      shard channels (one shard here: no cluster)
//   PUBLISH / SPUBLISH             fan a message out; reply the number of receivers
//   PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB|HELP   introspection
//
// Replies, as Redis 7.0 sends them. Each (un)subscribe names one topic per confirmation, a
// three-element push (a plain array in RESP2): the kind ("subscribe", "punsubscribe" ...), the
// name, and the client's subscription count after it — channels + patterns for the classic
// kinds, shard channels alone for the shard kind. Subscribing twice to one name still
// confirms. An UNSUBSCRIBE without arguments leaves every subscription of its kind, one
// confirmation each (in no promised order); when there is none it sends a single confirmation
// with a null name and the count.
//
// Subscribed mode (RESP2 only: a subscribed connection may only (un)subscribe, PING, QUIT and
// RESET) is enforced by the dispatcher from the rows' kCmdSubscribedContext flag; PING's array
// form in that mode lives with PING (connection.cc). The subscription set is part of the
// session: EndSession (disconnect and RESET) leaves everything without confirmations.
//
// DENY BLOCKING. Redis refuses (P)SUBSCRIBE from a context that expects one reply per
// command (scripts), except inside MULTI for compatibility; SSUBSCRIBE gets no such
// exception, so inside EXEC it fails with its own error. Scripts do not exist yet; EXEC is the
// one such context here.
#include "server/pubsub.h"

#include <string_view>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "commands/help_reply.h"
#include "commands/register.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/command.h"
#include "server/propagation.h"
#include "server/server.h"

namespace redistp {
namespace {

// The confirmation for one topic: [kind-word, name, count]; a null name when `name` is null.
// A push, not a reply: CLIENT REPLY OFF/SKIP do not drop it (Redis 7.0, in RESP2 and RESP3).
void Confirm(ReplyBuilder& r, std::string_view word, const std::string_view* name, size_t count) {
  ReplyBuilder::PushScope push(r);
  r.Push(3);
  r.Bulk(word);
  if (name != nullptr) {
    r.Bulk(*name);
  } else {
    r.Null();
  }
  r.Int(static_cast<int64_t>(count));
}

void SubscribeKind(CommandContext& c, PubSub::Kind kind, std::string_view word) {
  PubSub& ps = c.server.pubsub();
  for (size_t i = 1; i < c.args.size(); ++i) {
    ps.Subscribe(c.client, kind, c.args[i]);
    Confirm(c.reply, word, &c.args[i], PubSub::SubscriptionCount(c.client, kind));
  }
}

void UnsubscribeKind(CommandContext& c, PubSub::Kind kind, std::string_view word) {
  PubSub& ps = c.server.pubsub();
  if (c.args.size() == 1) {
    if (c.client.pubsub.subscriptions[kind].empty()) {
      Confirm(c.reply, word, nullptr, PubSub::SubscriptionCount(c.client, kind));
      return;
    }
    ps.UnsubscribeAll(c.client, kind, [&](std::string_view name, size_t remaining) {
      Confirm(c.reply, word, &name, remaining);
    });
    return;
  }
  for (size_t i = 1; i < c.args.size(); ++i) {
    ps.Unsubscribe(c.client, kind, c.args[i]);
    Confirm(c.reply, word, &c.args[i], PubSub::SubscriptionCount(c.client, kind));
  }
}

void SubscribeCommand(CommandContext& c) { SubscribeKind(c, PubSub::kChannel, "subscribe"); }
void PSubscribeCommand(CommandContext& c) { SubscribeKind(c, PubSub::kPattern, "psubscribe"); }

void SSubscribeCommand(CommandContext& c) {
  if (c.origin != ExecOrigin::kClient) {
    c.reply.Error(err::kSSubscribeDenyBlocking);
    return;
  }
  SubscribeKind(c, PubSub::kShard, "ssubscribe");
}

void UnsubscribeCommand(CommandContext& c) { UnsubscribeKind(c, PubSub::kChannel, "unsubscribe"); }
void PUnsubscribeCommand(CommandContext& c) {
  UnsubscribeKind(c, PubSub::kPattern, "punsubscribe");
}
void SUnsubscribeCommand(CommandContext& c) { UnsubscribeKind(c, PubSub::kShard, "sunsubscribe"); }

// A message published here is also published on every replica, so their subscribers hear it
// too: the command goes to the replicas' stream (never to the AOF: a message is no data), as
// Redis 7.0 forces it outside cluster mode. It changes no key, so it is a record of its own,
// wrapped with the others in MULTI/EXEC when it runs in a transaction or script that writes.
void PropagatePublish(CommandContext& c) {
  // A replica passes on only its master's stream, never its own clients' messages.
  if (c.server.follows_master() || !c.propagation.has_sinks_for(kPropagateReplicas)) return;
  c.propagation.AppendRecordFor(
      kPropagateReplicas, c.db.index(),
      {std::string(c.args[0]), std::string(c.args[1]), std::string(c.args[2])});
}

// In cluster mode a message goes to the other nodes by the bus instead (PUBLISH to all,
// SPUBLISH to the shard's), as Redis 7.0 does; the reply counts the receivers of this node only.
void PublishCommand(CommandContext& c) {
  size_t n = c.server.pubsub().Publish(c.args[1], c.args[2]);
  if (Cluster* cl = Cluster::Of(c.server)) {
    cl->bus().Publish(c.args[1], c.args[2], false);
  } else {
    PropagatePublish(c);
  }
  c.reply.Int(static_cast<int64_t>(n));
}

void SPublishCommand(CommandContext& c) {
  size_t n = c.server.pubsub().PublishShard(c.args[1], c.args[2]);
  if (Cluster* cl = Cluster::Of(c.server)) {
    cl->bus().Publish(c.args[1], c.args[2], true);
  } else {
    PropagatePublish(c);
  }
  c.reply.Int(static_cast<int64_t>(n));
}

// PUBSUB CHANNELS / SHARDCHANNELS [pattern]: the active topics of `kind` matching the pattern
// (every one without it), in no promised order.
void ListTopics(CommandContext& c, PubSub::Kind kind) {
  if (c.args.size() > 3) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "PUBSUB"));
    return;
  }
  const bool filtered = c.args.size() == 3;
  const std::string_view pattern = filtered ? c.args[2] : std::string_view();
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  c.server.pubsub().ForEachTopic(kind, [&](std::string_view name) {
    if (filtered && !PubSub::Matches(pattern, name)) return;
    c.reply.Bulk(name);
    ++n;
  });
  c.reply.SetDeferredLen(handle, '*', n);
}

// PUBSUB NUMSUB / SHARDNUMSUB [name ...]: a flat array of name, count pairs (an array in RESP3
// too, as Redis 7.0 sends it).
void CountSubscribers(CommandContext& c, PubSub::Kind kind) {
  const PubSub& ps = c.server.pubsub();
  c.reply.Array((c.args.size() - 2) * 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    c.reply.Bulk(c.args[i]);
    c.reply.Int(static_cast<int64_t>(ps.Subscribers(kind, c.args[i])));
  }
}

void PubsubChannelsCommand(CommandContext& c) { ListTopics(c, PubSub::kChannel); }
void PubsubShardChannelsCommand(CommandContext& c) { ListTopics(c, PubSub::kShard); }
void PubsubNumSubCommand(CommandContext& c) { CountSubscribers(c, PubSub::kChannel); }
void PubsubShardNumSubCommand(CommandContext& c) { CountSubscribers(c, PubSub::kShard); }

// PUBSUB NUMPAT: distinct patterns with at least one subscriber.
void PubsubNumPatCommand(CommandContext& c) {
  c.reply.Int(static_cast<int64_t>(c.server.pubsub().topic_count(PubSub::kPattern)));
}

void PubsubHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "PUBSUB",
            {
                "CHANNELS [<pattern>]",
                "    List the channels with at least one subscriber, those matching <pattern>",
                "    if given (glob-style, as KEYS).",
                "NUMPAT",
                "    Count the distinct patterns subscribed to with PSUBSCRIBE.",
                "NUMSUB [<channel> ...]",
                "    For each <channel>, its number of subscribers (pattern subscriptions are",
                "    not counted).",
                "SHARDCHANNELS [<pattern>]",
                "    List the shard channels with at least one subscriber, those matching",
                "    <pattern> if given.",
                "SHARDNUMSUB [<shardchannel> ...]",
                "    For each <shardchannel>, its number of subscribers.",
            });
}

}  // namespace

using docs::Block;
using docs::Pattern;
using docs::String;

void RegisterPubSubCommands(CommandTable& t) {
  // (P|S)(UN)SUBSCRIBE may run in RESP2 subscribed mode; PUBLISH may not.
  constexpr uint64_t kSubFlags =
      kCmdPubSub | kCmdNoScript | kCmdLoading | kCmdStale | kCmdSubscribedContext;
  constexpr uint64_t kSubAcl = kAclPubSub | kAclSlow;
  // SSUBSCRIBE/SUNSUBSCRIBE name their shard channels like keys (for cluster routing), flagged
  // not-a-key.
  const KeySpec kShardChannels{.flags = kKeyNotKey, .index = 1, .last_key = -1};

  t.Register({.name = "subscribe",
              .arity = -2,
              .flags = kSubFlags,
              .acl = kSubAcl,
              .doc = {.summary = "Starts listening for messages published to the given channels",
                      .since = "2.0.0",
                      .group = "pubsub",
                      .complexity = "O(N) where N is the number of channels to subscribe to.",
                      .args = {String("channel").Multiple()}},
              .handler = SubscribeCommand});
  t.Register({.name = "unsubscribe",
              .arity = -1,
              .flags = kSubFlags,
              .acl = kSubAcl,
              .doc = {.summary = "Stops listening to the given channels, or to every channel",
                      .since = "2.0.0",
                      .group = "pubsub",
                      .complexity = "O(N) where N is the number of clients already subscribed to "
                                    "a channel.",
                      .args = {String("channel").Optional().Multiple()}},
              .handler = UnsubscribeCommand});
  t.Register(
      {.name = "psubscribe",
       .arity = -2,
       .flags = kSubFlags,
       .acl = kSubAcl,
       .doc = {.summary = "Starts listening for messages published to channels matching patterns",
               .since = "2.0.0",
               .group = "pubsub",
               .complexity = "O(N) where N is the number of patterns the client is already "
                             "subscribed to.",
               .args = {Block("pattern", {Pattern("pattern")}).Multiple()}},
       .handler = PSubscribeCommand});
  t.Register(
      {.name = "punsubscribe",
       .arity = -1,
       .flags = kSubFlags,
       .acl = kSubAcl,
       .doc = {.summary = "Stops listening to the given patterns, or to every pattern",
               .since = "2.0.0",
               .group = "pubsub",
               .complexity = "O(N+M) where N is the number of patterns the client is already "
                             "subscribed and M is the number of total patterns subscribed in "
                             "the system (by any client).",
               .args = {Pattern("pattern").Optional().Multiple()}},
       .handler = PUnsubscribeCommand});
  t.Register({.name = "publish",
              .arity = 3,
              .flags = kCmdPubSub | kCmdLoading | kCmdStale | kCmdFast | kCmdMayReplicate,
              .acl = kAclPubSub | kAclFast,
              .doc = {.summary = "Sends a message to a channel's subscribers",
                      .since = "2.0.0",
                      .group = "pubsub",
                      .complexity = "O(N+M) where N is the number of clients subscribed to the "
                                    "receiving channel and M is the total number of subscribed "
                                    "patterns (by any client).",
                      .args = {String("channel"), String("message")}},
              .handler = PublishCommand});
  t.Register(
      {.name = "ssubscribe",
       .arity = -2,
       .flags = kSubFlags,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kSubAcl,
       .doc = {.summary = "Starts listening for messages published to the given shard channels",
               .since = "7.0.0",
               .group = "pubsub",
               .complexity = "O(N) where N is the number of shard channels to subscribe to.",
               .key_specs = {kShardChannels},
               .args = {String("shardchannel").Multiple()}},
       .handler = SSubscribeCommand});
  t.Register({.name = "sunsubscribe",
              .arity = -1,
              .flags = kSubFlags,
              .first_key = 1,
              .last_key = -1,
              .key_step = 1,
              .acl = kSubAcl,
              .doc = {.summary = "Stops listening to the given shard channels, or to every one",
                      .since = "7.0.0",
                      .group = "pubsub",
                      .complexity = "O(N) where N is the number of clients already subscribed to a "
                                    "shard channel.",
                      .key_specs = {kShardChannels},
                      .args = {String("shardchannel").Optional().Multiple()}},
              .handler = SUnsubscribeCommand});
  t.Register({.name = "spublish",
              .arity = 3,
              .flags = kCmdPubSub | kCmdLoading | kCmdStale | kCmdFast | kCmdMayReplicate,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclPubSub | kAclFast,
              .doc = {.summary = "Sends a message to a shard channel's subscribers",
                      .since = "7.0.0",
                      .group = "pubsub",
                      .complexity = "O(N) where N is the number of clients subscribed to the "
                                    "receiving shard channel.",
                      .key_specs = {{.flags = kKeyNotKey, .index = 1}},
                      .args = {String("shardchannel"), String("message")}},
              .handler = SPublishCommand});

  constexpr uint64_t kIntroFlags = kCmdPubSub | kCmdLoading | kCmdStale;
  constexpr uint64_t kIntroAcl = kAclPubSub | kAclSlow;
  t.Register(
      {.name = "pubsub",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that inspect Pub/Sub subscriptions",
               .since = "2.8.0",
               .group = "pubsub",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           CommandSpec{
               .name = "channels",
               .arity = -2,
               .flags = kIntroFlags,
               .acl = kIntroAcl,
               .doc = {.summary = "Lists the channels that have subscribers",
                       .since = "2.8.0",
                       .group = "pubsub",
                       .complexity = "O(N) where N is the number of active channels, and "
                                     "assuming constant time pattern matching (relatively short "
                                     "channels and patterns)",
                       .args = {Pattern("pattern").Optional()}},
               .handler = PubsubChannelsCommand},
           CommandSpec{.name = "numpat",
                       .arity = 2,
                       .flags = kIntroFlags,
                       .acl = kIntroAcl,
                       .doc = {.summary = "Counts the distinct patterns that have subscribers",
                               .since = "2.8.0",
                               .group = "pubsub",
                               .complexity = "O(1)"},
                       .handler = PubsubNumPatCommand},
           CommandSpec{.name = "numsub",
                       .arity = -2,
                       .flags = kIntroFlags,
                       .acl = kIntroAcl,
                       .doc = {.summary = "Counts the subscribers of each given channel",
                               .since = "2.8.0",
                               .group = "pubsub",
                               .complexity = "O(N) for the NUMSUB subcommand, where N is the "
                                             "number of requested channels",
                               .args = {String("channel").Optional().Multiple()}},
                       .handler = PubsubNumSubCommand},
           CommandSpec{
               .name = "shardchannels",
               .arity = -2,
               .flags = kIntroFlags,
               .acl = kIntroAcl,
               .doc = {.summary = "Lists the shard channels that have subscribers",
                       .since = "7.0.0",
                       .group = "pubsub",
                       .complexity = "O(N) where N is the number of active shard channels, and "
                                     "assuming constant time pattern matching (relatively short "
                                     "shard channels).",
                       .args = {Pattern("pattern").Optional()}},
               .handler = PubsubShardChannelsCommand},
           CommandSpec{.name = "shardnumsub",
                       .arity = -2,
                       .flags = kIntroFlags,
                       .acl = kIntroAcl,
                       .doc = {.summary = "Counts the subscribers of each given shard channel",
                               .since = "7.0.0",
                               .group = "pubsub",
                               .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the "
                                             "number of requested shard channels",
                               .args = {String("shardchannel").Optional().Multiple()}},
                       .handler = PubsubShardNumSubCommand},
           CommandSpec{.name = "help",
                       .arity = 2,
                       .flags = kCmdLoading | kCmdStale,
                       .acl = kAclSlow,
                       .doc = {.summary = "Lists the PUBSUB subcommands with a short description "
                                          "of each",
                               .since = "6.2.0",
                               .group = "pubsub",
                               .complexity = "O(1)"},
                       .handler = PubsubHelpCommand},
       }});
}

}  // namespace redistp
