// Reply <-> Lua conversion (the rules are in lua_reply.h).
#include "scripting/lua_reply.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/reply_builder.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redistp {
namespace {

// Reads the decimal number ending at the next CRLF from `p` (bounded by `end`); sets `*next`
// past the CRLF.
long long ReadLine(const char* p, const char* end, const char** next, std::string_view* line) {
  const char* q = p;
  while (q < end && *q != '\r') ++q;
  *line = std::string_view(p, static_cast<size_t>(q - p));
  *next = q + 2 <= end ? q + 2 : end;
  // Lengths and integers only (doubles and the rest read `line` themselves).
  long long v = 0;
  bool negative = false;
  for (char c : *line) {
    if (c == '-') {
      negative = true;
    } else if (c >= '0' && c <= '9') {
      // Lines of other types (a double's digits) may not fit: stop before overflowing.
      if (__builtin_mul_overflow(v, 10LL, &v) || __builtin_sub_overflow(v, c - '0', &v)) break;
    } else {
      break;
    }
  }
  return negative ? v : -v;
}

void SetField(lua_State* L, const char* name, std::string_view value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, name);
}

// Pushes the value starting at `p`; returns the position after it.
const char* PushValue(lua_State* L, const char* p, const char* end) {
  luaL_checkstack(L, 4, "reached lua stack limit");
  const char type = *p;
  const char* next = nullptr;
  std::string_view line;
  long long n = ReadLine(p + 1, end, &next, &line);
  switch (type) {
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(n));
      return next;
    case '+':
      lua_createtable(L, 0, 1);
      SetField(L, "ok", line);
      return next;
    case '-':
      lua_createtable(L, 0, 1);
      SetField(L, "err", line);
      return next;
    case '$':
      if (n < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      lua_pushlstring(L, next, static_cast<size_t>(n));
      return next + n + 2;
    case '_':
      lua_pushnil(L);
      return next;
    case '#':
      lua_pushboolean(L, line == "t");
      return next;
    case ',': {
      lua_createtable(L, 0, 1);
      std::string text(line);
      lua_pushnumber(L, std::strtod(text.c_str(), nullptr));
      lua_setfield(L, -2, "double");
      return next;
    }
    case '(':
      lua_createtable(L, 0, 1);
      SetField(L, "big_number", line);
      return next;
    case '=': {
      // "=<len>\r\n" then "fmt:text\r\n"
      std::string_view body(next, static_cast<size_t>(n));
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, 2);
      SetField(L, "format", body.substr(0, 3));
      SetField(L, "string", body.size() >= 4 ? body.substr(4) : std::string_view());
      lua_setfield(L, -2, "verbatim_string");
      return next + n + 2;
    }
    case '*':
    case '>': {
      if (n < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      lua_createtable(L, static_cast<int>(n), 0);
      for (long long i = 0; i < n; ++i) {
        next = PushValue(L, next, end);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return next;
    }
    case '%':
    case '~': {
      const bool is_map = type == '%';
      lua_createtable(L, 0, 1);
      // Grown from empty, not presized: small integer members then move to the array part as
      // in Redis, so pairs() visits them in Redis's order.
      lua_newtable(L);
      for (long long i = 0; i < n; ++i) {
        next = PushValue(L, next, end);
        if (is_map) {
          next = PushValue(L, next, end);
        } else {
          lua_pushboolean(L, 1);
        }
        lua_settable(L, -3);
      }
      lua_setfield(L, -2, is_map ? "map" : "set");
      return next;
    }
    case '|': {
      // An attribute annotates the value that follows it; scripts see only that value.
      for (long long i = 0; i < 2 * n; ++i) {
        next = PushValue(L, next, end);
        lua_pop(L, 1);
      }
      return PushValue(L, next, end);
    }
    default:
      lua_pushnil(L);
      return end;
  }
}

// The string field `name` of the table at the top, or nullptr (the stack is unchanged).
bool StringField(lua_State* L, const char* name, std::string* out) {
  lua_getfield(L, -1, name);
  bool found = lua_type(L, -1) == LUA_TSTRING;
  if (found) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    out->assign(s, len);
  }
  lua_pop(L, 1);
  return found;
}

