// DEBUG: the testing and diagnosis back door, as far as redis-tp can honour it.
//
// Gate. Redis 7.0 refuses DEBUG unless `enable-debug-command` is "yes", or "local" and the
// client is on a unix socket or a loopback address (127.0.0.1, ::1). The check lives in the
// handler, before any argument is looked at.
//
// Subcommands are parsed here rather than through the command table, because Redis gives DEBUG
// no subcommand table: a subcommand with the wrong number of arguments and an unknown one share
// one error, "unknown subcommand or wrong number of arguments for '<sub>'. Try DEBUG HELP.".
// Implemented: HELP, LOG, SLEEP, SET-ACTIVE-EXPIRE, SET-SKIP-CHECKSUM-VALIDATION, PAUSE-CRON,
// AOF-FLUSH-SLEEP, REPLYBUFFER (PEAK-RESET-TIME, RESIZING),
// OBJECT, DIGEST, DIGEST-VALUE, POPULATE, ERROR, PROTOCOL, SEGFAULT (a real invalid write, so the
// crash report and the exit status can be tested), RELOAD [MERGE] [NOFLUSH] [NOSAVE] (save the RDB
// file, empty, load it back: persistence/persistence.h), HTSTATS, HTSTATS-KEY, and with jemalloc
// MALLCTL and MALLCTL-STR; anything else (JMAP, PANIC ...) is an unknown subcommand.
//
// Digests. DEBUG DIGEST and DIGEST-VALUE compute the same SHA1 signatures as Redis, so a
// dataset can be compared across redis-tp and Redis:
//   value digest  = mix(type as 4 big-endian bytes), mix(value bytes), then
//                   xor(SHA1("!!expire!!")) when the key has a TTL;
//   key digest    = the value digest continued from mix(key bytes);
//   dataset       = for each non-empty database: mix(its index as 4 big-endian bytes), then
//                   xor(SHA1(key digest)) for each key, so key order does not matter.
// where xor(d, data) is d ^= SHA1(data) and mix(d, data) is xor(d, data) then d = SHA1(d).
// An empty dataset digests to forty zeros. The value part is ValueDigest::AddValue
// (types/digest.h), which aggregates extend through their TypeOps row.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>

#include "commands/help_reply.h"
#include "commands/server_info.h"
#include "db/database.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "types/digest.h"
#include "types/hash.h"
#include "types/list.h"
#include "types/quicklist.h"
#include "types/serialize.h"
#include "types/set.h"
#include "types/type_ops.h"
#include "types/zset.h"
#include "util/memory.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// --- digests (the algorithm lives in types/digest.h) ------------------------------------------

// A key's digest: its name, then its value, then the TTL marker.
void DigestKey(ValueDigest& sha, ValueDigest::Bytes d, const Entry& e) {
  sha.Mix(d, e.key());
  sha.AddValue(d, e.value);
  if (e.has_expire()) sha.Xor(d, "!!expire!!", 10);
}

void DigestSub(CommandContext& c) {
  ValueDigest sha;
  ValueDigest::Bytes total = {};
  for (int i = 0; i < c.server.db_count(); ++i) {
    Database& db = c.server.db(i);
    if (db.size() == 0) continue;
    sha.MixU32(total, static_cast<uint32_t>(i));
    // A read-only walk of the table: logically expired keys not yet reclaimed are part of the
    // dataset, as they are for Redis.
    db.dict().ForEach([&](Entry* e) {
      ValueDigest::Bytes kd = {};
      DigestKey(sha, kd, *e);
      sha.Xor(total, kd, 20);
    });
  }
  c.reply.Simple(ValueDigest::Hex(total));
}

void DigestValueSub(CommandContext& c) {
  ValueDigest sha;
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    ValueDigest::Bytes d = {};
    if (const Entry* e = c.db.Peek(c.args[i]); e != nullptr) {
      sha.AddValue(d, e->value);
      if (e->has_expire()) sha.Xor(d, "!!expire!!", 10);
    }
    c.reply.Simple(ValueDigest::Hex(d));
  }
}

// --- OBJECT ----------------------------------------------------------------------------------

// What the value takes in an RDB file (DEBUG OBJECT serializedlength): its payload as the
// persistence hooks write it, LZF included when rdbcompression is on, without the type byte.
size_t SerializedLength(Server& s, const Value& v) {
  std::string out;
  RdbWriter w(&out, s.config().rdbcompression, s.config().rdb_version);
  SerializeValue(v, w);
  return out.size() - 1;
}

