// PubSub: the registry of Pub/Sub subscriptions and the publish path.
//
// Model. A *topic* is a name with at least one subscriber, of one of three kinds: an exact
// channel (SUBSCRIBE), a glob pattern (PSUBSCRIBE, matched like KEYS: util/glob.h) or a shard
// channel (SSUBSCRIBE). Each kind has its own table, so "news" the channel, the pattern and
// the shard channel are three unrelated topics. A topic is one heap block: the hash-chain link,
// its subscriber set and its name bytes. Both directions share it:
//   - topic -> subscribers: the topic's CompactSet of Client pointers;
//   - client -> topics: Client::pubsub.subscriptions[kind], a CompactSet of topic pointers.
// So the name is stored once however many clients subscribe, and one subscription costs a
// pointer slot in each of the two open-addressing sets (one word each while a set holds one
// member), no list node and no per-client dictionary entry (Redis spends a dict entry and a
// list node per subscription, plus a dict entry per client channel).
//
// Invariants:
//  - a topic is in its table iff its subscriber set is non-empty; the last unsubscribe frees
//    it, so the tables' sizes are INFO's pubsub_channels / pubsub_patterns /
//    pubsubshard_channels;
//  - client c is in topic t's subscribers iff t is in c.pubsub.subscriptions[t's kind];
//  - a closed client has no subscription: Server::EndSession (step 5) calls UnsubscribeAll
//    before the Client is freed, so no topic ever holds a dangling client pointer.
//
// Publishing. A message reaches each subscriber through Server::Push (the push path's
// hold rule: held while the target runs its own command, so the publisher's own copy follows
// its PUBLISH reply). The frame is encoded once per publish (per matching pattern for
// pmessage) and appended to every target as the same bytes; only the first byte differs
// between protocols ('*' array for RESP2, '>' push for RESP3). The frame is assembled whole
// once (protocol/push_frame.h): a small one (under 1 KB) is copied to each target, a bigger one
// becomes one shared block every target's output references, so a big message costs one copy
// and is held in memory once however many subscribers have yet to read it. Publishing a small
// message allocates nothing once the scratch buffers have grown to the frame's size.
// Pushing never closes a client synchronously (limits are checked when output is flushed), so
// the subscriber sets are stable while a publish walks them.
//
// Zero cost when unused: idle(), has_patterns() and watchex_channels() are field reads, so a
// producer (keyspace notifications, `__watchex@` events) can skip formatting a channel name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/push_frame.h"
#include "server/client.h"
#include "util/glob.h"
#include "util/hash_table.h"
#include "watch/compact_set.h"

namespace redistp {

class Server;

// Hashes a client by its address (subscriber sets compare clients by identity).
struct ClientPtrTraits {
  static uint64_t Hash(const Client* c) { return MixBits(reinterpret_cast<uintptr_t>(c)); }
};

// One channel, pattern or shard channel with at least one subscriber. Allocated as one block:
// this header followed by the name's bytes.
struct PubSubTopic {
  PubSubTopic* next = nullptr;  // chain link in its kind's table
  CompactSet<Client, ClientPtrTraits> subscribers;
  uint32_t len = 0;
  uint8_t kind = 0;  // PubSub::Kind

  std::string_view name() const { return {reinterpret_cast<const char*>(this + 1), len}; }
};

class PubSub {
 public:
  // The three independent namespaces; the values index Client::pubsub.subscriptions.
  enum Kind : uint8_t { kChannel = 0, kPattern = 1, kShard = 2 };
  static constexpr int kKinds = 3;

  explicit PubSub(Server* server) : server_(server) {}
  ~PubSub() = default;
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  // --- publishing ---------------------------------------------------------------------------
  // PUBLISH: every exact subscriber of `channel` gets `message <channel> <message>`, then every
  // subscriber of each pattern that matches `channel` gets `pmessage <pattern> <channel>
  // <message>` (a client subscribed both ways gets both). Returns the number of deliveries.
  size_t Publish(std::string_view channel, std::string_view message);
  // SPUBLISH: every subscriber of shard channel `channel` gets `smessage <channel> <message>`.
  // Patterns do not apply to shard channels. Returns the number of receivers.
  size_t PublishShard(std::string_view channel, std::string_view message);

  // --- cheap questions for producers --------------------------------------------------------
  // No channel, pattern or shard subscription at all.
  bool idle() const {
    return tables_[kChannel].empty() && tables_[kPattern].empty() && tables_[kShard].empty();
  }
  // At least one pattern subscription.
  bool has_patterns() const { return !tables_[kPattern].empty(); }
  // Exact-channel subscriptions whose channel starts with "__watchex@". A producer of those
  // events may skip formatting the channel name when this is 0 and !has_patterns().
  size_t watchex_channels() const { return watchex_channels_; }
  // Exact subscribers of `channel` (PUBSUB NUMSUB; patterns not counted).
  size_t ChannelSubscribers(std::string_view channel) const {
    return Subscribers(kChannel, channel);
  }

