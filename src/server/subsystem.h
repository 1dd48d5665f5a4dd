// Subsystem: how a part from a layer above the server (scripting, persistence, a command
// family's shared state, and later replication and cluster) attaches to the Server.
//
// Model. The server layer cannot include the layers above it, so it cannot name their types
// or call them directly. Instead each such part derives from Subsystem, overrides the hooks it
// needs, and is attached once (Server::AttachSubsystem) into its row of SubsystemSlot. From then
// on the server owns it and calls its hooks at the server's own moments; the layers above reach
// it with the typed lookup Server::subsystem<T>() (nullptr while it is not attached).
//
// Order. SubsystemSlot is the one place that orders the subsystems: every hook runs in the
// slot order below, whatever the order in which the subsystems were attached (most are created
// on first use). Stopping and destruction run in the reverse order, so a subsystem may rely on
// those in earlier slots while it stops. The rows follow the layers (scripting before
// persistence before what the commands layer owns), so a lower layer's part is always the
// first to see a moment and the last to go:
//   - Start: once, by Server::StartSubsystems (main.cc, after Init, before the loop), or at
//     attach for a subsystem attached after that. An error stops the server at startup.
//   - Cron: every server cron tick, after the server's own periodic work (active expiry,
//     client timeouts, leases) and before the statistics samples.
//   - BeforeSleep: once per loop turn, after the turn's commands, hand-offs and BCAST
//     invalidations and before any reply is written (the AOF must be ahead of the replies).
//   - OnClientClose: once per connection that closes, after its session ended
//     (Server::EndSession) and before its socket closes; a RESET does not call it.
//   - PrepareShutdown: a SHUTDOWN or a signal asked the server to exit; the first subsystem
//     that refuses keeps it running, and the later ones are not asked.
//   - WriteRefusal: asked by the admission gate for every command while any subsystem that
//     overrides it is attached; the first non-empty text refuses writes (MISCONF).
//   - Stop: once, when the server is destroyed, while every subsystem still exists.
// A hook a subsystem does not override costs nothing: AttachSubsystem sees at compile time
// which hooks the type declares and files the subsystem only in those hooks' lists.
//
// Key events. A subsystem that must see key changes subscribes a listener to the server's
// KeyspaceHub with Server::SubscribeKeyEvents: it is called after the server's own listeners
// (ownership, tracking, watches, blocking, MULTI WATCH, propagation, notifications), in slot
// order, and is unsubscribed before the subsystem is destroyed. The propagation stream (what
// the AOF appends, what a replica replays) is reached through Server::propagator().AddSink.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "util/status.h"

namespace redistp {

class Client;
class KeyspaceListener;

// The rows of the registry, in the order every hook runs (see above). A new subsystem adds its
// row where its layer puts it.
enum class SubsystemSlot : uint8_t {
  kAcl,          // src/acl/acl.h: users, ACL LOG, the authorizer
  kScripting,    // src/scripting/script_engine.h: EVAL, the script cache, busy scripts
  kFunctions,    // src/scripting/function_engine.h: FUNCTION and FCALL
  kPersistence,  // src/persistence/persistence.h: RDB, AOF, forked children
  kReplication,  // src/replication/replication.h: master and replica sides, FAILOVER
  kCluster,      // src/cluster/cluster.h: the node's cluster state and nodes.conf
  kMigrate,      // src/commands/migrate.cc: MIGRATE's cached connections
  kCount,
};

// Bits of the hooks a subsystem type declares (AttachSubsystem computes them).
enum SubsystemHook : uint32_t {
  kHookStart = 1u << 0,
  kHookStop = 1u << 1,
  kHookCron = 1u << 2,
  kHookBeforeSleep = 1u << 3,
  kHookClientClose = 1u << 4,
  kHookPrepareShutdown = 1u << 5,
  kHookWriteRefusal = 1u << 6,
};

class Subsystem {
 public:
  virtual ~Subsystem() = default;

  // Startup work before the first client is served (loading the data). An error stops the
  // server; the error's text is logged by the subsystem.
  virtual Status Start() { return Status::Ok(); }
  // The server is being destroyed: every subsystem still exists.
  virtual void Stop() {}
  // One cron tick.
  virtual void Cron() {}
  // Once per loop turn, before replies are written.
  virtual void BeforeSleep() {}
  // The connection `c` closes (its session already ended); `c` is still in the client list.
  virtual void OnClientClose(Client& c) { (void)c; }
  // A SHUTDOWN or a SIGTERM/SIGINT asked for shutdown; `flags` are the kShutdown* bits (SAVE,
  // NOSAVE, FORCE). False keeps the server running (the subsystem logs why).
  virtual bool PrepareShutdown(int flags) {
    (void)flags;
    return true;
  }
  // Non-empty while this subsystem refuses writes: the error text for write commands.
  virtual std::string_view WriteRefusal() const { return {}; }
  // Bytes this subsystem holds that eviction must not count against maxmemory: buffers that
  // evicting would itself grow (each evicted key is a DEL for the replicas and the AOF), as
  // Redis 7.0 leaves out its replicas' buffers and AOF buffer (mem_not_counted_for_evict).
  // Asked only when the used figure is over maxmemory, and by INFO: not a hook, no list.
  virtual size_t NotCountedMemory() const { return 0; }
};

// The hooks type T overrides: a hook T (or a base between it and Subsystem) declares has a
// member-pointer type of that class, one it inherits unchanged has Subsystem's.
template <class T>
constexpr uint32_t SubsystemHooksOf() {
  uint32_t h = 0;
  if (!std::is_same_v<decltype(&T::Start), Status (Subsystem::*)()>) h |= kHookStart;
  if (!std::is_same_v<decltype(&T::Stop), void (Subsystem::*)()>) h |= kHookStop;
  if (!std::is_same_v<decltype(&T::Cron), void (Subsystem::*)()>) h |= kHookCron;
  if (!std::is_same_v<decltype(&T::BeforeSleep), void (Subsystem::*)()>) h |= kHookBeforeSleep;
  if (!std::is_same_v<decltype(&T::OnClientClose), void (Subsystem::*)(Client&)>) {
    h |= kHookClientClose;
  }
  if (!std::is_same_v<decltype(&T::PrepareShutdown), bool (Subsystem::*)(int)>) {
    h |= kHookPrepareShutdown;
  }
  if (!std::is_same_v<decltype(&T::WriteRefusal), std::string_view (Subsystem::*)() const>) {
    h |= kHookWriteRefusal;
  }
  return h;
}

// A tag whose address names the type T in the registry: typed lookup compares it, so asking
// for T in a slot that holds another type answers nullptr instead of a bad cast (no RTTI).
template <class T>
inline constexpr char kSubsystemTypeTag = 0;

// One row of the server's registry (Server::AttachSubsystem): the attached object, its type's
// tag, the hooks it declares and the key-event listeners it subscribed.
struct SubsystemEntry {
  std::unique_ptr<Subsystem> object;
  const void* tag = nullptr;  // kSubsystemTypeTag<T> of the attached type
  uint32_t hooks = 0;         // SubsystemHook bits
  bool started = false;
  std::vector<KeyspaceListener*> listeners;  // subscribed by Server::SubscribeKeyEvents
};

// The subsystems of one hook, in slot order. A fixed array, so a walk can copy it for free
// and stay valid when a hook attaches another subsystem.
struct SubsystemHookList {
  std::array<Subsystem*, static_cast<size_t>(SubsystemSlot::kCount)> items{};
  size_t n = 0;
};

}  // namespace redistp
