// The Pub/Sub registry: topic tables, subscription bookkeeping and the publish fan-out. The
// model and invariants are in pubsub.h.
#include "server/pubsub.h"

#include <cstring>
#include <new>
#include <span>

#include "server/server.h"
#include "util/numbers.h"
#include "util/scratch.h"

namespace redistp {
namespace {

constexpr std::string_view kWatchExPrefix = "__watchex@";
bool IsWatchExChannel(PubSub::Kind kind, std::string_view name) {
  return kind == PubSub::kChannel && name.starts_with(kWatchExPrefix);
}

// Appends "$<len>\r\n" to `out`.
void AppendBulkLen(std::string& out, size_t len) {
  char digits[kMaxInt64Chars + 1];
  out.push_back('$');
  out.append(digits, FormatInt64(static_cast<int64_t>(len), digits));
  out.append("\r\n");
}

// Appends a whole bulk string "$<len>\r\n<s>\r\n" to `out`.
void AppendBulk(std::string& out, std::string_view s) {
  AppendBulkLen(out, s.size());
  out.append(s);
  out.append("\r\n");
}

}  // namespace

void PubSub::TopicTraits::Destroy(PubSubTopic* t) {
  size_t bytes = sizeof(PubSubTopic) + t->len;
  t->~PubSubTopic();
  ::operator delete(t, bytes);
}

PubSubTopic* PubSub::NewTopic(Kind kind, std::string_view name) {
  void* mem = ::operator new(sizeof(PubSubTopic) + name.size());
  auto* t = new (mem) PubSubTopic;
  t->len = static_cast<uint32_t>(name.size());
  t->kind = kind;
  if (!name.empty()) std::memcpy(reinterpret_cast<char*>(t + 1), name.data(), name.size());
  return t;
}

bool PubSub::Subscribe(Client& c, Kind kind, std::string_view name) {
  TopicTable& table = tables_[kind];
  PubSubTopic* t = table.Find(name);
  if (t == nullptr) {
    t = NewTopic(kind, name);
    table.Insert(t);
    // A new topic may be a `__watchex@` channel, or a pattern that can see them.
    if (kind == kShard) {
      server_->watchex_pubsub().OnShardTopicAdded(name);
    } else {
      server_->watchex_pubsub().OnTopicAdded(kind == kPattern, name);
    }
  } else if (t->subscribers.Contains(&c)) {
    return false;
  }
  t->subscribers.Insert(&c);
  c.pubsub.subscriptions[kind].Insert(t);
  if (IsWatchExChannel(kind, name)) ++watchex_channels_;
  return true;
}

bool PubSub::Unsubscribe(Client& c, Kind kind, std::string_view name) {
  PubSubTopic* t = tables_[kind].Find(name);
  if (t == nullptr || !c.pubsub.subscriptions[kind].Contains(t)) return false;
  Detach(c, t);
  return true;
}

void PubSub::Detach(Client& c, PubSubTopic* t) {
  c.pubsub.subscriptions[t->kind].Erase(t);
  DetachTopicSide(c, t);
}

void PubSub::DetachTopicSide(Client& c, PubSubTopic* t) {
  Kind kind = static_cast<Kind>(t->kind);
  t->subscribers.Erase(&c);
  if (IsWatchExChannel(kind, t->name())) --watchex_channels_;
  if (t->subscribers.empty()) {
    if (kind == kShard) {
      server_->watchex_pubsub().OnShardTopicRemoved(t->name());
    } else {
      server_->watchex_pubsub().OnTopicRemoved(kind == kPattern, t->name());
    }
    PubSubTopic* unlinked = tables_[kind].Unlink(t->name());
    TopicTraits::Destroy(unlinked);
  }
}

void PubSub::RemoveClient(Client& c) {
  for (int k = 0; k < kKinds; ++k) {
    if (c.pubsub.subscriptions[k].empty()) continue;
    UnsubscribeAll(c, static_cast<Kind>(k), [](std::string_view, size_t) {});
  }
}

size_t PubSub::Subscribers(Kind kind, std::string_view name) const {
  if (tables_[kind].empty()) return 0;
  const PubSubTopic* t = tables_[kind].Find(name);
  return t == nullptr ? 0 : t->subscribers.size();
}

std::vector<uint64_t> PubSub::SubscriberIds(Kind kind, std::string_view name) const {
  std::vector<uint64_t> ids;
  if (tables_[kind].empty()) return ids;
  const PubSubTopic* t = tables_[kind].Find(name);
  if (t == nullptr) return ids;
  ids.reserve(t->subscribers.size());
  t->subscribers.ForEach([&ids](Client* c) { ids.push_back(c->id); });
  return ids;
}

size_t PubSub::Deliver(const PubSubTopic* t, std::string_view head, std::string_view body) {
  // Encoded once (its RESP2 form); each target gets it copied when small, or referenced as
  // one shared block when big (protocol/push_frame.h): a big message is never copied per
  // subscriber.
  frame_.Reset();
  frame_.AppendRaw("*");
  frame_.AppendRaw(head);
  frame_.AppendRaw(body);
  frame_.AppendRaw("\r\n");
  frame_.Seal();
  size_t n = 0;
  t->subscribers.ForEach([&](Client* c) {
    server_->Push(*c, [this](ReplyBuilder& rb) { frame_.WriteTo(rb); });
    ++n;
  });
  return n;
}

size_t PubSub::Publish(std::string_view channel, std::string_view message) {
  size_t receivers = 0;
  if (!tables_[kChannel].empty()) {
    if (const PubSubTopic* t = tables_[kChannel].Find(channel); t != nullptr) {
      head_.assign("3\r\n$7\r\nmessage\r\n");
      AppendBulk(head_, channel);
      AppendBulkLen(head_, message.size());
      receivers += Deliver(t, head_, message);
    }
  }
  if (!tables_[kPattern].empty()) {
    tables_[kPattern].ForEach([&](const PubSubTopic* p) {
      if (!Matches(p->name(), channel)) return;
      head_.assign("4\r\n$8\r\npmessage\r\n");
      AppendBulk(head_, p->name());
      AppendBulk(head_, channel);
      AppendBulkLen(head_, message.size());
      receivers += Deliver(p, head_, message);
    });
  }
  ReleaseScratch(head_);  // a header holds the channel name, as long as a key for __watchex@
  frame_.Release();
  return receivers;
}

size_t PubSub::PublishShard(std::string_view channel, std::string_view message) {
  if (tables_[kShard].empty()) return 0;
  const PubSubTopic* t = tables_[kShard].Find(channel);
  if (t == nullptr) return 0;
  head_.assign("3\r\n$8\r\nsmessage\r\n");
  AppendBulk(head_, channel);
  AppendBulkLen(head_, message.size());
  const size_t receivers = Deliver(t, head_, message);
  ReleaseScratch(head_);
  frame_.Release();
  return receivers;
}

}  // namespace redistp
