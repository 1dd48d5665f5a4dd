// Unit tests for scripting/lua_cmsgpack: the `cmsgpack` library in a plain Lua 5.1 state. Every
// expected byte string, value and error text below is what Debian's redis-server 7.0.15 answered
// to the same Lua snippet under EVAL (chunks are named "@user_script" so that error positions
// read as Redis's do).
#include <gtest/gtest.h>

#include <string>

#include "scripting/lua_env.h"
#include "scripting/lua_libs.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace redistp {
namespace {

// Lua helpers the snippets use: hex(s), fromhex(h), and dump(...), a typed rendering of all its
// arguments ("N: v1 v2 ...", tables with sorted keys, strings %q, numbers %.17g).
constexpr const char* kHelpers = R"lua(
function hex(s)
  return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))
end
function fromhex(h)
  return (h:gsub('..', function(x) return string.char(tonumber(x, 16)) end))
end
local function one(v)
  local t = type(v)
  if t == 'table' then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local parts = {}
    for _, k in ipairs(keys) do parts[#parts + 1] = one(k) .. '=' .. one(v[k]) end
    return '{' .. table.concat(parts, ',') .. '}'
  elseif t == 'string' then return string.format('%q', v)
  elseif t == 'number' then return string.format('%.17g', v)
  else return tostring(v) end
end
function dump(...)
  local out = {}
  for i = 1, select('#', ...) do out[i] = one((select(i, ...))) end
  return select('#', ...) .. ': ' .. table.concat(out, ' ')
end
)lua";

class LuaCmsgpackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L_ = luaL_newstate();
    luaL_openlibs(L_);
    InstallRunProtected(L_);
    lua_pushcfunction(L_, OpenLuaCmsgpack);
    lua_call(L_, 0, 1);
    lua_setglobal(L_, "cmsgpack");
    ASSERT_EQ(Run(kHelpers), "");
  }
  void TearDown() override { lua_close(L_); }

  // Runs a chunk; its first result as a string ("" for none), or "ERR " and the error message.
  std::string Run(const std::string& code) {
    int top = lua_gettop(L_);
    if (luaL_loadbuffer(L_, code.data(), code.size(), "@user_script") != 0 ||
        lua_pcall(L_, 0, 1, 0) != 0) {
      std::string err = std::string("ERR ") + lua_tostring(L_, -1);
      lua_settop(L_, top);
      return err;
    }
    std::string out = lua_isnil(L_, -1) ? "" : lua_tostring(L_, -1);
    lua_settop(L_, top);
    return out;
  }
  // Hex of cmsgpack.pack(args).
  std::string PackHex(const std::string& args) {
    return Run("return hex(cmsgpack.pack(" + args + "))");
  }
  // dump() of what `call` returns, with the input bytes given in hex bound to `d`.
  std::string Unpack(const std::string& input_hex, const std::string& call = "cmsgpack.unpack(d)") {
    return Run("local d = fromhex('" + input_hex + "') return dump(" + call + ")");
  }

  lua_State* L_ = nullptr;
};

TEST_F(LuaCmsgpackTest, FieldsAndFunctionsAreRedis) {
  EXPECT_EQ(Run("return cmsgpack._NAME .. '|' .. cmsgpack._VERSION .. '|' .. "
                "cmsgpack._COPYRIGHT .. '|' .. cmsgpack._DESCRIPTION"),
            "cmsgpack|lua-cmsgpack 0.4.0|Copyright (C) 2012, Salvatore Sanfilippo|"
            "MessagePack C implementation for Lua");
  // pairs() order included: scripts that walk the table see Redis's order.
  EXPECT_EQ(Run("local t = {} for k, v in pairs(cmsgpack) do t[#t + 1] = k .. ':' .. type(v) end "
                "return table.concat(t, ' ')"),
            "_DESCRIPTION:string pack:function _NAME:string unpack:function _COPYRIGHT:string "
            "_VERSION:string unpack_one:function unpack_limit:function");
}

