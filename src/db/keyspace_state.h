// Keyspace state with owners: the command clock and the expiry gate.
//
// Every lookup reads two pieces of state shared by all databases of a server: the time the
// running command sees ("now" for expiry, TTLs, stream ids, OBJECT IDLETIME) and whether a key
// past its TTL may disappear right now. Many callers have a reason to change them for a while
// -- a script keeps its start time for all its commands, a loader keeps every key alive, a
// write during CLIENT PAUSE deletes expired keys as usual -- and each such change must be
// undone on every way out, including the ones added later (a replica applying its master's
// stream, a cluster slot import). So neither is a field anyone may assign: each has an owner
// with a private field, a small API for the lasting changes, and scopes for the temporary
// ones. A scope is an object that makes its change when built and undoes exactly that change
// when destroyed, so scopes nest, and an early return or an exception cannot leak one.
//
//   - CommandClock: entry points (a command starts, a socket is read, a timer fires, the cron)
//     Update it to the present. Freeze() holds it still: Update does nothing while frozen, so
//     whatever runs inside -- the commands of a script -- sees one time. Thaw() lets it move
//     again inside a frozen stretch (the busy-script loop serving other clients) and puts the
//     frozen time back at its end. The LRU clock (seconds, 24 bits) moves only with the cron.
//   - ExpiryGate: Suspend() while loading (a key past its TTL is still alive: what a file
//     holds is loaded as it was written) and for the commands of a replica's master link;
//     SetReplica() while following a master (like a pause: expired keys read as absent and
//     stay until the master's DEL); SetPaused() for the length of a CLIENT PAUSE (an
//     expired key reads as absent but is kept, so the data does not change); LiftPause() for
//     a write that runs during a pause (it sees and deletes expired keys as usual: it may
//     create the key anew); SetActive() for DEBUG SET-ACTIVE-EXPIRE (the cron's sampling).
//
// Both classes are neither copyable nor assignable, so the state cannot be replaced wholesale
// either; the scopes are neither copyable nor movable, so each undoes its change exactly once.
#pragma once

#include <cstdint>

#include "db/entry.h"

namespace redistp {

class CommandClock {
 public:
  CommandClock() = default;
  CommandClock(const CommandClock&) = delete;
  CommandClock& operator=(const CommandClock&) = delete;

  // The cached command time (Unix ms) every lookup compares TTLs with.
  int64_t now_ms() const { return now_ms_; }
  // Seconds, 24 bits: what an access stamps into an entry under the LRU policies.
  uint32_t lru_clock() const { return lru_clock_; }
  bool frozen() const { return frozen_; }

  // The present (Unix ms), read at an entry point: the command time becomes `ms`, unless a
  // Freeze holds it (then nothing changes: the frozen stretch keeps its one time).
  void Update(int64_t ms) {
    if (!frozen_) now_ms_ = ms;
  }
  // The server's start and the cron: Update, and the LRU clock follows the wall clock's
  // seconds (Redis refreshes its LRU clock in the cron, not per command).
  void UpdateWithLru(int64_t ms) {
    Update(ms);
    lru_clock_ = static_cast<uint32_t>(ms / 1000) & Entry::kLruMask;
  }

  // Restores the command time and the frozen state it found when it ends.
  class [[nodiscard]] Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() {
      clock_->now_ms_ = saved_now_ms_;
      clock_->frozen_ = saved_frozen_;
    }

   private:
    friend class CommandClock;
    Scope(CommandClock* clock, bool frozen)
        : clock_(clock), saved_now_ms_(clock->now_ms_), saved_frozen_(clock->frozen_) {
      clock->frozen_ = frozen;
    }
    CommandClock* clock_;
    int64_t saved_now_ms_;
    bool saved_frozen_;
  };
  // Holds the command time where it is until the scope ends (a script's commands all run at
  // the time the script started, as in Redis 7.0).
  Scope Freeze() { return Scope(this, true); }
  // Lets Update move the time inside a frozen stretch; the scope's end brings back the time
  // and the freeze it interrupted (the busy-script loop runs other clients' commands at their
  // own time, then the script continues at its start time).
  Scope Thaw() { return Scope(this, false); }

 private:
  int64_t now_ms_ = 0;
  uint32_t lru_clock_ = 0;
  bool frozen_ = false;
};

class ExpiryGate {
 public:
  ExpiryGate() = default;
  ExpiryGate(const ExpiryGate&) = delete;
  ExpiryGate& operator=(const ExpiryGate&) = delete;

  // Whether a key past its TTL counts as expired at all (false inside a Suspend: loading).
  bool enabled() const { return suspended_ == 0; }
  // Whether an expired key reads as absent but stays in place (a CLIENT PAUSE or a replica,
  // not lifted).
  bool held() const { return holding() && lifted_ == 0; }
  bool holding() const { return paused_ || replica_; }
  bool paused() const { return paused_; }
  // Whether the cron's active expiry may sample the TTL index (DEBUG SET-ACTIVE-EXPIRE).
  bool active_enabled() const { return active_; }

  // For the length of a CLIENT PAUSE (either mode): set when it starts, cleared when it ends.
  void SetPaused(bool paused) { paused_ = paused; }
  // While this server follows a master: its clients read an expired key as absent, but the key
  // stays until the master's DEL arrives (the master link itself runs inside a Suspend).
  void SetReplica(bool replica) { replica_ = replica; }
  // DEBUG SET-ACTIVE-EXPIRE: a setting, kept until changed again.
  void SetActive(bool on) { active_ = on; }

  // Undoes one Suspend or LiftPause when it ends; a disengaged scope changes nothing.
  class [[nodiscard]] Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() {
      if (depth_ != nullptr) --*depth_;
    }

   private:
    friend class ExpiryGate;
    explicit Scope(int* depth) : depth_(depth) {
      if (depth_ != nullptr) ++*depth_;
    }
    int* depth_;
  };
  // Keys do not expire until the scope ends (loading an RDB file or an AOF, the commands of a
  // replica's master link). Not engaged: changes nothing.
  Scope Suspend(bool engage = true) { return Scope(engage ? &suspended_ : nullptr); }
  // When `engage`: expired keys are deleted as usual until the scope ends, even during a
  // CLIENT PAUSE (a write command that runs while paused). Not engaged: changes nothing.
  Scope LiftPause(bool engage = true) { return Scope(engage ? &lifted_ : nullptr); }

 private:
  int suspended_ = 0;
  int lifted_ = 0;
  bool paused_ = false;
  bool replica_ = false;
  bool active_ = true;
};

}  // namespace redistp
