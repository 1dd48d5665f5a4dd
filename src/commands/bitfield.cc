// BITFIELD and BITFIELD_RO: integers of 1 to 64 bits stored at arbitrary bit offsets of a string.
//
// Model. The string is the bitmap of bits.cc (bit 0 = most significant bit of byte 0). A field
// "i<n>" or "u<n>" at offset o occupies bits [o, o+n) with its most significant bit first, so it
// may straddle up to nine bytes. Signed fields are two's complement; unsigned ones stop at 63
// bits so every value fits the integer reply. An offset written "#k" means k * n (the k-th field
// of that width).
//
// A call is a list of operations run left to right, each seeing the previous ones' writes:
//   GET type offset            -> the field's value
//   SET type offset value      -> the field's previous value
//   INCRBY type offset incr    -> the field's new value
//   OVERFLOW WRAP|SAT|FAIL     -> no reply; sets the policy for the SET/INCRBY after it
// Out-of-range results wrap modulo 2^n (WRAP, the default), clamp to the type's bounds (SAT) or
// leave the field untouched and reply nil (FAIL). All arguments are validated before anything is
// read or written, so a malformed call has no effect. A call with a SET or INCRBY creates the key
// and grows the string to hold its highest written bit first (even if every write then FAILs);
// GET alone never creates or grows anything and reads zeros past the end.
//
// Redis quirks kept on purpose: an unsigned SET takes its value as a 64-bit two's complement
// pattern (so SET u8 with -5 overflows upwards and SAT gives 255), and "#k" multiplies with
// 64-bit wrap-around before the range check.
#include <cstdint>
#include <cstring>
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

struct FieldType {
  bool is_signed = false;
  int bits = 0;
};

enum class Overflow { kWrap, kSat, kFail };
enum class FieldOpKind { kGet, kSet, kIncrBy };

struct FieldOp {
  FieldOpKind kind;
  FieldType type;
  uint64_t offset;
  int64_t arg;  // SET value or INCRBY increment
  Overflow overflow;
};

