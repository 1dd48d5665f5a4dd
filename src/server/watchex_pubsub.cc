// WatchexPublisher: the bridge from existence changes to `__watchex@<db>__:<key>` messages. The
// model, the two paths (exact channels through the WatchIndex, patterns from key events) and
// the ordering rule are in watchex_pubsub.h.
#include "server/watchex_pubsub.h"

#include <vector>

#include "db/database.h"
#include "db/entry.h"
#include "server/keyspace_hub.h"
#include "server/server.h"
#include "server/watchex_shard_route.h"
#include "util/glob.h"
#include "util/numbers.h"
#include "util/scratch.h"

namespace redistp {

bool WatchexPublisher::ParseChannel(std::string_view channel, int* db, std::string_view* key) {
  if (!channel.starts_with(kPrefix)) return false;
  std::string_view rest = channel.substr(kPrefix.size());
  size_t digits = 0;
  int64_t value = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
    value = value * 10 + (rest[digits] - '0');
    if (++digits > 9) return false;  // far beyond any `databases` setting
  }
  // "0" or a number without a leading zero: one spelling per database, as the server formats it.
  if (digits == 0 || (digits > 1 && rest[0] == '0')) return false;
  rest.remove_prefix(digits);
  if (!rest.starts_with("__:")) return false;
  *db = static_cast<int>(value);
  *key = rest.substr(3);
  return true;
}

void WatchexPublisher::UpdateEnabled() {
  const bool want = patterns_ > 0 || forward_all_;
  if (want == enabled_) return;
  enabled_ = want;
  hub_->SetEnabled(this, want);
}

void WatchexPublisher::SetForwardAll(bool on) {
  forward_all_ = on;
  UpdateEnabled();
}

void WatchexPublisher::OnTopicAdded(bool pattern, std::string_view name) {
  if (pattern) {
    if (GlobCanMatchPrefix(name, kPrefix)) {
      ++patterns_;
      UpdateEnabled();
    }
    return;
  }
  int db;
  std::string_view key;
  if (!ParseChannel(name, &db, &key) || db >= server_->db_count()) return;
  // The raw entry: a key past its TTL but not yet reclaimed gets its deadline scheduled (in the
  // past), so its DEL is published at once by the watched-key timer, as for a WATCHEX watcher.
  // Subscribing never changes the keyspace itself.
  Database& d = server_->db(db);
  Entry* e = d.FindRaw(key);
  server_->watches().AddPublished(db, key, e, d.ExpireOf(e));
}

void WatchexPublisher::OnTopicRemoved(bool pattern, std::string_view name) {
  if (pattern) {
    if (GlobCanMatchPrefix(name, kPrefix) && patterns_ > 0) {
      --patterns_;
      UpdateEnabled();
    }
    return;
  }
  int db;
  std::string_view key;
  if (!ParseChannel(name, &db, &key) || db >= server_->db_count()) return;
  // The shard channel of the same name keeps the mark while it has subscribers.
  if (server_->pubsub().Subscribers(PubSub::kShard, name) > 0) return;
  server_->watches().RemovePublished(db, key);
}

void WatchexPublisher::OnShardTopicAdded(std::string_view name) { OnTopicAdded(false, name); }

void WatchexPublisher::OnShardTopicRemoved(std::string_view name) {
  int db;
  std::string_view key;
  if (!ParseChannel(name, &db, &key) || db >= server_->db_count()) return;
  if (server_->pubsub().ChannelSubscribers(name) > 0) return;
  server_->watches().RemovePublished(db, key);
}

void WatchexPublisher::FormatChannel(int db, std::string_view key) {
  char digits[kMaxInt64Chars + 1];
  size_t n = FormatInt64(db, digits);
  channel_.assign(kPrefix);
  channel_.append(digits, n);
  channel_.append("__:");
  channel_.append(key);
}

