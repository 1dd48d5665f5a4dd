#include "server/notifications.h"

#include <charconv>
#include <cstring>
#include <memory>

#include "db/database.h"
#include "server/pubsub.h"
#include "server/server.h"

namespace redistp {
namespace {

// A channel name `<prefix><db>__:<suffix>` built in place: on the stack when it fits (the
// common case: no allocation), in a heap block for a longer key. Not copyable: view() points
// into the object.
class ChannelName {
 public:
  ChannelName(std::string_view prefix, std::string_view db, std::string_view suffix) {
    const size_t n = prefix.size() + db.size() + 3 + suffix.size();
    char* p = stack_;
    if (n > sizeof(stack_)) {
      heap_.reset(new char[n]);
      p = heap_.get();
    }
    char* w = p;
    std::memcpy(w, prefix.data(), prefix.size());
    w += prefix.size();
    std::memcpy(w, db.data(), db.size());
    w += db.size();
    std::memcpy(w, "__:", 3);
    w += 3;
    if (!suffix.empty()) std::memcpy(w, suffix.data(), suffix.size());
    view_ = std::string_view(p, n);
  }
  ChannelName(const ChannelName&) = delete;
  ChannelName& operator=(const ChannelName&) = delete;
  std::string_view view() const { return view_; }

 private:
  char stack_[192];
  std::unique_ptr<char[]> heap_;
  std::string_view view_;
};

}  // namespace

KeyspaceNotifier::KeyspaceNotifier(Server* server) : server_(server) {
  Sync();
  server_->config().OnChange("notify-keyspace-events", [this]() {
    Sync();
    return Status::Ok();
  });
}

void KeyspaceNotifier::Sync() {
  uint32_t bits = server_->config().notify_keyspace_events;
  // Without K or E nothing can be published: the bits count as none, so the first test of
  // OnKeyEvent ends every event (Redis accepts such a setting and is silent too).
  flags_ = (bits & (kNotifyKeyspace | kNotifyKeyevent)) != 0 ? bits : 0;
  server_->keyspace().report_misses = (flags_ & kNotifyKeyMiss) != 0;
  if (hub_ != nullptr) hub_->SetEnabled(this, flags_ != 0);
}

void KeyspaceNotifier::Attach(KeyspaceHub* hub) {
  hub_ = hub;
  hub_->Subscribe(this, flags_ != 0);
}

void KeyspaceNotifier::OnKeyEvent(const KeyEvent& ev) {
  if (flags_ == 0) return;
  if (ev.kind == KeyEventKind::kRemoved && ev.cause == RemoveCause::kMovedOut) {
    // Announced with the destination's kAdded, which the Database emits next.
    pending_from_ = ev.notice;
    pending_from_db_ = ev.db->index();
    return;
  }
  const bool added = ev.kind == KeyEventKind::kAdded;
  const bool is_new = added && (flags_ & kNotifyNew) != 0;
  const bool from = added && ev.moved_from != nullptr && (pending_from_.cls & flags_) != 0;
  const bool own = (ev.notice.cls & flags_) != 0;
  const KeyNotice held = pending_from_;
  const int held_db = pending_from_db_;
  pending_from_ = {};
  if (!is_new && !from && !own) return;
  if (server_->pubsub().idle()) return;
  const std::string_view key = ev.entry->key();
  const int db = ev.db->index();
  if (is_new) Publish(db, "new", key);
  if (from) Publish(held_db, held.name, ev.moved_from->key());
  if (own) Publish(db, ev.notice.name, key);
}

void KeyspaceNotifier::OnKeyMiss(Database& db, std::string_view key) {
  // report_misses is set only when m is, so the class test is already done.
  if (flags_ == 0 || server_->pubsub().idle()) return;
  Publish(db.index(), "keymiss", key);
}

void KeyspaceNotifier::Publish(int db, std::string_view event, std::string_view key) {
  char digits[16];
  const auto res = std::to_chars(digits, digits + sizeof(digits), db);
  const std::string_view db_text(digits, static_cast<size_t>(res.ptr - digits));
  PubSub& pubsub = server_->pubsub();
  if ((flags_ & kNotifyKeyspace) != 0) {
    const ChannelName channel("__keyspace@", db_text, key);
    pubsub.Publish(channel.view(), event);
  }
  if ((flags_ & kNotifyKeyevent) != 0) {
    const ChannelName channel("__keyevent@", db_text, event);
    pubsub.Publish(channel.view(), key);
  }
}

}  // namespace redistp
