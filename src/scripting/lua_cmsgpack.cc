// The `cmsgpack` library of Redis's Lua environment: MessagePack encoding of Lua values.
//
// Scripts call cmsgpack.pack(v1, v2, ...) for one string holding the encodings of every
// argument back to back, and cmsgpack.unpack(s) for every object in such a string, returned as
// multiple values. unpack_one(s [, offset]) and unpack_limit(s, limit [, offset]) decode from a
// byte offset (0-based) and return the offset of the next object first (-1 when the input is
// used up), then the objects: a script can walk a long string without returning thousands of
// values at once. Redis 7.0 ships lua-cmsgpack 0.4.0; this file is written from the MessagePack
// specification and from what Debian's Redis 7.0.15 answers, and matches it byte for byte.
//
// Encoding (Lua value -> MessagePack), always the smallest form:
//  - nil, booleans: 0xc0, 0xc2/0xc3. Functions, userdata and threads encode as nil.
//  - A number that is integral and inside int64 is an integer: positive fixint, uint8..uint64
//    for values >= 0 (-0.0 included), negative fixint, int8..int64 below 0. Any other number
//    (fractions, +-inf, NaN, 2^63 and beyond) is float32 when converting it to a float and back
//    gives the same double, else float64.
//  - Strings: fixstr, str8, str16, str32 (never the bin family).
//  - A table whose keys are exactly 1..n is an array (so {} is an empty array); any other table
//    is a map, its pairs in lua_next order (the order pairs() shows; the same Lua 5.1 gives the
//    same order, hence the same bytes as Redis).
//  - Nesting: the arguments are at level 0, the keys and values of a table at level + 1; a table
//    at level 16 or deeper encodes as nil, so cyclic tables terminate.
//
// Decoding (MessagePack -> Lua): integers of every width become Lua numbers (uint64 goes through
// int64 as Lua's lua_pushinteger does, so 0xcf ff..ff is -1); float32/float64 become numbers;
// str8/16/32 and fixstr strings; arrays become tables indexed 1..n (a nil element leaves a hole);
// maps become tables, a nil or NaN key raising Lua's own "table index is nil/NaN". The bin, ext
// and 0xc1 type bytes are "Bad data format in input."; input that ends inside an object is
// "Missing bytes in input.".
//
// Stack limits: a C function may hold at most LUAI_MAXCSTACK (8000) stack slots. Redis answers
// the overflow of that limit with particular "stack overflow (...)" errors at particular sizes
// (about 8000 returned objects, about 4000 levels of nesting in unpack, 4000 pack arguments);
// both directions use the stack here the way those limits imply, one slot per value in flight,
// and check it at the same points with the same messages, so the edges agree as well:
//  - pack holds each argument's encoding as a string on the stack until the final concat, and
//    encodes the value on top of the stack: an array element takes 1 slot, a map's iteration key
//    and value 2, plus a copy of the key (3) while the key is encoded.
//  - unpack keeps the input string at index 1 and the decoded objects above it; an array being
//    filled holds the table and the index, a map the table and the key.
//
// Errors: unpack raises as soon as it finds one (it owns no C++ object that a longjmp would
// leak). pack builds each encoding in a std::string, so the stack checks while encoding only
// record a failure, and the encoding becomes a Lua string in a protected call (RunProtected);
// the error is raised after the std::string is gone.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "scripting/lua_env.h"
#include "scripting/lua_libs.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redistp {
namespace {

// Tables at this level or deeper are encoded as nil.
constexpr int kMaxPackNesting = 16;

// ---------------------------------------------------------------------------------------------
// Encoding

void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void PutTyped(std::string& out, uint8_t type, uint64_t value, int bytes) {
  out.push_back(static_cast<char>(type));
  PutBigEndian(out, value, bytes);
}

void EncodeUnsigned(std::string& out, uint64_t v) {
  if (v < 128) {
    out.push_back(static_cast<char>(v));  // positive fixint
  } else if (v <= 0xff) {
    PutTyped(out, 0xcc, v, 1);
  } else if (v <= 0xffff) {
    PutTyped(out, 0xcd, v, 2);
  } else if (v <= 0xffffffffULL) {
    PutTyped(out, 0xce, v, 4);
  } else {
    PutTyped(out, 0xcf, v, 8);
  }
}

// `v` < 0.
void EncodeNegative(std::string& out, int64_t v) {
  uint64_t bits = static_cast<uint64_t>(v);
  if (v >= -32) {
    out.push_back(static_cast<char>(bits & 0xff));  // negative fixint: 111xxxxx
  } else if (v >= -128) {
    PutTyped(out, 0xd0, bits, 1);
  } else if (v >= -32768) {
    PutTyped(out, 0xd1, bits, 2);
  } else if (v >= -2147483648LL) {
    PutTyped(out, 0xd2, bits, 4);
  } else {
    PutTyped(out, 0xd3, bits, 8);
  }
}

// Integers inside int64 as integers, everything else as float32 when it round-trips, else
// float64 (NaN never equals itself, so it is float64; +-inf is float32).
void EncodeNumber(std::string& out, lua_Number d) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (d >= -kTwo63 && d < kTwo63 && d == std::trunc(d)) {
    if (d >= 0) {
      EncodeUnsigned(out, static_cast<uint64_t>(d));
    } else {
      EncodeNegative(out, static_cast<int64_t>(d));
    }
    return;
  }
  // A finite double beyond the float range can never round-trip; skip the conversion, which
  // would overflow.
  bool fits_float = !std::isfinite(d) || std::fabs(d) <= std::numeric_limits<float>::max();
  if (fits_float) {
    float f = static_cast<float>(d);
    if (static_cast<double>(f) == d) {
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      PutTyped(out, 0xca, bits, 4);
      return;
    }
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  PutTyped(out, 0xcb, bits, 8);
}

void EncodeString(std::string& out, const char* s, size_t len) {
  if (len < 32) {
    out.push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    PutTyped(out, 0xd9, len, 1);
  } else if (len <= 0xffff) {
    PutTyped(out, 0xda, len, 2);
  } else {
    PutTyped(out, 0xdb, len, 4);
  }
  out.append(s, len);
}

// Array and map headers share their layout: a fix form holding up to 15 in the type byte, then
// a 16-bit and a 32-bit count.
void EncodeContainerHeader(std::string& out, uint64_t count, uint8_t fix, uint8_t type16,
                           uint8_t type32) {
  if (count < 16) {
    out.push_back(static_cast<char>(fix | count));
  } else if (count <= 0xffff) {
    PutTyped(out, type16, count, 2);
  } else {
    PutTyped(out, type32, count, 4);
  }
}

// Encodes Lua values into one std::string. It never raises a Lua error itself (apart from Lua
// running out of memory): a stack check that fails is recorded in failed_check() and the
// encoding stops, for the caller to raise once the string is destroyed.
class Packer {
 public:
  explicit Packer(lua_State* L) : L_(L) {}