// Redis shares the objects of small integers (0..9999) unless the eviction policy needs a
// per-key LRU/LFU field; shared objects report the largest refcount. redis-tp stores integers
// inline and mirrors that report so DEBUG OBJECT reads the same.
bool ReportsSharedInteger(Server& s, const Value& v) {
  int64_t n;
  if (!v.is_int() || !v.GetInt(&n) || n < 0 || n >= 10000) return false;
  const std::string& policy = s.config().maxmemory_policy;
  bool per_key_lru =
      policy.find("lru") != std::string::npos || policy.find("lfu") != std::string::npos;
  return s.config().maxmemory == 0 || !per_key_lru;
}

// The quicklist fields Redis 7.0 adds to DEBUG OBJECT for a list: node count, average elements
// per node, the fill setting, whether compression is on (a depth, not whether a node is
// compressed now), and the nodes' listpack bytes before compression.
void AppendQuicklistFields(const Quicklist& ql, std::string* line) {
  size_t raw = 0;
  for (const Quicklist::Node* n = ql.HeadNode(); n != nullptr; n = n->next) {
    const Listpack& lp = ql.NodeListpack(n);
    // Redis counts a plain node as its element's length (it holds the bare element).
    raw += n->plain() ? lp.Get(lp.First()).ToString().size() : lp.Bytes();
  }
  ql.Recompress();  // reading a compressed node above decompressed it
  const size_t nodes = ql.NodeCount();
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d "
                "ql_uncompressed_size:%zu",
                nodes, nodes != 0 ? static_cast<double>(ql.Size()) / nodes : 0.0, ql.fill(),
                ql.compress_depth() != 0 ? 1 : 0, raw);
  line->append(buf);
}

void ObjectSub(CommandContext& c) {
  const Entry* e = c.db.FindRaw(c.args[2]);  // like Redis: no expiry check, no LRU touch
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  uint32_t clock = c.server.keyspace().lru_clock();
  uint32_t lru = e->lru();
  uint64_t idle = clock >= lru ? clock - lru : clock + (Entry::kLruMask - lru);
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "Value at:%p refcount:%d encoding:%s serializedlength:%zu lru:%u "
                "lru_seconds_idle:%llu",
                static_cast<const void*>(e),
                ReportsSharedInteger(c.server, e->value) ? INT32_MAX : 1, e->value.EncodingName(),
                SerializedLength(c.server, e->value), lru, static_cast<unsigned long long>(idle));
  std::string line = buf;
  if (e->value.type() == ValueType::kList) AppendQuicklistFields(ListOf(e->value), &line);
  c.reply.Simple(line);
}

// Redis's memtoull, which DEBUG QUICKLIST-PACKED-THRESHOLD parses with: digits, then nothing,
// "b", "k"/"kb", "m"/"mb" or "g"/"gb" (any case; k = 1000, kb = 1024). No digits read as 0, so
// "" and "b" are 0; the product is not checked for overflow (it wraps, as Redis's does). Redis
// reads the argument as a C string, so it ends at a NUL byte.
bool ParseMemToUll(std::string_view s, uint64_t* out) {
  s = s.substr(0, s.find('\0'));
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  std::string_view unit = s.substr(digits);
  uint64_t mul;
  if (unit.empty() || EqualsIgnoreCase(unit, "b")) {
    mul = 1;
  } else if (EqualsIgnoreCase(unit, "k")) {
    mul = 1000;
  } else if (EqualsIgnoreCase(unit, "kb")) {
    mul = 1024;
  } else if (EqualsIgnoreCase(unit, "m")) {
    mul = 1000 * 1000;
  } else if (EqualsIgnoreCase(unit, "mb")) {
    mul = 1024 * 1024;
  } else if (EqualsIgnoreCase(unit, "g")) {
    mul = 1000ULL * 1000 * 1000;
  } else if (EqualsIgnoreCase(unit, "gb")) {
    mul = 1024ULL * 1024 * 1024;
  } else {
    return false;
  }
  if (digits >= 128) return false;  // Redis copies the digits into a 128-byte buffer
  uint64_t v = 0;
  if (digits > 0 && !ParseUint64(s.substr(0, digits), &v)) return false;  // out of range
  *out = v * mul;
  return true;
}

