// The functions engine (model in function_engine.h).
#include "scripting/function_engine.h"

#include <memory>
#include <utility>
#include <vector>

#include "protocol/errors.h"
#include "scripting/lua_env.h"
#include "scripting/script_engine.h"
#include "server/client.h"
#include "util/numbers.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redistp {
namespace {

char kFunctionEngineKey;  // registry key of the engine (register_function, the hook)

constexpr int kHookInstructions = 100000;
constexpr int64_t kLoadTimeoutUs = 500 * 1000;  // Redis 7.0's limit on a library's load code

FunctionEngine* EngineOf(lua_State* L) {
  lua_pushlightuserdata(L, &kFunctionEngineKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* engine = static_cast<FunctionEngine*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return engine;
}

// __index of the load-time `redis` (its table is upvalue 1): a missing field raises as a missing
// global does, as in Redis.
int LoadApiIndex(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  return LuaMissingGlobal(L);
}

// RunProtected body: the text of an error value left by a failed pcall without a handler (at
// index 1): an error table's `err`, or "ERR " and the message; nil when there is none. Redis reads
// the table with lua_getfield, so metamethods may run: hence the protected call (load code sees
// no `error` or `setmetatable`, but register_function's own errors are tables).
int LoadErrorTextTask(lua_State* L, void* /*ud*/) {
  if (lua_istable(L, 1)) {
    lua_getfield(L, 1, "err");
  } else if (lua_isstring(L, 1)) {
    lua_pushstring(L, "ERR ");
    lua_pushvalue(L, 1);
    lua_concat(L, 2);
  } else {
    lua_pushnil(L);
  }
  if (!lua_isstring(L, -1)) {
    lua_pop(L, 1);
    lua_pushnil(L);
  } else {
    lua_tolstring(L, -1, nullptr);
  }
  return 1;
}

// The text for the error value at the top of the stack (popped).
std::string PopLoadErrorText(lua_State* L) {
  if (RunProtected(L, 1, 1, LoadErrorTextTask, nullptr) != 0 || lua_type(L, -1) != LUA_TSTRING) {
    lua_pop(L, 1);
    return "ERR unknown error";
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string text(s, len);
  lua_pop(L, 1);
  return text;
}

}  // namespace

FunctionEngine::FunctionEngine(Server& server)
    : server_(server), libraries_(&FunctionEngine::ReleaseFunction, this) {
  lua_ = NewScriptLuaState(&ScriptEngine::Of(server), LuaStateKind::kFunctions);
  lua_State* L = lua_;
  lua_pushlightuserdata(L, &kFunctionEngineKey);
  lua_pushlightuserdata(L, this);
  lua_rawset(L, LUA_REGISTRYINDEX);

  // What functions do not see that EVAL scripts do: the error handler's global (the debugger's
  // and pre-7.0 replication's fields of `redis` are EVAL's only, lua_env.cc).
  PushRealGlobals(L);
  const int g = lua_gettop(L);
  lua_pushstring(L, "__redis__err__handler");
  lua_pushnil(L);
  lua_rawset(L, g);
  real_globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);  // pops g
  BuildLoadEnvironment();
  lua_sethook(L, Hook, LUA_MASKCOUNT, kHookInstructions);
}

FunctionEngine::~FunctionEngine() {
  libraries_.Clear();
  if (lua_ != nullptr) lua_close(lua_);
}

FunctionEngine& FunctionEngine::Of(Server& server) {
  FunctionEngine* e = server.subsystem<FunctionEngine>();
  if (e == nullptr) e = &server.AttachSubsystem(std::make_unique<FunctionEngine>(server));
  return *e;
}

void FunctionEngine::BuildLoadEnvironment() {
  lua_State* L = lua_;
  // The load-time `redis`: register_function, log, the log levels, the version.
  lua_newtable(L);
  const int api = lua_gettop(L);
  lua_pushcfunction(L, RegisterFunction);
  lua_setfield(L, api, "register_function");
  lua_rawgeti(L, LUA_REGISTRYINDEX, real_globals_ref_);
  lua_getfield(L, -1, "redis");
  for (const char* field : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                            "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
    lua_getfield(L, -1, field);
    lua_setfield(L, api, field);
  }
  lua_pop(L, 2);
  // ... behind a read-only view.
  lua_newtable(L);
  lua_createtable(L, 0, 3);
  lua_pushvalue(L, api);
  lua_pushcclosure(L, LoadApiIndex, 1);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, LuaReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  // The load-time globals: `redis` and nothing else.
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "redis");
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, LuaMissingGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  load_env_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 2);
}

