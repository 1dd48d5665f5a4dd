// Client, command half: sending commands (classification, MULTI wrapping, EXEC padding), the
// reply queue, telling pushes from replies, watch subscriptions and connection listeners.
// The rules implemented here are explained in redistp_client.h ("Telling pushes from replies").
#include "client/redistp_client.h"

#include <algorithm>
#include <utility>

#include "client/command_class.h"
#include "client/errors.h"

namespace redistp::client {
namespace {

// The in-band RESP2 notification: ["watchex", key, "ADD"|"DEL"], all bulk strings.
bool IsPushShaped(const Reply& r) {
  if (r.type != Reply::Type::kArray || r.elements.size() != 3) return false;
  for (const Reply& e : r.elements) {
    if (e.type != Reply::Type::kString) return false;
  }
  return r.elements[0].str == "watchex" &&
         (r.elements[2].str == "ADD" || r.elements[2].str == "DEL");
}

}  // namespace

const char* WatchEventName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kExist:
      return "EXIST";
    case WatchEventType::kNoExist:
      return "NOEXIST";
    case WatchEventType::kAdd:
      return "ADD";
    case WatchEventType::kDel:
      return "DEL";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "?";
}

void Client::Command(std::vector<std::string> argv, ReplyCallback cb) {
  Submit(Request{std::move(argv), std::move(cb), false});
}

// Routes a request by connection state: answered kErrClosed (on the next loop turn) after
// Close(), queued until a connection is ready, or sent now.
void Client::Submit(Request req) {
  if (state_ == State::kClosed) {
    closed_replies_.emplace_back(std::move(req.handler), Reply::LocalError(kErrClosed));
    ScheduleFlush();
    return;
  }
  if (state_ != State::kReady) {
    queued_.push_back(std::move(req));
    return;
  }
  SendNow(std::move(req));
}

void Client::SendNow(Request req) {
  if (!req.internal) {
    SendUser(std::move(req));
    return;
  }
  if (in_user_multi_) {
    held_internal_.push_back(std::move(req));
    return;
  }
  Write(req.argv, std::move(req.handler), false);
}

void Client::SendUser(Request req) {
  std::string why;
  switch (ClassifyCommand(req.argv, &why)) {
    case CommandClass::kRefused:
      AddLocalSlot(std::move(req.handler), Reply::LocalError(why));
      return;
    case CommandClass::kMulti:
      if (in_user_multi_) {
        AddLocalSlot(std::move(req.handler), Reply::LocalError(kErrNestedMulti));
        return;
      }
      in_user_multi_ = true;
      Write(req.argv, std::move(req.handler), false);
      return;
    case CommandClass::kExec:
      if (!in_user_multi_) {  // the server answers "EXEC without MULTI"
        Write(req.argv, std::move(req.handler), false);
        return;
      }
      in_user_multi_ = false;
      if (WatchesOnWire()) {
        SendPaddedExec(std::move(req));
      } else {
        Write(req.argv, std::move(req.handler), true);
      }
      ReleaseHeldInternal();
      return;
    case CommandClass::kDiscard: {
      const bool was_open = in_user_multi_;
      in_user_multi_ = false;
      Write(req.argv, std::move(req.handler), false);
      if (was_open) ReleaseHeldInternal();
      return;
    }
    case CommandClass::kPlain:
      Write(req.argv, std::move(req.handler), false);
      return;
    case CommandClass::kArrayCapable:
      if (in_user_multi_) {  // answered +QUEUED
        Write(req.argv, std::move(req.handler), false);
      } else if (WatchesOnWire()) {
        SendWrapped(std::move(req));
      } else {
        Write(req.argv, std::move(req.handler), true);
      }
      return;
  }
}