// DEBUG QUICKLIST-PACKED-THRESHOLD <size>: elements of <size> bytes or more get plain nodes
// from now on, in every list (0 restores the 1 GB default; up to 4 GB less 1 MB).
void PackedThresholdSub(CommandContext& c) {
  uint64_t size;
  if (!ParseMemToUll(c.args[2], &size) || size > Quicklist::kMaxPackedThreshold) {
    c.reply.Error(err::kDebugPackedThreshold);
    return;
  }
  c.server.keyspace().limits.list_packed_threshold =
      size == 0 ? Quicklist::kDefaultPackedThreshold : static_cast<size_t>(size);
  c.reply.Ok();
}

// DEBUG QUICKLIST <key> [<0|1>]: like Redis, prints the list's node structure on the server's
// standard output (our own layout: one line per node, and with 1 each node's elements) and
// replies with a status saying so.
void QuicklistSub(CommandContext& c) {
  const Entry* e = c.db.FindRaw(c.args[2]);
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  if (e->value.type() != ValueType::kList) {
    c.reply.Error(err::kNotQuicklistEncoded);
    return;
  }
  const bool full = c.args.size() > 3 && std::atoi(std::string(c.args[3]).c_str()) != 0;
  const Quicklist& ql = ListOf(e->value);
  std::printf("{quicklist count:%zu nodes:%zu fill:%d compress-depth:%d}\n", ql.Size(),
              ql.NodeCount(), ql.fill(), ql.compress_depth());
  size_t i = 0;
  for (const Quicklist::Node* n = ql.HeadNode(); n != nullptr; n = n->next, ++i) {
    const bool compressed = n->lzf() != nullptr;
    const Listpack& lp = ql.NodeListpack(n);
    std::printf("  node %zu: container:%s count:%zu bytes:%zu compressed:%d\n", i,
                n->plain() ? "PLAIN" : "PACKED", lp.Size(), lp.Bytes(), compressed ? 1 : 0);
    if (!full) continue;
    for (Listpack::Pos p = lp.First(); p != Listpack::kNone; p = lp.Next(p)) {
      std::string text = lp.Get(p).ToString();
      std::printf("    %.*s\n", static_cast<int>(std::min<size_t>(text.size(), 64)), text.data());
    }
  }
  std::fflush(stdout);
  ql.Recompress();
  c.reply.Simple("Quicklist structure printed on stdout");
}

// --- the rest ----------------------------------------------------------------------------------

void PopulateSub(CommandContext& c) {
  int64_t count = 0, size = 0;
  if (!ParseInt64(c.args[2], &count) || count < 0) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  std::string prefix = c.args.size() >= 4 ? std::string(c.args[3]) : "key";
  if (c.args.size() >= 5 && (!ParseInt64(c.args[4], &size) || size < 0)) {
    c.reply.Error(err::kNotPositive);
    return;
  }
  std::string key = prefix + ":";
  const size_t base = key.size();
  const uint64_t dirty_before = c.server.keyspace().dirty();
  std::string value;
  for (int64_t i = 0; i < count; ++i) {
    key.resize(base);
    key.append(Int64ToString(i));
    if (c.db.LookupWrite(key) != nullptr) continue;  // existing keys are left alone
    value = "value:" + Int64ToString(i);
    // With a size, the text is cut or zero-padded to exactly that many bytes.
    if (size > 0) value.resize(static_cast<size_t>(size), '\0');
    c.db.Add(key, Value::String(value), notice::kNone);
  }
  // Redis neither propagates the keys DEBUG POPULATE makes (DebugCommand drops every DEBUG's
  // record) nor counts them as changes to save.
  Persistence::Of(c.server).DiscountChanges(c.server.keyspace().dirty() - dirty_before);
  c.reply.Ok();
}