void FunctionEngine::ReleaseFunction(void* self, const FunctionInfo& f) {
  auto* engine = static_cast<FunctionEngine*>(self);
  if (engine->lua_ != nullptr) UnrefProtected(engine->lua_, f.ref);
}

void FunctionEngine::Hook(lua_State* L, lua_Debug* /*ar*/) {
  FunctionEngine* engine = EngineOf(L);
  if (engine == nullptr) return;
  if (engine->loading_ == nullptr) {
    // A function is running: the core's busy-script rules (BUSY, FUNCTION KILL).
    ScriptEngine::Of(engine->server_).Interrupt(L);
    return;
  }
  if (engine->server_.clock().MonotonicUs() > engine->load_deadline_us_) {
    lua_pushstring(L, "FUNCTION LOAD timeout");
    lua_error(L);
  }
}

std::string_view FunctionEngine::ParseRegistration(lua_State* L, FunctionInfo* f,
                                                   int* callback_index) {
  auto fail = [](std::string_view text) { return text; };
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return fail(err::kRegisterArgCount);
  if (argc == 2) {
    if (!lua_isstring(L, 1)) return fail(err::kRegisterFirstArg);
    if (!lua_isfunction(L, 2)) return fail(err::kRegisterSecondArg);
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    f->name.assign(s, len);
    *callback_index = 2;
  } else {
    if (!lua_istable(L, 1)) return fail(err::kRegisterSingleArg);
    bool named = false;
    *callback_index = 0;
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
      // key at -2, value at -1; the key is never converted in place (lua_next needs it).
      if (lua_type(L, -2) != LUA_TSTRING) return fail(err::kRegisterUnknownArg);
      std::string_view key = lua_tostring(L, -2);
      size_t len = 0;
      if (key == "function_name") {
        if (!lua_isstring(L, -1)) return fail(err::kRegisterNameType);
        const char* s = lua_tolstring(L, -1, &len);
        f->name.assign(s, len);
        named = true;
      } else if (key == "callback") {
        if (!lua_isfunction(L, -1)) return fail(err::kRegisterCallbackType);
        *callback_index = 1;  // fetched again below
      } else if (key == "description") {
        if (!lua_isstring(L, -1)) return fail(err::kRegisterDescriptionType);
        const char* s = lua_tolstring(L, -1, &len);
        f->description.assign(s, len);
        f->has_description = true;
      } else if (key == "flags") {
        if (!lua_istable(L, -1)) return fail(err::kRegisterFlagsType);
        lua_pushnil(L);
        while (lua_next(L, -2) != 0) {
          uint32_t flag = 0;
          if (lua_type(L, -1) == LUA_TSTRING) {
            const char* s = lua_tolstring(L, -1, &len);
            flag = ScriptFlagByName(std::string_view(s, len));
          }
          if (flag == 0) return fail(err::kRegisterUnknownFlag);
          f->flags |= flag;
          lua_pop(L, 1);
        }
      } else {
        return fail(err::kRegisterUnknownArg);
      }
      lua_pop(L, 1);
    }
    if (!named) return fail(err::kRegisterNoName);
    if (*callback_index == 0) return fail(err::kRegisterNoCallback);
    lua_getfield(L, 1, "callback");
    *callback_index = lua_gettop(L);
  }
  if (!IsValidFunctionName(f->name)) return fail(err::kFunctionBadName);
  return {};
}

// Pushes {err = text}.
static void PushErrorTableText(lua_State* L, std::string_view text) {
  PushCodedErrorTable(L, text);
}

