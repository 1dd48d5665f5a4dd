// Function libraries: shebang parsing, the library set and its all-or-nothing merge, and the
// FUNCTION DUMP / RESTORE payload (see function_library.h).
#include "scripting/function_library.h"

#include <cctype>
#include <utility>

#include "protocol/errors.h"
#include "server/config_parse.h"
#include "util/crc64.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr uint8_t kOpcodeFunctionPreGa = 0xf6;  // RDB_OPCODE_FUNCTION of 7.0's release candidates
constexpr uint8_t kOpcodeFunction = 0xf5;       // RDB_OPCODE_FUNCTION2
constexpr size_t kTrailerBytes = 10;            // version (2) + CRC-64 (8)

}  // namespace

Result<LibraryMetadata> ParseLibraryMetadata(std::string_view code) {
  if (code.substr(0, 2) != "#!") return Status::Error(std::string(err::kFunctionMissingMetadata));
  size_t eol = code.find('\n');
  if (eol == std::string_view::npos) {
    return Status::Error(std::string(err::kFunctionInvalidMetadata));
  }
  // The line's first word is "#!<engine>" (so "#! name=x" names the engine "").
  std::vector<std::string> words;
  if (!SplitConfigLine(code.substr(0, eol), &words) || words.empty()) {
    return Status::Error(std::string(err::kFunctionInvalidMetadata));
  }
  LibraryMetadata md;
  md.engine = words[0].substr(2);
  bool named = false;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string_view w = words[i];
    if (w.size() < 5 || !EqualsIgnoreCase(w.substr(0, 5), "name=")) {
      return Status::Error(err::FunctionInvalidMetadataValue(w));
    }
    if (named) return Status::Error(std::string(err::kFunctionNameGivenTwice));
    md.name = std::string(w.substr(5));
    named = true;
  }
  if (!named) return Status::Error(std::string(err::kFunctionShebangNoName));
  if (!IsValidFunctionName(md.name)) return Status::Error(std::string(err::kFunctionBadName));
  return md;
}

bool IsValidFunctionName(std::string_view name) {
  if (name.empty()) return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_') return false;
  }
  return true;
}

bool FunctionLibrary::AddFunction(std::unique_ptr<FunctionInfo> f) {
  for (const auto& g : functions) {
    if (g->name == f->name) return false;
  }
  f->library = this;
  functions.push_back(std::move(f));
  return true;
}

size_t FunctionLibrary::MemoryUsage() const {
  size_t n = sizeof(*this) + name.capacity() + engine.capacity() + code.capacity();
  for (const auto& f : functions) {
    n += sizeof(*f) + f->name.capacity() + f->description.capacity();
  }
  return n;
}

LibrarySet::~LibrarySet() { Clear(); }

void LibrarySet::Index(FunctionLibrary& lib) {
  // try_emplace keeps an entry already there: of "g" and "G" in one library, "g" stays indexed.
  for (const auto& f : lib.functions) functions_.try_emplace(ToLower(f->name), f.get());
}

void LibrarySet::Drop(std::unique_ptr<FunctionLibrary> lib) {
  for (const auto& f : lib->functions) {
    auto it = functions_.find(ToLower(f->name));
    if (it != functions_.end() && it->second == f.get()) functions_.erase(it);
    if (release_ != nullptr) release_(owner_, *f);
  }
}

Status LibrarySet::Add(std::unique_ptr<FunctionLibrary> lib) {
  Status s;
  if (libraries_.count(lib->name) != 0) s = Status::Error(err::FunctionLibraryExists(lib->name));
  for (size_t i = 0; s.ok() && i < lib->functions.size(); ++i) {
    const std::string& fname = lib->functions[i]->name;
    if (functions_.count(ToLower(fname)) != 0) s = Status::Error(err::FunctionExists(fname));
  }
  if (!s.ok()) {
    Drop(std::move(lib));  // not indexed: only releases its functions
    return s;
  }
  Index(*lib);
  std::string name = lib->name;
  libraries_.emplace(std::move(name), std::move(lib));
  return Status::Ok();
}

