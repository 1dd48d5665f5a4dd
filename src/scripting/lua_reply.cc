// Reply <-> Lua conversion (the rules are in lua_reply.h).
#include "scripting/lua_reply.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "scripting/lua_env.h"

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
      // strtod needs a terminated string; the line is short (a double's text), so a stack copy.
      char text[128];
      const size_t n = std::min(line.size(), sizeof(text) - 1);
      std::memcpy(text, line.data(), n);
      text[n] = '\0';
      lua_createtable(L, 0, 1);
      lua_pushnumber(L, std::strtod(text, nullptr));
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

// Reply conversion reads tables raw, as Redis 7.0 does: no metamethod runs, so a returned table
// whose __index or __len raises, or returns odd values, converts by what it holds. A read-only
// proxy (lua_env.h) is read as the table it stands for, so `return {map = _G}` lists the globals.
// The Lua calls made here that can raise (growing the stack, interning a field name) raise only
// for lack of memory, and WriteLuaAsReply runs all of this protected; so no C++ object with a
// destructor may live across any of these calls (lua_error longjmps over C++ frames).

// Pushes t[name] of the table at the top, raw.
void RawField(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
}

// Writes the string at the top as an error or status reply: CR and LF become spaces.
void WriteLine(lua_State* L, ReplyBuilder& out, bool error, bool counted) {
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string text(s, len);  // no Lua call while it lives
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  if (!error) {
    out.Simple(text);
  } else if (counted) {
    out.ErrorCounted(text);
  } else {
    out.Error(text);
  }
}

void WriteTop(lua_State* L, ReplyBuilder& out, int script_resp);

// The RESP3 shapes and the error and status tables, in Redis's order of checks; returns false
// when the table at the top is none of them (an array then).
bool WriteTaggedTable(lua_State* L, ReplyBuilder& out, int script_resp) {
  RawField(L, "err");
  if (lua_type(L, -1) == LUA_TSTRING) {
    lua_pushstring(L, kIgnoreStatsField);
    lua_rawget(L, -3);  // [t, err, flag]
    const bool counted = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    WriteLine(L, out, true, counted);
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  RawField(L, "ok");
  if (lua_type(L, -1) == LUA_TSTRING) {
    WriteLine(L, out, false, false);
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  RawField(L, "double");
  if (lua_type(L, -1) == LUA_TNUMBER) {
    out.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  RawField(L, "big_number");
  if (lua_type(L, -1) == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    {
      std::string digits(s, len);
      for (char& c : digits) {
        if (c == '\r' || c == '\n') c = ' ';
      }
      out.BigNumber(digits);
    }
    lua_pop(L, 1);
    return true;
  }
  lua_pop(L, 1);
  RawField(L, "verbatim_string");
  UnwrapProxy(L, -1);
  if (lua_type(L, -1) == LUA_TTABLE) {
    RawField(L, "format");  // [t, vt, format]
    lua_pushstring(L, "string");
    lua_rawget(L, -3);  // [t, vt, format, string]
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
      size_t flen = 0, slen = 0;
      const char* f = lua_tolstring(L, -2, &flen);
      const char* str = lua_tolstring(L, -1, &slen);
      // The format is 3 bytes on the wire; a shorter one is padded with NULs (Redis copies 3
      // bytes from the string, its terminator included) so the frame stays well formed.
      char format[3] = {0, 0, 0};
      std::memcpy(format, f, std::min<size_t>(flen, 3));
      out.Verbatim(std::string_view(str, slen), std::string_view(format, 3));
      lua_pop(L, 3);
      return true;
    }
    lua_pop(L, 2);
  }
  // A verbatim_string table without a string format and text falls through, as in Redis.
  lua_pop(L, 1);
  for (const bool is_map : {true, false}) {
    RawField(L, is_map ? "map" : "set");
    UnwrapProxy(L, -1);
    if (lua_type(L, -1) != LUA_TTABLE) {
      lua_pop(L, 1);
      continue;
    }
    // Counted first, so the header is written in place: a deferred header would be inserted
    // in front of everything the elements wrote, which costs the square of the depth for a
    // table nested thousands deep (a self-containing one nests to Lua's stack limit).
    size_t total = 0;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      lua_pop(L, 1);
      ++total;
    }
    if (is_map) {
      out.Map(total);
    } else {
      out.Set(total);
    }
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      // [.., m, key, value]. lua_next needs the key untouched, and writing a proxy replaces it
      // with its table: the key is written from a copy. A set drops the value first, so each
      // level takes as many stack slots as in Redis (and nests as deep) for maps and sets alike.
      if (!is_map) lua_pop(L, 1);
      lua_pushvalue(L, is_map ? -2 : -1);
      WriteTop(L, out, script_resp);
      lua_pop(L, 1);
      if (is_map) {
        WriteTop(L, out, script_resp);
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
    return true;
  }
  return false;
}

// Writes the value at the top of the stack (left there; a read-only proxy is replaced by the
// table it stands for).
void WriteTop(lua_State* L, ReplyBuilder& out, int script_resp) {
  // Each level uses up to 5 slots; past Lua's limit (deep or self-containing tables) the
  // element becomes an error, as in Redis.
  if (!lua_checkstack(L, 5)) {
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
    case LUA_TTABLE: {
      // Unwrapped in place (the caller pops the value): one stack slot per level of an array,
      // as in Redis, so an array nests as deep before "reached lua stack limit".
      UnwrapProxy(L, -1);
      if (!WriteTaggedTable(L, out, script_resp)) {
        // An array: t[1], t[2] ... up to the first nil, counted first so the header is written
        // in place (see the map case above).
        size_t n = 0;
        for (;;) {
          lua_rawgeti(L, -1, static_cast<int>(n + 1));
          const bool end = lua_isnil(L, -1);
          lua_pop(L, 1);
          if (end) break;
          ++n;
        }
        out.Array(n);
        for (size_t i = 1; i <= n; ++i) {
          lua_rawgeti(L, -1, static_cast<int>(i));
          WriteTop(L, out, script_resp);
          lua_pop(L, 1);
        }
      }
      break;
    }
    default:
      out.Null();
      break;
  }
}

struct ReplyTask {
  ReplyBuilder* out;
  int script_resp;
};

// RunProtected body: converts its one argument.
int WriteReplyTask(lua_State* L, void* ud) {
  auto* task = static_cast<ReplyTask*>(ud);
  WriteTop(L, *task->out, task->script_resp);
  return 0;
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
  ReplyTask task{&out, script_resp};
  const size_t mark = out.Mark();
  lua_pushvalue(L, idx);
  if (RunProtected(L, 1, 0, WriteReplyTask, &task) != 0) {
    // Out of memory inside Lua: whatever was written of this reply goes, an error replaces it.
    lua_pop(L, 1);
    out.Rollback(mark);
    out.Error(err::kScriptOutOfMemory);
  }
}

}  // namespace redistp
