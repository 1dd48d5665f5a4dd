// HyperLogLog commands: PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST.
//
// Model. An HLL is a string value in the HYLL representation (types/hyperloglog.h); any string
// key may be handed to these commands, and one that is not in that representation answers
// "WRONGTYPE Key is not a valid HyperLogLog string value." (a non-string key gets the ordinary
// WRONGTYPE). A body found corrupt while it is read answers INVALIDOBJ.
//
// Changes go through the Database like every write:
//   - PFADD and PFMERGE edit the value inside a Mutation announced as "pfadd" (Redis names
//     PFMERGE's change so too); PFADD that changes no register is no change at all;
//   - PFCOUNT of one key whose cached cardinality is stale recomputes it and stores it in the
//     value: that is a change of the key (WATCH sees it, the command is propagated, `dirty`
//     counts it) that Redis does not announce as a keyspace notification, hence notice kNone;
//   - PFDEBUG GETREG/TODENSE store the dense conversion as a change that is propagated but, as
//     in Redis, neither announced nor seen by WATCH or tracking.
// Like Redis, which "unshares" the string first, every command that accepts an existing HLL
// leaves it with the raw encoding (OBJECT ENCODING "raw"), changed or not.
//
// A dense HLL is updated in place (PFADD's hot path); a sparse one (at most
// hll-sparse-max-bytes, 3000 by default) is edited in a copy that replaces the value, since its
// length changes both ways.
//
// Difference left: PFADD that meets a corrupt sparse body after some registers changed keeps
// none of those changes (Redis keeps them, unannounced).
#include "types/hyperloglog.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "commands/lookup.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace notice {
// PFADD and PFMERGE (Redis announces a merge as an addition).
inline constexpr KeyNotice kPfAdd{kNotifyString, "pfadd"};
// PFDEBUG's sparse to dense conversion: propagated and counted, but, as in Redis (which only
// bumps its dirty counter), neither announced nor a change for WATCH or tracking.
inline constexpr KeyNotice kPfDebugConvert{kNotifyNone, nullptr, false};
}  // namespace notice

