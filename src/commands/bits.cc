// Bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP (BITFIELD lives in bitfield.cc).
// BITOP has Redis 8.2's DIFF, DIFF1, ANDOR and ONE beside 2.6's four operations.
//
// Model. A bitmap is an ordinary string value read as a sequence of bits, most significant bit
// first: bit 0 is the high bit of byte 0, bit 8 the high bit of byte 1. Reading past the end
// of the string reads zeros; writing past the end grows the string with zero bytes first. A
// missing key behaves as an empty string, so it reads as an endless run of zeros.
//
// Writers edit the value in place inside a Database::Mutate handle, through
// Value::MutableBytes (which also turns int and short encodings into a raw heap string, as
// Redis "unshares" the object); the handle's end tells the database. A bitmap created from
// nothing enters through Add(). Readers take a view of
// the bytes (int-encoded values are formatted into a scratch buffer first).
//
// Ranges. BITCOUNT and BITPOS take an inclusive [start, end] pair counted in bytes, or in bits
// with the BIT modifier; negative indexes count from the end and out-of-range ends are clamped,
// the way GETRANGE treats them. Internally every range is turned into an inclusive bit range
// and the work is done a 64-bit word at a time, with the partial first and last bytes masked.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "commands/lookup.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

inline uint64_t LoadWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

inline void StoreWord(unsigned char* p, uint64_t w) { std::memcpy(p, &w, sizeof(w)); }

// Number of set bits in p[0, n). Byte order is irrelevant to a population count, so the bytes
// are summed as native 64-bit words, four independent accumulators deep. target_clones picks
// the POPCNT instruction at load time when the CPU has it.
[[gnu::target_clones("popcnt", "default")]] uint64_t CountOnes(const unsigned char* p, size_t n) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i)));
    b += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 8)));
    c += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 16)));
    d += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) a += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i)));
  for (; i < n; ++i) b += static_cast<uint64_t>(__builtin_popcount(p[i]));
  return a + b + c + d;
}

// Bits `lo`..`hi` (0 = most significant) of a byte, as a mask.
inline unsigned BitsMask(int lo, int hi) { return (0xFFu >> lo) & (0xFFu << (7 - hi)) & 0xFFu; }

// Index (0 = most significant) of the first bit equal to `bit` among the bits of `byte` selected
// by `mask`, or -1.
inline int FirstBitInByte(unsigned byte, unsigned mask, int bit) {
  unsigned x = (bit ? byte : ~byte) & mask & 0xFFu;
  if (x == 0) return -1;
  return __builtin_clz(x) - 24;
}

// Index of the first bit equal to `bit` in p[0, n), or -1. Whole words of the opposite value are
// skipped eight bytes at a time.
int64_t FindBit(const unsigned char* p, size_t n, int bit) {
  const uint64_t skip_word = bit ? 0 : ~uint64_t{0};
  const unsigned skip_byte = bit ? 0 : 0xFF;
  size_t i = 0;
  while (i + 8 <= n && LoadWord(p + i) == skip_word) i += 8;
  for (; i < n; ++i) {
    if (p[i] != skip_byte) {
      return static_cast<int64_t>(i * 8) + FirstBitInByte(p[i], 0xFF, bit);
    }
  }
  return -1;
}

// First bit equal to `bit` in the inclusive bit range [first, last] of p (last < 8 * size), or
// -1 when the range holds none.
int64_t FindBitInRange(const unsigned char* p, uint64_t first, uint64_t last, int bit) {
  uint64_t first_byte = first >> 3, last_byte = last >> 3;
  int first_off = static_cast<int>(first & 7), last_off = static_cast<int>(last & 7);
  if (first_byte == last_byte) {
    int at = FirstBitInByte(p[first_byte], BitsMask(first_off, last_off), bit);
    return at < 0 ? -1 : static_cast<int64_t>(first_byte * 8) + at;
  }
  int at = FirstBitInByte(p[first_byte], BitsMask(first_off, 7), bit);
  if (at >= 0) return static_cast<int64_t>(first_byte * 8) + at;
  int64_t mid = FindBit(p + first_byte + 1, last_byte - first_byte - 1, bit);
  if (mid >= 0) return static_cast<int64_t>((first_byte + 1) * 8) + mid;
  at = FirstBitInByte(p[last_byte], BitsMask(0, last_off), bit);
  return at < 0 ? -1 : static_cast<int64_t>(last_byte * 8) + at;
}

