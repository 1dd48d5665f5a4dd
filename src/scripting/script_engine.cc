// The scripting engine (model in script_engine.h).
#include "scripting/script_engine.h"

#include <openssl/evp.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "acl/acl.h"
#include "db/keyspace_state.h"
#include "protocol/errors.h"
#include "protocol/errors_ldb.h"
#include "protocol/errors_replica.h"
#include "scripting/lua_env.h"
#include "scripting/lua_reply.h"
#include "server/admission.h"
#include "util/crc16.h"
#include "util/hash.h"
#include "util/numbers.h"
#include "watch/fence.h"
#include "watch/owners.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redistp {
namespace {

constexpr int kHookInstructions = 100000;
char kEngineKey;  // registry key of the engine (for the hook)
// A collection step after this many scripts, so garbage from scripts that allocate little does
// not wait for Lua's own allocation-driven cycle.
constexpr int kGcPeriod = 50;

char ToLowerHex(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Appends `num` as redis.call passes a Lua number: "%.17g".
std::string_view FormatNumberArg(double num, std::string* storage) {
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.17g", num);
  storage->assign(buf, static_cast<size_t>(n));
  return *storage;
}

// The bytes written to the script client's reply buffer (contiguous in the common case).
std::string_view ReplyBytes(const ReplyBuffer& out, std::string* scratch) {
  if (out.block_count() == 0) {
    iovec iov{};
    if (out.Gather(&iov, 1) == 0) return {};
    return {static_cast<const char*>(iov.iov_base), iov.iov_len};
  }
  *scratch = out.ToString();
  return *scratch;
}

}  // namespace

std::string Sha1Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex(2 * n, '0');
  for (unsigned int i = 0; i < n; ++i) {
    hex[2 * i] = kHex[md[i] >> 4];
    hex[2 * i + 1] = kHex[md[i] & 15];
  }
  return hex;
}

uint32_t ScriptFlagByName(std::string_view name) {
  if (name == "no-writes") return kScriptNoWrites;
  if (name == "allow-oom") return kScriptAllowOom;
  if (name == "allow-stale") return kScriptAllowStale;
  if (name == "no-cluster") return kScriptNoCluster;
  if (name == "allow-cross-slot-keys") return kScriptAllowCrossSlotKeys;
  return 0;
}

Status ParseShebang(std::string_view body, uint32_t* flags, size_t* code_start) {
  *code_start = 0;
  if (body.substr(0, 2) != "#!") {
    *flags = kScriptEvalCompat;
    return Status::Ok();
  }
  *flags = 0;
  size_t eol = body.find('\n');
  if (eol == std::string_view::npos) return Status::Error(std::string(err::kInvalidShebang));
  *code_start = eol;
  std::string_view line = body.substr(0, eol);
  // Space-separated parts: the engine, then options.
  size_t pos = 0;
  bool first = true;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == '\r')) ++pos;
    if (pos >= line.size()) break;
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    std::string_view part = line.substr(pos, end - pos);
    pos = end;
    if (first) {
      first = false;
      if (part != "#!lua") return Status::Error(err::UnexpectedShebangEngine(part));
      continue;
    }
    if (part.substr(0, 6) != "flags=") return Status::Error(err::UnknownShebangOption(part));
    // "flags=" declares none; otherwise every comma-separated piece must be a flag, empty
    // pieces too ("no-writes," names an empty flag, as Redis reads it).
    std::string_view list = part.substr(6);
    for (bool more = !list.empty(); more;) {
      size_t comma = list.find(',');
      std::string_view flag = list.substr(0, comma);
      more = comma != std::string_view::npos;
      if (more) list.remove_prefix(comma + 1);
      uint32_t f = ScriptFlagByName(flag);
      if (f == 0) return Status::Error(err::UnexpectedShebangFlag(flag));
      *flags |= f;
    }
  }
  return Status::Ok();
}

