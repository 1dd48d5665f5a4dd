// HSCAN, SSCAN and ZSCAN: incremental iteration over the elements of one aggregate.
//
// Model. The answer depends on the value's encoding, as in Redis:
//   - a packed encoding (a listpack hash or sorted set, an intset set) is small by definition
//     (its size is bounded by the *-max-listpack-* / set-max-intset-entries limits), so one call
//     returns every element and the cursor 0, whatever the cursor and COUNT said;
//   - a hashtable encoding (hash fields, set members, the member index of a skiplist sorted
//     set) is walked with HashTable::Scan's reverse-binary cursor, which survives growth and
//     shrinking between calls: every element present for the whole iteration is returned at
//     least once, some possibly twice.
// COUNT bounds the number of fields or members *gathered* before MATCH filters them: a page of
// HSCAN or ZSCAN holds about COUNT fields (2*COUNT reply items, field and value), as Redis 7.0
// answers (its scan doubles COUNT for the two-item types); clients such as BullMQ page through
// a sorted set expecting COUNT members a page. At most COUNT*10 buckets are visited per call,
// so a sparse table cannot make a call long. MATCH applies to the field or member, and drops
// its value or score along with it.
//
// Argument order, as Redis checks it: the cursor (invalid cursor), then the key (a missing key
// answers an empty scan with cursor 0, another type WRONGTYPE), then the MATCH/COUNT options
// (parsed by the routine SCAN shares, scan_util.h; TYPE is SCAN's alone). The lookup counts as
// a read (keyspace hits/misses, LRU).
//
// Names only. HSCAN's NOVALUES (Redis 7.4) and ZSCAN's NOSCORES (Redis 8.0) are words without a
// value, accepted anywhere among the options; the page then lists the fields or members alone,
// gathered and cut by COUNT exactly as with their values. Each is a syntax error on the other
// commands, as Redis 7.0 answers any unknown option (the newer servers word that error their own
// way).
//
// Scores. A listpack sorted set answers the score text stored in the listpack (an integral
// score as an integer, others "%.17g"); a skiplist one formats the double with "%.17Lg" of its
// long double value, so 2^62 reads "4611686018427387904" from the first and
// "4.6116860184273879e+18" from the second, exactly as Redis 7.0 answers.
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/scan_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "types/hash.h"
#include "types/listpack.h"
#include "types/set.h"
#include "types/zset.h"
#include "util/glob.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// The common front of the three commands: parses the cursor, looks the key up as `type` and
// parses the options. Returns the entry to scan, or nullptr when the reply is already written
// (an error, or the empty scan of a missing key).
Entry* ScanPrologue(CommandContext& c, ValueType type, uint64_t* cursor, ScanOptions* opt,
                    std::string_view lone_word = {}) {
  if (!ParseScanCursor(c.args[2], cursor)) {
    c.reply.Error(err::kInvalidCursor);
    return nullptr;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], type, Access::kRead, &e)) return nullptr;
  if (e == nullptr) {
    c.reply.Array(2);
    ReplyScanCursor(c.reply, 0);
    c.reply.EmptyArray();
    return nullptr;
  }
  if (!ParseScanOptions(c.args, 3, /*allow_type=*/false, c.reply, opt, lone_word)) return nullptr;
  return e;
}

// How many buckets one call may visit at most: COUNT*10, saturating.
uint64_t MaxBuckets(int64_t count) {
  const uint64_t n = static_cast<uint64_t>(count);
  return n > UINT64_MAX / 10 ? UINT64_MAX : n * 10;
}

bool Matches(const ScanOptions& opt, std::string_view s) {
  return !opt.has_pattern || GlobMatch(opt.pattern, s);
}

// Text of a listpack entry: the string bytes, or an integer formatted into `buf`.
std::string_view EntryText(const ListpackEntry& e, char* buf) {
  return e.is_int ? std::string_view(buf, FormatInt64(e.num, buf)) : e.str;
}

// Replies every (field, value) pair of a packed listpack of pairs (a hash, or a sorted set's
// member/score listpack) whose first half matches, with cursor 0; the first halves alone with
// NOVALUES/NOSCORES.
void ReplyPackedPairs(CommandContext& c, const Listpack& lp, const ScanOptions& opt) {
  c.reply.Array(2);
  ReplyScanCursor(c.reply, 0);
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  char fbuf[kMaxInt64Chars + 1], vbuf[kMaxInt64Chars + 1];
  for (Listpack::Pos p = lp.First(); p != Listpack::kNone; p = lp.Next(lp.Next(p))) {
    std::string_view f = EntryText(lp.Get(p), fbuf);
    if (!Matches(opt, f)) continue;
    c.reply.Bulk(f);
    ++n;
    if (opt.no_values) continue;
    c.reply.Bulk(EntryText(lp.Get(lp.Next(p)), vbuf));
    ++n;
  }
  c.reply.SetDeferredLen(handle, '*', n);
}

