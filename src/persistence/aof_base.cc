// The AOF base in command form (aof-use-rdb-preamble no): the dataset as the commands that
// rebuild it, in the shapes Redis 7.0's rewrite writes, so either server (and redis-check-aof)
// reads it:
//   #TS:<now>                       first, with aof-timestamp-enabled
//   FUNCTION LOAD <code>            per function library
//   SELECT <db>                     per non-empty database, then per key:
//   SET | RPUSH | SADD | ZADD | HMSET key ...   at most 64 elements per command
//   XADD key id field value ...      per stream entry (an empty stream: one entry trimmed at once
//                                    with MAXLEN 0), then XSETID with ENTRIESADDED and
//                                    MAXDELETEDID, XGROUP CREATE ... ENTRIESREAD per group,
//                                    XCLAIM ... FORCE JUSTID per pending entry (keeping its
//                                    delivery time and count), XGROUP CREATECONSUMER for
//                                    consumers with nothing pending
//   PEXPIREAT key <ms>              for keys with a time to live
// Temporary keys are left out, as from every snapshot. Runs in the rewrite child (or at startup).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "persistence/aof.h"
#include "scripting/function_engine.h"
#include "types/hash.h"
#include "types/list.h"
#include "types/set.h"
#include "types/stream.h"
#include "types/zset.h"

namespace redistp {
namespace {

constexpr size_t kItemsPerCommand = 64;  // Redis's AOF_REWRITE_ITEMS_PER_CMD
constexpr size_t kFlushBytes = 64 * 1024;

class CommandWriter {
 public:
  explicit CommandWriter(int fd) : fd_(fd) {}

