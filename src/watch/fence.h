// FenceCounter: the fencing tokens of SETTP/BSETTP ... FENCE (docs/temporary-keys-and-watches.md,
// "Fencing tokens").
//
// The promise: a token is strictly greater than every token this server ever handed out, across
// a clean restart and a crash, with or without persistence. The RDB file (aux redistp-fence)
// and the AOF (its SETTP ... FENCE records) only know the tokens drawn up to the last save or
// fsync, and the wall clock, once used as the floor, can be outrun (a script draws more than
// one token per microsecond) or step back. So the counter does not rely on either.
//
// Reservation. A high-water mark `reserved` is kept durably in a FenceStore (a small file in
// `dir`, server/fence_file.h). Invariant: every token handed out is <= the durable mark. Before
// the counter hands out a token above the mark, it moves the mark to the end of the token's
// block (blocks of kBlock tokens, aligned) and waits until the store says it is durable; if the
// store fails, no token is handed out (the caller answers an error; the next request tries
// again). At startup the counter starts at max(the loaded counter, the stored mark, the wall
// clock in microseconds): the next token is above every token of the previous run, whatever
// was saved. So a start that hands out tokens costs one durable write, and then one per block.
//
// Epochs. Blocks are aligned and a mark is the last token of its block, so the high bits of a
// token (token >> kBlockBits) number its block, an epoch: a start that resumes from the mark
// hands out its first token at the start of the next block, above every block of the run before.
// kBlock = 2^24 balances two costs: a start skips at most one block (2^53, where Lua's doubles
// stop being exact, is ~4·10^8 such starts away from today's clock floor of ~2^50.7), and a
// durable write happens at most once per 16.7 million tokens.
//
// Floors from elsewhere. Another node's tokens for the keys of a slot that moves here (a
// migrated key's TPADOPT, a cluster peer's fence-floor message: cluster/fence_floor.h) must stay
// below every token of this node from then on, across a crash too: RaiseDurable makes the
// raised counter durable at once (the mark moves to the end of the floor's block) instead of at
// the next token, since a restart before that token would start from the old mark.
//
// Replayed tokens. An AOF replay of SETTP ... FENCE counts a token without handing it out
// (Replayed): no reservation is needed, the next real token will make one if it must.
//
// Without a store (the in-process test harness, fuzzers) the counter only counts.
#pragma once

#include <cstdint>

#include "util/status.h"

namespace redistp {

// Where the mark is made durable.
class FenceStore {
 public:
  virtual ~FenceStore() = default;
  // Makes `mark` durable: returns OK only once a crash can no longer lose it. The error's text
  // says why not (it is shown to the client that asked for a token).
  virtual Status Persist(uint64_t mark) = 0;
};

// Told of every mark that became durable (the cluster sends it to the nodes its slots are
// migrating to, cluster/fence_floor.h). Called before the token that needed the mark is handed
// out.
class FenceListener {
 public:
  virtual ~FenceListener() = default;
  virtual void OnReserved(uint64_t mark) = 0;
};

class FenceCounter {
 public:
  static constexpr int kBlockBits = 24;
  static constexpr uint64_t kBlock = uint64_t{1} << kBlockBits;

  // The store (not owned) future reservations are made durable in; nullptr: none.
  void set_store(FenceStore* store) { store_ = store; }
  // The listener (not owned) told of each new durable mark; nullptr: none.
  void set_listener(FenceListener* listener) { listener_ = listener; }

  // The next token, strictly greater than every earlier one; reserves a block first when the
  // token is above the durable mark. An error (the store failed) hands out nothing and changes
  // nothing: the next call tries again.
  Result<uint64_t> Next();
  // A token drawn again by an AOF replay: counted, not handed out, so nothing is reserved.
  uint64_t Replayed() { return ++last_; }
  // The counter never goes below `floor` again (a loaded file's counter, the stored mark at
  // startup, the clock floor).
  void Raise(uint64_t floor) {
    if (floor > last_) last_ = floor;
  }
  // Raise(floor), then the counter itself is made durable: when it is above the durable mark,
  // the mark moves to the end of its block (nothing is handed out). OK when nothing had to be
  // written. An error leaves the counter raised in memory (the next Next() reserves before any
  // token) but not durable: the caller says so.
  Status RaiseDurable(uint64_t floor);
  // What is durable in the store is no longer known (the file moved: CONFIG SET dir or
  // tp-fence-file): the next token reserves again, at the new place.
  void ForgetReservation() { reserved_ = 0; }

  uint64_t last() const { return last_; }
  // The durable mark (0: nothing reserved in this run).
  uint64_t reserved() const { return reserved_; }
  // How many reservations were made durable in this run, and how many failed.
  uint64_t reservations() const { return reservations_; }
  uint64_t failures() const { return failures_; }

 private:
  // Persists the mark ending the block of `token` (counting it); the listener hears of it.
  Status Reserve(uint64_t token);

  FenceStore* store_ = nullptr;
  FenceListener* listener_ = nullptr;
  uint64_t last_ = 0;
  uint64_t reserved_ = 0;
  uint64_t reservations_ = 0;
  uint64_t failures_ = 0;
};

}  // namespace redistp