// Set bits in the inclusive bit range [first, last] of p (last < 8 * size).
uint64_t CountOnesInRange(const unsigned char* p, uint64_t first, uint64_t last) {
  uint64_t first_byte = first >> 3, last_byte = last >> 3;
  uint64_t n = CountOnes(p + first_byte, last_byte - first_byte + 1);
  unsigned before = p[first_byte] & ~(0xFFu >> (first & 7)) & 0xFFu;
  unsigned after = p[last_byte] & (0xFFu >> ((last & 7) + 1));
  return n - static_cast<uint64_t>(__builtin_popcount(before)) -
         static_cast<uint64_t>(__builtin_popcount(after));
}

// SETBIT/GETBIT offsets: a non-negative integer whose byte stays under proto-max-bulk-len.
bool ParseBitOffset(std::string_view arg, uint64_t max_bulk_len, uint64_t* out) {
  int64_t v;
  if (!ParseInt64(arg, &v) || v < 0 || (static_cast<uint64_t>(v) >> 3) >= max_bulk_len) {
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

uint64_t MaxBulkLen(CommandContext& c) {
  return static_cast<uint64_t>(c.server.config().proto_max_bulk_len);
}

// Looks up a key for reading as a bitmap. Returns false after replying WRONGTYPE; otherwise
// *bytes is the value's bytes (empty for a missing key, *found false).
bool ReadBitmap(CommandContext& c, std::string_view key, char* scratch, std::string_view* bytes,
                bool* found) {
  Entry* e;
  *bytes = {};
  if (!LookupTyped(c, key, ValueType::kString, Access::kRead, &e)) return false;
  *found = e != nullptr;
  if (e == nullptr) return true;
  *bytes = e->value.View(scratch);
  return true;
}

inline const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// Parses "BYTE" or "BIT"; false for anything else.
bool ParseRangeUnit(std::string_view arg, bool* in_bits) {
  if (EqualsIgnoreCase(arg, "bit")) {
    *in_bits = true;
  } else if (EqualsIgnoreCase(arg, "byte")) {
    *in_bits = false;
  } else {
    return false;
  }
  return true;
}

// Turns a user range over `total` units into clamped indexes; false when it selects nothing.
bool ClampRange(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) *start += total;
  if (*end < 0) *end += total;
  if (*start < 0) *start = 0;
  if (*end < 0) *end = 0;
  if (*end >= total) *end = total - 1;
  return *start <= *end;
}

// SETBIT key offset value -> the bit's previous value.
void SetBitCommand(CommandContext& c) {
  uint64_t offset;
  if (!ParseBitOffset(c.args[2], MaxBulkLen(c), &offset)) {
    c.reply.Error(err::kBitOffset);
    return;
  }
  int64_t bit;
  if (!ParseInt64(c.args[3], &bit) || (bit != 0 && bit != 1)) {
    c.reply.Error(err::kBitValue);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  const size_t byte = static_cast<size_t>(offset >> 3);
  const unsigned mask = 0x80u >> (offset & 7);
  if (e == nullptr) {
    Value v = Value::RawString("");
    char* p = v.MutableBytes(byte + 1);
    if (bit) p[byte] = static_cast<char>(mask);
    c.db.Add(c.args[1], std::move(v), notice::kSetBit);
    c.reply.Int(0);
    return;
  }
  const bool grows = byte + 1 > e->value.StringLength();
  Mutation m = c.db.Mutate(e, notice::kSetBit);
  auto* p = reinterpret_cast<unsigned char*>(m.value().MutableBytes(byte + 1));
  const int old = (p[byte] & mask) ? 1 : 0;
  p[byte] = static_cast<unsigned char>(bit ? (p[byte] | mask) : (p[byte] & ~mask));
  // As in Redis 7.0, a SETBIT that neither grows the string nor flips the bit is no change:
  // no key event, so WATCH, notifications and the dirty counter do not see it.
  if (!grows && old == bit) m.Abandon();
  c.reply.Int(old);
}

// GETBIT key offset -> 0 or 1; bits past the end (and of missing keys) read as 0.
void GetBitCommand(CommandContext& c) {
  uint64_t offset;
  if (!ParseBitOffset(c.args[2], MaxBulkLen(c), &offset)) {
    c.reply.Error(err::kBitOffset);
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  std::string_view bytes;
  bool found;
  if (!ReadBitmap(c, c.args[1], scratch, &bytes, &found)) return;
  const uint64_t byte = offset >> 3;
  if (byte >= bytes.size()) {
    c.reply.Int(0);
    return;
  }
  c.reply.Int((Bytes(bytes)[byte] & (0x80u >> (offset & 7))) ? 1 : 0);
}

// BITCOUNT key [start end [BYTE|BIT]]. As in Redis 7.0 the key is looked up before the range
// is parsed, so a missing key answers 0 even to a malformed range.
void BitCountCommand(CommandContext& c) {
  char scratch[kMaxInt64Chars + 1];
  std::string_view bytes;
  bool found;
  if (!ReadBitmap(c, c.args[1], scratch, &bytes, &found)) return;
  if (!found) {
    c.reply.Int(0);
    return;
  }
  const size_t argc = c.args.size();
  if (argc == 2) {
    c.reply.Int(static_cast<int64_t>(CountOnes(Bytes(bytes), bytes.size())));
    return;
  }
  if (argc != 4 && argc != 5) {
    c.reply.Error(err::kSyntax);
    return;
  }
  int64_t start, end;
  if (!ParseInt64(c.args[2], &start) || !ParseInt64(c.args[3], &end)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  // Both ends negative and reversed: empty even though clamping would make them meet at 0.
  // Redis answers this before it reads the unit, so a bad unit goes unnoticed here.
  if (start < 0 && end < 0 && start > end) {
    c.reply.Int(0);
    return;
  }
  bool in_bits = false;
  if (argc == 5 && !ParseRangeUnit(c.args[4], &in_bits)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  const int64_t len = static_cast<int64_t>(bytes.size());
  if (!ClampRange(in_bits ? len * 8 : len, &start, &end)) {
    c.reply.Int(0);
    return;
  }
  uint64_t first = static_cast<uint64_t>(start), last = static_cast<uint64_t>(end);
  if (!in_bits) {
    first *= 8;
    last = last * 8 + 7;
  }
  c.reply.Int(static_cast<int64_t>(CountOnesInRange(Bytes(bytes), first, last)));
}

// BITPOS key bit [start [end [BYTE|BIT]]] -> position of the first `bit`, or -1.
// Without an explicit end the string counts as followed by zeros, so a search for a clear bit
// in an all-ones string answers the first bit past the string; with an end it answers -1.
void BitPosCommand(CommandContext& c) {
  int64_t bit;
  if (!ParseInt64(c.args[2], &bit)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (bit != 0 && bit != 1) {
    c.reply.Error(err::kBitArgument);
    return;
  }
  char scratch[kMaxInt64Chars + 1];
  std::string_view bytes;
  bool found;
  if (!ReadBitmap(c, c.args[1], scratch, &bytes, &found)) return;
  if (!found) {
    // A missing key is an endless run of zeros.
    c.reply.Int(bit ? -1 : 0);
    return;
  }
  const size_t argc = c.args.size();
  if (argc > 6) {
    c.reply.Error(err::kSyntax);
    return;
  }
  const int64_t len = static_cast<int64_t>(bytes.size());
  int64_t start = 0, end = -1;
  bool in_bits = false, end_given = false;
  if (argc >= 4 && !ParseInt64(c.args[3], &start)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  // Redis checks the unit before parsing the end.
  if (argc == 6 && !ParseRangeUnit(c.args[5], &in_bits)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (argc >= 5) {
    if (!ParseInt64(c.args[4], &end)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    end_given = true;
  }
  if (!ClampRange(in_bits ? len * 8 : len, &start, &end)) {
    c.reply.Int(-1);
    return;
  }
  uint64_t first = static_cast<uint64_t>(start), last = static_cast<uint64_t>(end);
  if (!in_bits) {
    first *= 8;
    last = last * 8 + 7;
  }
  int64_t pos = FindBitInRange(Bytes(bytes), first, last, static_cast<int>(bit));
  if (pos < 0 && bit == 0 && !end_given) pos = static_cast<int64_t>(last + 1);
  c.reply.Int(pos);
}

// The operations. The first four are Redis 2.6's; the last four came with Redis 8.2 and read
// their first source X against the others Y1..Yn: DIFF is X and none of the Y's, DIFF1 one or
// more Y's but not X, ANDOR X and one or more Y's, ONE the bits set in exactly one source.
enum class BitOp { kAnd, kOr, kXor, kNot, kDiff, kDiff1, kAndOr, kOne };

struct BitOpName {
  std::string_view word;  // upper case, as the 8.2 error sentences print it
  BitOp op;
};
constexpr BitOpName kBitOpNames[] = {
    {"AND", BitOp::kAnd},     {"OR", BitOp::kOr},     {"XOR", BitOp::kXor},
    {"NOT", BitOp::kNot},     {"DIFF", BitOp::kDiff}, {"DIFF1", BitOp::kDiff1},
    {"ANDOR", BitOp::kAndOr}, {"ONE", BitOp::kOne},
};

// dst[i] = dst[i] op src[i] for i < n, a 64-bit word at a time where it can. kNot is
// dst[i] = ~src[i]; kDiff is dst[i] = src[i] & ~dst[i] and kDiff1 dst[i] = ~src[i] & dst[i]
// (dst holds the union of the Y's, src is X); kAndOr is kAnd. kOne has its own routine.
void CombineBytes(BitOp op, unsigned char* dst, const unsigned char* src, size_t n) {
  size_t i = 0;
  switch (op) {
    case BitOp::kAnd:
    case BitOp::kAndOr:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) & LoadWord(src + i));
      for (; i < n; ++i) dst[i] &= src[i];
      break;
    case BitOp::kOr:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) | LoadWord(src + i));
      for (; i < n; ++i) dst[i] |= src[i];
      break;
    case BitOp::kXor:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) ^ LoadWord(src + i));
      for (; i < n; ++i) dst[i] ^= src[i];
      break;
    case BitOp::kNot:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, ~LoadWord(src + i));
      for (; i < n; ++i) dst[i] = static_cast<unsigned char>(~src[i]);
      break;
    case BitOp::kDiff:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(src + i) & ~LoadWord(dst + i));
      for (; i < n; ++i) dst[i] = static_cast<unsigned char>(src[i] & ~dst[i]);
      break;
    case BitOp::kDiff1:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, ~LoadWord(src + i) & LoadWord(dst + i));
      for (; i < n; ++i) dst[i] = static_cast<unsigned char>(~src[i] & dst[i]);
      break;
    case BitOp::kOne:
      break;  // not a pairwise step: see CombineOne
  }
}

