// KeyspaceHub: the server's single KeyspaceListener. It fans each key event out to the
// subsystems registered with it, in registration order. Today: none besides statistics hooks;
// temporary-key ownership and existence watches register here (src/watch), as will MULTI WATCH
// and keyspace notifications. Keeping one hub means a new subsystem never has to find every
// place where keys change: the Database emits, the hub forwards.
#pragma once

#include <string_view>
#include <vector>

#include "db/keyspace_events.h"

namespace redistp {

class KeyspaceHub : public KeyspaceListener {
 public:
  void Subscribe(KeyspaceListener* l) { listeners_.push_back(l); }
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
  std::vector<KeyspaceListener*> listeners_;
};

}  // namespace redistp
