// Function libraries without the Lua: what FUNCTION LOAD's shebang says, the library and
// function records the functions engine keeps, the set of loaded libraries with Redis 7.0's
// naming rules, and the FUNCTION DUMP / RESTORE payload.
//
// Model. A library is a named piece of code that registers one or more functions when it is
// loaded. Library names are unique and case-sensitive; function names are unique across all
// libraries and looked up case-insensitively (FCALL MyFunc finds myfunc), though LIST shows each
// as registered. Inside one library the registration check is case-sensitive, so a library may
// register "g" and "G"; the global index then keeps the first ("g"), as Redis 7.0 does.
//
// A LibrarySet owns its libraries and the index of their functions. The engine changes the
// loaded set only by building a candidate (the libraries to add) and committing it with
// LibrarySet::Merge, which checks every collision first and changes nothing on an error: a
// failed FUNCTION LOAD REPLACE or FUNCTION RESTORE leaves the libraries as they were.
//
// Payload (FUNCTION DUMP), byte-identical to Redis 7.0's: for each library the RDB function
// opcode 0xf5 and the library's code as an RDB string (LZF-compressed when rdbcompression is on
// and it pays, as RDB strings are), then the RDB version 10 as two bytes little-endian and the
// CRC-64 (util/crc64.h) of everything before it, eight bytes little-endian. RESTORE also reads
// the pre-GA entry 0xf6 (name, engine, a description flag and description, the code without its
// shebang), whose code it rebuilds as "#!<engine> name=<name>\n<code>".
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "types/serialize.h"
#include "util/status.h"

namespace redistp {

// What the first line of a library's code says: "#!<engine> name=<name>".
struct LibraryMetadata {
  std::string engine;
  std::string name;
};

// Parses the shebang of `code` with Redis 7.0's error texts: the line must start with "#!" and
// end with a newline; its words (split like a config line, so quotes work) are the engine and
// `name=<name>` (the key case-insensitive), nothing else; the name must be valid. Does not look
// the engine up (that error comes later in Redis's order).
Result<LibraryMetadata> ParseLibraryMetadata(std::string_view code);

// Letters, digits and underscores, at least one: the rule for library and function names.
bool IsValidFunctionName(std::string_view name);

struct FunctionLibrary;

struct FunctionInfo {
  std::string name;  // as registered
  std::string description;
  bool has_description = false;  // LIST sends a null description otherwise
  uint32_t flags = 0;            // ScriptFlag bits (script_engine.h)
  int ref = 0;                   // the callback, in the functions Lua state's registry
  FunctionLibrary* library = nullptr;
};

struct FunctionLibrary {
  std::string name;
  std::string engine;  // "LUA"
  std::string code;
  std::vector<std::unique_ptr<FunctionInfo>> functions;  // in registration order

  // Adds a function; false (nothing added) when this library already has one of that exact name.
  bool AddFunction(std::unique_ptr<FunctionInfo> f);
  // Approximate heap bytes of the record (names, code, descriptions), for INFO.
  size_t MemoryUsage() const;
};

// Called with each function a library set drops (to release its Lua reference).
using FunctionReleaser = void (*)(void* owner, const FunctionInfo& f);

class LibrarySet {
 public:
  LibrarySet(FunctionReleaser release, void* owner) : release_(release), owner_(owner) {}
  ~LibrarySet();
  LibrarySet(const LibrarySet&) = delete;
  LibrarySet& operator=(const LibrarySet&) = delete;

  // How Merge treats a library whose name is already loaded.
  enum class OnCollision {
    kError,    // "Library 'x' already exists" (FUNCTION LOAD without REPLACE)
    kAbort,    // "Library x already exists" (FUNCTION RESTORE APPEND, Redis's wording)
    kReplace,  // the new library replaces the old one (LOAD REPLACE, RESTORE REPLACE)
  };

  // Moves every library of `from` into this set. First checks, changing nothing on error: the
  // library names (per `policy`), then that no function of a new library is registered by a
  // library that stays ("Function x already exists"). On success the replaced libraries are
  // dropped and `from` is left empty. On error `from` is left as it was.
  Status Merge(LibrarySet& from, OnCollision policy);
  // Adds a library to a candidate set; an error when the set already has a library of that name
  // or one of its functions (the library is then dropped, its functions released).
  Status Add(std::unique_ptr<FunctionLibrary> lib);

  // Drops one library and its functions; false if there is none of that name.
  bool Remove(std::string_view name);
  void Clear();

  const FunctionLibrary* FindLibrary(std::string_view name) const;
  // Case-insensitive.
  const FunctionInfo* FindFunction(std::string_view name) const;
  // Every library, ordered by name.
  const std::map<std::string, std::unique_ptr<FunctionLibrary>, std::less<>>& libraries() const {
    return libraries_;
  }
  size_t function_count() const { return functions_.size(); }
  size_t library_count() const { return libraries_.size(); }
  size_t MemoryUsage() const;

 private:
  void Index(FunctionLibrary& lib);
  void Drop(std::unique_ptr<FunctionLibrary> lib);

  FunctionReleaser release_;
  void* owner_;
  std::map<std::string, std::unique_ptr<FunctionLibrary>, std::less<>> libraries_;
  // Lower-cased function name -> function.
  std::unordered_map<std::string, FunctionInfo*> functions_;
};

// --- FUNCTION DUMP / RESTORE payloads ---------------------------------------------------------

// The payload of FUNCTION DUMP for `libraries` (each library's code, in the set's order), with
// `rdb_version` in its trailer (compat-version's: the entries are the same in every version).
std::string DumpFunctions(const LibrarySet& libraries, bool compress, int rdb_version);

// Reads a payload entry by entry, so that errors come in Redis's order (a library that does
// not compile is reported before a bad entry after it).
class FunctionPayloadReader {
 public:
  // Checks the trailer: at least 10 bytes, an RDB version up to `max_rdb_version`, the CRC-64.
  static Result<FunctionPayloadReader> Open(std::string_view payload, int max_rdb_version);
  bool done() const;
  // The code of the next library (pre-GA entries rebuilt with their shebang).
  Result<std::string> Next();

 private:
  explicit FunctionPayloadReader(std::string_view payload)
      : reader_(payload), body_end_(payload.size() - 10) {}
  // Reads over the whole payload: like Redis, a string may run into the trailer, and entries
  // are read while the position is before the trailer.
  RdbReader reader_;
  size_t body_end_;
};

}  // namespace redistp