// ONE: out gets the bits set in exactly one of `srcs` (out is max_len zero bytes on entry).
// `once` (out itself) gathers the bits seen at least once, `twice` those seen at least twice;
// the answer is once & ~twice. The work goes a block at a time, every source over the block
// before the next, so `twice` is a small stack buffer and the block stays in the L1 cache. A
// source shorter than out adds nothing past its end.
void CombineOne(unsigned char* out, const std::vector<std::string_view>& srcs, size_t max_len) {
  constexpr size_t kBlock = 4096;  // a multiple of 8
  alignas(8) unsigned char twice[kBlock];
  for (size_t base = 0; base < max_len; base += kBlock) {
    const size_t block = std::min(kBlock, max_len - base);
    std::memset(twice, 0, block);
    unsigned char* once = out + base;
    for (std::string_view sv : srcs) {
      if (sv.size() <= base) continue;
      const unsigned char* s = reinterpret_cast<const unsigned char*>(sv.data()) + base;
      const size_t n = std::min(block, sv.size() - base);
      size_t i = 0;
      for (; i + 8 <= n; i += 8) {
        const uint64_t w = LoadWord(s + i), seen = LoadWord(once + i);
        StoreWord(twice + i, LoadWord(twice + i) | (seen & w));
        StoreWord(once + i, seen | w);
      }
      for (; i < n; ++i) {
        twice[i] |= static_cast<unsigned char>(once[i] & s[i]);
        once[i] |= s[i];
      }
    }
    size_t i = 0;
    for (; i + 8 <= block; i += 8) StoreWord(once + i, LoadWord(once + i) & ~LoadWord(twice + i));
    for (; i < block; ++i) once[i] = static_cast<unsigned char>(once[i] & ~twice[i]);
  }
}

