// Unit tests for the owners of the keyspace's shared state (db/keyspace_state.h): the command
// clock's Freeze/Thaw scopes, the expiry gate's Suspend/LiftPause scopes and settings, and the
// change counter that only Database moves. Every scope must undo exactly its own change on
// every way out -- normal end, early return, exception -- and nested scopes must unwind in
// order, because the callers (scripts, busy passes, loaders, a write during CLIENT PAUSE) nest
// them and leave them early.
#include "db/keyspace_state.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "db/database.h"
#include "harness.h"

namespace redistp {
namespace {

// Neither the state nor its scopes can be copied, assigned or moved: a copy would restore
// twice, an assignment would replace the state past its owner.
static_assert(!std::is_copy_assignable_v<CommandClock>);
static_assert(!std::is_copy_constructible_v<CommandClock>);
static_assert(!std::is_copy_assignable_v<ExpiryGate>);
static_assert(!std::is_move_constructible_v<CommandClock::Scope>);
static_assert(!std::is_move_constructible_v<ExpiryGate::Scope>);
static_assert(!std::is_copy_assignable_v<KeyspaceContext>);

TEST(CommandClock, UpdateMovesTheTimeAndOnlyTheCronMovesTheLruClock) {
  CommandClock clock;
  clock.Update(5'000);
  EXPECT_EQ(clock.now_ms(), 5'000);
  EXPECT_EQ(clock.lru_clock(), 0u);
  clock.UpdateWithLru(7'000);
  EXPECT_EQ(clock.now_ms(), 7'000);
  EXPECT_EQ(clock.lru_clock(), 7u);
  // 24 bits of seconds, as Redis's LRU clock.
  clock.UpdateWithLru((int64_t{1} << 24) * 1000 + 3'000);
  EXPECT_EQ(clock.lru_clock(), 3u);
}

TEST(CommandClock, FreezeHoldsTheTimeUntilItsScopeEnds) {
  CommandClock clock;
  clock.Update(1'000);
  {
    CommandClock::Scope frozen = clock.Freeze();
    EXPECT_TRUE(clock.frozen());
    clock.Update(2'000);
    clock.UpdateWithLru(3'000);
    EXPECT_EQ(clock.now_ms(), 1'000);
    EXPECT_EQ(clock.lru_clock(), 3u);  // the LRU clock is not the command's time
  }
  EXPECT_FALSE(clock.frozen());
  EXPECT_EQ(clock.now_ms(), 1'000);
  clock.Update(4'000);
  EXPECT_EQ(clock.now_ms(), 4'000);
}

TEST(CommandClock, ThawInsideAFreezeLetsTimeMoveThenGivesTheFrozenTimeBack) {
  CommandClock clock;
  clock.Update(1'000);
  CommandClock::Scope frozen = clock.Freeze();
  for (int pass = 1; pass <= 3; ++pass) {  // busy passes of one script
    CommandClock::Scope thawed = clock.Thaw();
    EXPECT_FALSE(clock.frozen());
    clock.Update(1'000 + pass * 100);
    EXPECT_EQ(clock.now_ms(), 1'000 + pass * 100);
    {
      // A command of another client that freezes in turn (a script of its own).
      CommandClock::Scope inner = clock.Freeze();
      clock.Update(9'999);
      EXPECT_EQ(clock.now_ms(), 1'000 + pass * 100);
    }
    EXPECT_FALSE(clock.frozen());
  }
  EXPECT_TRUE(clock.frozen());
  EXPECT_EQ(clock.now_ms(), 1'000);
}

int FrozenEarlyReturn(CommandClock& clock, bool leave_early) {
  CommandClock::Scope frozen = clock.Freeze();
  if (leave_early) return 1;
  clock.Update(50);
  return 2;
}

TEST(CommandClock, AnEarlyReturnOrAnExceptionStillUnfreezes) {
  CommandClock clock;
  clock.Update(10);
  EXPECT_EQ(FrozenEarlyReturn(clock, true), 1);
  EXPECT_FALSE(clock.frozen());
  EXPECT_EQ(FrozenEarlyReturn(clock, false), 2);
  EXPECT_FALSE(clock.frozen());
  EXPECT_EQ(clock.now_ms(), 10);
  EXPECT_THROW(
      {
        CommandClock::Scope frozen = clock.Freeze();
        CommandClock::Scope thawed = clock.Thaw();
        clock.Update(20);
        throw std::runtime_error("a command failed");
      },
      std::runtime_error);
  EXPECT_FALSE(clock.frozen());
  EXPECT_EQ(clock.now_ms(), 10);
  clock.Update(30);
  EXPECT_EQ(clock.now_ms(), 30);
}

TEST(ExpiryGate, SuspendNestsAndEndsWithTheOutermostScope) {
  ExpiryGate gate;
  EXPECT_TRUE(gate.enabled());
  {
    ExpiryGate::Scope outer = gate.Suspend();  // DEBUG RELOAD
    EXPECT_FALSE(gate.enabled());
    {
      ExpiryGate::Scope inner = gate.Suspend();  // a load nested in it
      EXPECT_FALSE(gate.enabled());
    }
    EXPECT_FALSE(gate.enabled());
  }
  EXPECT_TRUE(gate.enabled());
  EXPECT_THROW(
      {
        ExpiryGate::Scope loading = gate.Suspend();
        throw std::runtime_error("a load failed");
      },
      std::runtime_error);
  EXPECT_TRUE(gate.enabled());
}

TEST(ExpiryGate, APauseHoldsExpiredKeysUnlessAWriteLiftsIt) {
  ExpiryGate gate;
  EXPECT_FALSE(gate.held());
  gate.SetPaused(true);
  EXPECT_TRUE(gate.held());
  {
    ExpiryGate::Scope lift = gate.LiftPause();  // a write of the transaction that paused
    EXPECT_FALSE(gate.held());
    {
      ExpiryGate::Scope inner = gate.LiftPause();  // a write inside it (EXEC's commands)
      EXPECT_FALSE(gate.held());
    }
    EXPECT_FALSE(gate.held());
  }
  EXPECT_TRUE(gate.held());
  {
    ExpiryGate::Scope not_engaged = gate.LiftPause(false);  // a read: changes nothing
    EXPECT_TRUE(gate.held());
  }
  EXPECT_TRUE(gate.held());
  // The pause ends inside a lifted write (CLIENT UNPAUSE in the same EXEC): nothing is held
  // afterwards, whatever the scope found when it began.
  {
    ExpiryGate::Scope lift = gate.LiftPause();
    gate.SetPaused(false);
  }
  EXPECT_FALSE(gate.held());
  EXPECT_TRUE(gate.enabled());
}

TEST(ExpiryGate, ActiveExpiryIsASettingOfItsOwn) {
  ExpiryGate gate;
  EXPECT_TRUE(gate.active_enabled());
  gate.SetActive(false);
  { ExpiryGate::Scope loading = gate.Suspend(); }
  EXPECT_FALSE(gate.active_enabled());
  gate.SetActive(true);
  EXPECT_TRUE(gate.active_enabled());
}

// The gate and the clock as a Database sees them: a key past its TTL is alive while loading,
// absent but kept while held, deleted otherwise.
TEST(KeyspaceState, DatabaseLookupsFollowTheGateAndTheClock) {
  KeyspaceContext ctx;
  Database db(0, &ctx);
  ctx.command_clock.Update(1'000);
  Entry* e = db.Add("k", Value::String("v"), notice::kNone);
  db.SetExpire(e, 1'500);
  ctx.command_clock.Update(2'000);
  {
    ExpiryGate::Scope loading = ctx.expiry.Suspend();
    EXPECT_NE(db.Peek("k"), nullptr);
  }
  ctx.expiry.SetPaused(true);
  EXPECT_EQ(db.Peek("k"), nullptr);
  EXPECT_EQ(db.size(), 1u);  // kept until the pause ends
  {
    // A script that started before the TTL passed still sees the key.
    ctx.command_clock.Update(1'200);
    CommandClock::Scope frozen = ctx.command_clock.Freeze();
    ctx.command_clock.Update(2'000);
    EXPECT_NE(db.Peek("k"), nullptr);
  }
  ctx.command_clock.Update(2'000);
  {
    ExpiryGate::Scope lift = ctx.expiry.LiftPause();
    EXPECT_EQ(db.Peek("k"), nullptr);
  }
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(ctx.expired_keys, 1u);
}

// `dirty` moves only through Database: one per key event, one per key a counted flush drops,
// CountChanges; an uncounted flush (emptying for a load) and loading itself move nothing.
TEST(KeyspaceState, OnlyDatabaseCountsChanges) {
  KeyspaceContext ctx;
  Database db(0, &ctx);
  db.Add("a", Value::String("1"), notice::kNone);
  db.Add("b", Value::String("2"), notice::kNone);
  db.Add("c", Value::String("3"), notice::kNone);
  EXPECT_EQ(ctx.dirty(), 3u);
  db.Flush(Database::FlushCount::kCountKeys);
  EXPECT_EQ(ctx.dirty(), 6u);
  db.Flush(Database::FlushCount::kCountKeys);  // already empty
  EXPECT_EQ(ctx.dirty(), 6u);
  db.AddLoaded("d", Value::String("4"), 0);
  db.AddLoaded("e", Value::String("5"), 0);
  EXPECT_EQ(ctx.dirty(), 6u);
  db.Flush(Database::FlushCount::kUncounted);
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(ctx.dirty(), 6u);
  db.CountChanges(4);
  EXPECT_EQ(ctx.dirty(), 10u);
}

// The whole server: FLUSHDB/FLUSHALL and SORT ... STORE count as Redis 7.0 counts them
// (rdb_changes_since_last_save), which the propagator relies on to know a command wrote.
TEST(KeyspaceState, FlushAndSortStoreCountTheirChangesLikeRedis) {
  testing::Harness h;
  const auto changes = [&] { return h.server().keyspace().dirty(); };
  const auto run = [&](const std::vector<std::string>& args) { return h.Run("a", args).Text(); };
  run({"RPUSH", "l", "3", "1", "2"});
  run({"SET", "x", "1"});
  uint64_t before = changes();
  EXPECT_EQ(run({"SORT", "l", "STORE", "dst"}), "(integer) 3");
  EXPECT_EQ(changes() - before, 3u);
  run({"SELECT", "1"});
  run({"SET", "y", "1"});
  run({"SELECT", "0"});
  before = changes();
  EXPECT_EQ(run({"FLUSHDB"}), "OK");
  EXPECT_EQ(changes() - before, 3u);  // l, x, dst
  before = changes();
  run({"FLUSHALL"});
  EXPECT_EQ(changes() - before, 1u);  // y in db 1
}

}  // namespace
}  // namespace redistp
