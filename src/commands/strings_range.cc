// String commands, part three: byte ranges of a value.
//
//   APPEND, SETRANGE     edit a value in place (it becomes "raw", as in Redis)
//   GETRANGE, SUBSTR     read a slice (SUBSTR is GETRANGE's old name)
//   LCS                  longest common subsequence of two values
//
// Size limit. A string may not grow past proto-max-bulk-len (512 MB by default; the limit is a
// config value, not a constant): APPEND and SETRANGE check the would-be length first and answer
// "string exceeds maximum allowed size (proto-max-bulk-len)" without touching the key.
//
// In-place edits run inside a Database::Mutate handle and go through Value::MutableBytes/Append,
// which convert an int or inline value to a heap string once and then edit it without copying;
// the handle's end tells the Database. SETRANGE on a missing key builds the zero-padded value
// directly in its final heap buffer.
//
// GETRANGE indexes are inclusive and may be negative (counted from the end); out-of-range
// indexes are clamped rather than refused, and an empty slice is an empty bulk string.
//
// LCS fills the classic (|a|+1) x (|b|+1) dynamic-programming table of uint32 prefix lengths,
// then walks it back from the bottom-right corner to recover the subsequence and, for IDX, the
// matched ranges (reported from the end of the strings towards the start). The walk's tie rule
// (move up in `a` only when that keeps a strictly longer prefix, else left in `b`) decides which
// of several equally long answers is reported, and matches Redis's. The table is transient
// memory; as in Redis 7.0 it is refused when it would exceed proto-max-bulk-len. LEN alone
// needs no walk and is computed with two rows.
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "commands/register.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// True if a string of `base` + `extra` bytes is allowed; otherwise replies the size error.
bool CheckStringLimit(CommandContext& c, uint64_t base, uint64_t extra) {
  const uint64_t limit = static_cast<uint64_t>(c.server.config().proto_max_bulk_len);
  uint64_t total;
  if (__builtin_add_overflow(base, extra, &total) || total > limit) {
    c.reply.Error(err::kStringTooLong);
    return false;
  }
  return true;
}

// APPEND key value: replies the new length. A missing key is created as by SET (so "12" gets
// the int encoding); an existing value becomes raw, even when nothing is appended.
void AppendCommand(CommandContext& c) {
  std::string_view tail = c.args[2];
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  if (e == nullptr) {
    c.db.Add(c.args[1], Value::String(tail), notice::kAppend);
    c.reply.Int(static_cast<int64_t>(tail.size()));
    return;
  }
  if (!CheckStringLimit(c, e->value.StringLength(), tail.size())) return;
  Mutation m = c.db.Mutate(e, notice::kAppend);
  m.value().Append(tail);
  c.reply.Int(static_cast<int64_t>(m.value().StringLength()));
}

