// Propagation records (see propagation.h for the model and the stream rules).
#include "server/propagation.h"

#include <algorithm>

#include "db/database.h"
#include "db/entry.h"
#include "server/config.h"

namespace redistp {

void Propagator::AddSink(PropagationSink* sink) {
  if (std::find(sinks_.begin(), sinks_.end(), sink) == sinks_.end()) sinks_.push_back(sink);
}

void Propagator::RemoveSink(PropagationSink* sink) {
  sinks_.erase(std::remove(sinks_.begin(), sinks_.end(), sink), sinks_.end());
  // A sink attached later must not rely on what an earlier one was told.
  if (sinks_.empty()) selected_db_ = -1;
}

void Propagator::RecordCommand(int db, const std::vector<std::string_view>& args, Wishes* w) {
  if (w->rewrite && !w->argv.empty()) {
    Append(db, std::move(w->argv));
    w->argv.clear();
  } else {
    Append(db, std::vector<std::string>(args.begin(), args.end()));
  }
}

void Propagator::ReplicateAs(std::initializer_list<std::string_view> argv) {
  Wishes* w = current();
  if (w == nullptr || argv.size() == 0) return;
  w->rewrite = true;
  if (sinks_.empty()) return;  // nobody listens: skip the copy
  w->argv.assign(argv.begin(), argv.end());
}

void Propagator::ReplicateAs(std::vector<std::string> argv) {
  Wishes* w = current();
  if (w == nullptr || argv.empty()) return;
  w->rewrite = true;
  // Nobody listens: the arguments (a 32 MB key of DELTP) are not kept, not even until the
  // frame ends.
  if (sinks_.empty()) return;
  w->argv = std::move(argv);
}

void Propagator::ReplicateNothing() {
  if (Wishes* w = current()) w->suppress = true;
}

void Propagator::ForceReplication() {
  if (Wishes* w = current()) w->force = true;
}

void Propagator::Emit(int db, std::initializer_list<std::string_view> argv) {
  ++accounted_;
  if (sinks_.empty()) return;
  Append(db, std::vector<std::string>(argv.begin(), argv.end()));
}

void Propagator::OnKeyEvent(const KeyEvent& ev) {
  if (ev.expired_fields != nullptr) {
    // Hash fields past their time: replayed as HDEL, as Redis 7.4 does, whoever triggered it.
    ++accounted_;
    if (sinks_.empty()) return;
    std::vector<std::string> argv;
    argv.reserve(ev.expired_fields->size() + 2);
    argv.emplace_back("HDEL");
    argv.emplace_back(ev.entry->key());
    argv.insert(argv.end(), ev.expired_fields->begin(), ev.expired_fields->end());
    Append(ev.db->index(), std::move(argv));
    return;
  }
  if (ev.kind != KeyEventKind::kRemoved) return;
  if (ev.cause == RemoveCause::kExpired && ev.entry->value.IsEmptyAggregate()) {
    // A hash whose last field expired: the HDEL just recorded empties it on the replica too,
    // so no DEL follows (as Redis 7.4 sends it).
    ++accounted_;
    return;
  }
  bool lazy;
  switch (ev.cause) {
    case RemoveCause::kExpired:
      lazy = config_->lazyfree_lazy_expire;
      break;
    case RemoveCause::kEvicted:
      lazy = config_->lazyfree_lazy_eviction;
      break;
    case RemoveCause::kOwnerLeft:
      lazy = false;
      break;  // the spec promises DEL
    case RemoveCause::kSlotLost:
      lazy = config_->lazyfree_lazy_server_del;
      break;  // replicas and the AOF drop the keys too, as Redis propagates them
    default:
      return;  // a command's own change: covered by its record
  }
  ++accounted_;
  if (sinks_.empty()) return;
  std::string_view key = ev.entry->key();
  Append(ev.db->index(), {lazy ? "UNLINK" : "DEL", std::string(key)});
}

void Propagator::Append(int db, std::vector<std::string> argv) {
  // An empty record is no command: a loader refuses the file that holds one ("*0").
  if (targets_ == kPropagateNone || argv.empty()) return;
  if (depth_ > 0) {
    held_.push_back(Record{db, std::move(argv), targets_});
  } else {
    SendIn(db, argv, targets_);
  }
}

void Propagator::FlushHeld() {
  if (held_.empty()) return;
  std::vector<Record> records;
  records.swap(held_);
  // Each consumer gets MULTI ... EXEC only when more than one of the records reaches it: the
  // replicas-only ownership records must not change what the AOF holds.
  size_t to_aof = 0;
  size_t to_replicas = 0;
  for (const Record& r : records) {
    if ((r.targets & kPropagateAof) != 0) ++to_aof;
    if ((r.targets & kPropagateReplicas) != 0) ++to_replicas;
  }
  const uint8_t wrap = static_cast<uint8_t>((to_aof > 1 ? kPropagateAof : 0) |
                                            (to_replicas > 1 ? kPropagateReplicas : 0));
  if (wrap == kPropagateNone) {
    for (const Record& r : records) SendIn(r.db, r.argv, r.targets);
    return;
  }
  // MULTI belongs to the database of the first record, so its SELECT comes first.
  SendIn(records[0].db, {"MULTI"}, wrap);
  for (const Record& r : records) SendIn(r.db, r.argv, r.targets);
  Send({"EXEC"}, wrap);
}

void Propagator::FlushHeldApart() {
  std::vector<Record> records;
  records.swap(held_);
  for (const Record& r : records) SendIn(r.db, r.argv, r.targets);
}

void Propagator::SendIn(int db, const std::vector<std::string>& argv, uint8_t targets) {
  if (db != selected_db_) {
    Send({"SELECT", std::to_string(db)});
    selected_db_ = db;
  }
  Send(argv, targets);
}

void Propagator::Send(const std::vector<std::string>& argv, uint8_t targets) {
  for (PropagationSink* s : sinks_) {
    if ((s->targets() & targets) != 0) s->OnPropagate(argv);
  }
}

}  // namespace redistp