TEST_F(LuaCmsgpackTest, PacksIntegersInTheSmallestForm) {
  const std::pair<const char*, const char*> cases[] = {
      {"0", "00"},
      {"127", "7f"},
      {"128", "cc80"},
      {"255", "ccff"},
      {"256", "cd0100"},
      {"65535", "cdffff"},
      {"65536", "ce00010000"},
      {"4294967295", "ceffffffff"},
      {"4294967296", "cf0000000100000000"},
      {"2^53", "cf0020000000000000"},
      {"-1", "ff"},
      {"-32", "e0"},
      {"-33", "d0df"},
      {"-128", "d080"},
      {"-129", "d1ff7f"},
      {"-32768", "d18000"},
      {"-32769", "d2ffff7fff"},
      {"-2147483648", "d280000000"},
      {"-2147483649", "d3ffffffff7fffffff"},
      {"-2^63", "d38000000000000000"},
      {"-0.0", "00"},
  };
  for (const auto& [expr, hex] : cases) EXPECT_EQ(PackHex(expr), hex) << expr;
}

TEST_F(LuaCmsgpackTest, PacksOtherNumbersAsFloat32WhenExactElseFloat64) {
  const std::pair<const char*, const char*> cases[] = {
      {"1.5", "ca3fc00000"},
      {"0.5", "ca3f000000"},
      {"0.1", "cb3fb999999999999a"},
      {"2^63", "ca5f000000"},  // just outside int64: a float, exact in 32 bits
      {"2^64", "ca5f800000"},
      {"1e20", "cb4415af1d78b58c40"},
      {"-1e20", "cbc415af1d78b58c40"},
      {"-2^31-0.5", "cbc1e0000000100000"},
      {"1/0", "ca7f800000"},
      {"-1/0", "caff800000"},
      {"0/0", "cbfff8000000000000"},
      {"1e300", "cb7e37e43c8800759c"},
  };
  for (const auto& [expr, hex] : cases) EXPECT_EQ(PackHex(expr), hex) << expr;
}

TEST_F(LuaCmsgpackTest, PacksScalarsAndStrings) {
  EXPECT_EQ(PackHex("nil"), "c0");
  EXPECT_EQ(PackHex("true"), "c3");
  EXPECT_EQ(PackHex("false"), "c2");
  EXPECT_EQ(PackHex("print"), "c0");  // no MessagePack form: nil
  EXPECT_EQ(PackHex("coroutine.create(function() end)"), "c0");
  EXPECT_EQ(PackHex("''"), "a0");
  EXPECT_EQ(PackHex("'a'"), "a161");
  EXPECT_EQ(PackHex("'12'"), "a23132");  // a numeric string stays a string
  std::string x31 = "bf";
  for (int i = 0; i < 31; ++i) x31 += "78";
  EXPECT_EQ(PackHex("string.rep('x', 31)"), x31);
  // Headers only, by length.
  EXPECT_EQ(Run("return hex(cmsgpack.pack(string.rep('x', 31)):sub(1, 1))"), "bf");
  EXPECT_EQ(Run("return hex(cmsgpack.pack(string.rep('x', 32)):sub(1, 2))"), "d920");
  EXPECT_EQ(Run("return hex(cmsgpack.pack(string.rep('x', 255)):sub(1, 2))"), "d9ff");
  EXPECT_EQ(Run("return hex(cmsgpack.pack(string.rep('x', 256)):sub(1, 3))"), "da0100");
  EXPECT_EQ(Run("return hex(cmsgpack.pack(string.rep('x', 65536)):sub(1, 6))"), "db0001000078");
  EXPECT_EQ(Run("return #cmsgpack.pack(string.rep('x', 65536))"), "65541");
}

TEST_F(LuaCmsgpackTest, PacksEveryArgumentBackToBack) {
  EXPECT_EQ(PackHex("{1,2,3}, 'a', 1.5, -1"), "93010203a161ca3fc00000ff");
  EXPECT_EQ(PackHex("1, nil, 2"), "01c002");
  EXPECT_EQ(Run("return cmsgpack.pack()"),
            "ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)");
}