void WatchexPublisher::PublishChange(int db, std::string_view key, bool added) {
  FormatChannel(db, key);
  const std::string_view message = added ? "ADD" : "DEL";
  PubSub& pubsub = server_->pubsub();
  pubsub.Publish(channel_, message);
  // The shard channel of the same name: here, or the shard that serves its slot.
  if (route_ == nullptr || !route_->ForwardElsewhere(channel_, message)) {
    if (pubsub.topic_count(PubSub::kShard) > 0) pubsub.PublishShard(channel_, message);
  }
  ReleaseScratch(channel_);  // it holds the key: never keep a big key's length
}

void WatchexPublisher::Offer(int db, std::string_view key, bool added, bool flagged) {
  if (patterns_ > 0) {
    if (flagged) {
      PublishUnmarked(db, key, added);
    } else {
      PublishChange(db, key, added);
    }
    return;
  }
  // Forwarding only: no local subscriber can hear a key without the mark (a local exact or
  // shard subscriber sets it), so the change only goes to the route.
  if (route_ == nullptr) return;
  if (flagged && server_->watches().IsPublished(db, key)) return;  // the index publishes it
  FormatChannel(db, key);
  route_->ForwardElsewhere(channel_, added ? "ADD" : "DEL");
  ReleaseScratch(channel_);
}

void WatchexPublisher::PublishUnmarked(int db, std::string_view key, bool added) {
  WatchIndex& watches = server_->watches();
  if (!watches.empty() && watches.IsPublished(db, key)) return;
  PublishChange(db, key, added);
}

void WatchexPublisher::OnKeyEvent(const KeyEvent& ev) {
  if (!enabled_) return;  // (the hub calls it only while enabled)
  bool added;
  switch (ev.kind) {
    case KeyEventKind::kAdded:
      // A replaced destination (RENAME/MOVE/COPY REPLACE onto an existing key) never went away.
      if (ev.replaced) return;
      added = true;
      break;
    case KeyEventKind::kRemoved:
      // ... and its old entry's removal is not a disappearance either.
      if (ev.cause == RemoveCause::kOverwritten) return;
      added = false;
      break;
    default:
      return;  // a value change of a key that exists before and after
  }
  // Only entries flagged by the index can carry the published mark (the index flags an added
  // entry of a marked key before this listener runs).
  Offer(ev.db->index(), ev.entry->key(), added, ev.entry->has_flag(Entry::kFlagWatched));
}

void WatchexPublisher::OnFlush(Database& db) {
  if (!enabled_) return;
  // Called before the keys are dropped: each one still in the table disappears now (a key past
  // its TTL but not reclaimed included, as the index counts it).
  db.dict().ForEach([this, &db](Entry* e) { Offer(db.index(), e->key(), false, true); });
}

void WatchexPublisher::OnSwap(Database& a, Database& b) {
  if (patterns_ == 0 || &a == &b) return;
  // Called after the exchange: a key now in `a` and absent from `b` was added to `a` and
  // deleted from `b`, and the other way round; a key in both exists before and after in both.
  // Names are collected first: publishing must not run inside a table walk.
  std::vector<std::string> a_only, b_only;
  a.dict().ForEach([&](Entry* e) {
    if (b.FindRaw(e->key()) == nullptr) a_only.emplace_back(e->key());
  });
  b.dict().ForEach([&](Entry* e) {
    if (a.FindRaw(e->key()) == nullptr) b_only.emplace_back(e->key());
  });
  for (const std::string& k : b_only) PublishUnmarked(a.index(), k, false);
  for (const std::string& k : a_only) PublishUnmarked(a.index(), k, true);
  for (const std::string& k : a_only) PublishUnmarked(b.index(), k, false);
  for (const std::string& k : b_only) PublishUnmarked(b.index(), k, true);
}

// WatchSink: the index reports a change of a key carrying the published mark.
void Server::OnPublishedKeyEvent(int db, std::string_view key, bool added) {
  watchex_pubsub_.PublishChange(db, key, added);
}

}  // namespace redistp