  // Appends the encoding of the value on top of the stack and pops it. `level` is its nesting
  // level (0 for an argument of pack).
  void EncodeTop(int level);

  const std::string& out() const { return out_; }
  // The message of the stack check that failed, or nullptr.
  const char* failed_check() const { return failed_check_; }

 private:
  // Makes room for `slots` more stack values; false (and the failure recorded) when the
  // function's stack limit forbids it.
  bool Reserve(int slots, const char* where);
  // True when the table on top has exactly the keys 1..n (n >= 0). Sets *count to its number
  // of keys either way.
  bool IsArray(uint64_t* count);
  void EncodeArray(uint64_t count, int level);
  void EncodeMap(uint64_t count, int level);

  lua_State* L_;
  std::string out_;
  const char* failed_check_ = nullptr;
};

bool Packer::Reserve(int slots, const char* where) {
  if (failed_check_ != nullptr) return false;
  if (lua_checkstack(L_, slots)) return true;
  failed_check_ = where;
  return false;
}

bool Packer::IsArray(uint64_t* count) {
  // The keys are 1..n exactly when every key is a positive integer and the largest equals the
  // number of keys.
  uint64_t keys = 0;
  lua_Number max = 0;
  bool array = true;
  lua_pushnil(L_);
  while (lua_next(L_, -2) != 0) {
    lua_pop(L_, 1);  // the value; the key stays for the next step
    ++keys;
    lua_Number k = lua_type(L_, -1) == LUA_TNUMBER ? lua_tonumber(L_, -1) : 0;
    if (k > 0 && k == std::floor(k)) {
      if (k > max) max = k;
    } else {
      array = false;
    }
  }
  *count = keys;
  return array && max == static_cast<lua_Number>(keys);
}

void Packer::EncodeArray(uint64_t count, int level) {
  EncodeContainerHeader(out_, count, 0x90, 0xdc, 0xdd);
  for (uint64_t i = 1; i <= count && failed_check_ == nullptr; ++i) {
    lua_rawgeti(L_, -1, static_cast<int>(i));
    EncodeTop(level + 1);
  }
}

void Packer::EncodeMap(uint64_t count, int level) {
  EncodeContainerHeader(out_, count, 0x80, 0xde, 0xdf);
  // Iteration key and value, and the key's copy while it is encoded.
  if (!Reserve(3, "in function mp_encode_lua_table_as_map")) return;
  lua_pushnil(L_);
  while (lua_next(L_, -2) != 0) {
    lua_pushvalue(L_, -2);
    EncodeTop(level + 1);  // the key's copy
    EncodeTop(level + 1);  // the value
    if (failed_check_ != nullptr) {
      lua_pop(L_, 1);  // the iteration key
      return;
    }
  }
}

void Packer::EncodeTop(int level) {
  if (failed_check_ == nullptr) {
    switch (lua_type(L_, -1)) {
      case LUA_TBOOLEAN:
        out_.push_back(static_cast<char>(lua_toboolean(L_, -1) ? 0xc3 : 0xc2));
        break;
      case LUA_TNUMBER:
        EncodeNumber(out_, lua_tonumber(L_, -1));
        break;
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L_, -1, &len);
        EncodeString(out_, s, len);
        break;
      }
      case LUA_TTABLE:
        if (level >= kMaxPackNesting) {
          out_.push_back(static_cast<char>(0xc0));
        } else if (Reserve(2, "in function table_is_an_array")) {  // lua_next's key and value
          uint64_t count = 0;
          if (IsArray(&count)) {
            EncodeArray(count, level);
          } else {
            EncodeMap(count, level);
          }
        }
        break;
      default:  // nil, and values MessagePack has no form for
        out_.push_back(static_cast<char>(0xc0));
        break;
    }
  }
  lua_pop(L_, 1);
}

