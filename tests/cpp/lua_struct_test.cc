// Unit tests for scripting/lua_struct (the `struct` library of scripts). Each case is a Lua
// expression run in a plain Lua 5.1 state that has `struct` from OpenLuaStruct; what it returns
// (strings in hex, numbers printed with %.17g) or the error it raises must equal what Debian's
// redis-server 7.0.15 answered for the same expression inside EVAL. The chunk is named
// user_script, as Redis names scripts, so error positions read the same ("user_script:1: ...").
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "scripting/lua_libs.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace redistp {
namespace {

// show(...): the values as one line, e.g. "s:0102, 3" (a string in hex, then a number).
constexpr const char* kShow = R"lua(
function show(...)
  local parts = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if type(v) == 'string' then
      parts[#parts + 1] = 's:' .. string.gsub(v, '.', function(c)
        return string.format('%02x', string.byte(c))
      end)
    elseif type(v) == 'number' then
      parts[#parts + 1] = string.format('%.17g', v)
    else
      parts[#parts + 1] = tostring(v)
    end
  end
  return table.concat(parts, ', ')
end
)lua";

struct Case {
  const char* expr;
  const char* redis;  // what Redis 7.0.15 answered
};

class LuaStructTest : public ::testing::Test {
 protected:
  void SetUp() override {
    lua_ = luaL_newstate();
    luaL_openlibs(lua_);
    lua_pushcfunction(lua_, OpenLuaStruct);
    lua_call(lua_, 0, 1);
    lua_setglobal(lua_, "struct");
    ASSERT_EQ(luaL_dostring(lua_, kShow), 0);
  }
  void TearDown() override { lua_close(lua_); }

  // The results of `expr` through show(), or "ERR: " and the error text with bytes outside
  // printable ASCII written \xNN.
  std::string Run(const std::string& expr) {
    std::string chunk = "return show(" + expr + ")";
    bool ok = luaL_loadbuffer(lua_, chunk.data(), chunk.size(), "=user_script") == 0 &&
              lua_pcall(lua_, 0, 1, 0) == 0;
    size_t len = 0;
    const char* s = lua_tolstring(lua_, -1, &len);
    std::string text(s == nullptr ? "(not a string)" : std::string(s, len));
    lua_pop(lua_, 1);
    if (ok) return text;
    std::string escaped;
    for (unsigned char c : text) {
      if (c >= 32 && c <= 126) {
        escaped.push_back(static_cast<char>(c));
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        escaped += hex;
      }
    }
    return "ERR: " + escaped;
  }

  void ExpectAsRedis(std::initializer_list<Case> cases) {
    for (const Case& c : cases) EXPECT_EQ(Run(c.expr), c.redis) << c.expr;
    EXPECT_EQ(lua_gettop(lua_), 0);
  }

  lua_State* lua_ = nullptr;
};

TEST_F(LuaStructTest, TableHoldsPackUnpackAndSize) {
  ExpectAsRedis({
      {"(function() local n = {} for k in pairs(struct) do n[#n + 1] = k end table.sort(n) "
       "return table.concat(n, ' ') end)()",
       "s:7061636b2073697a6520756e7061636b"},  // "pack size unpack"
  });
}

TEST_F(LuaStructTest, UnpackReadsBackWhatPackWrote) {
  // Every value representable in its option comes back unchanged, with the next position.
  ExpectAsRedis({
      {"struct.unpack('<bBhHiIlLT', struct.pack('<bBhHiIlLT', -128, 255, -32768, 65535, "
       "-2147483648, 4294967295, -2^53, 2^53, 12345))",
       "-128, 255, -32768, 65535, -2147483648, 4294967295, -9007199254740992, "
       "9007199254740992, 12345, 39"},
      {"struct.unpack('>!8 b d s B c0 x i3', struct.pack('>!8 b d s B c0 x i3', 3, 0.5, 'ab', "
       "3, 'xyz', -7))",
       "3, 0.5, s:6162, s:78797a, -7, 30"},
  });
}

TEST_F(LuaStructTest, PacksIntegersInBothByteOrders) {
  ExpectAsRedis({
      {R"lua(struct.pack('>I2i4', 5, -1))lua", R"lua(s:0005ffffffff)lua"},
      {R"lua(struct.pack('<I2i4', 5, -1))lua", R"lua(s:0500ffffffff)lua"},
      {R"lua(struct.pack('hHlLTiI', 1, 2, 3, 4, 5, 6, 7))lua",
       R"lua(s:010002000300000000000000040000000000000005000000000000000600000007000000)lua"},
      {R"lua(struct.pack('<i1i2i3i5i6i7', 1, 2, 3, -5, 6, -7))lua",
       R"lua(s:010200030000fbffffffff060000000000f9ffffffffffff)lua"},
      {R"lua(struct.pack('>i1i2i3i5i6i7', 1, 2, 3, -5, 6, -7))lua",
       R"lua(s:010002000003fffffffffb000000000006fffffffffffff9)lua"},
      {R"lua(struct.pack('b>h<h', 1, 258, 258))lua", R"lua(s:0101020201)lua"},
      {R"lua(struct.pack('<bB', -1, -1))lua", R"lua(s:ffff)lua"},
      {R"lua(struct.pack('<i16', -2))lua", R"lua(s:feffffffffffffff0000000000000000)lua"},
      {R"lua(struct.pack('>i16', -2))lua", R"lua(s:0000000000000000fffffffffffffffe)lua"},
      {R"lua(struct.pack('i32', 1))lua",
       R"lua(s:0100000000000000000000000000000000000000000000000000000000000000)lua"},
      {R"lua(struct.pack('i0I0', 1, 2))lua", R"lua(s:)lua"},
      {R"lua(struct.pack('i', '12'))lua", R"lua(s:0c000000)lua"},
      {R"lua(struct.pack('i', ' 0x10 '))lua", R"lua(s:10000000)lua"},
      {R"lua(struct.pack('i', 1, 2, 3))lua", R"lua(s:01000000)lua"},
  });
}

TEST_F(LuaStructTest, PacksNumbersAsRedisConvertsThem) {
  ExpectAsRedis({
      {R"lua(struct.pack('b', 127))lua", R"lua(s:7f)lua"},
      {R"lua(struct.pack('b', 128))lua", R"lua(s:80)lua"},
      {R"lua(struct.pack('b', 256))lua", R"lua(s:00)lua"},
      {R"lua(struct.pack('b', -129))lua", R"lua(s:7f)lua"},
      {R"lua(struct.pack('b', 1.9))lua", R"lua(s:01)lua"},
      {R"lua(struct.pack('b', -1.9))lua", R"lua(s:ff)lua"},
      {R"lua(struct.pack('<i8', -0.5))lua", R"lua(s:0000000000000000)lua"},
      {R"lua(struct.pack('<i8', 1e20))lua", R"lua(s:0000000000000000)lua"},
      {R"lua(struct.pack('<i8', -1e20))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<i8', 2^63))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<I8', 2^63 + 2048))lua", R"lua(s:0008000000000080)lua"},
      {R"lua(struct.pack('<i8', 2^64))lua", R"lua(s:0000000000000000)lua"},
      {R"lua(struct.pack('<i8', -2^63))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<i8', -2^63 - 4096))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<i8', 0/0))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<i8', 1/0))lua", R"lua(s:0000000000000000)lua"},
      {R"lua(struct.pack('<i8', -1/0))lua", R"lua(s:0000000000000080)lua"},
      {R"lua(struct.pack('<i9', 2^63))lua", R"lua(s:000000000000008000)lua"},
  });
}

TEST_F(LuaStructTest, PacksFloatsAndDoubles) {
  ExpectAsRedis({
      {R"lua(struct.pack('<f', 1.5))lua", R"lua(s:0000c03f)lua"},
      {R"lua(struct.pack('>f', 1))lua", R"lua(s:3f800000)lua"},
      {R"lua(struct.pack('<d', 1))lua", R"lua(s:000000000000f03f)lua"},
      {R"lua(struct.pack('>d', -0.1))lua", R"lua(s:bfb999999999999a)lua"},
      {R"lua(struct.pack('<d', '2.5'))lua", R"lua(s:0000000000000440)lua"},
      {R"lua(struct.pack('<f', 1e40))lua", R"lua(s:0000807f)lua"},
      {R"lua(struct.pack('<f', 0/0))lua", R"lua(s:0000c0ff)lua"},
      {R"lua(struct.pack('<d', 0/0))lua", R"lua(s:000000000000f8ff)lua"},
      {R"lua(struct.pack('<d', -1/0))lua", R"lua(s:000000000000f0ff)lua"},
  });
}

TEST_F(LuaStructTest, PacksStrings) {
  ExpectAsRedis({
      {R"lua(struct.pack('s', 'abc'))lua", R"lua(s:61626300)lua"},
      {R"lua(struct.pack('s', 'a\0b'))lua", R"lua(s:61006200)lua"},
      {R"lua(struct.pack('s', 12))lua", R"lua(s:313200)lua"},
      {R"lua(struct.pack('c3', 'abcdef'))lua", R"lua(s:616263)lua"},
      {R"lua(struct.pack('c', 'abc'))lua", R"lua(s:61)lua"},
      {R"lua(struct.pack('c0', 'abc'))lua", R"lua(s:616263)lua"},
      {R"lua(struct.pack('c0', ''))lua", R"lua(s:)lua"},
      {R"lua(struct.pack('c2sx', 'ab', 'cd'))lua", R"lua(s:616263640000)lua"},
      {R"lua(struct.pack('c2', 12.5))lua", R"lua(s:3132)lua"},
  });
}

TEST_F(LuaStructTest, AlignsToTheSmallerOfSizeAndMaximum) {
  ExpectAsRedis({
      {R"lua(struct.pack('bi', 1, 2))lua", R"lua(s:0102000000)lua"},
      {R"lua(struct.pack('!bi', 1, 2))lua", R"lua(s:0100000002000000)lua"},
      {R"lua(struct.pack('!4 b i', 1, 2))lua", R"lua(s:0100000002000000)lua"},
      {R"lua(struct.pack('!2 b d', 1, 1))lua", R"lua(s:0100000000000000f03f)lua"},
      {R"lua(struct.pack('!8 b d', 1, 1))lua", R"lua(s:0100000000000000000000000000f03f)lua"},
      {R"lua(struct.pack('!8 b f', 1, 1))lua", R"lua(s:010000000000803f)lua"},
      {R"lua(struct.pack('!8 b i16', 1, 2))lua",
       R"lua(s:010000000000000002000000000000000000000000000000)lua"},
      {R"lua(struct.pack('!16 b i16', 1, 2))lua",
       R"lua(s:0100000000000000000000000000000002000000000000000000000000000000)lua"},
      {R"lua(struct.pack('!64 b i32', 1, 1))lua",
       R"lua(s:01000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000)lua"},
      {R"lua(struct.pack('!1073741824 b i', 1, 2))lua", R"lua(s:0100000002000000)lua"},
      {R"lua(struct.pack('!8 b c3', 1, 'abc'))lua", R"lua(s:01616263)lua"},
      {R"lua(struct.pack('!8 b s', 1, 'abc'))lua", R"lua(s:0161626300)lua"},
      {R"lua(struct.pack('!8 b x', 1))lua", R"lua(s:0100)lua"},
      {R"lua(struct.pack('b!4i', 1, 2))lua", R"lua(s:0100000002000000)lua"},
      {R"lua(struct.pack('!4bi!1bi', 1, 2, 3, 4))lua", R"lua(s:01000000020000000304000000)lua"},
      {R"lua(struct.pack('!8 b i3', 1, 2))lua", R"lua(s:010000020000)lua"},
      {R"lua(struct.pack('!8 bb i3', 1, 1, 2))lua", R"lua(s:0101020000)lua"},
      {R"lua(struct.pack('!8 b i5', 1, 2))lua", R"lua(s:01000000000200000000)lua"},
      {R"lua(struct.pack('!8 b i6', 1, 2))lua", R"lua(s:010000000000020000000000)lua"},
      {R"lua(struct.pack('!8 bb i6', 1, 1, 2))lua", R"lua(s:010100000000020000000000)lua"},
      {R"lua(struct.pack('!8 b i12', 1, 2))lua",
       R"lua(s:0100000000000000020000000000000000000000)lua"},
  });
}

TEST_F(LuaStructTest, StopsAtAnEmbeddedZero) {
  ExpectAsRedis({
      {R"lua(struct.pack('b\0q', 1))lua", R"lua(s:01)lua"},
      {R"lua(struct.size('b\0q'))lua", R"lua(1)lua"},
      {R"lua(struct.unpack('b\0q', 'a'))lua", R"lua(97, 2)lua"},
      {R"lua(struct.pack(''))lua", R"lua(s:)lua"},
      {R"lua(struct.size(''))lua", R"lua(0)lua"},
      {R"lua(struct.unpack('', 'abc'))lua", R"lua(1)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksIntegers) {
  ExpectAsRedis({
      {R"lua(struct.unpack('<h', 'ab'))lua", R"lua(25185, 3)lua"},
      {R"lua(struct.unpack('>h', 'ab'))lua", R"lua(24930, 3)lua"},
      {R"lua(struct.unpack('>h', '\255\254'))lua", R"lua(-2, 3)lua"},
      {R"lua(struct.unpack('>H', '\255\254'))lua", R"lua(65534, 3)lua"},
      {R"lua(struct.unpack('bB', '\255\255'))lua", R"lua(-1, 255, 3)lua"},
      {R"lua(struct.unpack('<i3', '\255\255\255'))lua", R"lua(-1, 4)lua"},
      {R"lua(struct.unpack('<I3', '\255\255\255'))lua", R"lua(16777215, 4)lua"},
      {R"lua(struct.unpack('<i8', string.rep('\255', 8)))lua", R"lua(-1, 9)lua"},
      {R"lua(struct.unpack('<I8', string.rep('\255', 8)))lua",
       R"lua(1.8446744073709552e+19, 9)lua"},
      {R"lua(struct.unpack('<I8', '\1\2\3\4\5\6\7\8'))lua", R"lua(5.784376957523072e+17, 9)lua"},
      {R"lua(struct.unpack('<i8', '\1\2\3\4\5\6\7\128'))lua",
       R"lua(-9.2213950934058916e+18, 9)lua"},
      {R"lua(struct.unpack('lLT', struct.pack('lLT', -3, 4, 5)))lua", R"lua(-3, 4, 5, 25)lua"},
      {R"lua(struct.unpack('<i0I0', ''))lua", R"lua(0, 0, 1)lua"},
      {R"lua(struct.unpack('b', 12))lua", R"lua(49, 2)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksWideIntegersAsRedisDoes) {
  ExpectAsRedis({
      {R"lua(struct.unpack('<i9', '\1\2\3\4\5\6\7\8\9'))lua", R"lua(-127, 10)lua"},
      {R"lua(struct.unpack('>i9', '\1\2\3\4\5\6\7\8\9'))lua", R"lua(-119, 10)lua"},
      {R"lua(struct.unpack('<i9', '\0\1\0\0\0\0\0\0\0'))lua", R"lua(-128, 10)lua"},
      {R"lua(struct.unpack('<i9', '\127\0\0\0\0\0\0\0\0'))lua", R"lua(127, 10)lua"},
      {R"lua(struct.unpack('<i10', '\0\1\0\0\0\0\0\0\0\0'))lua", R"lua(256, 11)lua"},
      {R"lua(struct.unpack('<i12', '\0\0\0\0\0\0\0\0\0\0\0\128'))lua", R"lua(0, 13)lua"},
      {R"lua(struct.unpack('<i12', '\0\0\0\0\0\0\0\1\0\0\0\0'))lua", R"lua(-2147483648, 13)lua"},
      {R"lua(struct.unpack('<i16', '\254' .. string.rep('\255', 15)))lua", R"lua(-2, 17)lua"},
      {R"lua(struct.unpack('<i16', '\0\0\0\0\0\0\0\1' .. string.rep('\0', 8)))lua",
       R"lua(72057594037927936, 17)lua"},
      {R"lua(struct.unpack('<I16', string.rep('\255', 16)))lua",
       R"lua(1.8446744073709552e+19, 17)lua"},
      {R"lua(struct.unpack('<i32', string.rep('\255', 32)))lua", R"lua(-1, 33)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksFloatsAndDoubles) {
  ExpectAsRedis({
      {R"lua(struct.unpack('<f', struct.pack('<f', 1.5)))lua", R"lua(1.5, 5)lua"},
      {R"lua(struct.unpack('<f', struct.pack('<f', 0.1)))lua", R"lua(0.10000000149011612, 5)lua"},
      {R"lua(struct.unpack('>d', struct.pack('>d', -0.1)))lua", R"lua(-0.10000000000000001, 9)lua"},
      {R"lua(struct.unpack('<d', struct.pack('<d', 1/0)))lua", R"lua(inf, 9)lua"},
      {R"lua(struct.unpack('<f', struct.pack('<f', 1e40)))lua", R"lua(inf, 5)lua"},
      {R"lua(struct.unpack('>fd', struct.pack('>fd', 2.25, 1e300)))lua",
       R"lua(2.25, 1.0000000000000001e+300, 13)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksStrings) {
  ExpectAsRedis({
      {R"lua(struct.unpack('s', 'abc\0def'))lua", R"lua(s:616263, 5)lua"},
      {R"lua(struct.unpack('ss', 'abc\0def\0'))lua", R"lua(s:616263, s:646566, 9)lua"},
      {R"lua(struct.unpack('s', '\0'))lua", R"lua(s:, 2)lua"},
      {R"lua(struct.unpack('c3', 'abcdef'))lua", R"lua(s:616263, 4)lua"},
      {R"lua(struct.unpack('c', 'abcdef'))lua", R"lua(s:61, 2)lua"},
      {R"lua(struct.unpack('xc2', 'abcdef'))lua", R"lua(s:6263, 4)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksLengthPrefixedStringsWithC0) {
  ExpectAsRedis({
      {R"lua(struct.unpack('bc0', '\3abcdef'))lua", R"lua(s:616263, 5)lua"},
      {R"lua(struct.unpack('bc0', '\0abcdef'))lua", R"lua(s:, 2)lua"},
      {R"lua(struct.unpack('bbc0', '\1\2abc'))lua", R"lua(1, s:6162, 5)lua"},
      {R"lua(struct.unpack('b c0 b', '\2ab\5'))lua", R"lua(s:6162, 5, 5)lua"},
      {R"lua(struct.unpack('>I2c0', '\0\4abcdef'))lua", R"lua(s:61626364, 7)lua"},
      {R"lua(struct.unpack('c1c0', '3abcdef'))lua", R"lua(s:616263, 5)lua"},
      {R"lua(struct.unpack('sc0', '2\0abcdef'))lua", R"lua(s:6162, 5)lua"},
      {R"lua(struct.unpack('>dc0', struct.pack('>d', 2.7) .. 'abc'))lua", R"lua(s:6162, 11)lua"},
  });
}

TEST_F(LuaStructTest, UnpacksFromAStartPosition) {
  ExpectAsRedis({
      {R"lua(struct.unpack('b', 'abc', 2))lua", R"lua(98, 3)lua"},
      {R"lua(struct.unpack('b', 'abc', 3))lua", R"lua(99, 4)lua"},
      {R"lua(struct.unpack('b', 'abc', 1.9))lua", R"lua(97, 2)lua"},
      {R"lua(struct.unpack('b', 'abc', '2'))lua", R"lua(98, 3)lua"},
      {R"lua(struct.unpack('b', 'abc', nil))lua", R"lua(97, 2)lua"},
      {R"lua(struct.unpack('', 'abc', 4))lua", R"lua(4)lua"},
      {R"lua(struct.unpack('', 'abc', 5))lua", R"lua(5)lua"},
      {R"lua(struct.unpack('<', 'abc', 4))lua", R"lua(4)lua"},
      {R"lua(struct.unpack('', 'abc', -1))lua", R"lua(-1)lua"},
      {R"lua(struct.unpack('', 'abc', 2^53))lua", R"lua(9007199254740992)lua"},
      {R"lua(struct.unpack('!4 b i', '\1\0\0\0\2\0\0\0'))lua", R"lua(1, 2, 9)lua"},
      {R"lua(struct.unpack('!4 i', 'x\2\0\0\0\0\0\0', 2))lua", R"lua(0, 9)lua"},
      {R"lua(struct.unpack('!4 i', 'xx\2\0\0\0\0\0\0', 3))lua", R"lua(0, 9)lua"},
      {R"lua(struct.unpack('x', 'a'))lua", R"lua(2)lua"},
      {R"lua(struct.unpack('xb', 'ab'))lua", R"lua(98, 3)lua"},
      {R"lua(select('#', struct.unpack(string.rep('x', 100000), string.rep('a', 100000))))lua",
       R"lua(1)lua"},
      {R"lua(select('#', struct.unpack(string.rep('b', 7997), string.rep('a', 7997))))lua",
       R"lua(7998)lua"},
  });
}

TEST_F(LuaStructTest, SizesFixedFormats) {
  ExpectAsRedis({
      {R"lua(struct.size('hHlLTiIbBfdx'))lua", R"lua(51)lua"},
      {R"lua(struct.size('bi'))lua", R"lua(5)lua"},
      {R"lua(struct.size('!bi'))lua", R"lua(8)lua"},
      {R"lua(struct.size('!4bi'))lua", R"lua(8)lua"},
      {R"lua(struct.size('!4 b !1 i'))lua", R"lua(5)lua"},
      {R"lua(struct.size('!8 b i3'))lua", R"lua(6)lua"},
      {R"lua(struct.size('!8 b i5'))lua", R"lua(10)lua"},
      {R"lua(struct.size('!4 h d'))lua", R"lua(12)lua"},
      {R"lua(struct.size('!8 h d'))lua", R"lua(16)lua"},
      {R"lua(struct.size('!8 h f'))lua", R"lua(8)lua"},
      {R"lua(struct.size('!4 b i16'))lua", R"lua(20)lua"},
      {R"lua(struct.size('c'))lua", R"lua(1)lua"},
      {R"lua(struct.size('c5'))lua", R"lua(5)lua"},
      {R"lua(struct.size('i0'))lua", R"lua(0)lua"},
      {R"lua(struct.size('<>b'))lua", R"lua(1)lua"},
      {R"lua(struct.size('!'))lua", R"lua(0)lua"},
      {R"lua(struct.size('x5'))lua", R"lua(1)lua"},
      {R"lua(struct.size('b5'))lua", R"lua(1)lua"},
      {R"lua(struct.size('1'))lua", R"lua(0)lua"},
      {R"lua(struct.size('q'))lua", R"lua(0)lua"},
      {R"lua(struct.size('Z9'))lua", R"lua(0)lua"},
  });
}

TEST_F(LuaStructTest, RejectsBadFormats) {
  ExpectAsRedis({
      {R"lua(struct.pack('q', 1))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option 'q'))lua"},
      {R"lua(struct.pack('%', 1))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '%'))lua"},
      {R"lua(struct.pack('\200'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '\xc8'))lua"},
      {R"lua(struct.size('\200'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (invalid format option '\xc8'))lua"},
      {R"lua(struct.pack('=i', 1))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '='))lua"},
      {R"lua(struct.size('=i'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (invalid format option '='))lua"},
      {R"lua(struct.size('%'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (invalid format option '%'))lua"},
      {R"lua(struct.unpack('q', 'a'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'unpack' (invalid format option 'q'))lua"},
      {R"lua(struct.pack('x5', 1))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '5'))lua"},
      {R"lua(struct.pack('s2', 'abc'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '2'))lua"},
      {R"lua(struct.pack(12))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (invalid format option '1'))lua"},
      {R"lua(struct.pack('i33', 1))lua",
       R"lua(ERR: user_script:1: integral size 33 is larger than limit of 32)lua"},
      {R"lua(struct.size('i33'))lua",
       R"lua(ERR: user_script:1: integral size 33 is larger than limit of 32)lua"},
      {R"lua(struct.pack('i2147483647', 1))lua",
       R"lua(ERR: user_script:1: integral size 2147483647 is larger than limit of 32)lua"},
      {R"lua(struct.pack('i2147483648', 1))lua",
       R"lua(ERR: user_script:1: integral size overflow)lua"},
      {R"lua(struct.pack('i99999999999', 1))lua",
       R"lua(ERR: user_script:1: integral size overflow)lua"},
      {R"lua(struct.pack('c2147483648', 'a'))lua",
       R"lua(ERR: user_script:1: integral size overflow)lua"},
      {R"lua(struct.pack('!3 b d', 1, 1))lua",
       R"lua(ERR: user_script:1: alignment 3 is not a power of 2)lua"},
      {R"lua(struct.pack('!0 b d', 1, 1))lua",
       R"lua(ERR: user_script:1: alignment 0 is not a power of 2)lua"},
      {R"lua(struct.size('!3'))lua",
       R"lua(ERR: user_script:1: alignment 3 is not a power of 2)lua"},
      {R"lua(struct.pack('!2147483648 b', 1))lua",
       R"lua(ERR: user_script:1: integral size overflow)lua"},
      {R"lua(struct.size('s'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (option 's' has no fixed size))lua"},
      {R"lua(struct.size('s2'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (option 's' has no fixed size))lua"},
      {R"lua(struct.size('b c0'))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size))lua"},
  });
}

TEST_F(LuaStructTest, RejectsBadArguments) {
  ExpectAsRedis({
      {R"lua(struct.pack(nil))lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'pack' (string expected, got nil))lua"},
      {R"lua(struct.size())lua",
       R"lua(ERR: user_script:1: bad argument #1 to 'size' (string expected, got no value))lua"},
      {R"lua(struct.pack('i'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (number expected, got nil))lua"},
      {R"lua(struct.pack('bf', 1))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'pack' (number expected, got nil))lua"},
      {R"lua(struct.pack('bbd', 1, 2))lua",
       R"lua(ERR: user_script:1: bad argument #4 to 'pack' (number expected, got nil))lua"},
      {R"lua(struct.pack('i', 'abc'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (number expected, got string))lua"},
      {R"lua(struct.pack('i', {}))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (number expected, got table))lua"},
      {R"lua(struct.pack('i', true))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (number expected, got boolean))lua"},
      {R"lua(struct.pack('<d', 'x'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (number expected, got string))lua"},
      {R"lua(struct.pack('s'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (string expected, got nil))lua"},
      {R"lua(struct.pack('s', {}))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'pack' (string expected, got table))lua"},
      {R"lua(struct.pack('c3', 'ab'))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'pack' (string too short))lua"},
      {R"lua(struct.pack('bc3', 1, 'ab'))lua",
       R"lua(ERR: user_script:1: bad argument #4 to 'pack' (string too short))lua"},
      {R"lua(struct.pack('c2147483647', 'a'))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'pack' (string too short))lua"},
      {R"lua(struct.pack('c9000i', string.rep('a', 9000)))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'pack' (number expected, got nil))lua"},
      {R"lua(struct.unpack('b'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (string expected, got no value))lua"},
      {R"lua(struct.unpack('b', {}))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (string expected, got table))lua"},
      {R"lua(struct.unpack('B', 'a', 'b'))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'unpack' (number expected, got string))lua"},
  });
}

TEST_F(LuaStructTest, RejectsShortData) {
  ExpectAsRedis({
      {R"lua(struct.unpack('<i4', 'abc'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('<b', ''))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('x', ''))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('c7', 'abcdef'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('s', 'abc'))lua",
       R"lua(ERR: user_script:1: unfinished string in data)lua"},
      {R"lua(struct.unpack('s', ''))lua", R"lua(ERR: user_script:1: unfinished string in data)lua"},
      {R"lua(struct.unpack('c0', 'abcdef'))lua",
       R"lua(ERR: user_script:1: format 'c0' needs a previous size)lua"},
      {R"lua(struct.unpack('xc0', '\3abcdef'))lua",
       R"lua(ERR: user_script:1: format 'c0' needs a previous size)lua"},
      {R"lua(struct.unpack('bc0', '\9abcdef'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('bc0', '\255abcdef'))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('sc0', 'x\0abcdef'))lua",
       R"lua(ERR: user_script:1: format 'c0' needs a previous size)lua"},
      {R"lua(struct.unpack('c1c0', 'xabcdef'))lua",
       R"lua(ERR: user_script:1: format 'c0' needs a previous size)lua"},
      {R"lua(struct.unpack('bc0c0', '\2\1abc'))lua",
       R"lua(ERR: user_script:1: format 'c0' needs a previous size)lua"},
      {R"lua(struct.unpack('b', 'abc', 4))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('b', 'abc', 0))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater))lua"},
      {R"lua(struct.unpack('', 'abc', 0))lua",
       R"lua(ERR: user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater))lua"},
      {R"lua(struct.unpack('b', 'abc', -1))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('b', 'abc', 2^53))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('<', 'abc', 5))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('q', 'abc', 9))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('c0', 'abc', 9))lua",
       R"lua(ERR: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
      {R"lua(struct.unpack('!3', 'abc'))lua",
       R"lua(ERR: user_script:1: alignment 3 is not a power of 2)lua"},
      {R"lua(select('#', struct.unpack(string.rep('b', 7998), string.rep('a', 7998))))lua",
       R"lua(ERR: user_script:1: stack overflow (too many results))lua"},
  });
}

}  // namespace
}  // namespace redistp
