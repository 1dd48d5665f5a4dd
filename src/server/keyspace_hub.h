// KeyspaceHub: the server's single KeyspaceListener. It fans each key event (and flush, swap
// and miss) out to the subsystems subscribed to it, in subscription order, which is the order
// in which one change's messages reach a connection. The Server subscribes, in this order:
// temporary-key ownership, client-side caching, existence watches, the `__watchex@` Pub/Sub
// publisher, the blocking core, MULTI WATCH, the propagator, and keyspace notifications last
// (server.cc). Keeping one hub means a new subsystem never has to find every place where keys
// change: the Database emits, the hub forwards.
//
// A listener that often has nothing to do (the `__watchex@` publisher while no pattern can see
// those channels, keyspace notifications while notify-keyspace-events is empty) is switched
// off with SetEnabled: it keeps its place in the order but leaves the list the events walk, so
// while off it costs the key-event path nothing at all.
//
// The order is by rank, then by subscription: the server's own listeners have rank 0, and a
// subsystem attached later (server/subsystem.h) subscribes with the rank of its slot, so its
// place does not depend on when it was created.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "db/keyspace_events.h"

namespace redistp {

class KeyspaceHub : public KeyspaceListener {
 public:
  void Subscribe(KeyspaceListener* l, bool enabled = true, int rank = 0) {
    auto after =
        std::find_if(order_.begin(), order_.end(), [rank](const Slot& s) { return s.rank > rank; });
    order_.insert(after, {l, enabled, rank});
    Rebuild();
  }
  // Removes a listener (a subsystem that goes away). Not from inside a callback, as SetEnabled.
  void Unsubscribe(KeyspaceListener* l) {
    order_.erase(
        std::remove_if(order_.begin(), order_.end(), [l](const Slot& s) { return s.l == l; }),
        order_.end());
    Rebuild();
  }
  // Switches a subscribed listener on or off, keeping its place in the registration order.
  // Not to be called from inside a listener's callback (the list being walked changes).
  void SetEnabled(KeyspaceListener* l, bool enabled) {
    auto it = std::find_if(order_.begin(), order_.end(), [l](const Slot& s) { return s.l == l; });
    if (it == order_.end() || it->enabled == enabled) return;
    it->enabled = enabled;
    Rebuild();
  }
  void OnKeyEvent(const KeyEvent& ev) override {
    for (KeyspaceListener* l : listeners_) l->OnKeyEvent(ev);
  }
  void OnFlush(Database& db) override {
    for (KeyspaceListener* l : listeners_) l->OnFlush(db);
  }
  void OnSwap(Database& a, Database& b) override {
    for (KeyspaceListener* l : listeners_) l->OnSwap(a, b);
  }
  void OnKeyMiss(Database& db, std::string_view key) override {
    for (KeyspaceListener* l : listeners_) l->OnKeyMiss(db, key);
  }

 private:
  struct Slot {
    KeyspaceListener* l;
    bool enabled;
    int rank;
  };
  void Rebuild() {
    listeners_.clear();
    for (const Slot& s : order_) {
      if (s.enabled) listeners_.push_back(s.l);
    }
  }
  std::vector<Slot> order_;                   // every subscribed listener, in order
  std::vector<KeyspaceListener*> listeners_;  // the enabled ones, in the same order
};

}  // namespace redistp
