// The `struct` library of Redis scripts: struct.pack(fmt, ...) -> string, struct.unpack(fmt,
// data [, start]) -> values..., next position, and struct.size(fmt) -> bytes. It is the library
// Roberto Ierusalimschy wrote for Lua 5.1, in the copy Redis 7.0 ships; this file is written
// from its documented format language and from what Debian's redis-server 7.0.15 answers.
//
// The format language. A format is read left to right, one option character at a time, some
// followed by a decimal count; reading stops at the end or at an embedded NUL.
//   `<` `>`    little / big endian from here on (the start is native: little on our targets);
//   `!n`       largest alignment n (a power of 2; `!` alone is the native maximum, 8); the
//              start is 1, i.e. packed with no padding;
//   ` `        ignored;
//   `x`        one zero byte (unpack skips a byte);
//   `b` `B`    signed / unsigned char,  `h` `H` short (2),  `l` `L` long (8),  `T` size_t (8),
//   `i` `I`    int of n bytes (`in`, n <= 32, default 4), signed / unsigned;
//   `f` `d`    float (4), double (8), in the chosen byte order;
//   `s`        a zero-terminated string;
//   `cn`       a string of exactly n bytes (default 1). `c0` packs the whole argument; unpack
//              takes its length from the value just unpacked, which it then drops.
// Redis's copy knows no `=`; it is an invalid option like any other character.
//
// Alignment. Before an option of size s (not `c`, not zero-sized) the offset is padded to a
// multiple of min(s, max alignment), computed as (a - (offset & (a-1))) & (a-1): exact for
// powers of 2, and for odd sizes like `i3` the same odd padding Redis gives. unpack aligns the
// absolute position in the data, not one relative to `start`.
//
// Numbers. Lua numbers are doubles. Packing converts a double to a 64-bit word as Redis's
// compiled C does on x86-64 (truncation; NaN and out-of-range values give the bit patterns of
// cvttsd2si, see WordFromNumber), writes its low n bytes and zeros beyond 8. Unpacking keeps
// the 8 least significant bytes and sign-extends from bit (8n - 1) mod 64 (x86 masks a shift
// count to 6 bits; that is what sizes over 8 give in Redis). Unpacked integers are doubles,
// exact up to 2^53.
//
// Errors. Every failure raises a Lua error (luaL_error / luaL_argerror) with Redis's text,
// including its argument numbers: pack's "string too short" names the argument after the
// string, and a missing pack argument is "got nil" rather than "got no value", since pack keeps
// a nil on the stack after its arguments. Lua errors longjmp through these functions, so they
// hold no C++ object with a destructor: output goes to a luaL_Buffer, owned by the Lua stack.
//
// Results per unpack are bounded by the Lua C stack (LUAI_MAXCSTACK): each value first asks for
// two slots, and the failure is Redis's "stack overflow (too many results)".
extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "scripting/lua_libs.h"