// Like strtod on the whole argument: junk reads as 0 and a negative time sleeps not at all.
void SleepSub(CommandContext& c) {
  std::string text(c.args[2]);
  double seconds = std::strtod(text.c_str(), nullptr);
  if (seconds > 0) {
    auto usec = static_cast<int64_t>(seconds * 1e6);
    timespec ts{static_cast<time_t>(usec / 1000000), static_cast<long>(usec % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }
  c.reply.Ok();
}

void ProtocolSub(CommandContext& c) {
  std::string_view t = c.args[2];
  ReplyBuilder& r = c.reply;
  if (EqualsIgnoreCase(t, "string")) {
    r.Bulk("Hello World");
  } else if (EqualsIgnoreCase(t, "integer")) {
    r.Int(12345);
  } else if (EqualsIgnoreCase(t, "double")) {
    r.Double(3.141);
  } else if (EqualsIgnoreCase(t, "bignum")) {
    r.BigNumber("1234567999999999999999999999999999999");
  } else if (EqualsIgnoreCase(t, "null")) {
    r.Null();
  } else if (EqualsIgnoreCase(t, "array") || EqualsIgnoreCase(t, "set")) {
    if (EqualsIgnoreCase(t, "set")) {
      r.Set(3);
    } else {
      r.Array(3);
    }
    for (int i = 0; i < 3; ++i) r.Int(i);
  } else if (EqualsIgnoreCase(t, "map")) {
    r.Map(3);
    for (int i = 0; i < 3; ++i) {
      r.Int(i);
      r.Bool(i == 1);
    }
  } else if (EqualsIgnoreCase(t, "attrib")) {
    if (r.resp() >= 3) {
      // An attribute frame ahead of the reply; RESP2 has no such frame and skips it. The
      // ReplyBuilder has no attribute call yet, so the one-line header is written as is.
      r.Raw("|1\r\n");
      r.Bulk("key-popularity");
      r.Array(2);
      r.Bulk("key:123");
      r.Int(90);
    }
    r.Bulk("Some real reply following the attribute");
  } else if (EqualsIgnoreCase(t, "push")) {
    if (r.resp() < 3) {
      r.Error(err::kResp2NotSupported);
      return;
    }
    r.Push(2);
    r.Bulk("server-cpu-usage");
    r.Int(42);
    r.Bulk("Some real reply following the push reply");
  } else if (EqualsIgnoreCase(t, "verbatim")) {
    r.Verbatim("This is a verbatim\nstring");
  } else if (EqualsIgnoreCase(t, "true") || EqualsIgnoreCase(t, "false")) {
    r.Bool(EqualsIgnoreCase(t, "true"));
  } else {
    r.Error(err::kDebugProtocolType);
  }
}

// Redis writes this error frame as raw protocol, so it is not an error reply to the server's
// accounting: no error stats, no failed call. The same is done here, hence Raw instead of Error.
void ErrorSub(CommandContext& c) {
  std::string frame = "-";
  for (char ch : c.args[2]) frame.push_back(ch == '\r' || ch == '\n' ? ' ' : ch);
  frame.append("\r\n");
  c.reply.Raw(frame);
}

void HelpSub(CommandContext& c) {
  ReplyHelp(
      c.reply, "DEBUG",
      {
          "AOF-FLUSH-SLEEP <microsec>",
          "    Sleep that long before each write of the AOF buffer (0 turns it off), for tests.",
          "DIGEST",
          "    Return a 40-hex SHA1 signature of every key, value and TTL flag in all databases.",
          "DIGEST-VALUE <key> [<key> ...]",
          "    Return the signature of each named key's value (zeros for a missing key).",
          "ERROR <string>",
          "    Reply with <string> as an error message (not counted in error statistics).",
          "LOG <message>",
          "    Write <message> to the server log at warning level.",
          "OBJECT <key>",
          "    Show the storage details of <key>: address, encoding, serialized length, LRU.",
          "PAUSE-CRON <0|1>",
          "    1 stops the periodic tasks (expiry, timeouts, leases, save points); 0 restarts "
          "them.",
          "POPULATE <count> [<prefix>] [<size>]",
          "    Create string keys <prefix>:0 .. <prefix>:<count-1> (prefix defaults to 'key'),",
          "    skipping existing ones. Values are 'value:<n>', cut or zero-padded to <size>.",
          "QUICKLIST <key> [<0|1>]",
          "    Print the node structure of the list <key> on the server's standard output",
          "    (with 1, each node's elements too).",
          "QUICKLIST-PACKED-THRESHOLD <size>",
          "    Elements of <size> bytes or more go into plain list nodes of their own (0 restores",
          "    the 1GB default; at most 4GB).",
          "REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|time>",
          "    How often (in milliseconds) a client's reply buffer peak restarts; NEVER keeps",
          "    the last peak, RESET restores the default (5000).",
          "REPLYBUFFER RESIZING <0|1>",
          "    0 stops the clients cron from resizing reply buffers; 1 restarts it.",
          "PROTOCOL <type>",
          "    Reply with a sample of a protocol type: string, integer, double, bignum, null,",
          "    array, set, map, attrib, push, verbatim, true, false.",
          "SET-ACTIVE-EXPIRE <0|1>",
          "    0 stops the background deletion of expired keys (lookups still expire them);",
          "    1 restarts it.",
          "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
          "    1 stops checking the CRC-64 of RDB files and of RESTORE payloads; 0 restores it.",
          "CONFIG-REWRITE-FORCE-ALL",
          "    Like CONFIG REWRITE but writes every parameter, at its default value too.",
          "HTSTATS <dbid>",
          "    Statistics of the key table of database <dbid> and of its TTL index (runs of",
          "    full slots count as chains there: it is an open-addressing table).",
#ifdef USE_JEMALLOC
          "MALLCTL <key> [<val>]",
          "    Read (and write) jemalloc's integer control <key> (an 8-byte one).",
          "MALLCTL-STR <key> [<val>|VOID]",
          "    Read (and write) jemalloc's string control <key>; VOID triggers a control.",
#endif
          "HTSTATS-KEY <key>",
          "    Statistics of the hash table of a set, hash or sorted set value: size, elements,",
          "    chain lengths (and of the rehashing target while one is being filled).",
          "SEGFAULT",
          "    Crash the server with a write to a read-only page (SIGSEGV and a crash report).",
          "SLEEP <seconds>",
          "    Block the whole server for <seconds> (decimals allowed).",
      });
}

// Writes to a page mapped read-only: a genuine SIGSEGV (si_code SEGV_ACCERR, as Redis's),
// not a raise(), so the fault path of the crash handler is what runs. Never returns.
[[noreturn]] void SegfaultSub() {
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) *static_cast<volatile char*>(page) = 'x';
  std::abort();  // only if the mapping failed: still a crash with a report
}

constexpr size_t kChainRows = 50;  // Redis caps its chain-length histogram at 50 rows

// The figures both tables print after their header, in Redis's layout: sizes, the chain
// lengths and their distribution (rows[i]: how many chains of length i, the last row holding
// the longer ones).
void AppendChainSummary(size_t size, size_t used, size_t chains, size_t max_chain,
                        double avg_counted, double avg_computed, const size_t (&rows)[kChainRows],
                        std::string* out) {
  char line[160];
  std::snprintf(line, sizeof(line),
                " table size: %zu\n number of elements: %zu\n different slots: %zu\n"
                " max chain length: %zu\n",
                size, used, chains, max_chain);
  out->append(line);
  std::snprintf(line, sizeof(line),
                " avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n"
                " Chain length distribution:\n",
                avg_counted, avg_computed);
  out->append(line);
  for (size_t i = 0; i < kChainRows; ++i) {
    if (rows[i] == 0) continue;
    std::snprintf(line, sizeof(line), "   %zu: %zu (%.02f%%)\n", i, rows[i],
                  static_cast<double>(rows[i]) * 100.0 / static_cast<double>(size));
    out->append(line);
  }
}

// One table of a hash table in Redis's DEBUG HTSTATS layout: size, elements, used buckets,
// the longest chain, the mean chain length over used buckets (counted and computed, equal
// here: no element is lost between the two counts), and how many buckets hold chains of each
// length (chains of 49 or more share the last row, as Redis caps its histogram at 50 rows).
template <typename Table>
void AppendTableStats(const Table& t, int index, std::string* out) {
  char line[128];
  std::snprintf(line, sizeof(line), "Hash table %d stats (%s):\n", index,
                index == 0 ? "main hash table" : "rehashing target");
  out->append(line);
  const size_t size = t.TableBuckets(index);
  const size_t used = t.TableElements(index);
  if (used == 0) {
    out->append("No stats available for empty dictionaries\n");
    return;
  }
  size_t rows[kChainRows] = {};
  size_t slots = 0, max_chain = 0, total_chain = 0;
  for (size_t i = 0; i < size; ++i) {
    const size_t len = t.ChainLength(index, i);
    ++rows[len < kChainRows ? len : kChainRows - 1];
    if (len == 0) continue;
    ++slots;
    total_chain += len;
    if (len > max_chain) max_chain = len;
  }
  AppendChainSummary(size, used, slots, max_chain,
                     static_cast<double>(total_chain) / static_cast<double>(slots),
                     static_cast<double>(used) / static_cast<double>(slots), rows, out);
}

template <typename Table>
std::string TableStats(const Table& t) {
  std::string out;
  AppendTableStats(t, 0, &out);
  if (t.rehashing()) AppendTableStats(t, 1, &out);
  return out;
}

// The TTL index in the same layout. It is an open-addressing table, not a chained one: what a
// lookup walks there is a run of consecutive full slots, so each run counts as one "chain" (a
// used slot in Redis's words) and its length as the chain's; row 0 counts the empty slots.
void AppendExpiresStats(const ExpireIndex& set, std::string* out) {
  out->append("Hash table 0 stats (main hash table):\n");
  const size_t size = set.capacity();
  if (set.size() == 0) {
    out->append("No stats available for empty dictionaries\n");
    return;
  }
  size_t rows[kChainRows] = {};
  size_t runs = 0, max_run = 0, run = 0;
  auto close_run = [&] {
    if (run == 0) return;
    ++rows[run < kChainRows ? run : kChainRows - 1];
    ++runs;
    if (run > max_run) max_run = run;
    run = 0;
  };
  for (size_t i = 0; i < size; ++i) {
    if (set.SlotUsed(i)) {
      ++run;
    } else {
      ++rows[0];
      close_run();
    }
  }
  close_run();  // a run reaching the last slot (it wraps; counted as its own run here)
  const double avg = static_cast<double>(set.size()) / static_cast<double>(runs);
  AppendChainSummary(size, set.size(), runs, max_run, avg, avg, rows, out);
}

// DEBUG HTSTATS <dbid>: the key table of a database (and a rehash under way), then its TTL
// index, as Redis's "[Dictionary HT]" and "[Expires HT]" sections.
void HtStatsSub(CommandContext& c) {
  int64_t id = 0;
  if (!ParseInt64(c.args[2], &id)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (id < 0 || id >= c.server.db_count()) {
    c.reply.Error(err::kOutOfRangeDatabase);
    return;
  }
  Database& db = c.server.db(static_cast<int>(id));
  std::string text = "[Dictionary HT]\n" + TableStats(db.dict().table());
  text.append("[Expires HT]\n");
  AppendExpiresStats(db.expires(), &text);
  c.reply.Verbatim(text);
}

// DEBUG MALLCTL <name> [<integer>]: jemalloc's integer control, read (and written): the old
// value, or OK for a write-only control, or the errno text.
void MallctlSub(CommandContext& c) {
  int64_t value = 0;
  const bool write = c.args.size() > 3;
  if (write && !ParseInt64(c.args[3], &value)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  const std::string name(c.args[2]);
  int64_t old = 0;
  bool wrote_only = false;
  const int rc = MallctlInt(name.c_str(), write ? &value : nullptr, &old, &wrote_only);
  if (rc != 0) {
    c.reply.Error(std::string("ERR ") + std::strerror(rc));
  } else if (wrote_only) {
    c.reply.Ok();
  } else {
    c.reply.Int(old);
  }
}

// DEBUG MALLCTL-STR <name> [<string>|VOID]: jemalloc's string control: its old value when it
// has one (even if the write failed), else the write's error or OK.
void MallctlStrSub(CommandContext& c) {
  const std::string name(c.args[2]);
  const bool write = c.args.size() > 3;
  const std::string value = write ? std::string(c.args[3]) : std::string();
  std::string old;
  int write_rc = 0;
  const int rc = MallctlString(name.c_str(), write ? value.c_str() : nullptr, &old, &write_rc);
  if (rc == 0) {
    c.reply.Bulk(old);
  } else if (!write || rc != EPERM) {
    c.reply.Error(std::string("ERR ") + std::strerror(rc));
  } else if (write_rc != 0) {
    c.reply.Error(std::string("ERR ") + std::strerror(write_rc));
  } else {
    c.reply.Ok();
  }
}

// DEBUG CONFIG-REWRITE-FORCE-ALL: CONFIG REWRITE writing every parameter, defaults included.
// Without a config file the failure reads as Redis's does (it passes a null path to open()).
void ConfigRewriteForceAllSub(CommandContext& c) {
  if (c.server.config().config_file.empty()) {
    c.reply.Error(std::string(err::kForceRewriteFailedPrefix) + std::strerror(EFAULT));
    return;
  }
  Status s = c.server.config().Rewrite(/*force_all=*/true);
  if (!s.ok()) {
    std::string why = s.message();
    constexpr std::string_view kPrefix = err::kConfigRewritePrefix;
    if (why.rfind(kPrefix, 0) == 0) why.erase(0, kPrefix.size());
    c.reply.Error(std::string(err::kForceRewriteFailedPrefix) + why);
    return;
  }
  c.reply.Ok();
}

// DEBUG HTSTATS-KEY <key>: the statistics of the hash table behind a set, hash or sorted set
// value (its member/field table); a packed value, a string, a list or a stream has none.
void HtStatsKeySub(CommandContext& c) {
  Entry* e = c.db.Peek(c.args[2]);  // like OBJECT: expiry applies, no stats, no LRU touch
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return;
  }
  std::string text;
  Value& v = e->value;
  if (v.type() == ValueType::kSet && SetOf(v).encoding() == SetObject::Encoding::kHashtable) {
    text = TableStats(SetOf(v).table());
  } else if (v.type() == ValueType::kHash &&
             HashOf(v).encoding() == HashObject::Encoding::kHashtable) {
    text = TableStats(HashOf(v).table());
  } else if (v.type() == ValueType::kZSet &&
             ZSetOf(v).encoding() == ZSetObject::Encoding::kSkiplist) {
    text = TableStats(ZSetOf(v).index().table());
  } else {
    c.reply.Error(err::kNotHashTableEncoded);
    return;
  }
  c.reply.Verbatim(text);
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: by default saves the RDB file, empties the dataset
// (function libraries too) and loads the file back. MERGE lets keys and libraries of the file
// replace existing ones (with NOFLUSH, two datasets merge).
void ReloadSub(CommandContext& c) {
  bool save = true, flush = true, merge = false;
  for (size_t i = 2; i < c.args.size(); ++i) {
    if (EqualsIgnoreCase(c.args[i], "merge")) {
      merge = true;
    } else if (EqualsIgnoreCase(c.args[i], "noflush")) {
      flush = false;
    } else if (EqualsIgnoreCase(c.args[i], "nosave")) {
      save = false;
    } else {
      c.reply.Error(err::kDebugReloadOptions);
      return;
    }
  }
  // A load already running (this DEBUG came in through its pass) would be emptied under its
  // loader's feet: refused as any data command is while loading.
  if (c.server.loading()) {
    c.reply.Error(err::kLoading);
    return;
  }
  // The load serves the other clients (server/loading.cc), never this one: its command is
  // still running (Redis's protectClient).
  c.client.set_flag(kClientProtected, true);
  Status s = Persistence::Of(c.server).Reload(save, flush, merge);
  c.client.set_flag(kClientProtected, false);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void DebugCommand(CommandContext& c) {
  // enable-debug-command is the admission list's (server/admission.cc, Protected): every
  // caller (a connection, EXEC, a script, which DEBUG's noscript flag refuses anyway) passes it.
  // No DEBUG subcommand is replayed: the keys of POPULATE, RELOAD and LOADAOF are no writes
  // (a replayed DEBUG LOADAOF would load the file it is being loaded from, over and over).
  // Keys a subcommand finds expired still get their DELs, which are records of their own.
  c.ReplicateNothing();
  std::string_view sub = c.args[1];
  const size_t argc = c.args.size();
  auto is = [&](std::string_view name) { return EqualsIgnoreCase(sub, name); };
  if (is("help") && argc == 2) {
    HelpSub(c);
  } else if (is("log") && argc == 3) {
    c.server.log().Log(LogLevel::kWarning, "DEBUG LOG: %.*s", static_cast<int>(c.args[2].size()),
                       c.args[2].data());
    c.reply.Ok();
  } else if (is("sleep") && argc == 3) {
    SleepSub(c);
  } else if (is("segfault") && argc == 2) {
    SegfaultSub();
  } else if (is("set-active-expire") && argc == 3) {
    // atoi semantics, as Redis: any non-zero number enables, anything else disables.
    c.server.keyspace().expiry.SetActive(std::atoi(std::string(c.args[2]).c_str()) != 0);
    c.reply.Ok();
  } else if (is("set-skip-checksum-validation") && argc == 3) {
    // atoi semantics, as Redis. The loaders' own checks still run: only the CRC is skipped.
    Persistence::Of(c.server).set_skip_checksum_validation(
        std::atoi(std::string(c.args[2]).c_str()) != 0);
    c.reply.Ok();
  } else if (is("aof-flush-sleep") && argc == 3) {
    // atoi semantics, as Redis: anything but a positive number turns the sleep off.
    Persistence::Of(c.server).aof().set_flush_sleep_us(std::atoi(std::string(c.args[2]).c_str()));
    c.reply.Ok();
  } else if (is("pause-cron") && argc == 3) {
    // atoi semantics, as Redis: any non-zero number pauses, anything else resumes.
    c.server.set_cron_paused(std::atoi(std::string(c.args[2]).c_str()) != 0);
    c.reply.Ok();
  } else if (is("replybuffer") && argc == 4 && EqualsIgnoreCase(c.args[2], "peak-reset-time")) {
    // NEVER stops the resets, RESET restores the default; else a number of milliseconds (a
    // negative one never resets either, as in Redis).
    int64_t ms = 0;
    if (EqualsIgnoreCase(c.args[3], "never")) {
      ms = -1;
    } else if (EqualsIgnoreCase(c.args[3], "reset")) {
      ms = Server::kReplyPeakResetDefaultMs;
    } else if (!ParseInt64(c.args[3], &ms)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    c.server.set_reply_peak_reset_ms(ms);
    c.reply.Ok();
  } else if (is("replybuffer") && argc == 4 && EqualsIgnoreCase(c.args[2], "resizing")) {
    // atoi semantics, as Redis: any non-zero number enables, anything else disables.
    c.server.set_reply_buffer_resizing(std::atoi(std::string(c.args[3]).c_str()) != 0);
    c.reply.Ok();
  } else if (is("set-disable-deny-scripts") && argc == 3) {
    // Lets scripts call commands flagged noscript (DEBUG PROTOCOL ...), for tests; atoi as Redis.
    c.server.set_scripts_may_run_noscript(std::atoi(std::string(c.args[2]).c_str()) != 0);
    c.reply.Ok();
  } else if (is("config-rewrite-force-all") && argc == 2) {
    ConfigRewriteForceAllSub(c);
  } else if (is("htstats") && argc == 3) {
    HtStatsSub(c);
  } else if (is("mallctl") && argc >= 3 && MallctlAvailable()) {
    MallctlSub(c);
  } else if (is("mallctl-str") && argc >= 3 && MallctlAvailable()) {
    MallctlStrSub(c);
  } else if (is("htstats-key") && argc == 3) {
    HtStatsKeySub(c);
  } else if (is("quicklist-packed-threshold") && argc == 3) {
    PackedThresholdSub(c);
  } else if (is("quicklist") && (argc == 3 || argc == 4)) {
    QuicklistSub(c);
  } else if (is("object") && argc == 3) {
    ObjectSub(c);
  } else if (is("digest") && argc == 2) {
    DigestSub(c);
  } else if (is("digest-value") && argc >= 2) {
    DigestValueSub(c);
  } else if (is("populate") && argc >= 3 && argc <= 5) {
    PopulateSub(c);
  } else if (is("error") && argc == 3) {
    ErrorSub(c);
  } else if (is("protocol") && argc == 3) {
    ProtocolSub(c);
  } else if (is("reload") && argc >= 2) {
    ReloadSub(c);
  } else if (is("loadaof") && argc == 2) {
    // Redis exits when the AOF cannot be loaded back (the data is gone already).
    Persistence& p = Persistence::Of(c.server);
    if (c.server.loading()) {  // as DEBUG RELOAD: a load is running already
      c.reply.Error(err::kLoading);
      return;
    }
    // A busy script of the replay serves the other clients, never this one (Redis's
    // protectClient): its command is still running.
    c.client.set_flag(kClientProtected, true);
    const bool loaded = p.aof().DebugLoad();
    c.client.set_flag(kClientProtected, false);
    if (!loaded) std::exit(1);
    p.DiscountChanges(p.changes_since_save());  // Redis: dirty = 0 after the load
    c.reply.Ok();
  } else {
    std::string upper = std::string(c.args[0]);
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    c.reply.Error(err::SubcommandSyntax(sub, upper));
  }
}

}  // namespace

void RegisterDebugCommand(CommandTable& t) {
  t.Register({.name = "debug",
              .arity = -2,
              .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdProtected,
              .acl = kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Developer commands for testing and inspecting the server",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "Depends on subcommand.",
                      .doc_flags = kDocSysCmd},
              .handler = DebugCommand});
}

}  // namespace redistp
