// Propagation: the stream of commands a replica or the AOF must replay to reach the same
// keyspace as this server (Redis's "propagate"/"alsoPropagate").
//
// Model. Every key change is announced by the Database as a KeyEvent and counted in
// KeyspaceContext::dirty. A command "wrote" when dirty moved while it ran, beyond the changes
// already covered by other records. After each write the Propagator appends one record: the
// command's own arguments, or the form its handler asked for with CommandContext::ReplicateAs
// (relative expiry made absolute, INCRBYFLOAT as SET ... KEEPTTL ...). Changes a command did
// not ask for — a key lazily or actively expired, evicted, or deleted because its temporary
// owner left — are not the command's doing: the Propagator sees them as KeyEvents with their
// RemoveCause and appends a DEL (UNLINK with the matching lazyfree option) at once, before the
// record of the command that triggered them, whoever triggered them (command, cron, teardown).
//
// Stream rules (Redis 7.0's, checked against its AOF):
//   - SELECT n precedes the first record of a database different from the last one emitted
//     (the first record of the stream always gets one);
//   - records produced while one top-level command runs (its side-effect DELs, its own
//     record, or for EXEC the records of every queued command) are held until it ends, then
//     sent as they are when there is one, or wrapped in MULTI ... EXEC when there are more, so
//     a replica applies them atomically (counted per consumer: a record only replicas take
//     does not wrap what the AOF receives): "SET k v" on a lazily expired k sends MULTI, DEL k,
//     SET k v, EXEC; a transaction with one write sends just that write, a read-only one
//     nothing (or only the DEL of a key it found expired);
//   - a command that changed nothing emits nothing, except those that force it
//     (CommandContext::ForceReplication: FLUSHALL, FLUSHDB, SWAPDB and the FUNCTION writes,
//     whose libraries are not keys, always propagate, as in Redis 7.0).
//
// Accounting invariant: `accounted_` counts the dirty increments covered by records already
// emitted (side-effect DELs, and the writes of commands nested inside EXEC). A command's own
// writes are (dirty now - dirty at its start) - (accounted now - accounted at its start), so an
// EXEC never re-emits what its queued commands emitted, and a GET that lazily expired a key
// emits only the DEL.
//
// Frames: every command runs in a frame of its own while anything records (a sink, or an
// enclosing frame: EXEC, a script, DEBUG LOADAOF replaying the AOF with its sink detached), and
// a handler's wishes (ReplicateAs ...) belong to that frame alone, so they can neither leak
// into the command around it nor be reset by a command nested in it. No record is ever empty:
// "*0" in an AOF is a file every loader refuses.
//
// Consumers implement PropagationSink: today the AOF writer (persistence/aof.h), which takes the
// kPropagateAof records; a replica link will be another sink taking kPropagateReplicas. With no
// sink attached, nothing is built or copied; the bookkeeping is a few integer operations per
// command.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.h"
#include "db/keyspace_events.h"

namespace redistp {

class Config;

// Where a record goes: the AOF, replicas, or both. A script narrows it for the commands it runs
// after redis.set_repl (the bits are Lua's redis.REPL_AOF and redis.REPL_REPLICA).
enum PropagationTarget : uint8_t {
  kPropagateNone = 0,
  kPropagateAof = 1,
  kPropagateReplicas = 2,
  kPropagateAll = 3,
};

// Receives the propagation stream, one command at a time, SELECT/MULTI/EXEC included.
class PropagationSink {
 public:
  virtual ~PropagationSink() = default;
  virtual void OnPropagate(const std::vector<std::string>& argv) = 0;
  // Which records this sink takes (an AOF writer answers kPropagateAof, a replica link
  // kPropagateReplicas); SELECT goes to every sink, MULTI and EXEC to those that take more than
  // one record of the command they wrap.
  virtual uint8_t targets() const { return kPropagateAll; }
};

class Propagator : public KeyspaceListener {
 public:
  Propagator(const KeyspaceContext* keyspace, const Config* config)
      : keyspace_(keyspace), config_(config) {}

  void AddSink(PropagationSink* sink);
  void RemoveSink(PropagationSink* sink);
  bool has_sinks() const { return !sinks_.empty(); }
  // The database of the last SELECT sent (-1: none yet). A sink attached late (the replicas'
  // stream, created at the first replica) starts from it.
  int selected_db() const { return selected_db_; }