// MULTI / command / EXEC. The callback gets the command's own reply, unwrapped from the
// one-element EXEC array, or the error the command got when it was queued (EXEC then answers
// EXECABORT, which the program did not ask for).
void Client::SendWrapped(Request req) {
  auto queue_error = std::make_shared<std::optional<Reply>>();
  Write(
      {"MULTI"},
      [queue_error](const Reply& r) {
        if (r.is_error() && !r.local) *queue_error = r;
      },
      false);
  Write(
      req.argv,
      [queue_error](const Reply& r) {
        if (r.is_error() && !r.local && !*queue_error) *queue_error = r;
      },
      false);
  Write(
      {"EXEC"},
      [queue_error, handler = std::move(req.handler)](const Reply& r) {
        if (!handler) return;
        if (r.local) {
          handler(r);
        } else if (*queue_error) {
          handler(**queue_error);
        } else if (r.is_array() && r.elements.size() == 1) {
          handler(r.elements[0]);
        } else if (r.is_error()) {
          handler(r);
        } else {
          handler(Reply::LocalError(std::string(kErrUnexpectedWrap) + ": " + r.ToString()));
        }
      },
      false);
}

// The program's EXEC while watches exist: a PING is queued last in its transaction, so the
// EXEC reply ends with the status PONG and cannot look like a push; the PONG is removed again.
void Client::SendPaddedExec(Request req) {
  Write({"PING"}, nullptr, false);
  Write(
      req.argv,
      [handler = std::move(req.handler)](const Reply& r) {
        if (!handler) return;
        if (r.is_array() && !r.elements.empty() && r.elements.back().type == Reply::Type::kStatus &&
            r.elements.back().str == "PONG") {
          Reply inner = r;
          inner.elements.pop_back();
          handler(inner);
        } else {
          handler(r);
        }
      },
      false);
}

// The program's transaction is closed: what the client held back goes out now.
void Client::ReleaseHeldInternal() {
  std::deque<Request> held = std::move(held_internal_);
  held_internal_.clear();
  for (Request& r : held) Write(r.argv, std::move(r.handler), false);
}

void Client::Write(const std::vector<std::string>& argv, Handler handler, bool may_look_like_push) {
  AppendCommand(out_, argv);
  pending_.push_back(
      Slot{std::move(handler), may_look_like_push, std::nullopt, std::chrono::steady_clock::now()});
  ScheduleFlush();
}

void Client::AddLocalSlot(Handler handler, Reply reply) {
  pending_.push_back(Slot{std::move(handler), false, std::move(reply), {}});
  ScheduleFlush();
}

void Client::DrainLocalHead() {
  const uint64_t gen = generation_;
  while (gen == generation_ && !pending_.empty() && pending_.front().local) {
    Slot s = std::move(pending_.front());
    pending_.pop_front();
    if (s.handler) s.handler(*s.local);
  }
}

bool Client::WatchesOnWire() const { return !watches_.empty() || !unwatch_in_flight_.empty(); }

// One complete top-level frame from the server: a push unless the reply slot at the head was
// marked as possibly push-shaped (which only happens when no push could precede its reply).
void Client::OnFrame(Reply frame) {
  ++frames_received_;
  DrainLocalHead();
  if (IsPushShaped(frame) && (pending_.empty() || !pending_.front().may_look_like_push)) {
    DeliverPush(frame.elements[1].str, frame.elements[2].str == "ADD");
    return;
  }
  if (pending_.empty()) {
    ConnectionLost("protocol error: a reply that no command was waiting for: " + frame.ToString());
    return;
  }
  Slot s = std::move(pending_.front());
  pending_.pop_front();
  session_proof_ = s.sent;
  if (s.handler) s.handler(frame);
  DrainLocalHead();
}

Client::WatchId Client::Watch(const std::string& key, WatchCallback cb) {
  const WatchId id = next_id_++;
  watches_[key].push_back(
      Subscriber{id, std::make_shared<const WatchCallback>(std::move(cb)), false});
  watch_keys_[id] = key;
  if (state_ == State::kReady) SendWatchex(key, {id});
  return id;
}

void Client::Unwatch(WatchId id) { RemoveSubscriber(id); }

int Client::UnwatchKey(const std::string& key) {
  auto it = watches_.find(key);
  if (it == watches_.end()) return 0;
  std::vector<WatchId> ids;
  for (const Subscriber& s : it->second) ids.push_back(s.id);
  for (WatchId id : ids) RemoveSubscriber(id);
  return static_cast<int>(ids.size());
}