  // --- subscribing (the commands, EndSession) -----------------------------------------------
  // Adds the subscription; false (nothing changed) if the client already had it.
  bool Subscribe(Client& c, Kind kind, std::string_view name);
  // Removes the subscription; false if the client did not have it.
  bool Unsubscribe(Client& c, Kind kind, std::string_view name);
  // Removes every subscription of `kind`, calling on_removed(name, remaining) after each one
  // with the client's count left for that kind's confirmation (see SubscriptionCount); the
  // name view is valid only during the call. Order: the client's set order (unspecified, as
  // Redis's dictionary order is).
  template <typename Fn>
  void UnsubscribeAll(Client& c, Kind kind, Fn on_removed);
  // Removes every subscription of every kind, silently (disconnect, RESET).
  void RemoveClient(Client& c);

  // The count a (un)subscribe confirmation reports, as Redis 7.0: channels + patterns for the
  // classic kinds, shard channels alone for kShard.
  static size_t SubscriptionCount(const Client& c, Kind kind) {
    if (kind == kShard) return c.pubsub.subscriptions[kShard].size();
    return c.pubsub.subscriptions[kChannel].size() + c.pubsub.subscriptions[kPattern].size();
  }
  // True while the client has any subscription (the `P` flag, RESP2 subscribed mode).
  static bool Subscribed(const Client& c) {
    return !c.pubsub.subscriptions[kChannel].empty() || !c.pubsub.subscriptions[kPattern].empty() ||
           !c.pubsub.subscriptions[kShard].empty();
  }

  // Pattern matching for PSUBSCRIBE delivery and PUBSUB (SHARD)CHANNELS <pattern>: KEYS's glob,
  // except that an empty name matches only the empty pattern (Redis's matcher; KEYS/SCAN
  // special-case a lone "*" to list the key "", Pub/Sub does not).
  static bool Matches(std::string_view pattern, std::string_view name) {
    return name.empty() ? pattern.empty() : GlobMatch(pattern, name);
  }

  // --- introspection (PUBSUB, INFO) ---------------------------------------------------------
  // Topics of `kind` with at least one subscriber.
  size_t topic_count(Kind kind) const { return tables_[kind].size(); }
  // Subscribers of the topic `name` of `kind` (0 if none).
  size_t Subscribers(Kind kind, std::string_view name) const;
  // The client ids of the subscribers of the topic `name` of `kind`, in no particular order (a
  // cluster node unsubscribes the shard channels of a slot it stops serving).
  std::vector<uint64_t> SubscriberIds(Kind kind, std::string_view name) const;
  // Calls fn(name) for every topic of `kind`. fn must not subscribe or unsubscribe.
  template <typename Fn>
  void ForEachTopic(Kind kind, Fn fn) const {
    tables_[kind].ForEach([&](const PubSubTopic* t) { fn(t->name()); });
  }

 private:
  struct TopicTraits {
    using Node = PubSubTopic;
    using Key = std::string_view;
    static Node*& Next(Node* n) { return n->next; }
    static Key KeyOf(const Node* n) { return n->name(); }
    static uint64_t Hash(const Key& k) { return HashBytes(k); }
    static bool Equal(const Node* n, const Key& k) { return n->name() == k; }
    static void Destroy(Node* n);
  };
  using TopicTable = HashTable<TopicTraits>;

  static PubSubTopic* NewTopic(Kind kind, std::string_view name);
  // Drops client c from topic t (both directions); frees t when it was the last subscriber.
  void Detach(Client& c, PubSubTopic* t);
  // The topic's half of Detach (the caller has removed t from the client's set already).
  void DetachTopicSide(Client& c, PubSubTopic* t);
  // Appends the encoded frame `head` + body + CRLF to every subscriber of t; returns how many.
  // `head` starts after the aggregate's type byte, which is chosen per target's protocol.
  size_t Deliver(const PubSubTopic* t, std::string_view head, std::string_view body);

  Server* server_;
  // Find advances incremental rehashing, hence mutable for the const lookups.
  mutable TopicTable tables_[kKinds];
  size_t watchex_channels_ = 0;
  std::string head_;  // scratch for a frame header, reused by every publish
  PushFrame frame_;   // the frame being delivered (Deliver), reused likewise
};

template <typename Fn>
void PubSub::UnsubscribeAll(Client& c, Kind kind, Fn on_removed) {
  // Take the members, then empty the client's set in one step: erasing them one by one in the
  // set's own slot order would rescan each probe cluster per erase (quadratic in a large set).
  std::vector<PubSubTopic*> topics;
  topics.reserve(c.pubsub.subscriptions[kind].size());
  c.pubsub.subscriptions[kind].ForEach([&](PubSubTopic* t) { topics.push_back(t); });
  c.pubsub.subscriptions[kind].Clear();
  const size_t others = SubscriptionCount(c, kind);  // what stays: the other kind's count
  size_t left = topics.size();
  std::string name;
  for (PubSubTopic* t : topics) {
    name.assign(t->name());  // DetachTopicSide may free t
    DetachTopicSide(c, t);
    on_removed(std::string_view(name), others + --left);
  }
}

}  // namespace redistp