  void Count(size_t n) { Header('*', n); }
  void Bulk(std::string_view s) {
    Header('$', s.size());
    buf_.append(s);
    buf_.append("\r\n", 2);
  }
  void BulkInt(int64_t v) { Bulk(std::to_string(v)); }
  void BulkDouble(double d) {
    char tmp[64];
    int n = std::snprintf(tmp, sizeof(tmp), "%.17g", d);
    Bulk(std::string_view(tmp, static_cast<size_t>(n)));
  }
  void BulkEntry(const ListpackEntry& e) {
    if (e.is_int) {
      BulkInt(e.num);
    } else {
      Bulk(e.str);
    }
  }
  void Raw(std::string_view s) { buf_.append(s); }
  // Writes the buffer when it is big enough (or always, at the end). False on a write error.
  bool Drain(bool all) {
    if (!all && buf_.size() < kFlushBytes) return true;
    size_t done = 0;
    while (done < buf_.size()) {
      ssize_t n = write(fd_, buf_.data() + done, buf_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    buf_.clear();
    return true;
  }

 private:
  void Header(char prefix, size_t n) {
    buf_.push_back(prefix);
    buf_.append(std::to_string(n));
    buf_.append("\r\n", 2);
  }
  int fd_;
  std::string buf_;
};

// Writes "<cmd> key item..." commands of at most kItemsPerCommand items each (an item is
// `width` arguments: 1 for members, 2 for field/value or score/member pairs).
class Batcher {
 public:
  Batcher(CommandWriter& w, std::string_view cmd, std::string_view key, size_t total, size_t width)
      : w_(w), cmd_(cmd), key_(key), left_(total), width_(width) {}
  // Call before writing each item's arguments.
  void Item() {
    if (in_batch_ == 0) {
      const size_t n = left_ < kItemsPerCommand ? left_ : kItemsPerCommand;
      w_.Count(2 + n * width_);
      w_.Bulk(cmd_);
      w_.Bulk(key_);
      batch_size_ = n;
    }
    ++in_batch_;
    --left_;
    if (in_batch_ == batch_size_) in_batch_ = 0;
  }

 private:
  CommandWriter& w_;
  std::string_view cmd_;
  std::string_view key_;
  size_t left_;
  size_t width_;
  size_t in_batch_ = 0;
  size_t batch_size_ = 0;
};

void WriteStream(CommandWriter& w, std::string_view key, const StreamObject& s) {
  if (s.length() > 0) {
    StreamObject::Iterator it(s, StreamID{0, 0}, StreamID{UINT64_MAX, UINT64_MAX}, false);
    StreamEntryView e;
    while (it.Next(&e)) {
      w.Count(3 + e.fields->size());
      w.Bulk("XADD");
      w.Bulk(key);
      w.Bulk(e.id.ToString());
      for (const ListpackEntry& f : *e.fields) w.BulkEntry(f);
      w.Drain(false);
    }
  } else {
    // An empty stream: an entry with the last id, trimmed away by the same command. XADD
    // refuses 0-0, so a stream that never had an entry (XGROUP CREATE ... MKSTREAM) gets 0-1,
    // which the XSETID below takes back, as Redis 7.0 writes it.
    const StreamID last = s.last_id();
    const StreamID add_id = last.IsZero() ? StreamID{0, 1} : last;
    w.Count(7);
    w.Bulk("XADD");
    w.Bulk(key);
    w.Bulk("MAXLEN");
    w.Bulk("0");
    w.Bulk(add_id.ToString());
    w.Bulk("x");
    w.Bulk("y");
  }
  w.Count(7);
  w.Bulk("XSETID");
  w.Bulk(key);
  w.Bulk(s.last_id().ToString());
  w.Bulk("ENTRIESADDED");
  w.BulkInt(static_cast<int64_t>(s.entries_added()));
  w.Bulk("MAXDELETEDID");
  w.Bulk(s.max_deleted_id().ToString());
  for (const auto& [name, g] : s.groups()) {
    w.Count(7);
    w.Bulk("XGROUP");
    w.Bulk("CREATE");
    w.Bulk(key);
    w.Bulk(name);
    w.Bulk(g->last_id.ToString());
    w.Bulk("ENTRIESREAD");
    w.BulkInt(g->entries_read);
    for (const auto& [cname, c] : g->consumers) {
      if (c->pel.empty()) {
        w.Count(5);
        w.Bulk("XGROUP");
        w.Bulk("CREATECONSUMER");
        w.Bulk(key);
        w.Bulk(name);
        w.Bulk(cname);
        continue;
      }
      for (const auto& [id, p] : c->pel) {
        w.Count(12);
        w.Bulk("XCLAIM");
        w.Bulk(key);
        w.Bulk(name);
        w.Bulk(cname);
        w.Bulk("0");
        w.Bulk(id.ToString());
        w.Bulk("TIME");
        w.BulkInt(p->delivery_time);
        w.Bulk("RETRYCOUNT");
        w.BulkInt(static_cast<int64_t>(p->delivery_count));
        w.Bulk("JUSTID");
        w.Bulk("FORCE");
        w.Drain(false);
      }
    }
  }
}

void WriteKey(CommandWriter& w, const Database& db, const Entry* e) {
  std::string_view key = e->key();
  const Value& v = e->value;
  switch (v.type()) {
    case ValueType::kString: {
      w.Count(3);
      w.Bulk("SET");
      w.Bulk(key);
      w.Bulk(v.ToString());
      break;
    }
    case ValueType::kList: {
      const Quicklist& l = ListOf(v);
      Batcher b(w, "RPUSH", key, l.Size(), 1);
      for (Quicklist::Cursor c = l.First(); c.Valid(); c = l.Next(c)) {
        b.Item();
        w.BulkEntry(l.Get(c));
        w.Drain(false);
      }
      break;
    }
    case ValueType::kSet: {
      const SetObject& s = SetOf(v);
      Batcher b(w, "SADD", key, s.size(), 1);
      s.ForEach([&](std::string_view m) {
        b.Item();
        w.Bulk(m);
        w.Drain(false);
      });
      break;
    }
    case ValueType::kZSet: {
      const ZSetObject& z = ZSetOf(v);
      Batcher b(w, "ZADD", key, z.size(), 2);
      z.ForEach([&](std::string_view m, double score) {
        b.Item();
        w.BulkDouble(score);
        w.Bulk(m);
        w.Drain(false);
      });
      break;
    }
    case ValueType::kHash: {
      const HashObject& h = HashOf(v);
      Batcher b(w, "HMSET", key, h.size(), 2);
      h.ForEach([&](std::string_view f, std::string_view val) {
        b.Item();
        w.Bulk(f);
        w.Bulk(val);
        w.Drain(false);
      });
      // Field expire times (Redis 7.4) follow as one HPEXPIREAT per timed field.
      if (h.HasFieldExpires()) {
        h.ForEachWithExpire([&](std::string_view f, std::string_view, int64_t when) {
          if (when == 0) return;
          w.Count(6);
          w.Bulk("HPEXPIREAT");
          w.Bulk(key);
          w.BulkInt(when);
          w.Bulk("FIELDS");
          w.Bulk("1");
          w.Bulk(f);
          w.Drain(false);
        });
      }
      break;
    }
    case ValueType::kStream:
      WriteStream(w, key, *static_cast<const StreamObject*>(v.object()));
      break;
  }
  if (e->has_expire()) {
    w.Count(3);
    w.Bulk("PEXPIREAT");
    w.Bulk(key);
    w.BulkInt(db.ExpireOf(e));
  }
}

}  // namespace

bool WriteAofBase(Server& server, int fd, bool timestamp, int64_t key_delay_us) {
  CommandWriter w(fd);
  if (timestamp) {
    w.Raw("#TS:" + std::to_string(server.NowMs() / 1000) + "\r\n");
  }
  if (const FunctionEngine* functions = server.subsystem<FunctionEngine>()) {
    for (const auto& [name, lib] : functions->libraries().libraries()) {
      w.Count(3);
      w.Bulk("FUNCTION");
      w.Bulk("LOAD");
      w.Bulk(lib->code);
    }
  }
  for (int i = 0; i < server.db_count(); ++i) {
    Database& db = server.db(i);
    if (db.size() == 0) continue;
    w.Count(2);
    w.Bulk("SELECT");
    w.BulkInt(i);
    bool ok = true;
    db.dict().ForEach([&](Entry* e) {
      if (!ok || e->has_flag(Entry::kFlagTemporary)) return;
      WriteKey(w, db, e);
      if (key_delay_us > 0) usleep(static_cast<useconds_t>(key_delay_us));
      ok = w.Drain(false);
    });
    if (!ok) return false;
  }
  return w.Drain(true);
}

}  // namespace redistp
