// Tracking: the tables and the delivery of invalidations. The model is in tracking.h.
#include "server/tracking.h"

#include <algorithm>
#include <cstdint>

#include "db/entry.h"
#include "protocol/errors.h"
#include "server/command.h"
#include "server/server.h"
#include "util/hash.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr std::string_view kInvalidateChannel = "__redis__:invalidate";

// Two prefixes overlap when one starts with the other (equal ones included): a key could then
// match both, and the client would be told twice.
bool Overlap(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

}  // namespace

size_t Tracking::NameHash::operator()(std::string_view s) const { return HashBytes(s); }

Status Tracking::Enable(Client& c, const Options& o) {
  const bool bcast = (o.modes & kTrackingBcast) != 0;
  if (!bcast && !o.prefixes.empty())
    return Status::Error(std::string(err::kTrackingPrefixNeedsBcast));
  if ((c.tracking.flags & kTrackingOn) != 0 &&
      ((c.tracking.flags & kTrackingBcast) != 0) != bcast) {
    return Status::Error(std::string(err::kTrackingBcastSwitch));
  }
  const bool optin = (o.modes & kTrackingOptin) != 0, optout = (o.modes & kTrackingOptout) != 0;
  if (bcast && (optin || optout)) return Status::Error(std::string(err::kTrackingBcastOptInOut));
  if (optin && optout) return Status::Error(std::string(err::kTrackingOptInAndOut));
  if ((optin && (c.tracking.flags & kTrackingOptout) != 0) ||
      (optout && (c.tracking.flags & kTrackingOptin) != 0)) {
    return Status::Error(std::string(err::kTrackingOptSwitch));
  }
  if (bcast) {
    // Each new prefix against the client's registered ones, then against the later new ones.
    // (Redis 7.0.15 replies the error and then also OK, enabling tracking, when the clash is
    // between two new prefixes after the first; we answer the error alone.)
    for (size_t i = 0; i < o.prefixes.size(); ++i) {
      for (const std::string& have : c.tracking.prefixes) {
        if (Overlap(have, o.prefixes[i])) {
          return Status::Error(err::TrackingPrefixOverlap(o.prefixes[i], have, true));
        }
      }
      for (size_t j = i + 1; j < o.prefixes.size(); ++j) {
        if (Overlap(o.prefixes[i], o.prefixes[j])) {
          return Status::Error(err::TrackingPrefixOverlap(o.prefixes[i], o.prefixes[j], false));
        }
      }
    }
  }

  if ((c.tracking.flags & kTrackingOn) == 0) ++clients_;
  // The modes are replaced (a broken redirect is forgotten, a pending CLIENT CACHING is not, as
  // in Redis); BCAST prefixes accumulate (re-enabling adds to them).
  c.tracking.flags =
      kTrackingOn | (c.tracking.flags & kTrackingCaching) |
      (o.modes & (kTrackingBcast | kTrackingOptin | kTrackingOptout | kTrackingNoloop));
  c.tracking.redirect = o.redirect;
  if (bcast) {
    auto add = [&](std::string_view p) {
      auto at = std::lower_bound(c.tracking.prefixes.begin(), c.tracking.prefixes.end(), p);
      if (at != c.tracking.prefixes.end() && *at == p) return;
      c.tracking.prefixes.insert(at, std::string(p));
      auto it = prefixes_.find(p);
      if (it == prefixes_.end()) it = prefixes_.emplace(std::string(p), Prefix{}).first;
      it->second.clients.push_back(c.id);
    };
    if (o.prefixes.empty()) add("");
    for (std::string_view p : o.prefixes) add(p);
  }
  return Status::Ok();
}

void Tracking::Disable(Client& c) {
  for (const std::string& p : c.tracking.prefixes) {
    auto it = prefixes_.find(p);
    if (it == prefixes_.end()) continue;
    std::vector<uint64_t>& ids = it->second.clients;
    ids.erase(std::remove(ids.begin(), ids.end(), c.id), ids.end());
    if (ids.empty()) prefixes_.erase(it);
  }
  c.tracking.prefixes.clear();
  if ((c.tracking.flags & kTrackingOn) != 0) --clients_;
  c.tracking.flags = 0;
}