bool HasFieldOfType(lua_State* L, const char* name, int type) {
  lua_getfield(L, -1, name);
  bool found = lua_type(L, -1) == type;
  lua_pop(L, 1);
  return found;
}

void ReplaceNewlines(std::string* s) {
  for (char& c : *s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
}

void WriteTop(lua_State* L, ReplyBuilder& out, int script_resp);

void WriteTable(lua_State* L, ReplyBuilder& out, int script_resp) {
  std::string text;
  if (StringField(L, "err", &text)) {
    ReplaceNewlines(&text);
    lua_getfield(L, -1, kIgnoreStatsField);
    const bool counted = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    if (counted) {
      out.ErrorCounted(text);
    } else {
      out.Error(text);
    }
    return;
  }
  if (StringField(L, "ok", &text)) {
    ReplaceNewlines(&text);
    out.Simple(text);
    return;
  }
  if (HasFieldOfType(L, "double", LUA_TNUMBER)) {
    lua_getfield(L, -1, "double");
    out.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  if (StringField(L, "big_number", &text)) {
    ReplaceNewlines(&text);
    out.BigNumber(text);
    return;
  }
  if (HasFieldOfType(L, "map", LUA_TTABLE) || HasFieldOfType(L, "set", LUA_TTABLE)) {
    const bool is_map = HasFieldOfType(L, "map", LUA_TTABLE);
    lua_getfield(L, -1, is_map ? "map" : "set");
    size_t count = 0;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      ++count;
      lua_pop(L, 1);
    }
    if (is_map) {
      out.Map(count);
    } else {
      out.Set(count);
    }
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      // Key, then (maps) value; the key is copied so writing it cannot disturb lua_next.
      lua_pushvalue(L, -2);
      WriteTop(L, out, script_resp);
      lua_pop(L, 1);
      if (is_map) WriteTop(L, out, script_resp);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return;
  }
  if (HasFieldOfType(L, "verbatim_string", LUA_TTABLE)) {
    lua_getfield(L, -1, "verbatim_string");
    std::string format, body;
    if (StringField(L, "format", &format) && StringField(L, "string", &body)) {
      out.Verbatim(body, format);
    } else {
      out.Null();
    }
    lua_pop(L, 1);
    return;
  }
  // An array: t[1], t[2] ... up to the first nil; the length is known only at the end.
  size_t handle = out.DeferLen();
  size_t n = 0;
  for (;;) {
    lua_rawgeti(L, -1, static_cast<int>(n + 1));
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    WriteTop(L, out, script_resp);
    lua_pop(L, 1);
    ++n;
  }
  out.SetDeferredLen(handle, '*', n);
}

// Writes the value at the top of the stack (left there).
void WriteTop(lua_State* L, ReplyBuilder& out, int script_resp) {
  if (!lua_checkstack(L, 4)) {
    out.Error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      out.Bulk(std::string_view(s, len));
      break;
    }
    case LUA_TBOOLEAN:
      if (script_resp == 2) {
        if (lua_toboolean(L, -1)) {
          out.Int(1);
        } else {
          out.Null();
        }
      } else {
        out.Bool(lua_toboolean(L, -1) != 0);
      }
      break;
    case LUA_TNUMBER:
      out.Int(LuaNumberToInteger(lua_tonumber(L, -1)));
      break;
    case LUA_TTABLE:
      WriteTable(L, out, script_resp);
      break;
    default:
      out.Null();
      break;
  }
}

}  // namespace

long long LuaNumberToInteger(double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) return INT64_MIN;
  return static_cast<long long>(d);
}

size_t PushReplyAsLua(lua_State* L, std::string_view resp) {
  const char* begin = resp.data();
  const char* end = begin + resp.size();
  if (resp.empty()) {
    lua_pushnil(L);
    return 0;
  }
  return static_cast<size_t>(PushValue(L, begin, end) - begin);
}

void WriteLuaAsReply(lua_State* L, int idx, ReplyBuilder& out, int script_resp) {
  lua_pushvalue(L, idx);
  WriteTop(L, out, script_resp);
  lua_pop(L, 1);
}

}  // namespace redistp