inline uint64_t WidthMask(int bits) {
  return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

// "i1".."i64" or "u1".."u63" (lower-case prefix, strict integer width).
bool ParseFieldType(std::string_view arg, FieldType* out) {
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return false;
  int64_t bits;
  if (!ParseInt64(arg.substr(1), &bits)) return false;
  out->is_signed = arg[0] == 'i';
  if (bits < 1 || bits > (out->is_signed ? 64 : 63)) return false;
  out->bits = static_cast<int>(bits);
  return true;
}

// A bit offset, either plain or "#k" (k fields of the type's width). The product wraps in 64
// bits as Redis's does; the result must be non-negative with its byte under proto-max-bulk-len.
bool ParseFieldOffset(std::string_view arg, int bits, uint64_t max_bulk_len, uint64_t* out) {
  bool positional = !arg.empty() && arg[0] == '#';
  int64_t v;
  if (!ParseInt64(positional ? arg.substr(1) : arg, &v)) return false;
  if (positional) {
    v = static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(bits));
  }
  if (v < 0 || (static_cast<uint64_t>(v) >> 3) >= max_bulk_len) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

// The raw bits of the field at `offset` (right-aligned). Bytes at or past `len` read as zero.
uint64_t ReadField(const unsigned char* p, size_t len, uint64_t offset, int bits) {
  const uint64_t first = offset >> 3;
  const int shift = static_cast<int>(offset & 7);
  const int nbytes = (shift + bits + 7) / 8;
  unsigned __int128 acc = 0;
  for (int k = 0; k < nbytes; ++k) {
    uint64_t at = first + static_cast<uint64_t>(k);
    acc = (acc << 8) | (at < len ? p[at] : 0u);
  }
  const int drop = nbytes * 8 - shift - bits;
  return static_cast<uint64_t>(acc >> drop) & WidthMask(bits);
}

// Stores the low `bits` bits of `value` at `offset`; the buffer holds every byte touched.
void WriteField(unsigned char* p, uint64_t offset, int bits, uint64_t value) {
  const uint64_t first = offset >> 3;
  const int shift = static_cast<int>(offset & 7);
  const int nbytes = (shift + bits + 7) / 8;
  unsigned __int128 acc = 0;
  for (int k = 0; k < nbytes; ++k) acc = (acc << 8) | p[first + static_cast<uint64_t>(k)];
  const int drop = nbytes * 8 - shift - bits;
  const unsigned __int128 mask = static_cast<unsigned __int128>(WidthMask(bits)) << drop;
  acc = (acc & ~mask) | (static_cast<unsigned __int128>(value & WidthMask(bits)) << drop);
  for (int k = nbytes - 1; k >= 0; --k) {
    p[first + static_cast<uint64_t>(k)] = static_cast<unsigned char>(acc & 0xFF);
    acc >>= 8;
  }
}

// The field's value as a number: sign-extended for signed types.
int64_t FieldValue(FieldType t, uint64_t raw) {
  if (t.is_signed && t.bits < 64 && (raw >> (t.bits - 1)) & 1) raw |= ~WidthMask(t.bits);
  return static_cast<int64_t>(raw);
}

// Fits the exact result of a SET or INCRBY into the type under the overflow policy. Returns
// false (FAIL) when it does not fit and the policy refuses; otherwise *out is the value to store
// and reply (in range for the type). `is_set` selects Redis's rule for a signed SET: it measures
// the headroom (max - value) in wrapping 64-bit arithmetic, so a value more than 2^63 below the
// type's maximum counts as overflowing upwards (SAT stores the maximum).
bool FitField(FieldType t, __int128 exact, bool is_set, Overflow policy, int64_t* out) {
  __int128 min, max;
  if (t.is_signed) {
    max = (static_cast<__int128>(1) << (t.bits - 1)) - 1;
    min = -max - 1;
  } else {
    max = (static_cast<__int128>(1) << t.bits) - 1;
    min = 0;
  }
  if (exact >= min && exact <= max) {
    *out = static_cast<int64_t>(exact);
    return true;
  }
  bool upwards = exact > max;
  if (is_set && t.is_signed && exact <= max - (static_cast<__int128>(1) << 63)) upwards = true;
  switch (policy) {
    case Overflow::kFail:
      return false;
    case Overflow::kSat:
      *out = static_cast<int64_t>(upwards ? max : min);
      return true;
    case Overflow::kWrap:
      *out = FieldValue(t, static_cast<uint64_t>(exact) & WidthMask(t.bits));
      return true;
  }
  return false;
}

// Parses the operation list of args[2..]. Replies with the error and returns false on the first
// malformed argument. *highest_bit is the last bit any SET/INCRBY touches (valid if has_write).
bool ParseFieldOps(CommandContext& c, std::vector<FieldOp>* ops, bool* has_write,
                   uint64_t* highest_bit) {
  const uint64_t max_bulk = static_cast<uint64_t>(c.server.config().proto_max_bulk_len);
  const size_t argc = c.args.size();
  Overflow policy = Overflow::kWrap;
  *has_write = false;
  *highest_bit = 0;
  for (size_t j = 2; j < argc; ++j) {
    const std::string_view sub = c.args[j];
    const size_t remaining = argc - j - 1;
    FieldOp op{};
    if (EqualsIgnoreCase(sub, "get") && remaining >= 2) {
      op.kind = FieldOpKind::kGet;
    } else if (EqualsIgnoreCase(sub, "set") && remaining >= 3) {
      op.kind = FieldOpKind::kSet;
    } else if (EqualsIgnoreCase(sub, "incrby") && remaining >= 3) {
      op.kind = FieldOpKind::kIncrBy;
    } else if (EqualsIgnoreCase(sub, "overflow") && remaining >= 1) {
      const std::string_view name = c.args[++j];
      if (EqualsIgnoreCase(name, "wrap")) {
        policy = Overflow::kWrap;
      } else if (EqualsIgnoreCase(name, "sat")) {
        policy = Overflow::kSat;
      } else if (EqualsIgnoreCase(name, "fail")) {
        policy = Overflow::kFail;
      } else {
        c.reply.Error(err::kBitfieldOverflowType);
        return false;
      }
      continue;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
    if (!ParseFieldType(c.args[j + 1], &op.type)) {
      c.reply.Error(err::kBitfieldType);
      return false;
    }
    if (!ParseFieldOffset(c.args[j + 2], op.type.bits, max_bulk, &op.offset)) {
      c.reply.Error(err::kBitOffset);
      return false;
    }
    if (op.kind != FieldOpKind::kGet) {
      if (!ParseInt64(c.args[j + 3], &op.arg)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      const uint64_t last = op.offset + static_cast<uint64_t>(op.type.bits) - 1;
      if (!*has_write || last > *highest_bit) *highest_bit = last;
      *has_write = true;
    }
    op.overflow = policy;
    ops->push_back(op);
    j += op.kind == FieldOpKind::kGet ? 2 : 3;
  }
  return true;
}

// Runs the operations over the string p[0, len) and replies one element per operation.
// `writable` is p itself when the list holds writes (and then covers every written bit), or
// nullptr for a GET-only list. Returns the number of writes that changed something: as in
// Redis 7.0, a write counts when it alters the field's bits or when the string had to grow for
// the command (`grew`); a FAILed write never counts.
size_t RunFieldOps(const std::vector<FieldOp>& ops, const unsigned char* p, size_t len,
                   unsigned char* writable, ReplyBuilder& reply, bool grew = false) {
  size_t changes = 0;
  reply.Array(ops.size());
  for (const FieldOp& op : ops) {
    const int64_t old = FieldValue(op.type, ReadField(p, len, op.offset, op.type.bits));
    if (op.kind == FieldOpKind::kGet) {
      reply.Int(old);
      continue;
    }
    __int128 exact;
    if (op.kind == FieldOpKind::kIncrBy) {
      exact = static_cast<__int128>(old) + op.arg;
    } else if (op.type.is_signed) {
      exact = op.arg;
    } else {
      exact = static_cast<__int128>(static_cast<uint64_t>(op.arg));
    }
    int64_t stored;
    if (!FitField(op.type, exact, op.kind == FieldOpKind::kSet, op.overflow, &stored)) {
      reply.Null();
      continue;
    }
    const uint64_t before = ReadField(p, len, op.offset, op.type.bits);
    WriteField(writable, op.offset, op.type.bits, static_cast<uint64_t>(stored));
    if (grew || ReadField(p, len, op.offset, op.type.bits) != before) ++changes;
    reply.Int(op.kind == FieldOpKind::kSet ? old : stored);
  }
  return changes;
}

// BITFIELD / BITFIELD_RO key [GET|SET|INCRBY|OVERFLOW ...]
void BitfieldGeneric(CommandContext& c, bool read_only_command) {
  std::vector<FieldOp> ops;
  bool has_write;
  uint64_t highest_bit;
  if (!ParseFieldOps(c, &ops, &has_write, &highest_bit)) return;
  if (!has_write) {
    Entry* e;
    if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kRead, &e)) return;
    char scratch[kMaxInt64Chars + 1];
    std::string_view bytes = e != nullptr ? e->value.View(scratch) : std::string_view{};
    RunFieldOps(ops, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr,
                c.reply);
    return;
  }
  if (read_only_command) {
    c.reply.Error(err::kBitfieldRoGetOnly);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kString, Access::kWrite, &e)) return;
  const size_t need = static_cast<size_t>(highest_bit >> 3) + 1;
  if (e == nullptr) {
    // A new key is built off-table and added whole, even if every write FAILs; it is announced
    // as "setbit" only if some write did not fail (it grew the string from nothing), as Redis
    // 7.0 does (its creation alone is a "new").
    Value v = Value::RawString("");
    auto* p = reinterpret_cast<unsigned char*>(v.MutableBytes(need));
    const size_t changes = RunFieldOps(ops, p, need, p, c.reply, /*grew=*/true);
    c.db.Add(c.args[1], std::move(v), changes > 0 ? notice::kSetBit : notice::kNone);
    return;
  }
  Mutation m = c.db.Mutate(e, notice::kSetBit);
  const size_t old_len = m.value().StringLength();
  auto* p = reinterpret_cast<unsigned char*>(m.value().MutableBytes(need));
  const size_t len = m.value().StringLength();
  const size_t changes = RunFieldOps(ops, p, len, p, c.reply, len != old_len);
  if (changes == 0) m.Abandon();
}