void Tracking::EndTopLevelCommand(Client& c, std::string_view command_name) {
  if ((c.tracking.flags & kTrackingCaching) == 0 || c.multi.active) return;
  if (EqualsIgnoreCase(command_name, "client")) return;
  c.tracking.flags &= static_cast<uint8_t>(~kTrackingCaching);
}

void Tracking::RememberKeys(Client& c, const CommandSpec& spec,
                            const std::vector<std::string_view>& args) {
  if ((spec.flags & kCmdReadOnly) == 0 || (spec.flags & kCmdPubSub) != 0) return;
  // A read-only script call remembers its keys only through the reads its script makes
  // (RememberCallerKeys), as Redis 7.0 leaves the script commands themselves out.
  const std::string_view name = spec.full_name;
  if (name == "eval_ro" || name == "evalsha_ro" || name == "fcall_ro") return;
  RememberKeysOf(c, spec, args);
}

void Tracking::RememberKeysOf(Client& c, const CommandSpec& spec,
                              const std::vector<std::string_view>& args) {
  // OPTIN remembers only with CACHING YES given; OPTOUT only without CACHING NO.
  const bool caching = (c.tracking.flags & kTrackingCaching) != 0;
  if ((c.tracking.flags & kTrackingOptin) != 0 && !caching) return;
  if ((c.tracking.flags & kTrackingOptout) != 0 && caching) return;
  for (const KeyRef& k : FindKeys(spec, args, KeySearch::kProcedure)) {
    std::string_view key = args[static_cast<size_t>(k.index)];
    auto it = table_.find(key);
    if (it == table_.end()) it = table_.emplace(std::string(key), std::vector<uint64_t>{}).first;
    std::vector<uint64_t>& ids = it->second;
    if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) continue;
    ids.push_back(c.id);
    ++total_items_;
  }
}

void Tracking::OnKeyEvent(const KeyEvent& ev) {
  if (table_.empty() && prefixes_.empty()) return;
  // A creation with no notice (DEBUG POPULATE, a BITFIELD whose every write FAILed) is one
  // Redis makes with dbAdd alone, which signals no modification: nobody is invalidated.
  if (ev.kind == KeyEventKind::kAdded && ev.notice.name == nullptr) return;
  // A change Redis does not signal as a modification (a stream's group state) invalidates nothing.
  if (ev.kind == KeyEventKind::kModified && !ev.notice.signals_modified) return;
  // Expiry and eviction are nobody's change for BCAST's NOLOOP (Redis signals them with no
  // client); any other change is the running command's.
  const bool no_changer = ev.kind == KeyEventKind::kRemoved &&
                          (ev.cause == RemoveCause::kExpired || ev.cause == RemoveCause::kEvicted);
  const Client* running = server_->running_client();
  uint64_t changer = (no_changer || running == nullptr) ? 0 : running->id;
  Invalidate(ev.entry->key(), true, changer);
}

void Tracking::Invalidate(std::string_view key, bool broadcast, uint64_t bcast_changer) {
  if (broadcast && !prefixes_.empty()) {
    for (auto& [prefix, state] : prefixes_) {
      if (!key.starts_with(prefix)) continue;
      auto it = state.changed.find(key);
      if (it == state.changed.end()) {
        state.changed.emplace(std::string(key), bcast_changer);
      } else {
        it->second = bcast_changer;
      }
      broadcast_pending_ = true;
    }
  }
  auto row = table_.find(key);
  if (row == table_.end()) return;
  // The row goes first: each reader is told once per read.
  std::vector<uint64_t> ids = std::move(row->second);
  total_items_ -= ids.size();
  table_.erase(row);
  const Client* running = server_->running_client();
  for (uint64_t id : ids) {
    Client* t = server_->FindClient(id);
    // Gone, off, or switched to BCAST since it read the key: nothing to tell.
    if (t == nullptr || (t->tracking.flags & (kTrackingOn | kTrackingBcast)) != kTrackingOn)
      continue;
    if ((t->tracking.flags & kTrackingNoloop) != 0 && t == running) continue;
    DeliverOrHold(*t, key, false);
  }
}

void Tracking::DeliverOrHold(Client& c, std::string_view key, bool null) {
  if (&c == server_->running_client()) {
    held_.push_back(Held{c.id, null, std::string(key)});
    return;
  }
  const std::string_view one[] = {key};
  Deliver(c, null ? Payload{{}, true} : Payload{one});
}

