// The subsystem registry (server/subsystem.h) on an in-process server, with stand-in
// subsystems in two rows (the harness attaches no real one there):
//   - every hook runs in slot order, whatever the attach order; Stop and destruction in the
//     reverse order; a hook a type does not declare is never filed;
//   - a subsystem's close hook runs once per connection that closes (not on RESET), while the
//     connection is still listed;
//   - typed lookup answers the attached object, and nullptr for a row that is empty or holds
//     another type;
//   - Start at StartSubsystems (or at attach once started), its error returned;
//   - PrepareShutdown stops at the first refusal (SHUTDOWN answers the failure), WriteRefusal
//     refuses writes with the subsystem's text;
//   - key-event listeners of subsystems run in slot order, whatever the subscription order.
#include "server/subsystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "harness.h"
#include "protocol/errors.h"
#include "scripting/script_engine.h"

namespace redistp {
namespace {

using testing::Harness;

// Records its hook calls as "<name>.<hook>" in a log that outlives the server.
class Recorder : public Subsystem {
 public:
  Recorder(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  ~Recorder() override { Note("destroyed"); }
  Status Start() override {
    Note("start");
    return start_status;
  }
  void Stop() override { Note("stop"); }
  void Cron() override { Note("cron"); }
  void BeforeSleep() override { Note("before-sleep"); }
  void OnClientClose(Client& c) override {
    Note("close");
    closed.push_back(c.id);
    // The connection is still listed while the hook runs.
    listed_at_close = server != nullptr && server->FindClient(c.id) == &c;
  }
  bool PrepareShutdown(int flags) override {
    Note("shutdown");
    last_flags = flags;
    return allow_shutdown;
  }
  std::string_view WriteRefusal() const override { return refusal; }

  Status start_status = Status::Ok();
  bool allow_shutdown = true;
  int last_flags = -1;
  std::string refusal;
  std::vector<uint64_t> closed;
  bool listed_at_close = false;
  Server* server = nullptr;

 protected:
  void Note(const char* what) { log_->push_back(name_ + "." + what); }

 private:
  std::string name_;
  std::vector<std::string>* log_;
};

// In the scripting row: a type other than ScriptEngine, so lookups of the engine must miss.
class Low : public Recorder {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kScripting;
  using Recorder::Recorder;
};

// In the persistence row.
class High : public Recorder {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kPersistence;
  using Recorder::Recorder;
};

// Declares only Cron: filed in no other hook's list.
class CronOnly : public Subsystem {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kMigrate;
  explicit CronOnly(int* ticks) : ticks_(ticks) {}
  void Cron() override { ++*ticks_; }

