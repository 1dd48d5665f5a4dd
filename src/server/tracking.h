// Tracking: client-side caching (CLIENT TRACKING), Redis 7.0's model.
//
// A tracking connection is told when a key it may have cached changes, as an `invalidate`
// message with the key names. Two ways to decide who is told:
//   - Default mode: the server remembers which connections read which key. After a read-only
//     command of a tracking connection (not BCAST), failed or not, the command's keys enter the
//     table key -> client ids. "The command's keys" are what Redis 7.0's tracking takes
//     (getKeysFromCommand, not COMMAND GETKEYS's key specs): the row's key search in procedure
//     mode (FindKeys with KeySearch::kProcedure, server/command_docs.h), so a count that is
//     not a number or too large finds nothing and "ZUNION 1e3 a b" finds `a`. OPTIN
//     remembers only for the command after CLIENT CACHING YES (a whole MULTI/EXEC counting as one),
//     OPTOUT skips the command after CLIENT CACHING NO. When the key changes, every id listed is
//     told once and the key's row is dropped: a client is told again only if it reads the key
//     again.
//   - BCAST: the client registers prefixes ("" = every key); changed keys matching a prefix
//     are collected per prefix (deduplicated, byte order, with the last client that changed
//     each) and sent in one message per prefix per event-loop turn (BroadcastPending, called
//     from the server's BeforeSleep).
// The table is global, keyed by name only: a change of `k` in any database invalidates every
// reader of `k` in any database, as in Redis (whose table is one radix tree of names).
//
// NOLOOP: no invalidation for the client's own changes. In default mode "own" means the client
// whose command is running (so a lazy expiry during its own GET is its own change, as Redis);
// in BCAST the client recorded as the key's last changer, and expiry and eviction have none.
//
// Delivery (Deliver): to the client itself, or to its REDIRECT target. A RESP3 recipient gets
// the push `invalidate <array of keys | null>`; a RESP2 redirect target gets it as a Pub/Sub
// `message` on `__redis__:invalidate` if it is in Pub/Sub mode; anything else is dropped
// (RESP2 has no out-of-band frames). A redirect target that no longer exists makes the
// client "broken" (flag R in CLIENT LIST): that is found lazily, when an invalidation is due, as
// Redis does, and a RESP3 client is then sent `tracking-redir-broken <id>`. Every frame goes
// through Server::Push, so a client's own invalidations follow its reply (after EXEC as a
// whole), the 7.0 rule. Also as in 7.0, an invalidation whose tracking client is the one running
// the command is held in Tracking until the command (EXEC as a whole) ends, even when it goes to
// a redirect target: SendHeldInvalidations, called after each top-level command, sends it then
// (after the command's keyspace notifications); other clients' invalidations go at once.
//
// FLUSHDB/FLUSHALL: every tracking client (BCAST too) is sent one `invalidate` with a null
// (once per command, however many databases it empties) and the table is forgotten. SWAPDB
// invalidates nothing, as Redis 7.0.
//
// Table size: with `tracking-table-max-keys` > 0, EnforceLimit (before each top-level command
// and in cron) invalidates random keys of the table until it is back under the limit, with an
// effort of 100 keys per call, growing while it stays over the limit (Redis's scheme).
//
// Turning tracking off (CLIENT TRACKING OFF, RESET, disconnection) leaves its ids in the table:
// they are skipped and dropped lazily when their keys change (ids are never reused). A client
// that turns tracking off and on again may so receive invalidations for keys it read before,
// as in Redis.
//
// Cost when nobody tracks: OnKeyEvent is one emptiness test of two containers; AfterCommand one
// test of the client's flags.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/keyspace_events.h"
#include "server/client.h"
#include "util/status.h"

namespace redistp {

class Server;
struct CommandSpec;

// Client::tracking.flags bits.
enum TrackingFlag : uint8_t {
  kTrackingOn = 1u << 0,
  kTrackingBcast = 1u << 1,
  kTrackingOptin = 1u << 2,
  kTrackingOptout = 1u << 3,
  kTrackingNoloop = 1u << 4,
  kTrackingCaching = 1u << 5,      // CLIENT CACHING YES (OPTIN) / NO (OPTOUT) for the next command
  kTrackingBrokenRedir = 1u << 6,  // the redirect target was gone when an invalidation was due
};

class Tracking : public KeyspaceListener {
 public:
  explicit Tracking(Server* server) : server_(server) {}

