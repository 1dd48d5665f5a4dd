// FunctionEngine: Redis 7.0's functions (FUNCTION LOAD / DELETE / FLUSH / LIST / DUMP / RESTORE,
// FCALL, FCALL_RO) on the scripting core.
//
// Model. Functions live in a Lua state of their own, as in Redis 7.0, built by the core's
// factory (NewScriptLuaState with LuaStateKind::kFunctions): the same libraries and read-only
// globals as EVAL scripts, no KEYS or ARGV. The loaded libraries are a LibrarySet
// (function_library.h); each registered callback is a reference in the state's registry, and
// dropping a library releases them.
//
// Loading a library runs its code once, with a different view of the globals: while the code
// runs, the global table's fallback (the table its read-only proxy reads through) is swapped
// for a load-time table holding only `redis`, and that `redis` has only register_function, log,
// the LOG_* levels and the version fields. Any other name raises "Script attempted to access
// nonexistent global variable". The fallback is restored afterwards, so closures the library
// created (helpers included) see every global when they run later; a reference to the
// load-time `redis` kept in an upvalue keeps seeing only that table, as in Redis. Load code
// that runs for more than 500 ms is stopped ("FUNCTION LOAD timeout").
//
// register_function works only while a library loads (the library being built is `loading_`);
// called later through a kept reference it raises Redis's error. Every change to the loaded set
// is built as a candidate set first and merged all-or-nothing, so a failed LOAD, LOAD REPLACE or
// RESTORE leaves the libraries as they were.
//
// FCALL finds the function (case-insensitively), checks the key count and the function's flags
// (FCALL_RO needs no-writes; without no-writes or allow-oom it is refused while the server is
// over maxmemory), and runs the callback with two arguments, the keys and the other arguments as
// arrays, through the core's ScriptEngine::RunScript: the same script client, redis.call
// admission, reply conversion, error format ("script: <function>, on @user_function:<line>.")
// and busy-script bookkeeping as EVAL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scripting/function_library.h"
#include "server/command.h"
#include "server/server.h"
#include "util/status.h"

struct lua_State;
struct lua_Debug;

namespace redistp {

enum class FunctionRestorePolicy { kAppend, kReplace, kFlush };

// The server's functions subsystem (server/subsystem.h): no hooks, as ScriptEngine.
class FunctionEngine : public Subsystem {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kFunctions;

  explicit FunctionEngine(Server& server);
  ~FunctionEngine() override;
  FunctionEngine(const FunctionEngine&) = delete;
  FunctionEngine& operator=(const FunctionEngine&) = delete;

  // The server's engine, created and attached on first use.
  static FunctionEngine& Of(Server& server);

  // FUNCTION LOAD [REPLACE]: the new library's name, or the error in Redis's order (shebang,
  // engine, library exists, compile, run, nothing registered, function names taken).
  Result<std::string> Load(std::string_view code, bool replace);
  // FUNCTION DELETE: "ERR Library not found" when there is none of that name.
  Status Delete(std::string_view name);
  // FUNCTION FLUSH.
  void Flush();
  // FUNCTION DUMP (rdbcompression decides whether long code is LZF-compressed).
  std::string Dump(bool compress) const;
  // FUNCTION RESTORE: loads every library of `payload` into a candidate set, then applies
  // `policy`; nothing changes on any error.
  Status Restore(std::string_view payload, FunctionRestorePolicy policy);
  // FCALL / FCALL_RO: args are "fcall" name numkeys key... arg...
  void Call(CommandContext& ctx, bool read_only);

  const LibrarySet& libraries() const { return libraries_; }
  // The functions' Lua state (tests: tests/fuzz/lua_fuzz.cc makes its allocations fail).
  lua_State* lua_state() const { return lua_; }
  // The FCALL command line of the function running now (FUNCTION STATS), or nullptr.
  const std::vector<std::string_view>* running_args() const { return running_args_; }
  // INFO: used_memory_vm_functions (the Lua heap) and used_memory_functions (the records).
  size_t lua_memory() const;
  size_t memory() const;

 private:
  // Compiles and runs one library's code, registering its functions into a new library that
  // is added to `into`. `existing` is the set whose names decide "Library 'x' already exists"
  // (skipped when `replace`).
  Status Create(std::string_view code, const LibrarySet& existing, bool replace, LibrarySet& into);
  // Runs the compiled chunk on top of the stack with the load-time globals; the error text
  // (after "Error registering functions: ") on failure.
  Status RunLoadCode();
  void BuildLoadEnvironment();
  static void ReleaseFunction(void* self, const FunctionInfo& f);
  static int RegisterFunction(lua_State* L);
  // Registers the function RegisterFunction was called with; the error text (static storage)
  // or empty. Its C++ objects are gone when it returns, so RegisterFunction may raise then.
  static std::string_view TryRegisterFunction(lua_State* L);
  // What RegistrationTask, run protected, reads and fills.
  struct Registration {
    FunctionInfo* f;
    FunctionLibrary* library;  // the library being loaded (names must not repeat in it)
    std::string_view error;
  };
  static int RegistrationTask(lua_State* L, void* ud);
  static void Hook(lua_State* L, lua_Debug* ar);
  // register_function's argument parsing: fills `f` from the arguments on the stack; the error
  // text (static storage) or empty.
  static std::string_view ParseRegistration(lua_State* L, FunctionInfo* f, int* callback_index);

  Server& server_;
  lua_State* lua_ = nullptr;
  LibrarySet libraries_;
  // The library whose code is running (FUNCTION LOAD / RESTORE), or nullptr.
  FunctionLibrary* loading_ = nullptr;
  int64_t load_deadline_us_ = 0;
  int load_env_ref_ = 0;  // the load-time globals fallback
  int real_globals_ref_ = 0;
  const std::vector<std::string_view>* running_args_ = nullptr;
};

}  // namespace redistp