// RunProtected body: pushes the bytes `ud` (a std::string_view) views.
int PushBytesTask(lua_State* L, void* ud) {
  auto* bytes = static_cast<std::string_view*>(ud);
  lua_pushlstring(L, bytes->data(), bytes->size());
  return 1;
}

// cmsgpack.pack(v1, ...): the encodings of all arguments, concatenated.
int Pack(lua_State* L) {
  int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  // Room for one encoded string per argument.
  if (!lua_checkstack(L, nargs)) {
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  }
  for (int i = 1; i <= nargs; ++i) {
    const char* failed_check = nullptr;
    int rc = 0;
    {
      Packer packer(L);
      lua_pushvalue(L, i);
      packer.EncodeTop(0);
      failed_check = packer.failed_check();
      if (failed_check == nullptr) {
        // Copied into a Lua string in a protected call: lack of memory must not longjmp over
        // the packer's std::string; the error is raised once it is gone.
        std::string_view bytes = packer.out();
        rc = RunProtected(L, 0, 1, PushBytesTask, &bytes);
      }
    }
    if (failed_check != nullptr) return luaL_error(L, "stack overflow (%s)", failed_check);
    if (rc != 0) return lua_error(L);
  }
  lua_concat(L, nargs);
  return 1;
}

// ---------------------------------------------------------------------------------------------
// Decoding