// WATCHEX for `key` on the current connection; its reply is the first state of the
// subscribers `ids` (those still subscribed when it arrives).
void Client::SendWatchex(const std::string& key, std::vector<WatchId> ids) {
  Handler on_reply = [this, key, ids = std::move(ids)](const Reply& r) {
    if (r.local) return;  // the connection ended: the next one registers again
    WatchEventType type = WatchEventType::kError;
    std::string error;
    if (r.Is("EXIST")) {
      type = WatchEventType::kExist;
    } else if (r.Is("NOEXIST")) {
      type = WatchEventType::kNoExist;
    } else {
      error = r.is_error() ? r.str : "unexpected reply to WATCHEX: " + r.ToString();
    }
    const uint64_t gen = generation_;
    for (WatchId id : ids) {
      if (gen != generation_) return;
      auto it = watches_.find(key);
      if (it == watches_.end()) return;
      auto sub = std::find_if(it->second.begin(), it->second.end(),
                              [id](const Subscriber& s) { return s.id == id; });
      if (sub == it->second.end()) continue;
      std::shared_ptr<const WatchCallback> cb = sub->cb;
      if (type == WatchEventType::kError) {
        RemoveSubscriber(id);
      } else {
        sub->active = true;
      }
      (*cb)(WatchEvent{key, type, error});
    }
  };
  SendNow(Request{{"WATCHEX", key}, std::move(on_reply), true});
}

void Client::SendUnwatchex(const std::string& key) {
  ++unwatch_in_flight_[key];
  const uint64_t gen = generation_;
  SendNow(Request{{"UNWATCHEX", key},
                  [this, key, gen](const Reply& r) {
                    if (r.local || gen != generation_) return;
                    auto it = unwatch_in_flight_.find(key);
                    if (it != unwatch_in_flight_.end() && --it->second <= 0) {
                      unwatch_in_flight_.erase(it);
                    }
                  },
                  true});
}

void Client::RemoveSubscriber(WatchId id) {
  auto k = watch_keys_.find(id);
  if (k == watch_keys_.end()) return;
  const std::string key = std::move(k->second);
  watch_keys_.erase(k);
  auto it = watches_.find(key);
  if (it == watches_.end()) return;
  std::erase_if(it->second, [id](const Subscriber& s) { return s.id == id; });
  if (!it->second.empty()) return;
  watches_.erase(it);
  if (state_ == State::kReady) SendUnwatchex(key);
}

void Client::DeliverPush(const std::string& key, bool added) {
  auto it = watches_.find(key);
  if (it == watches_.end()) return;  // unwatched meanwhile (UNWATCHEX still in flight)
  std::vector<std::pair<WatchId, std::shared_ptr<const WatchCallback>>> targets;
  for (const Subscriber& s : it->second) {
    if (s.active) targets.emplace_back(s.id, s.cb);
  }
  const uint64_t gen = generation_;
  const WatchEvent ev{key, added ? WatchEventType::kAdd : WatchEventType::kDel, {}};
  for (auto& [id, cb] : targets) {
    if (gen != generation_) return;
    if (watch_keys_.count(id) == 0) continue;  // unwatched by an earlier callback
    (*cb)(ev);
  }
}

Client::ListenerId Client::AddConnectionListener(ConnectionCallback cb) {
  const ListenerId id = next_id_++;
  listeners_.emplace_back(id, std::make_shared<const ConnectionCallback>(std::move(cb)));
  return id;
}

void Client::RemoveConnectionListener(ListenerId id) {
  std::erase_if(listeners_, [id](const auto& l) { return l.first == id; });
}

void Client::Notify(ConnectionEvent ev, const std::string& detail) {
  auto listeners = listeners_;
  for (auto& [id, cb] : listeners) {
    const bool still = std::any_of(listeners_.begin(), listeners_.end(),
                                   [id = id](const auto& l) { return l.first == id; });
    if (still) (*cb)(ev, detail);
  }
}

}  // namespace redistp::client