namespace {

// The fencing counter's store in a forked debugging session's child: it refuses, so the child
// never writes the parent's reservation file and hands out only tokens at or below the mark
// already durable, which the parent skips past at the fork (DebugEval).
class ChildFenceStore : public FenceStore {
 public:
  Status Persist(uint64_t /*mark*/) override {
    return Status::Error(std::string(err::kScriptDebugNoFence));
  }
};
ChildFenceStore g_child_fence_store;

}  // namespace

bool ScriptEngine::ShaKey::operator==(const ShaKey& o) const {
  return std::memcmp(hex, o.hex, sizeof(hex)) == 0;
}

size_t ScriptEngine::ShaKeyHash::operator()(const ShaKey& k) const {
  uint64_t h;
  std::memcpy(&h, k.hex, sizeof(h));
  uint64_t h2;
  std::memcpy(&h2, k.hex + 8, sizeof(h2));
  return MixBits(h ^ (h2 * 0x9E3779B97F4A7C15ULL));
}

ScriptEngine::ScriptEngine(Server& server) : server_(server), debugger_(server) {
  client_ = std::make_unique<Client>(0, -1, ClientKind::kScript);
  client_->server = &server_;
  client_->authenticated = true;
  client_->addr = "?:0";
  client_->db = &server_.db(0);
  CreateState();
}

ScriptEngine::~ScriptEngine() { CloseState(); }

void ScriptEngine::Cron() { debugger_.ReapChildren(); }

void ScriptEngine::Stop() { debugger_.KillChildren(); }

void ScriptEngine::OnClientClose(Client& c) { debugger_.SetMode(c.id, LuaDebugger::Mode::kOff); }

ScriptEngine& ScriptEngine::Of(Server& server) {
  ScriptEngine* e = server.subsystem<ScriptEngine>();
  if (e == nullptr) e = &server.AttachSubsystem(std::make_unique<ScriptEngine>(server));
  return *e;
}

void ScriptEngine::CreateState() {
  lua_ = NewScriptLuaState(this, LuaStateKind::kEval);
  lua_pushlightuserdata(lua_, &kEngineKey);
  lua_pushlightuserdata(lua_, this);
  lua_rawset(lua_, LUA_REGISTRYINDEX);
  lua_sethook(lua_, Hook, LUA_MASKCOUNT, kHookInstructions);
}

void ScriptEngine::CloseState() {
  if (lua_ != nullptr) lua_close(lua_);
  lua_ = nullptr;
}

size_t ScriptEngine::lua_memory() const {
  if (lua_ == nullptr) return 0;
  return static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNT, 0)) * 1024 +
         static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNTB, 0));
}

void ScriptEngine::Flush() {
  scripts_.clear();
  cache_bytes_ = 0;
  CloseState();
  CreateState();
}

const ScriptEngine::CachedScript* ScriptEngine::Find(std::string_view sha) const {
  if (sha.size() != 40) return nullptr;
  ShaKey key;
  for (size_t i = 0; i < 40; ++i) key.hex[i] = ToLowerHex(sha[i]);
  auto it = scripts_.find(key);
  return it == scripts_.end() ? nullptr : &it->second;
}

bool ScriptEngine::Exists(std::string_view sha) const { return Find(sha) != nullptr; }

const std::string* ScriptEngine::Body(std::string_view sha) const {
  const CachedScript* s = Find(sha);
  return s == nullptr ? nullptr : &s->body;
}

bool ScriptEngine::CachedFlags(std::string_view sha, uint32_t* flags) const {
  const CachedScript* s = Find(sha);
  if (s == nullptr) return false;
  *flags = s->flags;
  return true;
}

