// The Lua libraries redis-tp writes itself for scripts: `struct` and `cmsgpack` (Redis ships both
// inside its server; Debian packages neither). cjson and bit come from Debian's lua-cjson and
// lua-bitop (luaopen_cjson, luaopen_bit).
//
// Each function is a lua_CFunction in the luaopen_* convention: it builds the library's table,
// leaves it on the stack and returns 1. The script engine sets it as the global of that name.
#pragma once

struct lua_State;

namespace redistp {

// `struct`: pack, unpack and size of binary records by a format string (lua_struct.cc).
int OpenLuaStruct(lua_State* L);
// `cmsgpack`: MessagePack pack, unpack, unpack_one and unpack_limit (lua_cmsgpack.cc).
int OpenLuaCmsgpack(lua_State* L);

}  // namespace redistp