// Drives table.Scan from `cursor` until COUNT nodes (fields, members) are gathered, the cursor
// wraps to 0, or the bucket budget is spent. Collects every node visited; returns
// the next cursor. Nothing changes the table during the command, so the node pointers stay
// valid until the reply is written.
template <typename Table, typename Node>
uint64_t GatherNodes(Table& table, uint64_t cursor, const ScanOptions& opt,
                     std::vector<const Node*>* nodes) {
  const uint64_t target = static_cast<uint64_t>(opt.count);
  uint64_t budget = MaxBuckets(opt.count);
  do {
    cursor = table.Scan(cursor, [nodes](const Node* n) { nodes->push_back(n); });
  } while (cursor != 0 && budget-- > 0 && nodes->size() < target);
  return cursor;
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
void HScanCommand(CommandContext& c) {
  uint64_t cursor;
  ScanOptions opt;
  Entry* e = ScanPrologue(c, ValueType::kHash, &cursor, &opt, "novalues");
  if (e == nullptr) return;
  HashObject& h = HashOf(e->value);
  if (h.encoding() == HashObject::Encoding::kListpack) {
    ReplyPackedPairs(c, h.listpack(), opt);
    return;
  }
  std::vector<const FieldNode*> nodes;
  cursor = GatherNodes<HashTable<FieldTableTraits>, FieldNode>(h.table(), cursor, opt, &nodes);
  c.reply.Array(2);
  ReplyScanCursor(c.reply, cursor);
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  for (const FieldNode* node : nodes) {
    if (!Matches(opt, node->field())) continue;
    c.reply.Bulk(node->field());
    ++n;
    if (opt.no_values) continue;
    c.reply.Bulk(node->value());
    ++n;
  }
  c.reply.SetDeferredLen(handle, '*', n);
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
void SScanCommand(CommandContext& c) {
  uint64_t cursor;
  ScanOptions opt;
  Entry* e = ScanPrologue(c, ValueType::kSet, &cursor, &opt);
  if (e == nullptr) return;
  SetObject& s = SetOf(e->value);
  c.reply.Array(2);
  if (s.encoding() == SetObject::Encoding::kIntset) {
    ReplyScanCursor(c.reply, 0);
    size_t handle = c.reply.DeferLen();
    size_t n = 0;
    s.ForEach([&](std::string_view m) {
      if (!Matches(opt, m)) return;
      c.reply.Bulk(m);
      ++n;
    });
    c.reply.SetDeferredLen(handle, '*', n);
    return;
  }
  std::vector<const MemberNode*> nodes;
  cursor = GatherNodes<HashTable<MemberTableTraits>, MemberNode>(s.table(), cursor, opt, &nodes);
  ReplyScanCursor(c.reply, cursor);
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  for (const MemberNode* node : nodes) {
    if (!Matches(opt, node->member())) continue;
    c.reply.Bulk(node->member());
    ++n;
  }
  c.reply.SetDeferredLen(handle, '*', n);
}

// ZSCAN key cursor [MATCH pattern] [COUNT count] [NOSCORES]
void ZScanCommand(CommandContext& c) {
  uint64_t cursor;
  ScanOptions opt;
  Entry* e = ScanPrologue(c, ValueType::kZSet, &cursor, &opt, "noscores");
  if (e == nullptr) return;
  ZSetObject& z = ZSetOf(e->value);
  if (z.encoding() == ZSetObject::Encoding::kListpack) {
    ReplyPackedPairs(c, z.listpack(), opt);
    return;
  }
  std::vector<const ZNode*> nodes;
  const uint64_t target = static_cast<uint64_t>(opt.count);
  uint64_t budget = MaxBuckets(opt.count);
  do {
    cursor = z.index().Scan(cursor, [&nodes](const ZNode* n) { nodes.push_back(n); });
  } while (cursor != 0 && budget-- > 0 && nodes.size() < target);
  c.reply.Array(2);
  ReplyScanCursor(c.reply, cursor);
  size_t handle = c.reply.DeferLen();
  size_t n = 0;
  char buf[64];
  for (const ZNode* node : nodes) {
    if (!Matches(opt, node->member())) continue;
    c.reply.Bulk(node->member());
    ++n;
    if (opt.no_values) continue;
    int len = std::snprintf(buf, sizeof(buf), "%.17Lg", static_cast<long double>(node->score));
    c.reply.Bulk(std::string_view(buf, static_cast<size_t>(len)));
    ++n;
  }
  c.reply.SetDeferredLen(handle, '*', n);
}

using docs::Integer;
using docs::Key;
using docs::Pattern;

// The row shared by the three commands; they differ in name, group and category.
CommandSpec ScanRow(const char* name, CommandHandler handler, uint64_t acl_type,
                    std::string_view group, std::string_view summary) {
  CommandSpec row = {
      .name = name,
      .arity = -3,
      .flags = kCmdReadOnly,
      .first_key = 1,
      .last_key = 1,
      .key_step = 1,
      .acl = kAclRead | acl_type | kAclSlow,
      .doc = {.summary = summary,
              .since = "2.8.0",
              .group = group,
              .complexity = "O(1) for every call. O(N) for a complete iteration, including "
                            "enough command calls for the cursor to return back to 0. N is "
                            "the number of elements inside the collection..",
              .tips = {"nondeterministic_output"},
              .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
              .args = {Key("key", 0), Integer("cursor"),
                       Pattern("pattern").Token("MATCH").Optional(),
                       Integer("count").Token("COUNT").Optional()}},
      .handler = handler};
  return row;
}

}  // namespace

void RegisterAggregateScanCommands(CommandTable& t) {
  CommandSpec hscan = ScanRow("hscan", HScanCommand, kAclHash, "hash",
                              "Walks the fields and values of a hash a little at a time with a "
                              "cursor");
  hscan.doc.history = {{"7.4.0", "NOVALUES was added."}};
  hscan.doc.args.push_back(docs::PureToken("NOVALUES").Since("7.4.0").Optional());
  t.Register(std::move(hscan));
  t.Register(ScanRow("sscan", SScanCommand, kAclSet, "set",
                     "Walks the members of a set a little at a time with a cursor"));
  CommandSpec zscan = ScanRow("zscan", ZScanCommand, kAclSortedSet, "sorted-set",
                              "Walks the members and scores of a sorted set a little at a time "
                              "with a cursor");
  zscan.doc.history = {{"8.0.0", "NOSCORES was added."}};
  zscan.doc.args.push_back(docs::PureToken("NOSCORES").Since("8.0.0").Optional());
  t.Register(std::move(zscan));
}

}  // namespace redistp