Result<const ScriptEngine::CachedScript*> ScriptEngine::Compile(const ShaKey& key,
                                                                std::string_view body) {
  uint32_t flags = 0;
  size_t code_start = 0;
  Status s = ParseShebang(body, &flags, &code_start);
  if (!s.ok()) return s;
  std::string_view code = body.substr(code_start);
  if (luaL_loadbuffer(lua_, code.data(), code.size(), "@user_script") != 0) {
    size_t len = 0;
    const char* msg = lua_tolstring(lua_, -1, &len);
    std::string text = err::ScriptCompileError(std::string_view(msg != nullptr ? msg : "", len));
    lua_pop(lua_, 1);
    return Status::Error(std::move(text));
  }
  CachedScript entry;
  entry.ref = RefProtected(lua_);
  if (entry.ref == LUA_NOREF) return Status::Error(std::string(err::kScriptOutOfMemory));
  entry.flags = flags;
  entry.body.assign(body);
  const size_t body_bytes = entry.body.capacity();
  auto [it, inserted] = scripts_.emplace(key, std::move(entry));
  if (inserted) {
    cache_bytes_ += sizeof(ShaKey) + sizeof(CachedScript) + 2 * sizeof(void*) + body_bytes;
  }
  return &it->second;
}

Result<std::string> ScriptEngine::Load(std::string_view body) {
  std::string sha = Sha1Hex(body);
  ShaKey key;
  std::memcpy(key.hex, sha.data(), 40);
  if (scripts_.find(key) != scripts_.end()) return sha;
  Result<const CachedScript*> r = Compile(key, body);
  if (!r.ok()) return r.status();
  return sha;
}

bool ScriptEngine::ParseNumKeys(const std::vector<std::string_view>& args,
                                std::string_view not_integer, ReplyBuilder& reply,
                                size_t* numkeys) {
  int64_t n = 0;
  if (!ParseInt64(args[2], &n)) {
    reply.Error(not_integer);
    return false;
  }
  if (n > static_cast<int64_t>(args.size()) - 3) {
    reply.Error(err::kScriptTooManyKeys);
    return false;
  }
  if (n < 0) {
    reply.Error(err::kScriptNegativeKeys);
    return false;
  }
  *numkeys = static_cast<size_t>(n);
  return true;
}

int ScriptEngine::DeclaredSlot(const std::vector<std::string_view>& args, size_t numkeys) const {
  // The admission gate let the call in, so its declared keys share one slot.
  if (!server_.config().cluster_enabled || numkeys == 0 || args.size() < 4) return -1;
  return KeyHashSlot(args[3]);
}

bool ScriptEngine::AdmitDeclared(uint32_t flags, ReplyBuilder& reply) {
  if ((flags & kScriptEvalCompat) != 0) return true;
  if ((flags & kScriptNoCluster) != 0 && server_.config().cluster_enabled) {
    reply.Error(err::kScriptNoCluster);
    return false;
  }
  if ((flags & (kScriptAllowOom | kScriptNoWrites)) == 0 && server_.config().maxmemory != 0 &&
      server_.pre_command_oom()) {
    reply.Error(err::kOom);
    return false;
  }
  if ((flags & kScriptNoWrites) == 0 && !server_.WriteRefusal().empty()) {
    reply.Error(server_.WriteRefusal());
    return false;
  }
  if ((flags & kScriptNoWrites) == 0 && server_.repl_too_few_replicas) {
    reply.Error(err::kNoReplicas);
    return false;
  }
  return true;
}

void ScriptEngine::DebugEval(CommandContext& ctx, bool by_sha, bool read_only,
                             LuaDebugger::Mode mode) {
  if (by_sha) {
    ctx.reply.Error(err::kScriptDebugEvalSha);
    return;
  }
  Client& caller = ctx.client;
  const bool forked = mode == LuaDebugger::Mode::kFork;
  debugger_.SetMode(caller.id, LuaDebugger::Mode::kOff);
  if (forked) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::string text(err::kScriptDebugForkFailed);
      text.append(std::strerror(errno));
      ctx.reply.Error(text);
      return;
    }
    if (pid > 0) {
      // The parent: the session is the child's. Our copy of the connection goes without a
      // word (no TLS close_notify either: the child's TLS session lives on).
      // Tokens the child may hand out are at most the durable mark: ours are above it from
      // now on, so no token is ever seen twice.
      FenceCounter& fences = server_.owners().fences();
      fences.Raise(fences.reserved());
      debugger_.AddChild(pid);
      debugger_.CountFork();
      server_.log().Log(LogLevel::kNotice, "Redis forked for debugging eval");
      caller.tls.reset();
      server_.CloseClient(&caller, "forked for a debugging session");
      return;
    }
    // The child: ends on its own, never through the event loop, so nothing of the server's
    // (files, persistence, timers, other connections) runs here again.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    server_.log().set_role('C');
    server_.CloseListenersInChild();
    server_.owners().fences().set_store(&g_child_fence_store);
  }
  debugger_.Begin(caller, ctx.args[1], forked);
  Eval(ctx, by_sha, read_only);
  if (forked) {
    std::string reply = caller.out.ToString();
    caller.out.Clear();
    debugger_.End(reply);
    _exit(0);
  }
  debugger_.End({});
  // The close tells the client the session is over (Redis does the same in sync mode).
  caller.set_flag(kClientCloseAfterReply, true);
}