void BitfieldCommand(CommandContext& c) { BitfieldGeneric(c, false); }
void BitfieldRoCommand(CommandContext& c) { BitfieldGeneric(c, true); }

// BITFIELD only reads when every operation is a complete GET or OVERFLOW; anything else (a SET,
// an INCRBY, or an operation it cannot parse) counts as a write. The row's key spec says
// "variable_flags" and this decides them for GETKEYSANDFLAGS.
uint32_t BitfieldKeyFlags(const std::vector<std::string_view>& args, size_t /*spec_index*/,
                          uint32_t /*declared_flags*/) {
  constexpr uint32_t kRead = kKeyRO | kKeyAccess;
  constexpr uint32_t kWrite = kKeyRW | kKeyAccess | kKeyUpdate;
  for (size_t i = 2; i < args.size(); ++i) {
    size_t remaining = args.size() - i - 1;
    if (EqualsIgnoreCase(args[i], "get") && remaining >= 2) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "overflow") && remaining >= 1) {
      i += 1;
    } else {
      return kWrite;
    }
  }
  return kRead;
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterBitfieldCommands(CommandTable& t) {
  t.Register(
      {.name = "bitfield",
       .arity = -2,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclBitmap | kAclSlow,
       .doc =
           {.summary = "Reads and writes integers of any width at any bit offset of a string",
            .since = "3.2.0",
            .group = "bitmap",
            .complexity = "O(1) for each subcommand specified",
            .key_specs =
                {{.flags = kKeyRW | kKeyAccess | kKeyUpdate | kKeyVariableFlags,
                  .notes =
                      "Read-write when SET or INCRBY appears; a call made only of GETs just reads",
                  .index = 1}},
            .refine_key_flags = BitfieldKeyFlags,
            .args = {Key("key", 0),
                     OneOf(
                         "operation",
                         {Block("encoding_offset", {String("encoding"), Integer("offset")})
                              .Token("GET"),
                          Block("write",
                                {OneOf("wrap_sat_fail",
                                       {PureToken("WRAP"), PureToken("SAT"), PureToken("FAIL")})
                                     .Token("OVERFLOW")
                                     .Optional(),
                                 OneOf("write_operation",
                                       {Block("encoding_offset_value",
                                              {String("encoding"), Integer("offset"),
                                               Integer("value")})
                                            .Token("SET"),
                                        Block("encoding_offset_increment",
                                              {String("encoding"), Integer("offset"),
                                               Integer("increment")})
                                            .Token("INCRBY")})})})
                         .Optional()
                         .Multiple()}},
       .handler = BitfieldCommand});
  t.Register({.name = "bitfield_ro",
              .arity = -2,
              .flags = kCmdReadOnly | kCmdFast,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kAclRead | kAclBitmap | kAclFast,
              .doc = {.summary = "Reads integers of any width at any bit offset of a string",
                      .since = "6.0.0",
                      .group = "bitmap",
                      .complexity = "O(1) for each subcommand specified",
                      .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                      .args = {Key("key", 0),
                               Block("encoding_offset", {String("encoding"), Integer("offset")})
                                   .Token("GET")
                                   .Optional()
                                   .Multiple()
                                   .MultipleToken()}},
              .handler = BitfieldRoCommand});
}

}  // namespace redistp