TEST_F(LuaCmsgpackTest, PacksArraysOnlyForKeysOneToN) {
  EXPECT_EQ(PackHex("{}"), "90");
  EXPECT_EQ(PackHex("{a=1}"), "81a16101");
  EXPECT_EQ(PackHex("{[1]=1,[3]=3}"), "8201010303");
  EXPECT_EQ(PackHex("{[0]=1}"), "810001");
  EXPECT_EQ(PackHex("{1,2,nil,4}"), "83010102020404");
  EXPECT_EQ(PackHex("{[1.5]=1}"), "81ca3fc0000001");
  EXPECT_EQ(PackHex("{n=1,2}"), "820102a16e01");
  EXPECT_EQ(PackHex("{[true]=1}"), "81c301");
  EXPECT_EQ(PackHex("{[{}]=1}"), "819001");
  EXPECT_EQ(PackHex("{[{1}]={2}}"), "8191019102");
  // 16- and 32-bit counts.
  EXPECT_EQ(
      Run("local t = {} for i = 1, 15 do t[i] = i end return hex(cmsgpack.pack(t):sub(1, 2))"),
      "9f01");
  EXPECT_EQ(
      Run("local t = {} for i = 1, 16 do t[i] = i end return hex(cmsgpack.pack(t):sub(1, 4))"),
      "dc001001");
  EXPECT_EQ(Run("local t = {} for i = 1, 65536 do t[i] = i end "
                "return hex(cmsgpack.pack(t):sub(1, 6))"),
            "dd0001000001");
  EXPECT_EQ(Run("local t = {} for i = 1, 15 do t['k' .. i] = i end "
                "return hex(cmsgpack.pack(t):sub(1, 1))"),
            "8f");
  EXPECT_EQ(Run("local t = {} for i = 1, 16 do t['k' .. i] = i end "
                "return hex(cmsgpack.pack(t):sub(1, 3))"),
            "de0010");
  EXPECT_EQ(Run("local t = {} for i = 1, 65536 do t['k' .. i] = i end "
                "return hex(cmsgpack.pack(t):sub(1, 5))"),
            "df00010000");
}

TEST_F(LuaCmsgpackTest, TablesFromLevelSixteenOnArePackedAsNil) {
  EXPECT_EQ(PackHex("{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}"), "91919191919191919191919191919101");
  EXPECT_EQ(PackHex("{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}"), "9191919191919191919191919191919101");
  EXPECT_EQ(PackHex("{{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}}"),
            "91919191919191919191919191919191c0");
  EXPECT_EQ(PackHex("{a={b={c={d={e={f={g={h={i={j={k={l={m={n={o={p={q=1}}}}}}}}}}}}}}}}}"),
            "81a16181a16281a16381a16481a16581a16681a16781a16881a16981a16a81a16b81a16c81a16d81a16e81"
            "a16f81a170c0");
  // A table that contains itself ends at the same depth.
  EXPECT_EQ(Run("local t = {} t[1] = t return hex(cmsgpack.pack(t))"),
            "91919191919191919191919191919191c0");
}

