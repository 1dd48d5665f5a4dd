// The subsystem registry of Server: attaching, the hook lists, startup, shutdown and teardown
// (the model and the order of the hooks: server/subsystem.h).
#include "server/subsystem.h"

#include <cstdlib>

#include "server/server.h"

namespace redistp {

void Server::AttachSubsystem(SubsystemSlot slot, const void* tag, uint32_t hooks,
                             std::unique_ptr<Subsystem> s) {
  SubsystemEntry& e = subsystems_[static_cast<size_t>(slot)];
  if (e.object != nullptr) {
    // Two parts claiming one row would make lookups answer the wrong one: a bug, found at once.
    log_.Log(LogLevel::kWarning, "Subsystem slot %d attached twice", static_cast<int>(slot));
    std::abort();
  }
  e.object = std::move(s);
  e.tag = tag;
  e.hooks = hooks;
  e.started = false;
  RebuildHookLists();
  if (subsystems_started_ && (hooks & kHookStart) != 0) {
    // Attached after startup (created on first use): started now. Nothing can stop a server
    // that is serving, so a failure is only logged.
    e.started = true;
    Status st = e.object->Start();
    if (!st.ok() && !st.message().empty()) {
      log_.Log(LogLevel::kWarning, "%s", st.message().c_str());
    }
  }
}

void Server::RebuildHookLists() {
  SubsystemHookList* lists[] = {&cron_hooks_, &before_sleep_hooks_, &close_hooks_, &shutdown_hooks_,
                                &refusal_hooks_};
  const uint32_t bits[] = {kHookCron, kHookBeforeSleep, kHookClientClose, kHookPrepareShutdown,
                           kHookWriteRefusal};
  for (size_t l = 0; l < std::size(lists); ++l) {
    SubsystemHookList& list = *lists[l];
    list = SubsystemHookList{};
    for (SubsystemEntry& e : subsystems_) {
      if (e.object != nullptr && (e.hooks & bits[l]) != 0) list.items[list.n++] = e.object.get();
    }
  }
}

Status Server::StartSubsystems() {
  subsystems_started_ = true;
  // By index: a Start may attach a subsystem of another row (loading functions from the RDB
  // file creates the functions engine), which the attach starts itself.
  for (size_t i = 0; i < subsystems_.size(); ++i) {
    SubsystemEntry& e = subsystems_[i];
    if (e.object == nullptr || e.started || (e.hooks & kHookStart) == 0) continue;
    e.started = true;
    Status s = e.object->Start();
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

bool Server::PrepareShutdown(int flags) {
  const SubsystemHookList list = shutdown_hooks_;
  for (size_t i = 0; i < list.n; ++i) {
    if (!list.items[i]->PrepareShutdown(flags)) return false;
  }
  return true;
}

void Server::SubscribeKeyEvents(SubsystemSlot owner, KeyspaceListener* listener, bool enabled) {
  // Rank 0 is the server's own listeners; each row comes after them, in slot order.
  hub_.Subscribe(listener, enabled, 1 + static_cast<int>(owner));
  subsystems_[static_cast<size_t>(owner)].listeners.push_back(listener);
}

void Server::DestroySubsystems() {
  for (size_t i = subsystems_.size(); i-- > 0;) {
    SubsystemEntry& e = subsystems_[i];
    if (e.object != nullptr && (e.hooks & kHookStop) != 0) e.object->Stop();
  }
  // The hooks are not called again while the rows empty.
  cron_hooks_ = before_sleep_hooks_ = close_hooks_ = shutdown_hooks_ = refusal_hooks_ = {};
  for (size_t i = subsystems_.size(); i-- > 0;) {
    SubsystemEntry& e = subsystems_[i];
    for (KeyspaceListener* l : e.listeners) hub_.Unsubscribe(l);
    e.listeners.clear();
    // The tag goes first: a lookup of this row while its object is destroyed answers nullptr.
    e.tag = nullptr;
    e.object.reset();
  }
}

}  // namespace redistp
