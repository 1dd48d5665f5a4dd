// XINFO: introspection of a stream, its consumer groups and their consumers.
//
//   XINFO STREAM key [FULL [COUNT n]]   the stream's metadata, its first and last entries, or
//                                       (FULL) its entries and every group with its PEL and
//                                       consumers, at most n of each list (default 10, also
//                                       for a negative n; 0 = all)
//   XINFO GROUPS key                    one map per group
//   XINFO CONSUMERS key group           one map per consumer of the group
//   XINFO HELP
//
// Replies are maps (flat arrays in RESP2) with Redis 7.0's fields in Redis 7.0's order; an
// unknown entries-read or lag is a null. The key is looked up before any other argument is
// checked ("ERR no such key" for a missing one), as Redis does.
//
// radix-tree-keys and radix-tree-nodes describe Redis's index of the stream's nodes: a rax, the
// compressed radix tree whose keys are the nodes' master ids as 16 big-endian bytes. Our index
// is an ordered map, so the number of keys is the number of nodes, and the number of rax nodes
// is computed from the keys: Redis's rax keeps a canonical shape for a set of equal-length keys
// (insertions split compressed nodes at the first differing byte, deletions merge single-child
// chains back), so its node count depends on the keys alone:
//   - the root is one node; an empty tree is just the root;
//   - each branching point (a prefix shared by keys that differ in the next byte) is one node;
//   - each key ends in a leaf node;
//   - a run of two or more bytes between a branching point and the next branching point or leaf
//     takes one more node (a compressed node); a run starting at the root is the root itself.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "commands/help_reply.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/stream_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/stream.h"
#include "util/numbers.h"