TEST_F(LuaCmsgpackTest, UnpacksEveryType) {
  EXPECT_EQ(Unpack("93010203a161ca3fc00000ff"), "4: {1=1,2=2,3=3} \"a\" 1.5 -1");
  EXPECT_EQ(Unpack(""), "0: ");
  EXPECT_EQ(Unpack("c0"), "1: nil");
  EXPECT_EQ(Unpack("c3c2"), "2: true false");
  EXPECT_EQ(Unpack("ccff"), "1: 255");
  EXPECT_EQ(Unpack("cdffff"), "1: 65535");
  EXPECT_EQ(Unpack("ceffffffff"), "1: 4294967295");
  EXPECT_EQ(Unpack("cf0020000000000000"), "1: 9007199254740992");
  EXPECT_EQ(Unpack("cfffffffffffffffff"), "1: -1");
  EXPECT_EQ(Unpack("d0ff"), "1: -1");
  EXPECT_EQ(Unpack("d1ffff"), "1: -1");
  EXPECT_EQ(Unpack("d2ffffffff"), "1: -1");
  EXPECT_EQ(Unpack("d3ffffffffffffffff"), "1: -1");
  EXPECT_EQ(Unpack("d38000000000000000"), "1: -9.2233720368547758e+18");
  EXPECT_EQ(Unpack("e0"), "1: -32");
  EXPECT_EQ(Unpack("ca3fc00000"), "1: 1.5");
  EXPECT_EQ(Unpack("cb3fb999999999999a"), "1: 0.10000000000000001");
  EXPECT_EQ(Unpack("d90161"), "1: \"a\"");
  EXPECT_EQ(Unpack("da000161"), "1: \"a\"");
  EXPECT_EQ(Unpack("db0000000161"), "1: \"a\"");
  EXPECT_EQ(Unpack("dc000101"), "1: {1=1}");
  EXPECT_EQ(Unpack("dd0000000101"), "1: {1=1}");
  EXPECT_EQ(Unpack("de0001a16101"), "1: {\"a\"=1}");
  EXPECT_EQ(Unpack("df00000001a16101"), "1: {\"a\"=1}");
  EXPECT_EQ(Unpack("dc0000"), "1: {}");
  EXPECT_EQ(Unpack("de0000"), "1: {}");
  EXPECT_EQ(Unpack("92c001"), "1: {2=1}");      // a nil element leaves a hole
  EXPECT_EQ(Unpack("8201c00202"), "1: {2=2}");  // a nil value sets nothing
  EXPECT_EQ(Unpack("01a16102", "cmsgpack.unpack(d, 1)"), "3: 1 \"a\" 2");  // extras ignored
  EXPECT_EQ(Run("return dump(cmsgpack.unpack(5))"), "1: 53");              // a number is its string
}

TEST_F(LuaCmsgpackTest, RejectsBadAndTruncatedInput) {
  const std::string bad = "ERR user_script:1: Bad data format in input.";
  const std::string missing = "ERR user_script:1: Missing bytes in input.";
  for (const char* hex : {"c1", "c403616263", "c50003616263", "c600000003616263", "d40100",
                          "c7010100", "c4", "d4", "d8", "c7", "c1c1", "01c1"}) {
    EXPECT_EQ(Unpack(hex), bad) << hex;
  }
  for (const char* hex :
       {"cc", "ca", "cb3fb9", "dbffffffff61", "dc", "dcff", "dd000000", "d9", "d905", "a3ab", "91",
        "9301", "81", "8101", "82c0", "de0001", "8201019202"}) {
    EXPECT_EQ(Unpack(hex), missing) << hex;
  }
  EXPECT_EQ(Unpack("82c00101c0"), "ERR table index is nil");
  EXPECT_EQ(Unpack("83c0c0"), "ERR table index is nil");
  EXPECT_EQ(Unpack("81cbfff800000000000001"), "ERR table index is NaN");
  EXPECT_EQ(Run("return cmsgpack.unpack()"),
            "ERR user_script:1: bad argument #1 to 'unpack' (string expected, got no value)");
  EXPECT_EQ(Run("return cmsgpack.unpack({})"),
            "ERR user_script:1: bad argument #1 to 'unpack' (string expected, got table)");
  EXPECT_EQ(Run("return cmsgpack.unpack(nil)"),
            "ERR user_script:1: bad argument #1 to 'unpack' (string expected, got nil)");
}