void ScriptEngine::Eval(CommandContext& ctx, bool by_sha, bool read_only) {
  const std::vector<std::string_view>& args = ctx.args;
  const LuaDebugger::Mode debug = debugger_.ModeOf(ctx.client.id);
  if (debug != LuaDebugger::Mode::kOff && !debugger_.active()) {
    DebugEval(ctx, by_sha, read_only, debug);
    return;
  }
  // Only when some refusal is possible (the usual case has none, and pays no lookup here).
  if ((server_.config().maxmemory != 0 && server_.pre_command_oom()) ||
      server_.repl_too_few_replicas || !server_.WriteRefusal().empty() ||
      server_.config().cluster_enabled) {
    // The declared flags as admission sees them: the cached script's, or the body's shebang
    // (an unknown SHA or a bad shebang is admitted and fails below).
    uint32_t declared = kScriptEvalCompat;
    size_t code_start = 0;
    if (by_sha ? !CachedFlags(args[1], &declared)
               : !ParseShebang(args[1], &declared, &code_start).ok()) {
      declared = kScriptEvalCompat;
    }
    if (!AdmitDeclared(declared, ctx.reply)) return;
  }
  // Admitted: MONITOR shows the call before the commands the script runs, whatever it answers.
  server_.FeedMonitorsNow(ctx.client, args);
  if (by_sha && args[1].size() != 40) {
    ctx.reply.Error(err::kNoScript);
    return;
  }
  size_t numkeys = 0;
  if (!ParseNumKeys(args, err::kNotInteger, ctx.reply, &numkeys)) return;
  const CachedScript* script = nullptr;
  std::string sha_text;
  if (by_sha) {
    script = Find(args[1]);
    if (script == nullptr) {
      ctx.reply.Error(err::kNoScript);
      return;
    }
    sha_text.resize(40);
    for (size_t i = 0; i < 40; ++i) sha_text[i] = ToLowerHex(args[1][i]);
  } else {
    sha_text = Sha1Hex(args[1]);
    ShaKey key;
    std::memcpy(key.hex, sha_text.data(), 40);
    auto it = scripts_.find(key);
    if (it != scripts_.end()) {
      script = &it->second;
    } else {
      Result<const CachedScript*> r = Compile(key, args[1]);
      if (!r.ok()) {
        ctx.reply.Error(r.status().message());
        return;
      }
      script = r.value();
    }
  }
  const uint32_t flags = script->flags;
  if ((flags & kScriptEvalCompat) == 0) {
    // Admitted above by its flags; only then the _RO form refuses a script that may write.
    if (read_only && (flags & kScriptNoWrites) == 0) {
      ctx.reply.Error(err::kScriptWriteFlagRo);
      return;
    }
  } else {
    // A script without a shebang is admitted by EVAL's row, which has the stale flag; Redis
    // still refuses it whole on a replica that serves no stale data while its link is down.
    const ReplicaRole& role = server_.replica_role();
    if (role.following && !role.link_up && !server_.config().replica_serve_stale_data &&
        ctx.client.session().kind() != ClientKind::kMasterLink) {
      ctx.reply.Error(err::kMasterDown);
      return;
    }
  }
  ScriptRun run;
  run.caller = &ctx.client;
  run.flags = flags;
  run.read_only = read_only || (flags & kScriptNoWrites) != 0;
  run.is_eval = true;
  run.name = std::move(sha_text);
  run.slot = DeclaredSlot(args, numkeys);

  lua_State* L = lua_;
  // KEYS and ARGV, set on the real globals (scripts see them read-only through the proxy).
  if (!PushKeysAndArgs(L, args, 3, numkeys, true, ctx.reply)) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, script->ref);
  RunScript(ctx, L, 0, std::move(run));
}