namespace {

size_t SparseMaxBytes(CommandContext& c) {
  const int64_t v = c.server.config().hll_sparse_max_bytes;
  return v < 0 ? 0 : static_cast<size_t>(v);
}

// Looks up an HLL key (`access` as the command's), replying WRONGTYPE for a non-string or a
// string not in the HYLL representation. On success stores the entry (nullptr when absent) and
// its bytes in *view (valid until the value changes); returns false after replying an error.
bool LookupHll(CommandContext& c, std::string_view key, Access access, Entry** e,
               std::string_view* view, char* scratch) {
  if (!LookupTyped(c, key, ValueType::kString, access, e)) return false;
  if (*e == nullptr) return true;
  *view = (*e)->value.View(scratch);
  if (!hll::IsHll(*view)) {
    c.reply.Error(err::kNotHll);
    return false;
  }
  return true;
}

// Gives the value the raw encoding, as Redis's dbUnshareStringValue does, without a key event
// (the bytes stay the same).
void Unshare(CommandContext& c, Entry* e) {
  Mutation m = c.db.Mutate(e, notice::kNone);
  m.value().MutableBytes(m.value().StringLength());
  m.Abandon();
}

// Replaces e's value with `hll` as one change of the key announced by `notice`.
void Store(CommandContext& c, Entry* e, const std::string& hll, KeyNotice notice) {
  Mutation m = c.db.Mutate(e, notice);
  m.value() = Value::RawString(hll);
}

// PFADD key [element ...] -> 1 when a register changed (or the key was created), else 0.
void PfAddCommand(CommandContext& c) {
  Entry* e;
  std::string_view view;
  char scratch[kMaxInt64Chars + 1];
  if (!LookupHll(c, c.args[1], Access::kWrite, &e, &view, scratch)) return;
  const size_t max_bytes = SparseMaxBytes(c);
  if (e == nullptr) {
    std::string h = hll::NewSparse();
    for (size_t i = 2; i < c.args.size(); i++) hll::Add(&h, c.args[i], max_bytes);
    hll::InvalidateCache(reinterpret_cast<uint8_t*>(h.data()));
    c.db.Add(c.args[1], Value::RawString(h), notice::kPfAdd);
    c.reply.Int(1);
    return;
  }
  bool updated = false;
  if (hll::EncodingOf(view) == hll::kDense) {
    Mutation m = c.db.Mutate(e, notice::kPfAdd);
    auto* p = reinterpret_cast<uint8_t*>(m.value().MutableBytes(hll::kDenseSize));
    for (size_t i = 2; i < c.args.size(); i++) {
      if (hll::DenseAdd(p + hll::kHeaderSize, c.args[i]) == hll::Update::kChanged) updated = true;
    }
    if (updated) {
      hll::InvalidateCache(p);
    } else {
      m.Abandon();
    }
  } else {
    std::string h(view);
    for (size_t i = 2; i < c.args.size(); i++) {
      const hll::Update r = hll::Add(&h, c.args[i], max_bytes);
      if (r == hll::Update::kCorrupt) {
        c.reply.Error(err::kCorruptHll);
        return;
      }
      if (r == hll::Update::kChanged) updated = true;
    }
    if (updated) {
      hll::InvalidateCache(reinterpret_cast<uint8_t*>(h.data()));
      Store(c, e, h, notice::kPfAdd);
    } else {
      Unshare(c, e);
    }
  }
  c.reply.Int(updated ? 1 : 0);
}

// PFCOUNT of several keys: the estimate of their union, computed in a raw register array; no
// key is changed.
void CountUnion(CommandContext& c) {
  uint8_t max[hll::kRegisters] = {};
  for (size_t i = 1; i < c.args.size(); i++) {
    Entry* e;
    std::string_view view;
    char scratch[kMaxInt64Chars + 1];
    if (!LookupHll(c, c.args[i], Access::kRead, &e, &view, scratch)) return;
    if (e == nullptr) continue;
    if (!hll::MergeInto(max, view)) {
      c.reply.Error(err::kCorruptHll);
      return;
    }
  }
  int histo[hll::kHistogramSize] = {};
  hll::RawHistogram(max, histo);
  c.reply.Int(static_cast<int64_t>(hll::Estimate(histo)));
}

// PFCOUNT key [key ...]: one key answers its cached cardinality, recomputing and storing it
// when stale (a change of the key, not announced); several keys see CountUnion.
void PfCountCommand(CommandContext& c) {
  if (c.args.size() > 2) {
    CountUnion(c);
    return;
  }
  Entry* e;
  std::string_view view;
  char scratch[kMaxInt64Chars + 1];
  if (!LookupHll(c, c.args[1], Access::kRead, &e, &view, scratch)) return;
  if (e == nullptr) {
    c.reply.Int(0);
    return;
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(view.data());
  if (hll::CacheValid(bytes)) {
    const uint64_t cached = hll::CachedCardinality(bytes);
    Unshare(c, e);
    c.reply.Int(static_cast<int64_t>(cached));
    return;
  }
  uint64_t card;
  if (!hll::Count(view, &card)) {
    Unshare(c, e);
    c.reply.Error(err::kCorruptHll);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kNone);
  auto* p = reinterpret_cast<uint8_t*>(m.value().MutableBytes(view.size()));
  hll::StoreCardinality(p, card);
  m.Commit();
  c.reply.Int(static_cast<int64_t>(card));
}

// PFMERGE destkey [sourcekey ...]: dest (itself one of the inputs) becomes the register-wise
// maximum of all inputs; dense when any input is dense, else sparse as far as it stays so.
void PfMergeCommand(CommandContext& c) {
  uint8_t max[hll::kRegisters] = {};
  bool use_dense = false;
  for (size_t i = 1; i < c.args.size(); i++) {
    Entry* e;
    std::string_view view;
    char scratch[kMaxInt64Chars + 1];
    if (!LookupHll(c, c.args[i], Access::kRead, &e, &view, scratch)) return;
    if (e == nullptr) continue;
    if (hll::EncodingOf(view) == hll::kDense) use_dense = true;
    if (!hll::MergeInto(max, view)) {
      c.reply.Error(err::kCorruptHll);
      return;
    }
  }
  // The destination was read above as an input, so it is absent or a valid HLL.
  Entry* dest;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &dest)) return;
  char scratch[kMaxInt64Chars + 1];
  std::string h = dest != nullptr ? std::string(dest->value.View(scratch)) : hll::NewSparse();
  if (use_dense && !hll::SparseToDense(&h)) {
    c.reply.Error(err::kCorruptHll);
    return;
  }
  const size_t max_bytes = SparseMaxBytes(c);
  for (uint32_t i = 0; i < hll::kRegisters; i++) {
    if (max[i] != 0) hll::Raise(&h, i, max[i], max_bytes);
  }
  hll::InvalidateCache(reinterpret_cast<uint8_t*>(h.data()));
  if (dest != nullptr) {
    Store(c, dest, h, notice::kPfAdd);
  } else {
    c.db.Add(c.args[1], Value::RawString(h), notice::kPfAdd);
  }
  c.reply.Ok();
}