TEST_F(LuaCmsgpackTest, UnpackOneWalksByOffset) {
  const char* d = "01a16102";  // 1, "a", 2
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d)"), "2: 1 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 0)"), "2: 1 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, nil)"), "2: 1 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 1)"), "2: 3 \"a\"");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 1.5)"), "2: 3 \"a\"");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, '1')"), "2: 3 \"a\"");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 1, 5)"), "2: 3 \"a\"");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 2)"), "2: 3 97");  // mid-object: a fixint
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 3)"), "2: -1 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 4)"), "1: -1");
  EXPECT_EQ(Unpack("", "cmsgpack.unpack_one(d)"), "1: -1");
  EXPECT_EQ(Unpack("01c1", "cmsgpack.unpack_one(d)"), "2: 1 1");  // the rest is not read
  EXPECT_EQ(Unpack("01cc", "cmsgpack.unpack_one(d)"), "2: 1 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 5)"),
            "ERR user_script:1: Start offset 5 greater than input length 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, -1)"),
            "ERR user_script:1: Invalid request to unpack with offset of -1 and limit of 4.");
  // Offsets print as C ints: the low 32 bits.
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 2^32 + 1)"),
            "ERR user_script:1: Start offset 1 greater than input length 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 2^31)"),
            "ERR user_script:1: Start offset -2147483648 greater than input length 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, -2^32)"),
            "ERR user_script:1: Invalid request to unpack with offset of 0 and limit of 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 1e300)"),
            "ERR user_script:1: Invalid request to unpack with offset of 0 and limit of 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(d, 'x')"),
            "ERR user_script:1: bad argument #2 to 'unpack_one' (number expected, got string)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one({}, 'x')"),
            "ERR user_script:1: bad argument #2 to 'unpack_one' (number expected, got string)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one({}, -1)"),
            "ERR user_script:1: bad argument #1 to 'unpack_one' (string expected, got table)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one()"),
            "ERR user_script:1: bad argument #1 to 'unpack_one' (string expected, got no value)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_one(nil, 1)"),
            "ERR user_script:1: bad argument #1 to 'unpack_one' (string expected, got nil)");
}

TEST_F(LuaCmsgpackTest, UnpackLimitReturnsUpToLimitObjects) {
  const char* d = "01a16102";
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 0)"), "3: 1 \"a\" 2");  // 0: all, no offset
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 0, 0)"), "3: 1 \"a\" 2");
  // Limit 0 from another offset decodes nothing: only the offset comes back.
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 0, 1)"), "1: 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 0, 3)"), "1: 3");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 0, 4)"), "1: -1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 1)"), "2: 1 1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 2)"), "3: 3 1 \"a\"");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 3)"), "4: -1 1 \"a\" 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 4)"), "4: -1 1 \"a\" 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 2^32)"), "4: -1 1 \"a\" 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 2, 1)"), "3: -1 \"a\" 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 2, 3)"), "2: -1 2");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 1, 4)"), "1: -1");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 1, nil)"), "2: 1 1");
  EXPECT_EQ(Unpack("", "cmsgpack.unpack_limit(d, 0)"), "0: ");
  EXPECT_EQ(Unpack("", "cmsgpack.unpack_limit(d, 3)"), "1: -1");
  EXPECT_EQ(Unpack("01cc", "cmsgpack.unpack_limit(d, 2)"),
            "ERR user_script:1: Missing bytes in input.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, -1)"),
            "ERR user_script:1: Invalid request to unpack with offset of 0 and limit of 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, -1, 9)"),
            "ERR user_script:1: Invalid request to unpack with offset of 9 and limit of 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 1e300)"),
            "ERR user_script:1: Invalid request to unpack with offset of 0 and limit of 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 1, 9)"),
            "ERR user_script:1: Start offset 9 greater than input length 4.");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d)"),
            "ERR user_script:1: bad argument #2 to 'unpack_limit' (number expected, got no value)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit(d, 'x')"),
            "ERR user_script:1: bad argument #2 to 'unpack_limit' (number expected, got string)");
  EXPECT_EQ(Unpack(d, "cmsgpack.unpack_limit({}, 1, 'x')"),
            "ERR user_script:1: bad argument #3 to 'unpack_limit' (number expected, got string)");
}

TEST_F(LuaCmsgpackTest, RoundTripsNestedValues) {
  EXPECT_EQ(Run("return dump(cmsgpack.unpack(cmsgpack.pack({1, {2, {a = 'x', b = {true, false}}}, "
                "-7, 2^40, 0.25, ''})))"),
            "1: {1=1,2={1=2,2={\"a\"=\"x\",\"b\"={1=true,2=false}}},3=-7,4=1099511627776,5=0.25,"
            "6=\"\"}");
  EXPECT_EQ(Run("local s = string.rep('z', 70000) return "
                "tostring(cmsgpack.unpack(cmsgpack.pack(s)) == s)"),
            "true");
}

