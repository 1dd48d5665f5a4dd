// redistp::client::Election and ElectionObserver — leader election on one temporary key, with
// the operations of etcd's election API (Campaign, Proclaim, Resign, Observe) and the
// guarantees of a fair lock.
//
// Model. The election is the key `name`; the leader is whoever's temporary key it is, and the
// key's value is the leader's proposal (its address, its id: whatever followers need). A
// campaign is a fair Lock (lock.h) taken with BSETTP name value 0 FENCE:
//   - FIFO succession, no herd: candidates queue on the server in arrival order; when the leader
//     goes (resigns, disconnects, crashes, its lease or session runs out), the server creates
//     the key for the first live candidate, atomically, and wakes nobody else;
//   - every term has a fencing token (the reply of the BSETTP), unique and growing server-wide,
//     so a resource can reject a deposed leader that still believes it leads;
//   - leadership is lost exactly when the key the campaign created stops existing or stops
//     being ours: the lock's lost callback (connection or session gone) and a watch on the key
//     (someone deleted or renamed it) both end it, reported once through the lost callback.
//
// Proclaim changes the value while leading, only if still the leader: a script compares the
// key's fence (OBJECT FENCE) with the term's token and only then SETs the value (SET keeps the
// key's owner and fence). Fences never repeat, so "same fence" means "the same key our campaign
// created", whoever deleted and re-created the name in between. A value change is no existence
// change, so the script also creates and deletes the signal key `name` + kSignalSuffix in the
// same atomic step: observers watching it get ADD/DEL and read the new value. Nothing else
// should use that key.
//
// ProclaimAs / ResignAs do the same from any connection for the holder of a fencing token:
// what a command started by a leader (redis-tp-elect) uses, with the token from its environment.
// ResignAs deletes the key (the next candidate gets it at once); the leader's own Election then
// reports the loss.
//
// ElectionObserver reports the leader as it changes: it watches the key and the signal key
// (WATCHEX, no polling) and after each event reads value and fence in one script. A change is
// reported when (exists, fence, value) differs from the last report. Reads are not queued per
// event: while one is on the wire, further events only mark it stale and one more read follows,
// so terms or values that last less than a round trip may be skipped; the last state is always
// reported. An observer needs a Client that is not blocked by a campaign (give a campaign its
// own Client, as for a fair Lock).
//
// Callbacks run on the client's event loop. The Client must outlive the Election/Observer.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "client/lock.h"
#include "client/redistp_client.h"

namespace redistp::client {

// The leader as observed: its value and the fencing token of its term (0 when the key was not
// created with FENCE, e.g. by a plain SETTP).
struct Leader {
  std::string value;
  long long fence = 0;
  friend bool operator==(const Leader& a, const Leader& b) {
    return a.value == b.value && a.fence == b.fence;
  }
};

class Election {
 public:
  using CampaignCallback = std::function<void(AcquireStatus, const std::string& error)>;
  // ok: the operation took effect (proclaimed / resigned); else `error` says why ("not the
  // leader" when the term is over, or a server or connection error).
  using DoneCallback = std::function<void(bool ok, const std::string& error)>;
  using LostCallback = std::function<void(const std::string& reason)>;
  static constexpr char kSignalSuffix[] = ":proclaimed";

  Election(Client& client, std::string name);
  // Resigns if leading (DELTP, no wait) and abandons a campaign without calling its callback.
  ~Election();
  Election(const Election&) = delete;
  Election& operator=(const Election&) = delete;

  // Stands as candidate with `value` and waits up to `timeout` (Lock::kForever: no limit) to
  // become leader; `cb` runs once (kAcquired: leading; kTimedOut; kCancelled by Resign();
  // kFailed with the error, also when already leading or campaigning).
  void Campaign(std::string value, std::chrono::milliseconds timeout, CampaignCallback cb);
  // One attempt: kAcquired, or kBusy when someone else leads.
  void TryCampaign(std::string value, CampaignCallback cb);
  // Sets the value while leading; fails with "not the leader" when the term is over.
  void Proclaim(std::string value, DoneCallback cb);
  // Leading: DELTP, the next candidate takes over. Campaigning: cancels. `cb` gets whether a
  // term was ended.
  void Resign(DoneCallback cb = {});
  // Called once when a term ends other than by Resign().
  void SetLostCallback(LostCallback cb);

  bool leader() const;
  bool campaigning() const;
  long long fence() const;  // the current term's token, else 0
  const std::string& value() const;
  const std::string& name() const;

  static void ProclaimAs(Client& client, const std::string& name, long long fence,
                         const std::string& value, DoneCallback cb);
  static void ResignAs(Client& client, const std::string& name, long long fence, DoneCallback cb);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

class ElectionObserver {
 public:
  // nullopt: no leader (reported only after a leader was reported, or as the first state).
  using LeaderCallback = std::function<void(const std::optional<Leader>&)>;
  // The server refused a watch or a read (NOAUTH, NOPERM, WRONGTYPE...): observing has stopped.
  using ErrorCallback = std::function<void(const std::string& error)>;

  // Starts watching at once; the first report is the state at registration.
  ElectionObserver(Client& client, std::string name, LeaderCallback cb,
                   ErrorCallback on_error = {});
  ~ElectionObserver();
  ElectionObserver(const ElectionObserver&) = delete;
  ElectionObserver& operator=(const ElectionObserver&) = delete;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace redistp::client