 private:
  int* ticks_;
};

std::vector<std::string> Take(std::vector<std::string>* log) {
  std::vector<std::string> out;
  out.swap(*log);
  return out;
}

TEST(SubsystemRegistry, HooksDeclaredAreFoundAtCompileTime) {
  EXPECT_EQ(SubsystemHooksOf<CronOnly>(), static_cast<uint32_t>(kHookCron));
  EXPECT_EQ(SubsystemHooksOf<Low>(),
            static_cast<uint32_t>(kHookStart | kHookStop | kHookCron | kHookBeforeSleep |
                                  kHookClientClose | kHookPrepareShutdown | kHookWriteRefusal));
  // The Lua debugger's: cron reaps forked sessions, stop kills them, a closing connection
  // forgets its SCRIPT DEBUG mode.
  EXPECT_EQ(SubsystemHooksOf<ScriptEngine>(),
            static_cast<uint32_t>(kHookStop | kHookCron | kHookClientClose));
}

TEST(SubsystemRegistry, HooksRunInSlotOrderAndTeardownInReverse) {
  std::vector<std::string> log;
  {
    Harness h;
    Server& s = h.server();
    // Attached in the reverse of their slot order.
    s.AttachSubsystem(std::make_unique<High>("high", &log));
    s.AttachSubsystem(std::make_unique<Low>("low", &log));
    ASSERT_TRUE(s.StartSubsystems().ok());
    EXPECT_EQ(Take(&log), (std::vector<std::string>{"low.start", "high.start"}));
    s.RunDueWork();  // one cron tick, then the end of the loop turn
    std::vector<std::string> turn = Take(&log);
    ASSERT_GE(turn.size(), 4u);
    EXPECT_EQ(std::vector<std::string>(turn.begin(), turn.begin() + 4),
              (std::vector<std::string>{"low.cron", "high.cron", "low.before-sleep",
                                        "high.before-sleep"}));
    EXPECT_TRUE(s.PrepareShutdown(0));
    EXPECT_EQ(Take(&log), (std::vector<std::string>{"low.shutdown", "high.shutdown"}));
  }
  EXPECT_EQ(log,
            (std::vector<std::string>{"high.stop", "low.stop", "high.destroyed", "low.destroyed"}));
}

TEST(SubsystemRegistry, TheCloseHookRunsOncePerClosedConnection) {
  std::vector<std::string> log;
  Harness h;
  Server& s = h.server();
  High& high = s.AttachSubsystem(std::make_unique<High>("high", &log));
  high.server = &s;
  const uint64_t a = h.Connect("a")->id;
  const uint64_t b = h.Connect("b")->id;
  h.Connect("killer");
  // RESET ends the session, not the connection: no close hook.
  EXPECT_EQ(h.Run("a", {"RESET"}).Text(), "RESET");
  EXPECT_TRUE(high.closed.empty());
  h.Disconnect("a");
  EXPECT_EQ(high.closed, std::vector<uint64_t>{a});
  EXPECT_TRUE(high.listed_at_close);
  // Killed by another client, then its peer leaves too: still one call.
  EXPECT_EQ(h.Run("killer", {"CLIENT", "KILL", "ID", std::to_string(b)}).Text(), "(integer) 1");
  h.Disconnect("b");
  h.AdvanceTime(0);
  EXPECT_EQ(high.closed, (std::vector<uint64_t>{a, b}));
  EXPECT_EQ(h.Run("killer", {"QUIT"}).Text(), "OK");
  h.AdvanceTime(0);
  EXPECT_EQ(high.closed.size(), 3u);
}

TEST(SubsystemRegistry, TypedLookupAnswersOnlyTheAttachedType) {
  std::vector<std::string> log;
  Harness h;
  Server& s = h.server();
  EXPECT_EQ(s.subsystem<Low>(), nullptr);
  EXPECT_EQ(s.subsystem<ScriptEngine>(), nullptr);
  Low& low = s.AttachSubsystem(std::make_unique<Low>("low", &log));
  EXPECT_EQ(s.subsystem<Low>(), &low);
  // The same row holds a Low: asking for the engine of that row misses instead of casting.
  EXPECT_EQ(s.subsystem<ScriptEngine>(), nullptr);
  EXPECT_EQ(s.subsystem<High>(), nullptr);
}

TEST(SubsystemRegistry, TheRealEngineIsAttachedOnFirstUse) {
  Harness h;
  EXPECT_EQ(h.server().subsystem<ScriptEngine>(), nullptr);
  EXPECT_EQ(h.Run("c", {"EVAL", "return 1", "0"}).Text(), "(integer) 1");
  ScriptEngine* engine = h.server().subsystem<ScriptEngine>();
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(&ScriptEngine::Of(h.server()), engine);
  EXPECT_EQ(engine->cached_scripts(), 1u);
}

TEST(SubsystemRegistry, StartErrorsStopStartupAndLateAttachStartsAtOnce) {
  std::vector<std::string> log;
  Harness h;
  Server& s = h.server();
  Low& low = s.AttachSubsystem(std::make_unique<Low>("low", &log));
  low.start_status = Status::Error("cannot start");
  Status st = s.StartSubsystems();
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "cannot start");
  EXPECT_EQ(Take(&log), std::vector<std::string>{"low.start"});
  // Attached after startup: started by the attach.
  s.AttachSubsystem(std::make_unique<High>("high", &log));
  EXPECT_EQ(Take(&log), std::vector<std::string>{"high.start"});
}

TEST(SubsystemRegistry, TheFirstRefusalOfShutdownKeepsTheServerRunning) {
  std::vector<std::string> log;
  Harness h;
  Server& s = h.server();
  Low& low = s.AttachSubsystem(std::make_unique<Low>("low", &log));
  s.AttachSubsystem(std::make_unique<High>("high", &log));
  low.allow_shutdown = false;
  EXPECT_EQ(h.Run("c", {"SHUTDOWN", "NOSAVE"}).Text(),
            "(error) " + std::string(err::kShutdownFailed));
  EXPECT_EQ(low.last_flags, kShutdownNoSave);
  std::vector<std::string> calls = Take(&log);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "low.shutdown"), 1);
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "high.shutdown"), 0) << "not asked after a no";
  EXPECT_FALSE(s.shutdown_requested());
  EXPECT_EQ(h.Run("c", {"PING"}).Text(), "PONG");
}