// BITOP AND|OR|XOR|NOT|DIFF|DIFF1|ANDOR|ONE destkey srckey [srckey ...] -> length of the result.
// Sources shorter than the longest are zero-padded (missing keys are empty). NOT takes exactly
// one source, DIFF, DIFF1 and ANDOR at least two; those checks come before any key is read, the
// WRONGTYPE of a source before anything is written. The result is stored as a raw string
// replacing the destination (TTL dropped); an empty result deletes it.
void BitOpCommand(CommandContext& c) {
  std::string_view name = c.args[1];
  const BitOpName* found_op = nullptr;
  for (const BitOpName& n : kBitOpNames) {
    if (EqualsIgnoreCase(name, n.word)) found_op = &n;
  }
  if (found_op == nullptr) {
    c.reply.Error(err::kSyntax);
    return;
  }
  const BitOp op = found_op->op;
  const size_t nsrc = c.args.size() - 3;
  if (op == BitOp::kNot && nsrc != 1) {
    c.reply.Error(err::kBitOpNotSingle);
    return;
  }
  if ((op == BitOp::kDiff || op == BitOp::kDiff1 || op == BitOp::kAndOr) && nsrc < 2) {
    c.reply.Error(err::BitOpTwoSources(found_op->word));
    return;
  }
  // One scratch buffer per source: int-encoded sources are formatted into them.
  std::vector<std::array<char, kMaxInt64Chars + 1>> scratch(nsrc);
  std::vector<std::string_view> srcs(nsrc);
  size_t max_len = 0;
  for (size_t i = 0; i < nsrc; ++i) {
    bool found;
    if (!ReadBitmap(c, c.args[3 + i], scratch[i].data(), &srcs[i], &found)) return;
    if (srcs[i].size() > max_len) max_len = srcs[i].size();
  }
  std::string_view dest = c.args[2];
  // Redis 8.2's operations reach the AOF and replicas as the SET (or DEL) of their result, so a
  // Redis 7.0 replica, or 7.0 reading our AOF, replays them (it knows only AND, OR, XOR, NOT).
  const bool newer_op =
      op == BitOp::kDiff || op == BitOp::kDiff1 || op == BitOp::kAndOr || op == BitOp::kOne;
  if (max_len == 0) {
    if (Entry* e = c.db.LookupWrite(dest)) c.db.Remove(e);
    if (newer_op) c.ReplicateAs({"DEL", dest});
    c.reply.Int(0);
    return;
  }
  // The result is built in a fresh value (zero-filled by MutableBytes), so a destination that
  // is also a source is read intact until the final Upsert replaces it.
  Value result = Value::RawString("");
  auto* out = reinterpret_cast<unsigned char*>(result.MutableBytes(max_len));
  switch (op) {
    case BitOp::kNot:
      CombineBytes(op, out, Bytes(srcs[0]), max_len);
      break;
    case BitOp::kAnd:
    case BitOp::kOr:
    case BitOp::kXor:
      if (!srcs[0].empty()) std::memcpy(out, srcs[0].data(), srcs[0].size());
      for (size_t i = 1; i < nsrc; ++i) {
        CombineBytes(op, out, Bytes(srcs[i]), srcs[i].size());
        // AND with the zero padding of a shorter source clears the tail.
        if (op == BitOp::kAnd) std::memset(out + srcs[i].size(), 0, max_len - srcs[i].size());
      }
      if (op == BitOp::kAnd && srcs[0].size() < max_len) {
        std::memset(out + srcs[0].size(), 0, max_len - srcs[0].size());
      }
      break;
    case BitOp::kDiff:
    case BitOp::kDiff1:
    case BitOp::kAndOr: {
      // The union of Y1..Yn first, then X against it. Past X's end X reads as zeros: DIFF and
      // ANDOR are zero there, DIFF1 is the union itself.
      for (size_t i = 1; i < nsrc; ++i)
        CombineBytes(BitOp::kOr, out, Bytes(srcs[i]), srcs[i].size());
      const size_t x_len = srcs[0].size();
      CombineBytes(op, out, Bytes(srcs[0]), x_len);
      if (op != BitOp::kDiff1) std::memset(out + x_len, 0, max_len - x_len);
      break;
    }
    case BitOp::kOne:
      CombineOne(out, srcs, max_len);
      break;
  }
  if (newer_op) {
    c.ReplicateAs({"SET", dest, std::string_view(reinterpret_cast<const char*>(out), max_len)});
  }
  c.db.Upsert(dest, std::move(result), false, notice::kSet);
  c.reply.Int(static_cast<int64_t>(max_len));
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;

void RegisterBitCommands(CommandTable& t) {
  t.Register({.name = "setbit",
              .arity = 4,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclWrite | kAclBitmap | kAclSlow,
              .doc = {.summary = "Sets or clears one bit of the string at a key",
                      .since = "2.2.0",
                      .group = "bitmap",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
                      .args = {Key("key", 0), Integer("offset"), Integer("value")}},
              .handler = SetBitCommand});
  t.Register({.name = "getbit",
              .arity = 3,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclBitmap | kAclFast,
              .doc = {.summary = "Returns one bit of the string at a key",
                      .since = "2.2.0",
                      .group = "bitmap",
                      .complexity = "O(1)",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0), Integer("offset")}},
              .handler = GetBitCommand});
  t.Register(
      {.name = "bitcount",
       .arity = -2,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclBitmap | kAclSlow,
       .doc = {.summary = "Counts the set bits of a string, optionally within a range",
               .since = "2.6.0",
               .group = "bitmap",
               .complexity = "O(N)",
               .history = {{"7.0.0",
                            "The range may be given in bits with the new `BYTE`/`BIT` unit."}},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0),
                        Block("index", {Integer("start"), Integer("end"),
                                        OneOf("index_unit", {PureToken("BYTE"), PureToken("BIT")})
                                            .Since("7.0.0")
                                            .Optional()})
                            .Optional()}},
       .handler = BitCountCommand});
  t.Register(
      {.name = "bitpos",
       .arity = -3,
       .flags = kCmdReadOnly,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclRead | kAclBitmap | kAclSlow,
       .doc = {.summary = "Finds the first set or clear bit of a string, optionally within a range",
               .since = "2.8.7",
               .group = "bitmap",
               .complexity = "O(N)",
               .history = {{"7.0.0",
                            "The range may be given in bits with the new `BYTE`/`BIT` unit."}},
               .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
               .args = {Key("key", 0), Integer("bit"),
                        Block("index", {Integer("start"),
                                        Block("end_index", {Integer("end"),
                                                            OneOf("index_unit", {PureToken("BYTE"),
                                                                                 PureToken("BIT")})
                                                                .Since("7.0.0")
                                                                .Optional()})
                                            .Optional()})
                            .Optional()}},
       .handler = BitPosCommand});
  t.Register(
      {.name = "bitop",
       .arity = -4,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 2,
       .last_key = -1,
       .key_step = 1,
       .acl = kAclWrite | kAclBitmap | kAclSlow,
       .doc = {.summary = "Combines strings bit by bit (AND, OR, XOR, NOT, DIFF, DIFF1, ANDOR, "
                          "ONE) into a destination key",
               .since = "2.6.0",
               .group = "bitmap",
               .complexity = "O(N)",
               .history = {{"8.2.0", "The DIFF, DIFF1, ANDOR and ONE operations were added."}},
               .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 2},
                             {.flags = kKeyRO | kKeyAccess, .index = 3, .last_key = -1}},
               .args = {OneOf(
                            "operation",
                            {PureToken("AND"), PureToken("OR"), PureToken("XOR"), PureToken("NOT"),
                             PureToken("DIFF").Since("8.2.0"), PureToken("DIFF1").Since("8.2.0"),
                             PureToken("ANDOR").Since("8.2.0"), PureToken("ONE").Since("8.2.0")}),
                        Key("destkey", 0), Key("key", 1).Multiple()}},
       .handler = BitOpCommand});
}

}  // namespace redistp
