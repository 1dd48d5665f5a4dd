// Unit tests for the Lua debugger's two renderings (scripting/lua_debugger.h): Lua values as
// `print` and `eval` show them, and raw RESP replies as the `<reply>` log line shows them. The
// expected texts are what Debian's redis-server 7.0.15 logged for the same values in a
// SCRIPT DEBUG session; the malformed and self-referencing cases are ours (no crash, no loop).
#include "scripting/lua_debugger.h"

#include <gtest/gtest.h>

#include <string>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace redistp {
namespace {

class LdbValueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
  }
  void TearDown() override { lua_close(L); }

  // Evaluates `expr` and renders its value.
  std::string Show(const std::string& expr) {
    const std::string code = "return " + expr;
    EXPECT_EQ(0, luaL_loadstring(L, code.c_str()));
    EXPECT_EQ(0, lua_pcall(L, 0, 1, 0));
    std::string text = LdbValueText(L, -1);
    lua_pop(L, 1);
    EXPECT_EQ(0, lua_gettop(L)) << "the rendering left values on the stack";
    return text;
  }

  lua_State* L = nullptr;
};

TEST_F(LdbValueTest, Scalars) {
  EXPECT_EQ("\"str\"", Show("'str'"));
  EXPECT_EQ("\"a\\nb\\\"x01\"", Show("'a\\nb\\\"x01'"));
  EXPECT_EQ("\"\\x01\\xff\"", Show("'\\1\\255'"));
  EXPECT_EQ("1", Show("1"));
  EXPECT_EQ("3.5", Show("3.5"));
  EXPECT_EQ("1e+16", Show("1e16"));
  EXPECT_EQ("true", Show("true"));
  EXPECT_EQ("false", Show("false"));
  EXPECT_EQ("nil", Show("nil"));
}

TEST_F(LdbValueTest, Tables) {
  EXPECT_EQ("{}", Show("{}"));
  EXPECT_EQ("{1; 2; \"x\"}", Show("{1, 2, 'x'}"));
  EXPECT_EQ("{true; false; 1.5; 1e+16; {}}", Show("{true, false, 1.5, 1e16, {}}"));
  EXPECT_EQ("{[1]=1; [2]=\"two\"; [\"k\"]=\"v\"; [\"nested\"]={[\"x\"]=1}}",
            Show("{1, 'two', k='v', nested={x=1}}"));
  EXPECT_EQ("{[\"a\"]={[\"b\"]={}}}", Show("{a={b={}}}"));
}

TEST_F(LdbValueTest, OtherTypesShowTheirAddress) {
  const std::string f = Show("print");
  EXPECT_EQ(0u, f.find("\"function@0x")) << f;
  EXPECT_EQ('"', f.back());
}

TEST_F(LdbValueTest, SelfReferenceEnds) {
  ASSERT_EQ(0, luaL_dostring(L, "t = {} t[1] = t"));
  const std::string text = Show("t");
  EXPECT_NE(std::string::npos, text.find("{...}"));
}

TEST(LdbReplyTest, Resp2) {
  EXPECT_EQ("\"+OK\"", LdbReplyText("+OK\r\n"));
  EXPECT_EQ("\"-ERR boom\"", LdbReplyText("-ERR boom\r\n"));
  EXPECT_EQ("1", LdbReplyText(":1\r\n"));
  EXPECT_EQ("\"bar\"", LdbReplyText("$3\r\nbar\r\n"));
  EXPECT_EQ("\"b\\r\\nc\"", LdbReplyText("$4\r\nb\r\nc\r\n"));
  EXPECT_EQ("NULL", LdbReplyText("$-1\r\n"));
  EXPECT_EQ("NULL", LdbReplyText("*-1\r\n"));
  EXPECT_EQ("[\"a\",\"1\"]", LdbReplyText("*2\r\n$1\r\na\r\n$1\r\n1\r\n"));
  EXPECT_EQ("[]", LdbReplyText("*0\r\n"));
}

TEST(LdbReplyTest, Resp3) {
  EXPECT_EQ("~(\"a\",\"b\")", LdbReplyText("~2\r\n$1\r\na\r\n$1\r\nb\r\n"));
  EXPECT_EQ("(double) 1.5", LdbReplyText(",1.5\r\n"));
  EXPECT_EQ("(null)", LdbReplyText("_\r\n"));
  EXPECT_EQ("{\"a\" => \"1\"}", LdbReplyText("%1\r\n$1\r\na\r\n$1\r\n1\r\n"));
  EXPECT_EQ("[[\"m\",(double) 1.5]]", LdbReplyText("*1\r\n*2\r\n$1\r\nm\r\n,1.5\r\n"));
}

TEST(LdbReplyTest, MalformedIsNotACrash) {
  for (const char* bad :
       {"", "$", "$3\r\nab", "*2\r\n:1\r\n", "*x\r\n", "?\r\n", "$99\r\nab\r\n"}) {
    EXPECT_NE(std::string::npos, LdbReplyText(bad).find("<unreadable reply>")) << bad;
  }
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "*1\r\n";
  deep += ":1\r\n";
  EXPECT_NE(std::string::npos, LdbReplyText(deep).find("<unreadable reply>"));
}

}  // namespace
}  // namespace redistp