TEST(SubsystemRegistry, AWriteRefusalRefusesWritesWithItsText) {
  std::vector<std::string> log;
  Harness h;
  Server& s = h.server();
  s.AttachSubsystem(std::make_unique<Low>("low", &log));
  High& high = s.AttachSubsystem(std::make_unique<High>("high", &log));
  EXPECT_EQ(h.Run("c", {"SET", "k", "v"}).Text(), "OK");
  high.refusal = std::string(err::kMisconfRdb);
  EXPECT_EQ(s.WriteRefusal(), err::kMisconfRdb);
  EXPECT_EQ(h.Run("c", {"SET", "k", "w"}).Text(), "(error) " + std::string(err::kMisconfRdb));
  EXPECT_EQ(h.Run("c", {"GET", "k"}).Text(), "\"v\"");
  high.refusal.clear();
  EXPECT_EQ(h.Run("c", {"SET", "k", "w"}).Text(), "OK");
}

TEST(SubsystemRegistry, OnlyTheDeclaredHooksAreCalled) {
  int ticks = 0;
  Harness h;
  h.server().AttachSubsystem(std::make_unique<CronOnly>(&ticks));
  h.AdvanceTime(100);
  EXPECT_GE(ticks, 1);
  EXPECT_TRUE(h.server().PrepareShutdown(0));
  EXPECT_TRUE(h.server().WriteRefusal().empty());
}

// Logs the key events it sees under its name.
class KeyLog : public KeyspaceListener {
 public:
  KeyLog(char name, std::string* log) : name_(name), log_(log) {}
  void OnKeyEvent(const KeyEvent&) override { log_->push_back(name_); }
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}

 private:
  char name_;
  std::string* log_;
};

TEST(SubsystemRegistry, KeyEventListenersOfSubsystemsRunInSlotOrder) {
  std::vector<std::string> unused;
  std::string seen;
  KeyLog high_listener('h', &seen), low_listener('l', &seen);  // outlive the server
  Harness h;
  Server& s = h.server();
  s.AttachSubsystem(std::make_unique<High>("high", &unused));
  s.AttachSubsystem(std::make_unique<Low>("low", &unused));
  // Subscribed in the reverse of the slot order.
  s.SubscribeKeyEvents(SubsystemSlot::kPersistence, &high_listener);
  s.SubscribeKeyEvents(SubsystemSlot::kScripting, &low_listener);
  EXPECT_EQ(h.Run("c", {"SET", "k", "v"}).Text(), "OK");
  EXPECT_EQ(seen, "lh");
  s.SetKeyEventsEnabled(&low_listener, false);
  seen.clear();
  EXPECT_EQ(h.Run("c", {"DEL", "k"}).Text(), "(integer) 1");
  EXPECT_EQ(seen, "h");
}

}  // namespace
}  // namespace redistp