// Reads MessagePack objects from [pos, end) and pushes them. Errors raise at once.
class Unpacker {
 public:
  Unpacker(lua_State* L, const char* pos, const char* end) : L_(L), pos_(pos), end_(end) {}

  // Decodes one object and pushes it.
  void DecodeOne();
  size_t left() const { return static_cast<size_t>(end_ - pos_); }

 private:
  // Raises "Missing bytes" unless `n` more bytes are there.
  void Need(size_t n);
  // The next `bytes` bytes as a big-endian unsigned integer (Need() done by the caller).
  uint64_t Take(int bytes);
  // Need() and Take() together.
  uint64_t Read(int bytes) {
    Need(bytes);
    return Take(bytes);
  }
  void DecodeString(size_t len);
  void DecodeArray(uint64_t count);
  void DecodeMap(uint64_t count);

  lua_State* L_;
  const char* pos_;
  const char* end_;
};

void Unpacker::Need(size_t n) {
  if (left() < n) luaL_error(L_, "Missing bytes in input.");
}

uint64_t Unpacker::Take(int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(*pos_++);
  return v;
}

void Unpacker::DecodeString(size_t len) {
  Need(len);
  lua_pushlstring(L_, pos_, len);
  pos_ += len;
}

void Unpacker::DecodeArray(uint64_t count) {
  lua_newtable(L_);
  luaL_checkstack(L_, 1, "in function mp_decode_to_lua_array");  // the index
  for (uint64_t i = 1; i <= count; ++i) {
    lua_pushnumber(L_, static_cast<lua_Number>(i));
    DecodeOne();
    lua_rawset(L_, -3);
  }
}

void Unpacker::DecodeMap(uint64_t count) {
  lua_newtable(L_);
  for (uint64_t i = 0; i < count; ++i) {
    DecodeOne();         // the key
    DecodeOne();         // the value
    lua_rawset(L_, -3);  // a nil or NaN key raises Lua's "table index is nil/NaN"
  }
}