  // What CLIENT TRACKING ON asked for: mode bits (kTrackingBcast/Optin/Optout/Noloop), the
  // redirect target (0: none) and the BCAST prefixes.
  struct Options {
    uint8_t modes = 0;
    uint64_t redirect = 0;
    std::vector<std::string_view> prefixes;
  };
  // Checks `o` against itself and the client's current state (Redis's rules and texts: PREFIX
  // without BCAST, switching BCAST or OPTIN/OPTOUT while on, OPTIN with OPTOUT, overlapping
  // prefixes), then turns tracking on. The redirect target's existence is the caller's check.
  Status Enable(Client& c, const Options& o);
  // Turns tracking off (no-op when off): leaves the client's prefixes; table rows stay (lazy).
  void Disable(Client& c);

  // After every executed command (top level and inside EXEC): remembers the keys a read-only
  // command of a default-mode tracking client read.
  void AfterCommand(Client& c, const CommandSpec& spec, const std::vector<std::string_view>& args) {
    ++command_seq_;
    if ((c.tracking.flags & (kTrackingOn | kTrackingBcast)) == kTrackingOn)
      RememberKeys(c, spec, args);
  }
  // A script's read: remembers, for the script's caller, the keys of the script call itself
  // (`spec`/`args` of EVAL, FCALL ...), as Redis 7.0 does, whatever the flags of that call.
  void RememberCallerKeys(Client& caller, const CommandSpec& spec,
                          const std::vector<std::string_view>& args) {
    if ((caller.tracking.flags & (kTrackingOn | kTrackingBcast)) == kTrackingOn) {
      RememberKeysOf(caller, spec, args);
    }
  }
  // After each top-level command (before blocked clients are served): sends the invalidations
  // held for the client that ran it (see the file comment), in the order they were caused.
  void SendHeldInvalidations() {
    if (!held_.empty()) SendHeld();
  }
  // After a top-level command: CLIENT CACHING's effect ends with the next command (a whole
  // transaction), so it is cleared unless the command was CLIENT itself or MULTI is open.
  static void EndTopLevelCommand(Client& c, std::string_view command_name);

  // Sends the keys BCAST collected during this loop turn. Called from BeforeSleep.
  void BroadcastPending();
  // Shrinks the table to tracking-table-max-keys (see the file comment).
  void EnforceLimit(int64_t max_keys);

  // KeyspaceListener.
  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

  // INFO: tracking_clients, tracking_total_keys/items/prefixes.
  size_t clients() const { return clients_; }
  size_t total_keys() const { return table_.size(); }
  size_t total_items() const { return total_items_; }
  size_t total_prefixes() const { return prefixes_.size(); }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  // One BCAST prefix: its clients, and the keys changed since the last broadcast with the id
  // of the client whose command changed each last (0: none, as for expiry).
  struct Prefix {
    std::vector<uint64_t> clients;
    std::map<std::string, uint64_t, std::less<>> changed;
  };
  // What an invalidation carries: one key, a list of keys, or null (flush).
  struct Payload {
    std::span<const std::string_view> keys;
    bool null = false;
  };

  // A read-only command's keys (others remember nothing) ...
  void RememberKeys(Client& c, const CommandSpec& spec, const std::vector<std::string_view>& args);
  // ... and any command's keys, under the OPTIN/OPTOUT rules.
  void RememberKeysOf(Client& c, const CommandSpec& spec,
                      const std::vector<std::string_view>& args);
  // Default-mode invalidation of `key`: tells its readers and drops its row. `changer` is the
  // running client (for NOLOOP); `broadcast` also collects it for matching BCAST prefixes
  // with `bcast_changer` as its last changer.
  void Invalidate(std::string_view key, bool broadcast, uint64_t bcast_changer);
  // Sends `p` to `c` (or its redirect target): see the file comment.
  void Deliver(Client& c, const Payload& p);
  // Delivers to `c` now, or holds it when `c` is the client running a command.
  void DeliverOrHold(Client& c, std::string_view key, bool null);
  void SendHeld();

  Server* server_;
  std::unordered_map<std::string, std::vector<uint64_t>, NameHash, std::equal_to<>> table_;
  size_t total_items_ = 0;
  std::map<std::string, Prefix, std::less<>> prefixes_;
  bool broadcast_pending_ = false;
  size_t clients_ = 0;
  uint64_t command_seq_ = 0;         // advanced after every command
  uint64_t flushed_at_seq_ = ~0ull;  // the command that last sent the null invalidation
  unsigned limit_rounds_ = 0;
  // Invalidations for the running client, held until its command ends: the client's id, and
  // each key or (null = true) a flush.
  struct Held {
    uint64_t client;
    bool null;
    std::string key;
  };
  std::vector<Held> held_;  // EnforceLimit calls in a row that ended over the limit
};

}  // namespace redistp