int FunctionEngine::RegistrationTask(lua_State* L, void* ud) {
  auto* task = static_cast<Registration*>(ud);
  int callback_index = 0;
  task->error = ParseRegistration(L, task->f, &callback_index);
  if (!task->error.empty()) return 0;
  for (const auto& g : task->library->functions) {
    if (g->name == task->f->name) {
      task->error = err::kRegisterDuplicate;
      return 0;
    }
  }
  lua_pushvalue(L, callback_index);
  task->f->ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

std::string_view FunctionEngine::TryRegisterFunction(lua_State* L) {
  FunctionEngine* engine = EngineOf(L);
  if (engine == nullptr || engine->loading_ == nullptr) return err::kRegisterOutsideLoad;
  auto f = std::make_unique<FunctionInfo>();
  Registration task{f.get(), engine->loading_, {}};
  if (RunProtected(L, lua_gettop(L), 0, RegistrationTask, &task) != 0) {
    lua_pop(L, 1);  // only lack of memory raises there
    return err::kScriptOutOfMemory;
  }
  if (!task.error.empty()) return task.error;
  engine->loading_->AddFunction(std::move(f));
  return {};
}

int FunctionEngine::RegisterFunction(lua_State* L) {
  // The C++ objects of registering live in TryRegisterFunction's frame, and every Lua call that
  // may raise runs inside its protected call; the error is raised here, once they are gone.
  std::string_view error = TryRegisterFunction(L);
  if (error.empty()) return 0;
  PushErrorTableText(L, error);
  return lua_error(L);
}

Status FunctionEngine::RunLoadCode() {
  lua_State* L = lua_;
  SetGlobalsFallback(L, load_env_ref_);
  load_deadline_us_ = server_.clock().MonotonicUs() + kLoadTimeoutUs;
  // No error handler: it would look globals up, and the load-time globals have none.
  int rc = lua_pcall(L, 0, 0, 0);
  SetGlobalsFallback(L, real_globals_ref_);
  if (rc == 0) return Status::Ok();
  std::string text(err::kFunctionRegisterPrefix);
  text += PopLoadErrorText(L);
  return Status::Error(std::move(text));
}

Status FunctionEngine::Create(std::string_view code, const LibrarySet& existing, bool replace,
                              LibrarySet& into) {
  Result<LibraryMetadata> md = ParseLibraryMetadata(code);
  if (!md.ok()) return md.status();
  if (!EqualsIgnoreCase(md.value().engine, "lua")) {
    return Status::Error(err::FunctionEngineNotFound(md.value().engine));
  }
  if (!replace && existing.FindLibrary(md.value().name) != nullptr) {
    return Status::Error(err::FunctionLibraryExists(md.value().name));
  }
  // The shebang line is left out, its newline kept, so line numbers are the code's own.
  std::string_view body = code.substr(code.find('\n'));
  lua_State* L = lua_;
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_function") != 0) {
    size_t len = 0;
    const char* msg = lua_tolstring(L, -1, &len);
    std::string text(err::kFunctionCompilePrefix);
    if (msg != nullptr) text.append(msg, len);
    lua_pop(L, 1);
    return Status::Error(std::move(text));
  }
  auto lib = std::make_unique<FunctionLibrary>();
  lib->name = md.value().name;
  lib->engine = "LUA";
  lib->code = std::string(code);
  loading_ = lib.get();
  Status s = RunLoadCode();
  loading_ = nullptr;
  if (s.ok() && lib->functions.empty())
    s = Status::Error(std::string(err::kFunctionNoneRegistered));
  if (!s.ok()) {
    for (const auto& f : lib->functions) ReleaseFunction(this, *f);
    return s;
  }
  return into.Add(std::move(lib));
}

Result<std::string> FunctionEngine::Load(std::string_view code, bool replace) {
  LibrarySet candidate(&FunctionEngine::ReleaseFunction, this);
  Status s = Create(code, libraries_, replace, candidate);
  if (!s.ok()) return s;
  std::string name = candidate.libraries().begin()->first;
  s = libraries_.Merge(
      candidate, replace ? LibrarySet::OnCollision::kReplace : LibrarySet::OnCollision::kError);
  if (!s.ok()) return s;
  return name;
}