  // Brackets one command's handler (nesting allowed: EXEC runs its queue inside its own
  // frame). BeginCommand returns a frame token for EndCommand. EndCommand emits the
  // command's record if it wrote (or forced it): `args` as run, or the replacement the
  // handler set. `db` is the database the command ran in.
  struct Frame {
    uint64_t dirty_start;
    uint64_t accounted_start;
    size_t depth;
  };
  // Both run for every command while a sink is attached, and for every command nested in a
  // frame (EXEC's queue, a script's redis.call, the commands DEBUG LOADAOF replays), so a
  // nested command's wishes and key changes are its own and never leak into the command
  // around it. Without a sink and outside any frame nothing runs at all.
  Frame BeginCommand() {
    if (wishes_.size() <= depth_) {
      wishes_.emplace_back();
    } else {
      wishes_[depth_].Reset();
    }
    return Frame{keyspace_->dirty(), accounted_, depth_++};
  }
  void EndCommand(const Frame& frame, int db, const std::vector<std::string_view>& args) {
    const uint64_t changed = keyspace_->dirty() - frame.dirty_start;
    const uint64_t covered = accounted_ - frame.accounted_start;
    const uint64_t own = changed > covered ? changed - covered : 0;
    accounted_ += own;
    Wishes& w = wishes_[frame.depth];
    if (!sinks_.empty() && !w.suppress && (own > 0 || w.force)) RecordCommand(db, args, &w);
    w.Reset();
    // The frame ends only now, so its own record was held after its side effects' records.
    depth_ = frame.depth;
    if (depth_ == 0) {
      if (!held_.empty()) apart_ ? FlushHeldApart() : FlushHeld();
      apart_ = false;
    }
  }
  // Whether a command running now must be bracketed by BeginCommand/EndCommand: a sink
  // listens, or it runs inside another command's frame.
  bool wants_frames() const { return !sinks_.empty() || depth_ > 0; }

  // For the running command (the innermost frame): replicate as `argv` instead of its own
  // arguments (only if it wrote); ReplicateNothing drops its record; ForceReplication emits it
  // even without a key change. Outside any frame nobody records, and they do nothing.
  void ReplicateAs(std::initializer_list<std::string_view> argv);
  void ReplicateAs(std::vector<std::string> argv);
  void ReplicateNothing();
  void ForceReplication();

  // For a top-level command that walks the keyspace (SCAN, RANDOMKEY): the DELs of the keys it
  // finds expired go out one by one, never wrapped in MULTI/EXEC, as Redis 7.0 sends them (it
  // propagates each such expiry at once). Inside EXEC or a script it changes nothing.
  void SendSideEffectsApart() {
    if (depth_ == 1) apart_ = true;
  }

  // The targets of the records appended from now on (a script's redis.set_repl; kPropagateAll
  // again when the script's command ends). kPropagateNone drops them.
  void SetTargets(uint8_t targets) { targets_ = targets; }

  // A record produced outside any command's own arguments (a BSETTP hand-off served when a
  // key was freed): emitted now, in database `db`, covering one key change.
  void Emit(int db, std::initializer_list<std::string_view> argv);
  // One more record of the running command, covering no key change of its own: a command
  // replayed as several (SPOP with a count is one SREM per member in Redis 7.0's AOF, wrapped
  // with the rest in MULTI/EXEC), which then calls ReplicateNothing for its own record.
  void AppendRecord(int db, std::vector<std::string> argv) {
    if (!sinks_.empty()) Append(db, std::move(argv));
  }
  // The same for a record that only some consumers take (`targets`, narrowed further by a
  // script's redis.set_repl): the replicas' own records of who owns a temporary key
  // (server/session_runtime.cc), which an AOF never holds. A consumer that receives a single
  // record of a command gets it bare, whatever the others receive (FlushHeld).
  void AppendRecordFor(uint8_t targets, int db, std::vector<std::string> argv) {
    if (sinks_.empty()) return;
    const uint8_t saved = targets_;
    targets_ &= targets;
    Append(db, std::move(argv));
    targets_ = saved;
  }
  // Whether some consumer takes records for `targets` (a record only replicas take is not
  // built while only the AOF listens).
  bool has_sinks_for(uint8_t targets) const {
    for (const PropagationSink* s : sinks_) {
      if ((s->targets() & targets) != 0) return true;
    }
    return false;
  }

  // KeyspaceListener: side-effect removals become DEL/UNLINK records.
  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}

 private:
  struct Record {
    int db;
    std::vector<std::string> argv;
    uint8_t targets = kPropagateAll;
  };
  // What a running command's handler asked for (one per open frame).
  struct Wishes {
    bool rewrite = false;
    bool suppress = false;
    bool force = false;
    std::vector<std::string> argv;  // the rewrite
    void Reset() {
      rewrite = suppress = force = false;
      if (!argv.empty()) argv.clear();
    }
  };
  Wishes* current() { return depth_ > 0 ? &wishes_[depth_ - 1] : nullptr; }
  // The ending command's record: its arguments, or the rewrite its handler set.
  void RecordCommand(int db, const std::vector<std::string_view>& args, Wishes* w);
  // Holds the record while a command runs, else sends it at once.
  void Append(int db, std::vector<std::string> argv);
  // Sends the held records of the top-level command that just ended.
  void FlushHeld();
  // Sends the held records one by one, each bare (SendSideEffectsApart).
  void FlushHeldApart();
  void SendIn(int db, const std::vector<std::string>& argv, uint8_t targets = kPropagateAll);
  void Send(const std::vector<std::string>& argv, uint8_t targets = kPropagateAll);

  const KeyspaceContext* keyspace_;
  const Config* config_;
  std::vector<PropagationSink*> sinks_;
  uint64_t accounted_ = 0;
  int selected_db_ = -1;      // database of the last record sent; -1 = none yet
  size_t depth_ = 0;          // nesting of BeginCommand frames
  std::vector<Record> held_;  // records of the running top-level command
  bool apart_ = false;        // its held records go out bare (SendSideEffectsApart)
  // wishes_[i] belongs to the frame at depth i (kept allocated between commands).
  std::vector<Wishes> wishes_;
  uint8_t targets_ = kPropagateAll;
};

}  // namespace redistp
