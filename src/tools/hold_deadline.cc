// HoldDeadline: PINGs, the send time of the newest answered one, two timers (hold_deadline.h).
#include "tools/hold_deadline.h"

#include <event2/event.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace redistp::tools {

using Clock = std::chrono::steady_clock;

struct HoldDeadline::State : std::enable_shared_from_this<HoldDeadline::State> {
  client::Client* client = nullptr;
  std::chrono::milliseconds bound{0};
  std::function<void(bool)> on_expire;
  Clock::time_point last_answered_send;
  bool stop_reported = false;
  bool kill_reported = false;
  event* ping_ev = nullptr;
  event* check_ev = nullptr;

  ~State() {
    if (ping_ev != nullptr) event_free(ping_ev);
    if (check_ev != nullptr) event_free(check_ev);
  }

  static void Arm(event* ev, Clock::duration delay) {
    const auto us = std::max<long long>(
        0, std::chrono::duration_cast<std::chrono::microseconds>(delay).count());
    timeval tv;
    tv.tv_sec = static_cast<time_t>(us / 1000000);
    tv.tv_usec = static_cast<suseconds_t>(us % 1000000);
    evtimer_add(ev, &tv);
  }

  void SendPing() {
    const Clock::time_point sent = Clock::now();
    std::weak_ptr<State> weak = weak_from_this();
    client->Command({"PING"}, [weak, sent](const client::Reply& r) {
      auto self = weak.lock();
      if (!self || r.local) return;  // a local error is no word from the server
      if (sent > self->last_answered_send) {
        self->last_answered_send = sent;
        self->ArmCheck();
      }
    });
    Arm(ping_ev, bound / 8);
  }

  // The next moment something is due: the stop point, else the kill point.
  void ArmCheck() {
    if (kill_reported) return;
    const auto at = last_answered_send + (stop_reported ? bound * 8 / 10 : bound * 6 / 10);
    Arm(check_ev, at - Clock::now());
  }

  void Check() {
    const auto silent = Clock::now() - last_answered_send;
    if (!stop_reported && silent >= bound * 6 / 10) {
      stop_reported = true;
      if (on_expire) on_expire(false);
    }
    if (stop_reported && !kill_reported && silent >= bound * 8 / 10) {
      kill_reported = true;
      if (on_expire) on_expire(true);
    }
    ArmCheck();
  }

  static void PingCb(int, short, void* arg) { static_cast<State*>(arg)->SendPing(); }
  static void CheckCb(int, short, void* arg) { static_cast<State*>(arg)->Check(); }
};

HoldDeadline::HoldDeadline(client::Client& client, std::chrono::milliseconds bound,
                           std::function<void(bool kill)> on_expire)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.client = &client;
  s.bound = bound;
  s.on_expire = std::move(on_expire);
  // Where the count starts. The hold began at a moment between sending the acquiring request
  // and now; for a waiter blocked in BSETTP, the server may last have heard from us up to one
  // lease keep-alive interval (lease/3, redistp_client.h) before that. So the count starts
  // bound/3 in the past; the PING sent at once replaces that guess with a measured point within
  // one round trip.
  s.last_answered_send = Clock::now() - bound / 3;
  s.ping_ev = evtimer_new(client.base(), &State::PingCb, &s);
  s.check_ev = evtimer_new(client.base(), &State::CheckCb, &s);
  s.SendPing();
  s.ArmCheck();
}

HoldDeadline::~HoldDeadline() {
  state_->on_expire = nullptr;
  evtimer_del(state_->ping_ev);
  evtimer_del(state_->check_ev);
}

}  // namespace redistp::tools