namespace redistp {
namespace {

using RaxKey = std::array<unsigned char, 16>;
constexpr size_t kRaxKeyLen = 16;
// How many entries, pending entries and consumer pending entries XINFO STREAM FULL shows.
constexpr int64_t kFullDefaultCount = 10;

// The rax nodes of the subtree holding keys[lo, hi) (sorted, distinct), whose top node sits
// at byte `depth` (all of them share bytes [0, depth)). See the file comment.
size_t RaxSubtreeNodes(const std::vector<RaxKey>& keys, size_t lo, size_t hi, size_t depth) {
  if (hi - lo == 1) return depth == kRaxKeyLen ? 1 : 2;  // a leaf, or a run then a leaf
  size_t branch = depth;
  while (keys[lo][branch] == keys[hi - 1][branch]) ++branch;  // keys are distinct: ends < 16
  size_t n = (branch > depth ? 1 : 0) + 1;  // the run down to the branching point, and it
  for (size_t a = lo; a < hi;) {
    size_t b = a + 1;
    while (b < hi && keys[b][branch] == keys[a][branch]) ++b;
    n += RaxSubtreeNodes(keys, a, b, branch + 1);
    a = b;
  }
  return n;
}

// The node count of the rax Redis would hold for this stream's node keys.
size_t RaxNodeCount(const StreamObject& s) {
  if (s.node_count() == 0) return 1;
  std::vector<RaxKey> keys;
  keys.reserve(s.node_count());
  for (const auto& [master, node] : s.nodes()) {
    keys.emplace_back();
    master.EncodeBE(keys.back().data());
  }
  return RaxSubtreeNodes(keys, 0, keys.size(), 0);
}

// The stream at args[2], or nullptr after replying the error (missing key, WRONGTYPE).
StreamObject* InfoStream(CommandContext& c) {
  Entry* e;
  if (!LookupTyped(c, c.args[2], ValueType::kStream, Access::kRead, &e)) return nullptr;
  if (e == nullptr) {
    c.reply.Error(err::kNoSuchKey);
    return nullptr;
  }
  return StreamOf(e);
}

// The first (or, reverse, last) live entry as [id, fields], or a null when the stream is empty.
void ReplyEdgeEntry(CommandContext& c, const StreamObject& s, bool reverse) {
  StreamObject::Iterator it(s, StreamID::Min(), StreamID::Max(), reverse);
  StreamEntryView v;
  if (it.Next(&v)) {
    ReplyStreamEntry(c.reply, v);
  } else {
    c.reply.Null();
  }
}

// The fields every XINFO STREAM reply begins with.
void ReplyStreamHead(CommandContext& c, const StreamObject& s) {
  c.reply.Bulk("length");
  c.reply.Int(static_cast<int64_t>(s.length()));
  c.reply.Bulk("radix-tree-keys");
  c.reply.Int(static_cast<int64_t>(s.node_count()));
  c.reply.Bulk("radix-tree-nodes");
  c.reply.Int(static_cast<int64_t>(RaxNodeCount(s)));
  c.reply.Bulk("last-generated-id");
  ReplyStreamId(c.reply, s.last_id());
  c.reply.Bulk("max-deleted-entry-id");
  ReplyStreamId(c.reply, s.max_deleted_id());
  c.reply.Bulk("entries-added");
  c.reply.Int(static_cast<int64_t>(s.entries_added()));
  c.reply.Bulk("recorded-first-entry-id");
  ReplyStreamId(c.reply, s.first_id());
}

// A group's entries-read and lag: integers, or nulls when unknown.
void ReplyReadAndLag(CommandContext& c, const StreamObject& s, const StreamGroup& g) {
  c.reply.Bulk("entries-read");
  if (g.entries_read != StreamGroup::kEntriesReadUnknown) {
    c.reply.Int(g.entries_read);
  } else {
    c.reply.Null();
  }
  c.reply.Bulk("lag");
  if (std::optional<int64_t> lag = s.GroupLag(g)) {
    c.reply.Int(*lag);
  } else {
    c.reply.Null();
  }
}

// Every map XINFO gives a group or a consumer (GROUPS, CONSUMERS, STREAM FULL) opens alike:
// `fields` pairs, the first the item's name.
void OpenNamedMap(CommandContext& c, size_t fields, std::string_view name) {
  c.reply.Map(fields);
  c.reply.Bulk("name");
  c.reply.Bulk(name);
}

// A field whose value is a count (consumers, pending entries).
void ReplyCountField(CommandContext& c, std::string_view field, size_t count) {
  c.reply.Bulk(field);
  c.reply.Int(static_cast<int64_t>(count));
}

// How many of `total` items a FULL list shows: all when count is 0.
size_t Shown(size_t total, uint64_t count) {
  return count == 0 || count > total ? total : static_cast<size_t>(count);
}

// One group of XINFO STREAM FULL: its metadata, up to `count` pending entries and every
// consumer with up to `count` of its pending entries.
void ReplyFullGroup(CommandContext& c, const StreamObject& s, std::string_view name,
                    const StreamGroup& g, uint64_t count) {
  OpenNamedMap(c, 7, name);
  c.reply.Bulk("last-delivered-id");
  ReplyStreamId(c.reply, g.last_id);
  ReplyReadAndLag(c, s, g);
  ReplyCountField(c, "pel-count", g.pel.size());
  c.reply.Bulk("pending");
  size_t n = Shown(g.pel.size(), count);
  c.reply.Array(n);
  for (auto it = g.pel.begin(); n > 0; ++it, --n) {
    const StreamPending& p = *it->second;
    c.reply.Array(4);
    ReplyStreamId(c.reply, it->first);
    c.reply.Bulk(p.consumer->name);
    c.reply.Int(p.delivery_time);
    c.reply.Int(static_cast<int64_t>(p.delivery_count));
  }
  c.reply.Bulk("consumers");
  c.reply.Array(g.consumers.size());
  for (const auto& [cname, consumer] : g.consumers) {
    OpenNamedMap(c, 4, cname);
    c.reply.Bulk("seen-time");
    c.reply.Int(consumer->seen_time);
    ReplyCountField(c, "pel-count", consumer->pel.size());
    c.reply.Bulk("pending");
    size_t m = Shown(consumer->pel.size(), count);
    c.reply.Array(m);
    for (auto it = consumer->pel.begin(); m > 0; ++it, --m) {
      c.reply.Array(3);
      ReplyStreamId(c.reply, it->first);
      c.reply.Int(it->second->delivery_time);
      c.reply.Int(static_cast<int64_t>(it->second->delivery_count));
    }
  }
}

// XINFO STREAM key [FULL [COUNT n]]
void XInfoStreamCommand(CommandContext& c) {
  StreamObject* s = InfoStream(c);
  if (s == nullptr) return;
  const size_t argc = c.args.size();
  if (argc == 3) {
    c.reply.Map(10);
    ReplyStreamHead(c, *s);
    c.reply.Bulk("groups");
    c.reply.Int(static_cast<int64_t>(s->group_count()));
    c.reply.Bulk("first-entry");
    ReplyEdgeEntry(c, *s, false);
    c.reply.Bulk("last-entry");
    ReplyEdgeEntry(c, *s, true);
    return;
  }
  // FULL, or FULL COUNT n: nothing else.
  int64_t count = kFullDefaultCount;
  if ((argc != 4 && argc != 6) || !EqualsIgnoreCase(c.args[3], "full") ||
      (argc == 6 && !EqualsIgnoreCase(c.args[4], "count"))) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "XINFO"));
    return;
  }
  if (argc == 6) {
    if (!ParseInt64(c.args[5], &count)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (count < 0)
      count = kFullDefaultCount;  // a negative COUNT means the default, as in Redis 7.0
  }
  const uint64_t shown = static_cast<uint64_t>(count);
  c.reply.Map(9);
  ReplyStreamHead(c, *s);
  c.reply.Bulk("entries");
  ReplyStreamRange(c.reply, *s, StreamID::Min(), StreamID::Max(), false, shown);
  c.reply.Bulk("groups");
  c.reply.Array(s->group_count());
  for (const auto& [name, group] : s->groups()) ReplyFullGroup(c, *s, name, *group, shown);
}