// PFDEBUG's dense conversion, stored as an unannounced change of the key. Replies INVALIDOBJ
// and returns false on a corrupt body.
bool ConvertToDense(CommandContext& c, Entry* e, std::string_view view) {
  std::string h(view);
  if (!hll::SparseToDense(&h)) {
    c.reply.Error(err::kCorruptHll);
    return false;
  }
  Store(c, e, h, notice::kPfDebugConvert);
  return true;
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key.
void PfDebugCommand(CommandContext& c) {
  const std::string_view sub = c.args[1];
  Entry* e;
  std::string_view view;
  char scratch[kMaxInt64Chars + 1];
  if (!LookupHll(c, c.args[2], Access::kWrite, &e, &view, scratch)) return;
  if (e == nullptr) {
    c.reply.Error(err::kPfDebugNoKey);
    return;
  }
  Unshare(c, e);
  char scratch2[kMaxInt64Chars + 1];
  view = e->value.View(scratch2);
  const bool sparse = hll::EncodingOf(view) == hll::kSparse;
  if (EqualsIgnoreCase(sub, "getreg")) {
    if (sparse) {
      if (!ConvertToDense(c, e, view)) return;
      view = e->value.View(scratch2);
    }
    const auto* regs = reinterpret_cast<const uint8_t*>(view.data()) + hll::kHeaderSize;
    c.reply.Array(hll::kRegisters);
    for (int i = 0; i < hll::kRegisters; i++) c.reply.Int(hll::DenseGet(regs, i));
  } else if (EqualsIgnoreCase(sub, "decode")) {
    if (!sparse) {
      c.reply.Error(err::kHllNotSparse);
      return;
    }
    c.reply.Bulk(hll::DecodeSparse(view));
  } else if (EqualsIgnoreCase(sub, "encoding")) {
    c.reply.Simple(sparse ? "sparse" : "dense");
  } else if (EqualsIgnoreCase(sub, "todense")) {
    if (sparse && !ConvertToDense(c, e, view)) return;
    c.reply.Int(sparse ? 1 : 0);
  } else {
    c.reply.Error(err::PfDebugUnknown(sub));
  }
}

// PFSELFTEST -> OK, or TESTFAILED with what failed.
void PfSelfTestCommand(CommandContext& c) {
  const std::string failure = hll::SelfTest();
  if (failure.empty()) {
    c.reply.Ok();
  } else {
    c.reply.Error(err::HllSelfTestFailed(failure));
  }
}

}  // namespace

using docs::Key;
using docs::String;

void RegisterHyperLogLogCommands(CommandTable& t) {
  t.Register({.name = "pfadd",
              .arity = -2,
              .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclHyperLogLog | kAclFast,
              .doc = {.summary = "Adds elements to a HyperLogLog key, creating it if needed",
                      .since = "2.8.9",
                      .group = "hyperloglog",
                      .complexity = "O(1) to add every element.",
                      .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
                      .args = {Key("key", 0), String("element").Optional().Multiple()}},
              .handler = PfAddCommand});
  t.Register(
      {.name = "pfcount",
       .arity = -2,
       // may-replicate (not shown by COMMAND INFO, as in Redis 7.0): the cache refresh is a
       // write, so read-only scripts and CLIENT PAUSE WRITE refuse PFCOUNT like a write.
       .flags = kCmdReadOnly | kCmdMayReplicate,
       .first_key = 1,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclRead | kAclHyperLogLog | kAclSlow,
       .doc = {.summary = "Returns the estimated number of distinct elements added to the "
                          "HyperLogLogs at the given keys (their union for several keys)",
               .since = "2.8.9",
               .group = "hyperloglog",
               .complexity = "O(1) with a very small average constant time when called with a "
                             "single key. O(N) with N being the number of keys, and much bigger "
                             "constant times, when called with multiple keys.",
               .key_specs = {{.flags = kKeyRW | kKeyAccess,
                              .notes = "RW because it may change the internal representation "
                                       "of the key, and propagate to replicas",
                              .index = 1,
                              .last_key = -1}},
               .args = {Key("key", 0).Multiple()}},
       .handler = PfCountCommand});
  t.Register({.name = "pfmerge",
              .arity = -2,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = -1,
              .key_step = 1,
              .acl = kAclWrite | kAclHyperLogLog | kAclSlow,
              .doc = {.summary = "Stores in a key the union of HyperLogLogs",
                      .since = "2.8.9",
                      .group = "hyperloglog",
                      .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyInsert, .index = 1},
                                    {.flags = kKeyRO | kKeyAccess, .index = 2, .last_key = -1}},
                      .args = {Key("destkey", 0), Key("sourcekey", 1).Multiple()}},
              .handler = PfMergeCommand});
  t.Register({.name = "pfdebug",
              .arity = 3,
              .flags = kCmdWrite | kCmdDenyOom | kCmdAdmin,
              .first_key = 2,
              .last_key = 2,
              .key_step = 1,
              .acl = kAclWrite | kAclHyperLogLog | kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Debugging helpers for HyperLogLog values",
                      .since = "2.8.9",
                      .group = "hyperloglog",
                      .complexity = "N/A",
                      .doc_flags = kDocSysCmd,
                      .key_specs = {{.flags = kKeyRW | kKeyAccess, .index = 2}},
                      .args = {String("subcommand"), Key("key", 0)}},
              .handler = PfDebugCommand});
  t.Register({.name = "pfselftest",
              .arity = 1,
              .flags = kCmdAdmin,
              .acl = kAclHyperLogLog | kAclAdmin | kAclSlow | kAclDangerous,
              .doc = {.summary = "Runs the HyperLogLog implementation's self test",
                      .since = "2.8.9",
                      .group = "hyperloglog",
                      .complexity = "N/A",
                      .doc_flags = kDocSysCmd},
              .handler = PfSelfTestCommand});
}

}  // namespace redistp