Status ScriptEngine::Kill(bool eval) {
  if (!running_) return Status::Error(std::string(err::kScriptNotBusy));
  if (run_.wrote) return Status::Error(std::string(err::kScriptUnkillable));
  if (eval != run_.is_eval) {
    return Status::Error(std::string(run_.is_eval ? err::kBusyEval : err::kBusyFunction));
  }
  run_.kill_requested = true;
  return Status::Ok();
}

void ScriptEngine::Hook(lua_State* L, lua_Debug* ar) {
  lua_pushlightuserdata(L, &kEngineKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* engine = static_cast<ScriptEngine*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  if (engine == nullptr) return;
  if (engine->debugger_.active()) {
    // A debugged script is the client's to stop, never busy: the line events are the
    // debugger's, the count events nobody's. OnLine returns a constant (nothing to destroy
    // before lua_error longjmps).
    bool timeout = false;
    if (ar->event != LUA_HOOKLINE) {
      // A script left running (continue) for busy-reply-threshold, 5 s when that is 0, since
      // it last stopped stops as if stepped: Redis's guard against an infinite loop.
      const int64_t threshold = engine->server_.config().busy_reply_threshold;
      const int64_t limit = threshold > 0 ? threshold : 5000;
      if (engine->debugger_.stepping() ||
          engine->server_.NowMs() - engine->debugger_.running_since_ms() < limit) {
        return;
      }
      timeout = true;
    }
    const char* stop = engine->debugger_.OnLine(L, ar, timeout);
    if (stop == nullptr) return;
    PushCodedErrorTable(L, stop);
    lua_error(L);
    return;
  }
  engine->Interrupt(L);
}

void ScriptEngine::Interrupt(lua_State* L) {
  if (!running_) return;
  if (!busy_.has_value()) {
    // busy-reply-threshold 0 means no limit: the script runs to its end unseen, as in Redis.
    const int64_t threshold = server_.config().busy_reply_threshold;
    if (threshold <= 0) return;
    const int64_t elapsed = server_.NowMs() - run_.start_ms;
    if (elapsed < threshold) return;
    server_.log().Log(LogLevel::kWarning,
                      "Slow script detected: still in execution after %lld milliseconds. You can "
                      "try killing the script using the %s command. Script name is: %s.",
                      static_cast<long long>(elapsed),
                      run_.is_eval ? "SCRIPT KILL" : "FUNCTION KILL", run_.name.c_str());
    busy_.emplace(server_, run_.caller, run_.is_eval);
  }
  busy_->Serve();
  // SHUTDOWN NOSAVE was served: the script stops here and its caller gets no reply (RunScript);
  // the process exits when the stack has unwound to the event loop.
  const bool shutdown = server_.shutdown_requested();
  if (!run_.kill_requested && !shutdown) return;
  if (!shutdown) {
    server_.log().Log(LogLevel::kWarning, "Lua script killed by user with SCRIPT KILL.");
  }
  // From now on the hook runs at every line, so a script that catches the error with pcall is
  // stopped again at its next line (Redis does the same), not 100,000 instructions later.
  if (line_hook_ == nullptr) {
    line_hook_ = L;
    saved_hook_mask_ = lua_gethookmask(L);
    saved_hook_count_ = lua_gethookcount(L);
    lua_sethook(L, lua_gethook(L), LUA_MASKLINE, 0);
  }
  // lua_error longjmps (and PushCodedErrorTable may): no C++ object may be alive here.
  PushCodedErrorTable(L, err::kScriptKilled);
  lua_error(L);
}

namespace {

// RunProtected body: reads the error table at index 1 the way Redis reads it (lua_getfield, so
// __index metamethods run) and leaves four values that C++ can read without calling Lua: the
// `err`, `source` and `line` fields as strings (nil when neither string nor number) and whether
// the error was already counted in the statistics.
int ReadErrorFieldsTask(lua_State* L, void* /*ud*/) {
  for (const char* field : {"err", "source", "line"}) {
    lua_getfield(L, 1, field);
    if (lua_isstring(L, -1)) {
      lua_tolstring(L, -1, nullptr);  // a number becomes its text, in this copy
    } else {
      lua_pop(L, 1);
      lua_pushnil(L);
    }
  }
  lua_getfield(L, 1, kIgnoreStatsField);
  lua_pushboolean(L, lua_toboolean(L, -1));
  lua_remove(L, -2);
  return 4;
}

// The string at `idx` (known to be a string or nil) as a view, without calling into Lua's
// allocator.
std::string_view StringAt(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TSTRING) return {};
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return {s, len};
}

struct KeysArgvTask {
  const std::vector<std::string_view>* args;
  size_t first;  // index of the first key
  size_t keys;
  bool as_globals;  // EVAL: set KEYS and ARGV globals; FCALL: leave the two tables
};

// RunProtected body: builds the KEYS and ARGV tables from the command's arguments.
int KeysArgvTask_(lua_State* L, void* ud) {
  auto* task = static_cast<KeysArgvTask*>(ud);
  const std::vector<std::string_view>& args = *task->args;
  const size_t na = args.size() - task->first - task->keys;
  if (task->as_globals) PushRealGlobals(L);
  for (int part = 0; part < 2; ++part) {
    const size_t from = part == 0 ? task->first : task->first + task->keys;
    const size_t n = part == 0 ? task->keys : na;
    lua_createtable(L, static_cast<int>(n), 0);
    for (size_t i = 0; i < n; ++i) {
      lua_pushlstring(L, args[from + i].data(), args[from + i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    if (task->as_globals) lua_setfield(L, -2, part == 0 ? "KEYS" : "ARGV");
  }
  return task->as_globals ? 0 : 2;
}

}  // namespace

bool ScriptEngine::PushKeysAndArgs(lua_State* L, const std::vector<std::string_view>& args,
                                   size_t first, size_t keys, bool as_globals,
                                   ReplyBuilder& reply) {
  KeysArgvTask task{&args, first, keys, as_globals};
  if (RunProtected(L, 0, as_globals ? 0 : 2, KeysArgvTask_, &task) == 0) return true;
  lua_pop(L, 1);
  reply.Error(err::kScriptOutOfMemory);
  return false;
}

void ScriptEngine::RunScript(CommandContext& ctx, lua_State* L, int nargs, ScriptRun run) {
  Client& caller = ctx.client;
  client_->db_index = caller.db_index;
  client_->db = caller.db;
  client_->session_state.script_caller = &caller;
  client_->reply.SetResp(2);
  run.start_ms = server_.NowMs();
  run_ = std::move(run);
  running_ = true;

  // The handler goes below the function and its arguments.
  const int func_index = lua_gettop(L) - nargs;
  PushErrorHandler(L);
  lua_insert(L, func_index);
  const int handler_index = func_index;
  // The script's commands all see the time the script started (Redis 7.0): none of them, nor
  // anything else until the script returns, moves the command clock (busy passes thaw it for
  // the other clients and give the frozen time back).
  CommandClock::Scope frozen = server_.keyspace().command_clock.Freeze();
  const bool debugged = debugger_.active() && L == lua_;
  if (debugged) lua_sethook(L, Hook, LUA_MASKCOUNT | LUA_MASKLINE, kHookInstructions);
  int rc = lua_pcall(L, nargs, 1, handler_index);
  if (debugged) lua_sethook(L, Hook, LUA_MASKCOUNT, kHookInstructions);
  if (busy_.has_value() && server_.shutdown_requested()) {
    // Stopped by SHUTDOWN NOSAVE: the caller sees its connection end without a reply, as with
    // Redis (whose process exits inside the script), and nothing after the script in its
    // pipeline runs.
    caller.set_flag(kClientCloseAfterReply, true);
  } else if (rc == 0) {
    WriteLuaAsReply(L, -1, ctx.reply, run_.resp);
  } else if (lua_istable(L, -1)) {
    WriteErrorReply(L, ctx.reply);
  } else {
    // Errors the handler did not run for (out of memory inside Lua, an error in the handler):
    // Redis's text for a bare error.
    std::string text = "ERR Error running script ";
    text.append(run_.name);
    text.append(", ");
    std::string_view e = StringAt(L, -1);
    text.append(e.empty() ? std::string_view("execution failure") : e.substr(0, 100));
    ctx.reply.Error(text);
  }
  lua_settop(L, func_index - 1);

  busy_.reset();  // the server is no longer busy
  if (line_hook_ != nullptr) {
    lua_sethook(line_hook_, lua_gethook(line_hook_), saved_hook_mask_, saved_hook_count_);
    line_hook_ = nullptr;
  }
  running_ = false;
  client_->session_state.script_caller = nullptr;
  client_->db = &server_.db(0);
  client_->db_index = 0;
  client_->out.Clear();
  if (++gc_count_ >= kGcPeriod) {
    gc_count_ = 0;
    CollectProtected(L, LUA_GCSTEP, kGcPeriod);
  }
}

void ScriptEngine::WriteErrorReply(lua_State* L, ReplyBuilder& reply) {
  // {err, source, line} from the handler: "<err> script: <name>, on <source>:<line>." Its
  // fields are read in a protected call: the table may have metamethods that raise (Redis 7.0
  // crashes on these, and on a table without a string `err`; we answer an error).
  lua_pushvalue(L, -1);
  if (RunProtected(L, 1, 4, ReadErrorFieldsTask, nullptr) != 0) {
    lua_pop(L, 1);
    reply.Error(err::kScriptErrorUnreadable);
    return;
  }
  // [.., err, source, line, counted]: strings, nil and a boolean only.
  const bool counted = lua_toboolean(L, -1) != 0;
  std::string_view msg = StringAt(L, -4);
  std::string_view source = StringAt(L, -3);
  std::string_view line = StringAt(L, -2);
  std::string text;
  if (lua_isnil(L, -4)) {
    text = err::kScriptErrorNoErrField;
  } else {
    text.assign(msg);
  }
  if (!lua_isnil(L, -3) && !lua_isnil(L, -2)) {
    text.append(" script: ");
    text.append(run_.name);
    text.append(", on ");
    text.append(source);
    text.push_back(':');
    text.append(line);
    text.push_back('.');
  }
  lua_pop(L, 4);
  if (counted) {
    reply.ErrorCounted(text);
  } else {
    reply.Error(text);
  }
}

namespace {

// The arguments of redis.call / redis.acl_check_cmd as the command line: strings as they are,
// numbers in redis.call's format (their text kept in *nums). Into the engine's own buffers,
// never the caller's frame: the callers raise Lua errors, which longjmp past destructors. False
// at the first argument of another type.
bool ReadCallArgs(lua_State* L, int argc, std::vector<std::string_view>* args,
                  std::vector<std::string>* nums) {
  args->clear();
  if (nums->size() < static_cast<size_t>(argc)) nums->resize(static_cast<size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    const int t = lua_type(L, i);
    if (t == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      args->emplace_back(s, len);
    } else if (t == LUA_TNUMBER) {
      args->push_back(FormatNumberArg(lua_tonumber(L, i), &(*nums)[static_cast<size_t>(i - 1)]));
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int ScriptEngine::AclCheckFromLua(lua_State* L) {
  // lua_error longjmps past C++ destructors: nothing owning memory may live in this frame when
  // it raises, so the arguments go into the engine's own buffers (as redis.call's do).
  auto raise = [&](std::string_view msg) -> int {
    args_.clear();
    PushCodedErrorTable(L, msg);
    return lua_error(L);
  };
  const int argc = lua_gettop(L);
  if (argc == 0) return raise(err::kScriptNoArgs);
  // The arguments as redis.call takes them: strings, and numbers in its format.
  if (!ReadCallArgs(L, argc, &args_, &num_args_)) return raise(err::kScriptBadArgs);
  const CommandSpec* spec = server_.commands().Find(args_[0]);
  if (spec != nullptr && !spec->subcommands.empty() && args_.size() >= 2) {
    spec = spec->FindSubcommand(args_[1]);
  }
  if (spec == nullptr) return raise(err::kScriptAclCheckUnknown);
  bool allowed = true;
  // Without an installed ACL (no user was ever configured) everyone may run everything.
  if (server_.authorizer() != nullptr && running_ && run_.caller != nullptr) {
    // A call short of the command's arity names no keys to judge: only the command counts.
    if (!ArityAdmits(*spec, args_)) args_.resize(spec->parent != nullptr ? 2 : 1);
    const AclUser& user = Acl::Of(server_).UserOf(*run_.caller);
    allowed = user.unrestricted || AclCheckCommand(user, *spec, args_).kind == AclVerdict::kOk;
  }
  args_.clear();
  lua_settop(L, 0);
  lua_pushboolean(L, allowed ? 1 : 0);
  return 1;
}

int ScriptEngine::CallFromLua(lua_State* L, bool raise) {
  // Raises (call) or returns (pcall) an error table for `msg` ("-CODE text" or "text").
  // lua_error longjmps: the string is gone before it is called.
  auto fail = [&](std::string_view msg) -> int {
    PushCodedErrorTable(L, msg);
    if (raise) return lua_error(L);
    return 1;
  };
  const int argc = lua_gettop(L);
  if (argc == 0) return fail(err::kScriptNoArgs);
  if (!running_) return fail(err::kScriptCallOutside);
  if (!ReadCallArgs(L, argc, &args_, &num_args_)) return fail(err::kScriptBadArgs);
  // The command passes the server's admission gate like any other (server/admission.h), with
  // the script's own rules (read-only, allow-oom, written yet) and Redis's script texts: an
  // unknown command, wrong arity, a no-script command, a write from a read-only script, OOM
  // before the first write, an ACL denial ...
  ScriptCallGate gate;
  gate.read_only = run_.read_only;
  gate.allow_oom = (run_.flags & kScriptAllowOom) != 0;
  gate.wrote = run_.wrote;
  gate.allow_cross_slot = (run_.flags & (kScriptEvalCompat | kScriptAllowCrossSlotKeys)) != 0;
  gate.slot = run_.slot;
  client_->reply.SetResp(run_.resp);
  const bool narrowed = run_.repl != kReplAll;
  if (narrowed) server_.propagator().SetTargets(static_cast<uint8_t>(run_.repl));
  client_->out.Clear();
  const bool log = debugger_.logging_calls();
  uint64_t processed = 0;
  if (log) {
    debugger_.LogCall(args_);
    processed = server_.stats().total_commands_processed;
  }
  server_.Execute(client_.get(), args_, &gate);
  run_.wrote = gate.wrote;
  run_.slot = gate.slot;
  if (narrowed) server_.propagator().SetTargets(kPropagateAll);
  // The arguments are not needed any more: dropping them makes room for the reply however many
  // there were (unpack of ~8000 values fills the stack to Lua's limit).
  args_.clear();
  lua_settop(L, 0);
  std::string_view bytes = ReplyBytes(client_->out, &reply_scratch_);
  if (log) {
    // Refused by the script gate when the command did not run (it counts what runs).
    debugger_.LogReply(bytes, server_.stats().total_commands_processed == processed);
  }
  PushReplyAsLua(L, bytes);
  client_->out.Clear();
  if (!bytes.empty() && bytes[0] == '-') {
    // The command's error was counted in the error statistics when it was replied; the mark
    // keeps the script's own error reply (raised or returned) from counting it again.
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, kIgnoreStatsField);
    if (raise) return lua_error(L);
  }
  return 1;
}

}  // namespace redistp