// XINFO GROUPS key
void XInfoGroupsCommand(CommandContext& c) {
  StreamObject* s = InfoStream(c);
  if (s == nullptr) return;
  c.reply.Array(s->group_count());
  for (const auto& [name, g] : s->groups()) {
    OpenNamedMap(c, 6, name);
    ReplyCountField(c, "consumers", g->consumers.size());
    ReplyCountField(c, "pending", g->pel.size());
    c.reply.Bulk("last-delivered-id");
    ReplyStreamId(c.reply, g->last_id);
    ReplyReadAndLag(c, *s, *g);
  }
}

// XINFO CONSUMERS key group: each consumer's pending count and idle time (ms since it was
// last seen, never negative).
void XInfoConsumersCommand(CommandContext& c) {
  StreamObject* s = InfoStream(c);
  if (s == nullptr) return;
  const StreamGroup* g = s->FindGroup(c.args[3]);
  if (g == nullptr) {
    c.reply.Error(err::StreamNoGroup(c.args[2], c.args[3]));
    return;
  }
  const int64_t now = c.server.keyspace().now_ms();
  c.reply.Array(g->consumers.size());
  for (const auto& [name, consumer] : g->consumers) {
    OpenNamedMap(c, 3, name);
    ReplyCountField(c, "pending", consumer->pel.size());
    c.reply.Bulk("idle");
    const int64_t idle = now - consumer->seen_time;
    c.reply.Int(idle > 0 ? idle : 0);
  }
}

void XInfoHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "XINFO",
            {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.", "GROUPS <key>",
             "    Show the stream consumer groups.", "STREAM <key> [FULL [COUNT <count>]",
             "    Show information about the stream."});
}

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::String;

CommandSpec XInfoKeySubcommand(const char* name, int arity, CommandHandler handler,
                               CommandDoc doc) {
  return {.name = name,
          .arity = arity,
          .flags = kCmdReadOnly,
          .first_key = 2,
          .last_key = 2,
          .key_step = 1,
          .acl = kAclRead | kAclStream | kAclSlow,
          .doc = std::move(doc),
          .handler = handler};
}

}  // namespace

void RegisterStreamInfoCommands(CommandTable& t) {
  t.Register(
      {.name = "xinfo",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that describe a stream and its groups",
               .since = "5.0.0",
               .group = "stream",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           XInfoKeySubcommand("consumers", 4, XInfoConsumersCommand,
                              {.summary = "Describes the consumers of a consumer group",
                               .since = "5.0.0",
                               .group = "stream",
                               .complexity = "O(1)",
                               .tips = {"nondeterministic_output"},
                               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 2}},
                               .args = {Key("key", 0), String("groupname")}}),
           XInfoKeySubcommand("groups", 3, XInfoGroupsCommand,
                              {.summary = "Describes the consumer groups of a stream",
                               .since = "5.0.0",
                               .group = "stream",
                               .complexity = "O(1)",
                               .history = {{"7.0.0", "The entries-read and lag fields."}},
                               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 2}},
                               .args = {Key("key", 0)}}),
           XInfoKeySubcommand(
               "stream", -3, XInfoStreamCommand,
               {.summary = "Describes a stream: its metadata and edge entries, or everything",
                .since = "5.0.0",
                .group = "stream",
                .complexity = "O(1)",
                .history = {{"6.0.0", "FULL."},
                            {"7.0.0",
                             "The max-deleted-entry-id, entries-added, recorded-first-entry-id, "
                             "entries-read and lag fields."}},
                .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 2}},
                .args = {Key("key", 0), Block("full", {Integer("count").Token("COUNT").Optional()})
                                            .Token("FULL")
                                            .Optional()}}),
           CommandSpec{.name = "help",
                       .arity = 2,
                       .flags = kCmdLoading | kCmdStale,
                       .acl = kAclStream | kAclSlow,
                       .doc = {.summary = "Lists the XINFO subcommands with a short description",
                               .since = "5.0.0",
                               .group = "stream",
                               .complexity = "O(1)"},
                       .handler = XInfoHelpCommand},
       }});
}

}  // namespace redistp