namespace redistp {
namespace {

constexpr int kMaxIntegerSize = 32;  // largest n in `in` / `In`
constexpr uint64_t kTopBit = uint64_t{1} << 63;

// The strictest alignment a C compiler gives a scalar: `!` without a count.
union NativeScalar {
  double d;
  void* p;
  long l;
  lua_Number n;
};
constexpr int kNativeMaxAlign = static_cast<int>(alignof(NativeScalar));

enum class ByteOrder { kLittle, kBig };
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the native order below is little");
constexpr ByteOrder kNativeOrder = ByteOrder::kLittle;

// The state a format walk carries from option to option.
struct FormatState {
  ByteOrder order = kNativeOrder;
  int max_align = 1;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsAsciiAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool IsPowerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Reads the decimal count at *fmt (advancing past it), or returns `absent` when none follows.
// A count above INT_MAX raises "integral size overflow".
int ReadCount(lua_State* L, const char** fmt, int absent) {
  if (!IsDigit(**fmt)) return absent;
  int count = 0;
  while (IsDigit(**fmt)) {
    int digit = **fmt - '0';
    if (count > INT_MAX / 10 || count * 10 > INT_MAX - digit) {
      luaL_error(L, "integral size overflow");
    }
    count = count * 10 + digit;
    (*fmt)++;
  }
  return count;
}

// The size in bytes of data option `opt`, reading its count from *fmt where it takes one.
// Options of no fixed size (`s`) and control options are 0; `c0` is 0 too.
size_t OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'b':
    case 'B':
    case 'x':
      return 1;
    case 'h':
    case 'H':
      return sizeof(short);
    case 'l':
    case 'L':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'c':
      return static_cast<size_t>(ReadCount(L, fmt, 1));
    case 'i':
    case 'I': {
      int n = ReadCount(L, fmt, static_cast<int>(sizeof(int)));
      if (n > kMaxIntegerSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", n, kMaxIntegerSize);
      }
      return static_cast<size_t>(n);
    }
    default:
      return 0;
  }
}

// Zero bytes to insert at `offset` before an option of `size` bytes (see the essay).
size_t PaddingBefore(size_t offset, const FormatState& state, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  size_t align = size;
  if (align > static_cast<size_t>(state.max_align)) align = static_cast<size_t>(state.max_align);
  return (align - (offset & (align - 1))) & (align - 1);
}

// Applies a control option (` `, `<`, `>`, `!n`) to `state`; anything else is argument 1's
// "invalid format option".
void ApplyControl(lua_State* L, char opt, const char** fmt, FormatState* state) {
  switch (opt) {
    case ' ':
      return;
    case '<':
      state->order = ByteOrder::kLittle;
      return;
    case '>':
      state->order = ByteOrder::kBig;
      return;
    case '!': {
      int align = ReadCount(L, fmt, kNativeMaxAlign);
      if (!IsPowerOfTwo(align)) luaL_error(L, "alignment %d is not a power of 2", align);
      state->max_align = align;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// x86-64's cvttsd2si: truncation toward zero, and 0x8000000000000000 for NaN and for values
// outside the int64 range.
uint64_t TruncateLikeX86(double n) {
  if (std::isnan(n) || n >= 0x1p63 || n < -0x1p63) return kTopBit;
  return static_cast<uint64_t>(static_cast<int64_t>(n));
}

// A double converted to a 64-bit word the way Redis's compiled struct does it (a C cast, which
// gcc emits as cvttsd2si, with 2^63 subtracted and the top bit put back for values >= 2^63):
// exact for integers in range, wrapped for negatives, and fixed patterns for NaN, infinities
// and values beyond 64 bits. Used for packed integers and for the `c0` length.
uint64_t WordFromNumber(double n) {
  if (n >= 0x1p63) return TruncateLikeX86(n - 0x1p63) ^ kTopBit;
  return TruncateLikeX86(n);
}

// Appends the low `size` bytes of `word` in `order`; bytes beyond the eighth are zero.
void PutInteger(luaL_Buffer* b, uint64_t word, ByteOrder order, size_t size) {
  char bytes[kMaxIntegerSize];
  for (size_t i = 0; i < size; i++) {
    size_t at = order == ByteOrder::kLittle ? i : size - 1 - i;
    bytes[at] = static_cast<char>(word & 0xff);
    word >>= 8;  // zero once all 8 bytes are out
  }
  luaL_addlstring(b, bytes, size);
}

// Reads a `size`-byte integer at `p` (see the essay for sizes over 8).
lua_Number GetInteger(const char* p, ByteOrder order, bool is_signed, size_t size) {
  uint64_t word = 0;
  for (size_t i = 0; i < size; i++) {  // most significant byte first
    size_t at = order == ByteOrder::kBig ? i : size - 1 - i;
    word = (word << 8) | static_cast<unsigned char>(p[at]);
  }
  if (!is_signed) return static_cast<lua_Number>(word);
  uint64_t sign_mask = ~uint64_t{0} << ((size * 8 + 63) & 63);  // (8*size - 1) mod 64
  if (word & sign_mask) word |= sign_mask;
  return static_cast<lua_Number>(static_cast<int64_t>(word));
}

// Copies `size` bytes between native order and `order` (a float or double's bytes).
void OrderBytes(char* bytes, size_t size, ByteOrder order) {
  if (order == kNativeOrder) return;
  for (size_t i = 0, j = size - 1; i < j; i++, j--) {
    char t = bytes[i];
    bytes[i] = bytes[j];
    bytes[j] = t;
  }
}

bool IsIntegerOption(char opt) {
  switch (opt) {
    case 'b':
    case 'B':
    case 'h':
    case 'H':
    case 'l':
    case 'L':
    case 'T':
    case 'i':
    case 'I':
      return true;
    default:
      return false;
  }
}

// struct.pack(fmt, v1, v2, ...): the values laid out by fmt, as one string. Integers and floats
// take numbers (or numeric strings), `s` and `c` take strings (or numbers); extra values are
// ignored.
int StructPack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  FormatState state;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // after the arguments: a missing value reads as nil, as in Redis
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    size_t padding = PaddingBefore(total, state, opt, size);
    total += padding;
    for (size_t i = 0; i < padding; i++) luaL_addchar(&b, '\0');
    if (IsIntegerOption(opt)) {
      PutInteger(&b, WordFromNumber(luaL_checknumber(L, arg++)), state.order, size);
    } else if (opt == 'x') {
      luaL_addchar(&b, '\0');
    } else if (opt == 'f') {
      float f = static_cast<float>(luaL_checknumber(L, arg++));
      char bytes[sizeof f];
      std::memcpy(bytes, &f, sizeof f);
      OrderBytes(bytes, sizeof f, state.order);
      luaL_addlstring(&b, bytes, sizeof f);
    } else if (opt == 'd') {
      double d = luaL_checknumber(L, arg++);
      char bytes[sizeof d];
      std::memcpy(bytes, &d, sizeof d);
      OrderBytes(bytes, sizeof d, state.order);
      luaL_addlstring(&b, bytes, sizeof d);
    } else if (opt == 'c' || opt == 's') {
      size_t len;
      const char* s = luaL_checklstring(L, arg++, &len);
      if (size == 0) size = len;
      // Redis names the argument after the string here (its counter has moved on).
      luaL_argcheck(L, len >= size, arg, "string too short");
      luaL_addlstring(&b, s, size);
      if (opt == 's') {
        luaL_addchar(&b, '\0');
        size++;
      }
    } else {
      ApplyControl(L, opt, &fmt, &state);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

// struct.unpack(fmt, data [, start]): the values fmt describes in `data` from byte `start`
// (1-based, default 1), then the position just after them. Integers come back as numbers
// (doubles), `s` and `c` as strings, `x` gives nothing.
int StructUnpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t data_len;
  const char* data = luaL_checklstring(L, 2, &data_len);
  lua_Integer start = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, start != 0, 3, "offset must be 1 or greater");
  // A negative start wraps as Redis's size_t does: any data option is then out of range.
  size_t pos = static_cast<size_t>(start) - 1;
  FormatState state;
  int results = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += PaddingBefore(pos, state, opt, size);
    luaL_argcheck(L, size <= data_len && pos <= data_len - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    if (IsIntegerOption(opt)) {
      bool is_signed = opt >= 'a' && opt <= 'z';
      lua_pushnumber(L, GetInteger(data + pos, state.order, is_signed, size));
      results++;
    } else if (opt == 'x') {
      // padding: nothing to return
    } else if (opt == 'f') {
      char bytes[sizeof(float)];
      std::memcpy(bytes, data + pos, sizeof bytes);
      OrderBytes(bytes, sizeof bytes, state.order);
      float f;
      std::memcpy(&f, bytes, sizeof f);
      lua_pushnumber(L, f);
      results++;
    } else if (opt == 'd') {
      char bytes[sizeof(double)];
      std::memcpy(bytes, data + pos, sizeof bytes);
      OrderBytes(bytes, sizeof bytes, state.order);
      double d;
      std::memcpy(&d, bytes, sizeof d);
      lua_pushnumber(L, d);
      results++;
    } else if (opt == 'c') {
      if (size == 0) {
        // The previous result (a number or a numeric string) is the length; it is consumed.
        if (results == 0 || !lua_isnumber(L, -1)) {
          luaL_error(L, "format 'c0' needs a previous size");
        }
        size = static_cast<size_t>(WordFromNumber(lua_tonumber(L, -1)));
        lua_pop(L, 1);
        results--;
        luaL_argcheck(L, size <= data_len && pos <= data_len - size, 2, "data string too short");
      }
      lua_pushlstring(L, data + pos, size);
      results++;
    } else if (opt == 's') {
      const void* end = std::memchr(data + pos, '\0', data_len - pos);
      if (end == nullptr) luaL_error(L, "unfinished string in data");
      size = static_cast<size_t>(static_cast<const char*>(end) - (data + pos));
      lua_pushlstring(L, data + pos, size);
      size++;  // the terminator
      results++;
    } else {
      ApplyControl(L, opt, &fmt, &state);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return results + 1;
}

// struct.size(fmt): the bytes struct.pack(fmt, ...) produces, padding included. `s` and `c0`
// have no fixed size and are errors. Redis's copy skips letters and digits it does not know
// here (they are errors in pack and unpack) and applies only the other control characters.
int StructSize(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  FormatState state;
  size_t total = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    total += PaddingBefore(total, state, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!IsAsciiAlnum(opt)) ApplyControl(L, opt, &fmt, &state);
    total += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(total));
  return 1;
}

}  // namespace

int OpenLuaStruct(lua_State* L) {
  static const luaL_Reg kFunctions[] = {
      {"pack", StructPack},
      {"unpack", StructUnpack},
      {"size", StructSize},
      {nullptr, nullptr},
  };
  lua_createtable(L, 0, 3);
  for (const luaL_Reg* f = kFunctions; f->name != nullptr; f++) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  return 1;
}

}  // namespace redistp