void Tracking::SendHeld() {
  std::vector<Held> held;
  held.swap(held_);
  for (const Held& h : held) {
    Client* c = server_->FindClient(h.client);
    if (c == nullptr) continue;
    const std::string_view one[] = {h.key};
    Deliver(*c, h.null ? Payload{{}, true} : Payload{one});
  }
}

void Tracking::Deliver(Client& c, const Payload& p) {
  Client* to = &c;
  bool redirected = false;
  if (c.tracking.redirect != 0) {
    to = server_->FindClient(c.tracking.redirect);
    if (to == nullptr) {
      c.tracking.flags |= kTrackingBrokenRedir;
      if (c.reply.resp() >= 3) {
        const int64_t id = static_cast<int64_t>(c.tracking.redirect);
        server_->Push(c, [id](ReplyBuilder& rb) {
          rb.Push(2);
          rb.Bulk("tracking-redir-broken");
          rb.Int(id);
        });
      }
      return;
    }
    redirected = true;
  }
  auto write_keys = [&p](ReplyBuilder& rb) {
    if (p.null) {
      rb.Null();
      return;
    }
    rb.Array(p.keys.size());
    for (std::string_view k : p.keys) rb.Bulk(k);
  };
  if (to->reply.resp() >= 3) {
    server_->Push(*to, [&](ReplyBuilder& rb) {
      rb.Push(2);
      rb.Bulk("invalidate");
      write_keys(rb);
    });
  } else if (redirected && PubSub::Subscribed(*to)) {
    server_->Push(*to, [&](ReplyBuilder& rb) {
      rb.Push(3);
      rb.Bulk("message");
      rb.Bulk(kInvalidateChannel);
      write_keys(rb);
    });
  }
  // Otherwise a RESP2 connection without a subscribed redirect target: nothing can carry it.
}

void Tracking::BroadcastPending() {
  if (!broadcast_pending_) return;
  broadcast_pending_ = false;
  std::vector<std::string_view> all, mine;
  for (auto& [prefix, state] : prefixes_) {
    if (state.changed.empty()) continue;
    all.clear();
    for (const auto& [key, changer] : state.changed) all.push_back(key);
    for (uint64_t id : state.clients) {
      Client* c = server_->FindClient(id);
      if (c == nullptr) continue;
      if ((c->tracking.flags & kTrackingNoloop) == 0) {
        Deliver(*c, Payload{all});
        continue;
      }
      // NOLOOP: the keys this client did not change last; nothing if it changed them all.
      mine.clear();
      for (const auto& [key, changer] : state.changed) {
        if (changer != c->id) mine.push_back(key);
      }
      if (!mine.empty()) Deliver(*c, Payload{mine});
    }
    state.changed.clear();
  }
}

void Tracking::EnforceLimit(int64_t max_keys) {
  if (max_keys <= 0 || table_.size() <= static_cast<size_t>(max_keys)) {
    limit_rounds_ = 0;
    return;
  }
  // Random keys, so the readers of no particular key pay for the limit; the effort grows with
  // each call that could not get under the limit.
  size_t effort = 100 * (static_cast<size_t>(limit_rounds_) + 1);
  std::string key;
  while (effort-- > 0 && !table_.empty()) {
    const size_t buckets = table_.bucket_count();
    size_t b = RandomWord() % buckets;
    while (table_.bucket_size(b) == 0) b = (b + 1) % buckets;
    key = table_.begin(b)->first;
    Invalidate(key, false, 0);
    if (table_.size() <= static_cast<size_t>(max_keys)) {
      limit_rounds_ = 0;
      return;
    }
  }
  ++limit_rounds_;
}

void Tracking::OnFlush(Database& /*db*/) {
  // FLUSHALL empties every database, each announced here: one null per command.
  if (clients_ > 0 && flushed_at_seq_ != command_seq_) {
    flushed_at_seq_ = command_seq_;
    for (const auto& [id, c] : server_->clients()) {
      if ((c->tracking.flags & kTrackingOn) != 0) DeliverOrHold(*c, {}, true);
    }
  }
  table_.clear();
  total_items_ = 0;
}

void Tracking::OnSwap(Database& /*a*/, Database& /*b*/) {
  // Redis 7.0 invalidates nothing on SWAPDB (its table does not know databases).
}

}  // namespace redistp