// The stack of a C function holds at most 8000 values; Redis's limits and messages at the edge.
TEST_F(LuaCmsgpackTest, StackLimitsMatchRedis) {
  // Largest n for which f(n) succeeds, by bisection over [1, 20000].
  ASSERT_EQ(Run(R"lua(
    function bound(f)
      local lo, hi = 1, 20000
      while lo < hi do
        local m = math.floor((lo + hi + 1) / 2)
        if pcall(f, m) then lo = m else hi = m - 1 end
      end
      return lo
    end
    function ones(n) return string.rep(string.char(1), n) end
    function nest(n) return string.rep(string.char(0x91), n) .. string.char(1) end
    function packn(n, last)  -- pack(1, ..., 1, last) with n arguments in all
      local t = {} for i = 1, n - 1 do t[i] = 1 end
      t[n] = last
      return cmsgpack.pack(unpack(t, 1, n))
    end
    function depth(d, array)
      local t = 1
      for i = 1, d do if array then t = {t} else t = {a = t} end end
      return t
    end
  )lua"),
            "");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack(ones(n)) end)"), "7999");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack(ones(n), 0) end)"), "7998");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack_limit(ones(n), n) end)"), "7998");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack_limit(ones(n), n, 0, 0) end)"), "7998");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack_limit(ones(n), 0, 0) end)"), "7999");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack(nest(n)) end)"), "3999");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack(nest(n), 1) end)"), "3998");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack_one(nest(n), 0) end)"), "3999");
  EXPECT_EQ(Run("return bound(function(n) cmsgpack.unpack(ones(100) .. nest(n)) end)"), "3949");
  EXPECT_EQ(
      Run("return bound(function(n) cmsgpack.unpack(string.rep('\\129\\1', n) .. '\\1') end)"),
      "3999");
  EXPECT_EQ(Run("return bound(function(n) "
                "cmsgpack.unpack(string.rep('\\129', n) .. string.rep('\\1', n + 1)) end)"),
            "7997");
  EXPECT_EQ(Run("return bound(function(n) packn(n, 1) end)"), "4000");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(1, true)) end)"), "3999");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(2, true)) end)"), "3998");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(15, true)) end)"), "3992");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(17, true)) end)"), "3991");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(1, false)) end)"), "3998");
  EXPECT_EQ(Run("return bound(function(n) packn(n, depth(16, false)) end)"), "3983");
  EXPECT_EQ(Run("return bound(function(n) packn(n, {{a = 1}}) end)"), "3998");
  EXPECT_EQ(Run("return bound(function(n) packn(n, {a = {{1}}}) end)"), "3997");
  EXPECT_EQ(Run("return bound(function(n) packn(n, {[{[{[1] = 1}] = 1}] = 1}) end)"), "3996");

  EXPECT_EQ(Run("return cmsgpack.unpack(ones(8000))"),
            "ERR user_script:1: stack overflow (too many return values at once; use unpack_one or "
            "unpack_limit instead.)");
  EXPECT_EQ(Run("return cmsgpack.unpack(nest(10000))"),
            "ERR user_script:1: stack overflow (in function mp_decode_to_lua_array)");
  EXPECT_EQ(Run("return cmsgpack.unpack_limit(ones(7999), 7999)"),
            "ERR user_script:1: stack overflow (in function mp_unpack_full)");
  // packn's call of pack is on line 15 of the chunk above.
  EXPECT_EQ(Run("return packn(4001, 1)"),
            "ERR user_script:15: bad argument #0 to 'pack' (Too many arguments for MessagePack "
            "pack.)");
  EXPECT_EQ(Run("return packn(3992, depth(20, true))"),
            "ERR user_script:15: stack overflow (in function table_is_an_array)");
  EXPECT_EQ(Run("return packn(3984, depth(18, false))"),
            "ERR user_script:15: stack overflow (in function mp_encode_lua_table_as_map)");
}

}  // namespace
}  // namespace redistp