Status FunctionEngine::Delete(std::string_view name) {
  if (!libraries_.Remove(name)) return Status::Error(std::string(err::kFunctionLibraryNotFound));
  return Status::Ok();
}

void FunctionEngine::Flush() {
  libraries_.Clear();
  CollectProtected(lua_, LUA_GCCOLLECT, 0);
}

std::string FunctionEngine::Dump(bool compress) const {
  return DumpFunctions(libraries_, compress, server_.config().rdb_version);
}

Status FunctionEngine::Restore(std::string_view payload, FunctionRestorePolicy policy) {
  // The trailer's version may be up to compat-version's, as Redis accepts up to its own (an
  // RDB file's libraries come here with version 10, which every setting accepts).
  Result<FunctionPayloadReader> reader =
      FunctionPayloadReader::Open(payload, server_.config().rdb_version);
  if (!reader.ok()) return reader.status();
  LibrarySet candidate(&FunctionEngine::ReleaseFunction, this);
  while (!reader.value().done()) {
    Result<std::string> code = reader.value().Next();
    if (!code.ok()) return code.status();
    Status s = Create(code.value(), candidate, false, candidate);
    if (!s.ok()) return s;
  }
  switch (policy) {
    case FunctionRestorePolicy::kFlush:
      libraries_.Clear();
      return libraries_.Merge(candidate, LibrarySet::OnCollision::kError);
    case FunctionRestorePolicy::kAppend:
      return libraries_.Merge(candidate, LibrarySet::OnCollision::kAbort);
    case FunctionRestorePolicy::kReplace:
      return libraries_.Merge(candidate, LibrarySet::OnCollision::kReplace);
  }
  return Status::Ok();
}

void FunctionEngine::Call(CommandContext& ctx, bool read_only) {
  const std::vector<std::string_view>& args = ctx.args;
  const FunctionInfo* fn = libraries_.FindFunction(args[1]);
  if (fn == nullptr) {
    // Admitted by the row's flags, so MONITOR sees the call before its error (as in Redis).
    server_.FeedMonitorsNow(ctx.client, args);
    ctx.reply.Error(err::kFunctionNotFound);
    return;
  }
  // Redis admits FCALL by the function's flags before the command runs.
  if (!ScriptEngine::Of(server_).AdmitDeclared(fn->flags, ctx.reply)) return;
  // Admitted: MONITOR shows FCALL before the commands the function runs, whatever it answers
  // (the row is skip-monitor so that this order holds, as for EVAL).
  server_.FeedMonitorsNow(ctx.client, args);
  size_t numkeys = 0;
  if (!ScriptEngine::ParseNumKeys(args, err::kFunctionBadNumKeys, ctx.reply, &numkeys)) return;
  if (read_only && (fn->flags & kScriptNoWrites) == 0) {
    ctx.reply.Error(err::kScriptWriteFlagRo);
    return;
  }
  ScriptRun run;
  run.caller = &ctx.client;
  run.flags = fn->flags;
  run.read_only = read_only || (fn->flags & kScriptNoWrites) != 0;
  run.is_eval = false;
  run.name = fn->name;
  run.slot = ScriptEngine::Of(server_).DeclaredSlot(args, numkeys);

  lua_State* L = lua_;
  lua_rawgeti(L, LUA_REGISTRYINDEX, fn->ref);
  ScriptEngine& engine = ScriptEngine::Of(server_);
  if (!engine.PushKeysAndArgs(L, args, 3, numkeys, false, ctx.reply)) {
    lua_pop(L, 1);
    return;
  }
  running_args_ = &args;
  engine.RunScript(ctx, L, 2, std::move(run));
  running_args_ = nullptr;
}

size_t FunctionEngine::lua_memory() const {
  if (lua_ == nullptr) return 0;
  return static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNT, 0)) * 1024 +
         static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNTB, 0));
}

size_t FunctionEngine::memory() const { return sizeof(*this) + libraries_.MemoryUsage(); }

}  // namespace redistp