void Unpacker::DecodeOne() {
  Need(1);
  luaL_checkstack(L_, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
  uint8_t type = static_cast<uint8_t>(*pos_++);
  if (type <= 0x7f) {  // positive fixint
    lua_pushnumber(L_, type);
  } else if (type <= 0x8f) {
    DecodeMap(type & 0x0f);
  } else if (type <= 0x9f) {
    DecodeArray(type & 0x0f);
  } else if (type <= 0xbf) {
    DecodeString(type & 0x1f);
  } else if (type >= 0xe0) {  // negative fixint
    lua_pushnumber(L_, static_cast<int8_t>(type));
  } else {
    switch (type) {
      case 0xc0:
        lua_pushnil(L_);
        break;
      case 0xc2:
        lua_pushboolean(L_, 0);
        break;
      case 0xc3:
        lua_pushboolean(L_, 1);
        break;
      case 0xca: {
        uint32_t bits = static_cast<uint32_t>(Read(4));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        lua_pushnumber(L_, f);
        break;
      }
      case 0xcb: {
        uint64_t bits = Read(8);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        lua_pushnumber(L_, d);
        break;
      }
      case 0xcc:
        lua_pushnumber(L_, static_cast<lua_Number>(Read(1)));
        break;
      case 0xcd:
        lua_pushnumber(L_, static_cast<lua_Number>(Read(2)));
        break;
      case 0xce:
        lua_pushnumber(L_, static_cast<lua_Number>(Read(4)));
        break;
      case 0xcf:  // through int64, as lua_pushinteger takes it: 2^64-1 reads as -1
        lua_pushinteger(L_, static_cast<lua_Integer>(static_cast<int64_t>(Read(8))));
        break;
      case 0xd0:
        lua_pushnumber(L_, static_cast<int8_t>(Read(1)));
        break;
      case 0xd1:
        lua_pushnumber(L_, static_cast<int16_t>(Read(2)));
        break;
      case 0xd2:
        lua_pushnumber(L_, static_cast<int32_t>(Read(4)));
        break;
      case 0xd3:
        lua_pushnumber(L_, static_cast<lua_Number>(static_cast<int64_t>(Read(8))));
        break;
      case 0xd9:
        DecodeString(Read(1));
        break;
      case 0xda:
        DecodeString(Read(2));
        break;
      case 0xdb:
        DecodeString(Read(4));
        break;
      case 0xdc:
        DecodeArray(Read(2));
        break;
      case 0xdd:
        DecodeArray(Read(4));
        break;
      case 0xde:
        DecodeMap(Read(2));
        break;
      case 0xdf:
        DecodeMap(Read(4));
        break;
      default:  // 0xc1 (never used), bin 0xc4-0xc6, ext 0xc7-0xc9 and 0xd4-0xd8
        luaL_error(L_, "Bad data format in input.");
    }
  }
}

// The input string is at index 1, the decoded objects go above it. Decodes from byte `offset`
// up to `limit` objects and returns the next offset (-1 at the end of the input) before them;
// limit 0 and offset 0 together mean every object and no offset (unpack). Limit 0 with another
// offset decodes nothing and returns only the offset, as Redis does.
int UnpackFrom(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  // The message prints the input length as the limit and both as C ints, as Redis's does.
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<uint64_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  bool all = limit == 0 && offset == 0;
  Unpacker unpacker(L, s + offset, s + len);
  int decoded = 0;
  while (unpacker.left() > 0 && (all || decoded < limit)) {
    unpacker.DecodeOne();
    ++decoded;
  }
  if (all) return decoded;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_Integer next = unpacker.left() == 0 ? -1 : static_cast<lua_Integer>(len - unpacker.left());
  lua_pushinteger(L, next);
  lua_insert(L, 2);
  return decoded + 1;
}

// Drops every argument after the input string (the count checks see only it and the results).
void KeepOnlyInput(lua_State* L) {
  if (lua_gettop(L) > 1) lua_settop(L, 1);
}

// cmsgpack.unpack(s): every object in s. Extra arguments are ignored (and stay on the stack).
int Unpack(lua_State* L) { return UnpackFrom(L, 0, 0); }

// cmsgpack.unpack_one(s [, offset]): next offset, then the object at offset.
int UnpackOne(lua_State* L) {
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  KeepOnlyInput(L);
  return UnpackFrom(L, 1, offset);
}

// cmsgpack.unpack_limit(s, limit [, offset]): next offset, then up to `limit` objects; limit 0
// from offset 0 returns all of them and no offset, as unpack does.
int UnpackLimit(lua_State* L) {
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  KeepOnlyInput(L);
  return UnpackFrom(L, limit, offset);
}

}  // namespace

int OpenLuaCmsgpack(lua_State* L) {
  // Inserted in this order into a table that starts empty, the fields come out of pairs() in
  // the order Redis shows them.
  static const luaL_Reg kFunctions[] = {{"pack", Pack},
                                        {"unpack", Unpack},
                                        {"unpack_one", UnpackOne},
                                        {"unpack_limit", UnpackLimit},
                                        {nullptr, nullptr}};
  static const char* const kFields[][2] = {
      {"_NAME", "cmsgpack"},
      {"_VERSION", "lua-cmsgpack 0.4.0"},
      {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
      {"_DESCRIPTION", "MessagePack C implementation for Lua"},
  };
  lua_newtable(L);
  for (const luaL_Reg* f = kFunctions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  for (const auto& field : kFields) {
    lua_pushstring(L, field[1]);
    lua_setfield(L, -2, field[0]);
  }
  return 1;
}

}  // namespace redistp