// SETRANGE key offset value: overwrites bytes from `offset`, zero-padding a shorter value, and
// replies the resulting length. An empty value changes nothing: it answers the current length
// (0 and no key created when missing) without the size check.
void SetRangeCommand(CommandContext& c) {
  int64_t offset;
  if (!ParseInt64(c.args[2], &offset)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (offset < 0) {
    c.reply.Error(err::kOffsetRange);
    return;
  }
  std::string_view patch = c.args[3];
  const size_t start = static_cast<size_t>(offset);
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  if (e == nullptr) {
    if (patch.empty()) {
      c.reply.Int(0);
      return;
    }
    if (!CheckStringLimit(c, start, patch.size())) return;
    Value v;
    std::memcpy(v.MutableBytes(start + patch.size()) + start, patch.data(), patch.size());
    e = c.db.Add(c.args[1], std::move(v), notice::kSetRange);
    c.reply.Int(static_cast<int64_t>(e->value.StringLength()));
    return;
  }
  if (patch.empty()) {
    c.reply.Int(static_cast<int64_t>(e->value.StringLength()));
    return;
  }
  if (!CheckStringLimit(c, start, patch.size())) return;
  Mutation m = c.db.Mutate(e, notice::kSetRange);
  std::memcpy(m.value().MutableBytes(start + patch.size()) + start, patch.data(), patch.size());
  c.reply.Int(static_cast<int64_t>(m.value().StringLength()));
}

// GETRANGE key start end (and SUBSTR): the inclusive slice [start, end] after negative indexes
// are counted from the end and both are clamped into the string.
void GetRangeCommand(CommandContext& c) {
  int64_t start, end;
  if (!ParseInt64(c.args[2], &start) || !ParseInt64(c.args[3], &end)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
  if (e == nullptr) {
    c.reply.Bulk("");
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  const std::string_view s = e->value.View(scratch);
  const int64_t n = static_cast<int64_t>(s.size());
  // Both negative and reversed: empty even though clamping would make them meet at 0.
  if (n == 0 || (start < 0 && end < 0 && start > end)) {
    c.reply.Bulk("");
    return;
  }
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= n) end = n - 1;
  if (start > end) {
    c.reply.Bulk("");
    return;
  }
  c.reply.Bulk(s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// --- LCS ------------------------------------------------------------------------------------

struct LcsOptions {
  bool len = false;
  bool idx = false;
  bool with_match_len = false;
  int64_t min_match_len = 0;
};

// One run of consecutive matched bytes: a[a_start..a_end] == b[b_start..b_end].
struct LcsMatch {
  uint32_t a_start, a_end, b_start, b_end;
};

// Length of the LCS of a and b with two rows of the table (for LEN without IDX).
uint32_t LcsLength(std::string_view a, std::string_view b) {
  std::vector<uint32_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      if (a[i - 1] == b[j - 1]) {
        cur[j] = prev[j - 1] + 1;
      } else {
        cur[j] = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
      }
    }
    prev.swap(cur);
  }
  return prev[b.size()];
}

// Fills `table` ((|a|+1) * (|b|+1) cells, row-major by a) and walks it back. Writes the common
// subsequence to *text and, when `ranges` is non-null, the runs of at least `min_len` bytes
// (every run when min_len is 0), from the strings' ends towards their starts. Returns the LCS
// length.
uint32_t LcsWalk(std::string_view a, std::string_view b, uint32_t* table, std::string* text,
                 std::vector<LcsMatch>* ranges, int64_t min_len) {
  const size_t width = b.size() + 1;
  auto cell = [table, width](size_t i, size_t j) -> uint32_t& { return table[i * width + j]; };
  for (size_t j = 0; j < width; ++j) cell(0, j) = 0;
  for (size_t i = 1; i <= a.size(); ++i) {
    cell(i, 0) = 0;
    for (size_t j = 1; j <= b.size(); ++j) {
      if (a[i - 1] == b[j - 1]) {
        cell(i, j) = cell(i - 1, j - 1) + 1;
      } else {
        const uint32_t up = cell(i - 1, j), left = cell(i, j - 1);
        cell(i, j) = up > left ? up : left;
      }
    }
  }
  const uint32_t total = cell(a.size(), b.size());
  text->assign(total, '\0');
  size_t i = a.size(), j = b.size(), k = total;
  bool open = false;  // inside a run of matches being extended backwards
  LcsMatch run{};
  auto close_run = [&]() {
    if (!open) return;
    open = false;
    const int64_t run_len = static_cast<int64_t>(run.a_end - run.a_start) + 1;
    if (ranges != nullptr && (min_len == 0 || run_len >= min_len)) ranges->push_back(run);
  };
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      (*text)[--k] = a[i - 1];
      --i;
      --j;
      // Consecutive diagonal steps are contiguous in both strings, so a run only grows.
      if (!open) {
        open = true;
        run.a_end = static_cast<uint32_t>(i);
        run.b_end = static_cast<uint32_t>(j);
      }
      run.a_start = static_cast<uint32_t>(i);
      run.b_start = static_cast<uint32_t>(j);
    } else {
      close_run();
      if (cell(i - 1, j) > cell(i, j - 1)) {
        --i;
      } else {
        --j;
      }
    }
  }
  close_run();
  return total;
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]
// Missing keys read as empty strings; a key of another type is an error, checked before the
// options. Reply: the subsequence; with LEN its length; with IDX a map {matches: [[[a_start,
// a_end], [b_start, b_end], (match_len)] ...], len: n} (a flat array of 4 in RESP2).
void LcsCommand(CommandContext& c) {
  const Entry* ea = c.db.LookupRead(c.args[1]);
  const Entry* eb = c.db.LookupRead(c.args[2]);
  if ((ea != nullptr && !ea->value.is_string()) || (eb != nullptr && !eb->value.is_string())) {
    c.reply.Error(err::kLcsNotStrings);
    return;
  }
  LcsOptions opts;
  for (size_t i = 3; i < c.args.size(); ++i) {
    std::string_view opt = c.args[i];
    if (EqualsIgnoreCase(opt, "idx")) {
      opts.idx = true;
    } else if (EqualsIgnoreCase(opt, "len")) {
      opts.len = true;
    } else if (EqualsIgnoreCase(opt, "withmatchlen")) {
      opts.with_match_len = true;
    } else if (EqualsIgnoreCase(opt, "minmatchlen") && i + 1 < c.args.size()) {
      if (!ParseInt64(c.args[++i], &opts.min_match_len)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (opts.min_match_len < 0) opts.min_match_len = 0;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  if (opts.idx && opts.len) {
    c.reply.Error(err::kLcsIdxAndLen);
    return;
  }
  char scratch_a[kMaxInt64Chars + 1], scratch_b[kMaxInt64Chars + 1];
  const std::string_view a = ea != nullptr ? ea->value.View(scratch_a) : std::string_view();
  const std::string_view b = eb != nullptr ? eb->value.View(scratch_b) : std::string_view();
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    c.reply.Error(err::kLcsTooLong);
    return;
  }
  // The cell count cannot overflow 64 bits given the 32-bit lengths above.
  const uint64_t cells = (static_cast<uint64_t>(a.size()) + 1) * (b.size() + 1);
  const uint64_t bytes = cells * sizeof(uint32_t);
  if (bytes > static_cast<uint64_t>(c.server.config().proto_max_bulk_len)) {
    c.reply.Error(err::kLcsOverLimit);
    return;
  }
  if (opts.len && !opts.idx) {
    c.reply.Int(LcsLength(a, b));
    return;
  }
  std::unique_ptr<uint32_t[]> table(new (std::nothrow) uint32_t[cells]);
  if (table == nullptr) {
    c.reply.Error(err::kLcsNoMemory);
    return;
  }
  std::string text;
  std::vector<LcsMatch> ranges;
  const uint32_t total =
      LcsWalk(a, b, table.get(), &text, opts.idx ? &ranges : nullptr, opts.min_match_len);
  if (!opts.idx) {
    c.reply.Bulk(text);
    return;
  }
  c.reply.Map(2);
  c.reply.Bulk("matches");
  c.reply.Array(ranges.size());
  for (const LcsMatch& m : ranges) {
    c.reply.Array(opts.with_match_len ? 3 : 2);
    c.reply.Array(2);
    c.reply.Int(m.a_start);
    c.reply.Int(m.a_end);
    c.reply.Array(2);
    c.reply.Int(m.b_start);
    c.reply.Int(m.b_end);
    if (opts.with_match_len) c.reply.Int(static_cast<int64_t>(m.a_end - m.a_start) + 1);
  }
  c.reply.Bulk("len");
  c.reply.Int(total);
}

}  // namespace

using docs::Integer;
using docs::Key;
using docs::PureToken;
using docs::String;

void RegisterStringRangeCommands(CommandTable& t) {
  t.Register(
      {.name = "append",
       .arity = 3,
       .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclString | kAclFast,
       .doc = {.summary =
                   "Adds bytes to the end of the string at a key, creating the key if needed",
               .since = "2.0.0",
               .group = "string",
               .complexity = "O(1). The amortized time complexity is O(1) assuming the appended "
                             "value is small and "
                             "the already present value is of any size, since the dynamic string "
                             "library used by "
                             "Redis will double the free space available on every reallocation.",
               .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
               .args = {Key("key", 0), String("value")}},
       .handler = AppendCommand});
  t.Register(
      {.name = "setrange",
       .arity = 4,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclString | kAclSlow,
       .doc = {.summary = "Overwrites part of the string at a key, starting at a byte offset",
               .since = "2.2.0",
               .group = "string",
               .complexity =
                   "O(1), not counting the time taken to copy the new string in place. Usually, "
                   "this string is very small so the amortized complexity is O(1). Otherwise, "
                   "complexity is O(M) with M being the length of the value argument.",
               .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
               .args = {Key("key", 0), Integer("offset"), String("value")}},
       .handler = SetRangeCommand});
  t.Register(
      {.name = "getrange",
       .arity = 4,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclString | kAclSlow,
       .doc =
           {.summary = "Returns a byte range of the string stored at a key",
            .since = "2.4.0",
            .group = "string",
            .complexity =
                "O(N) where N is the length of the returned string. The complexity is ultimately "
                "determined by the returned length, but because creating a substring from an "
                "existing "
                "string is very cheap, it can be considered O(1) for small strings.",
            .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
            .args = {Key("key", 0), Integer("start"), Integer("end")}},
       .handler = GetRangeCommand});
  t.Register(
      {.name = "substr",
       .arity = 4,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclString | kAclSlow,
       .doc =
           {.summary =
                "Returns a byte range of the string stored at a key (the old name of GETRANGE)",
            .since = "1.0.0",
            .group = "string",
            .complexity =
                "O(N) where N is the length of the returned string. The complexity is ultimately "
                "determined by the returned length, but because creating a substring from an "
                "existing "
                "string is very cheap, it can be considered O(1) for small strings.",
            .doc_flags = kDocDeprecated,
            .deprecated_since = "2.0.0",
            .replaced_by = "`GETRANGE`",
            .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
            .args = {Key("key", 0), Integer("start"), Integer("end")}},
       .handler = GetRangeCommand});
  t.Register(
      {.name = "lcs",
       .arity = -3,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 2,
       .key_step = 1,
       .acl = kAclRead | kAclString | kAclSlow,
       .doc = {.summary = "Finds the longest common subsequence of the strings at two keys",
               .since = "7.0.0",
               .group = "string",
               .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = 1}},
               .args = {Key("key1", 0), Key("key2", 0), PureToken("LEN").Optional(),
                        PureToken("IDX").Optional(), Integer("len").Token("MINMATCHLEN").Optional(),
                        PureToken("WITHMATCHLEN").Optional()}},
       .handler = LcsCommand});
}

}  // namespace redistp