Status LibrarySet::Merge(LibrarySet& from, OnCollision policy) {
  // Check everything before changing anything.
  for (const auto& [name, lib] : from.libraries_) {
    if (libraries_.count(name) == 0) continue;
    if (policy == OnCollision::kError) return Status::Error(err::FunctionLibraryExists(name));
    if (policy == OnCollision::kAbort) return Status::Error(err::FunctionLibraryExistsBare(name));
  }
  for (const auto& [name, lib] : from.libraries_) {
    for (const auto& f : lib->functions) {
      auto it = functions_.find(ToLower(f->name));
      if (it == functions_.end()) continue;
      // A function of a library being replaced does not collide.
      if (from.libraries_.count(it->second->library->name) != 0) continue;
      return Status::Error(err::FunctionExists(f->name));
    }
  }
  for (auto& [name, lib] : from.libraries_) {
    auto old = libraries_.find(name);
    if (old != libraries_.end()) {
      Drop(std::move(old->second));
      libraries_.erase(old);
    }
  }
  for (auto& [name, lib] : from.libraries_) {
    Index(*lib);
    libraries_.emplace(name, std::move(lib));
  }
  from.libraries_.clear();
  from.functions_.clear();
  return Status::Ok();
}

bool LibrarySet::Remove(std::string_view name) {
  auto it = libraries_.find(name);
  if (it == libraries_.end()) return false;
  Drop(std::move(it->second));
  libraries_.erase(it);
  return true;
}

void LibrarySet::Clear() {
  for (auto& [name, lib] : libraries_) Drop(std::move(lib));
  libraries_.clear();
  functions_.clear();
}

const FunctionLibrary* LibrarySet::FindLibrary(std::string_view name) const {
  auto it = libraries_.find(name);
  return it == libraries_.end() ? nullptr : it->second.get();
}

const FunctionInfo* LibrarySet::FindFunction(std::string_view name) const {
  auto it = functions_.find(ToLower(name));
  return it == functions_.end() ? nullptr : it->second;
}

size_t LibrarySet::MemoryUsage() const {
  size_t n = 0;
  for (const auto& [name, lib] : libraries_) n += lib->MemoryUsage();
  return n;
}

std::string DumpFunctions(const LibrarySet& libraries, bool compress, int rdb_version) {
  std::string out;
  RdbWriter w(&out, compress, rdb_version);
  for (const auto& [name, lib] : libraries.libraries()) {
    w.Byte(kOpcodeFunction);
    w.String(lib->code);
  }
  w.Byte(static_cast<uint8_t>(rdb_version & 0xff));
  w.Byte(static_cast<uint8_t>(rdb_version >> 8));
  uint64_t crc = Crc64(0, out);
  for (int shift = 0; shift < 64; shift += 8) w.Byte(static_cast<uint8_t>(crc >> shift));
  return out;
}

Result<FunctionPayloadReader> FunctionPayloadReader::Open(std::string_view payload,
                                                          int max_rdb_version) {
  const Status bad = Status::Error(std::string(err::kFunctionBadPayload));
  if (payload.size() < kTrailerBytes) return bad;
  const auto* footer =
      reinterpret_cast<const unsigned char*>(payload.data()) + payload.size() - kTrailerBytes;
  uint16_t version = static_cast<uint16_t>(footer[0] | (footer[1] << 8));
  if (version > max_rdb_version) return bad;
  uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) crc = (crc << 8) | footer[2 + i];
  if (Crc64(0, payload.substr(0, payload.size() - 8)) != crc) return bad;
  return FunctionPayloadReader(payload);
}

bool FunctionPayloadReader::done() const { return reader_.position() >= body_end_; }

Result<std::string> FunctionPayloadReader::Next() {
  auto fail = [](std::string_view what) { return Status::Error(std::string(what)); };
  uint8_t type = 0;
  if (!reader_.Byte(&type) || (type != kOpcodeFunction && type != kOpcodeFunctionPreGa)) {
    return fail(err::kFunctionNotAFunction);
  }
  std::string code;
  if (type == kOpcodeFunction) {
    if (!reader_.String(&code).ok()) return fail(err::kFunctionLoadPayload);
    return code;
  }
  // Pre-GA: name, engine, a description flag (and the description), then the bare code.
  std::string name, engine, description;
  if (!reader_.String(&name).ok()) return fail(err::kFunctionLoadName);
  if (!reader_.String(&engine).ok()) return fail(err::kFunctionLoadEngine);
  uint64_t has_description = 0;
  if (!reader_.Length(&has_description).ok()) return fail(err::kFunctionLoadBlob);
  if (has_description != 0 && !reader_.String(&description).ok()) {
    return fail(err::kFunctionLoadDescription);
  }
  if (!reader_.String(&code).ok()) return fail(err::kFunctionLoadBlob);
  return "#!" + engine + " name=" + name + "\n" + code;
}

}  // namespace redistp
