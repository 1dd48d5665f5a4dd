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

void Propagator::RecordCommand(int db, const std::vector<std::string_view>& args) {
  if (have_rewrite_) {
    Append(db, std::move(rewrite_));
    rewrite_.clear();
  } else {
    Append(db, std::vector<std::string>(args.begin(), args.end()));
  }
}

void Propagator::ReplicateAs(std::initializer_list<std::string_view> argv) {
  have_rewrite_ = true;
  if (sinks_.empty()) return;  // nobody listens: skip the copy
  rewrite_.assign(argv.begin(), argv.end());
}

void Propagator::ReplicateAs(std::vector<std::string> argv) {
  have_rewrite_ = true;
  // Without a sink no EndCommand runs to consume the rewrite: keeping it would hold the
  // arguments (a 32 MB key of DELTP) until some later command's rewrite replaced them.
  if (sinks_.empty()) return;
  rewrite_ = std::move(argv);
}

void Propagator::ReplicateNothing() { suppress_ = true; }

void Propagator::ForceReplication() { force_ = true; }

void Propagator::Emit(int db, std::initializer_list<std::string_view> argv) {
  ++accounted_;
  if (sinks_.empty()) return;
  Append(db, std::vector<std::string>(argv.begin(), argv.end()));
}

void Propagator::OnKeyEvent(const KeyEvent& ev) {
  if (ev.kind != KeyEventKind::kRemoved) return;
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
    default:
      return;  // a command's own change: covered by its record
  }
  ++accounted_;
  if (sinks_.empty()) return;
  std::string_view key = ev.entry->key();
  Append(ev.db->index(), {lazy ? "UNLINK" : "DEL", std::string(key)});
}

void Propagator::Append(int db, std::vector<std::string> argv) {
  if (targets_ == kPropagateNone) return;
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
  if (records.size() == 1) {
    SendIn(records[0].db, records[0].argv, records[0].targets);
    return;
  }
  // MULTI belongs to the database of the first record, so its SELECT comes first.
  SendIn(records[0].db, {"MULTI"});
  for (const Record& r : records) SendIn(r.db, r.argv, r.targets);
  Send({"EXEC"});
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
