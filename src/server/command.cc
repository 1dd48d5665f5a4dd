#include "server/command.h"

#include <cctype>

#include "server/propagation.h"
#include "util/numbers.h"

namespace redistp {

namespace {

// ASCII case folding without the C locale machinery: this runs for every command.
inline unsigned char FoldAscii(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 'A' && u <= 'Z') ? static_cast<unsigned char>(u + 32) : u;
}

}  // namespace

size_t CommandTable::Hash::operator()(std::string_view s) const {
  // FNV-1a over lower-cased bytes: command names are short.
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= FoldAscii(c);
    h *= 1099511628211ULL;
  }
  return static_cast<size_t>(h);
}

bool CommandTable::Eq::operator()(std::string_view a, std::string_view b) const {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (FoldAscii(a[i]) != FoldAscii(b[i])) return false;
  }
  return true;
}

namespace {

void Link(CommandSpec* spec, const CommandSpec* parent) {
  spec->parent = parent;
  spec->full_name = parent != nullptr ? parent->name + "|" + spec->name : spec->name;
  for (CommandSpec& sub : spec->subcommands) Link(&sub, spec);
}

}  // namespace

namespace {

// The first subcommand name (in full) that appears twice under one container, or "".
std::string DuplicateSubcommand(const CommandSpec& spec, std::string_view prefix) {
  for (size_t i = 0; i < spec.subcommands.size(); ++i) {
    const CommandSpec& sub = spec.subcommands[i];
    for (size_t j = 0; j < i; ++j) {
      if (EqualsIgnoreCase(spec.subcommands[j].name, sub.name)) {
        return std::string(prefix) + "|" + sub.name;
      }
    }
    std::string nested = DuplicateSubcommand(sub, std::string(prefix) + "|" + sub.name);
    if (!nested.empty()) return nested;
  }
  return "";
}

}  // namespace

Status CommandTable::Register(CommandSpec spec) {
  std::string duplicate;
  if (Find(spec.name) != nullptr) {
    duplicate = spec.name;
  } else {
    duplicate = DuplicateSubcommand(spec, spec.name);
  }
  if (!duplicate.empty()) {
    Status error = Status::Error("Duplicate command name '" + duplicate + "' in the command table");
    if (first_error_.ok()) first_error_ = error;
    return error;
  }
  auto owned = std::make_unique<CommandSpec>(std::move(spec));
  Link(owned.get(), nullptr);
  by_name_[owned->name] = owned.get();
  commands_.push_back(std::move(owned));
  return Status::Ok();
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub) const {
  for (const CommandSpec& s : subcommands) {
    if (EqualsIgnoreCase(s.name, sub)) return &s;
  }
  return nullptr;
}

std::vector<int> CommandKeyIndexes(const CommandSpec& spec, size_t argc) {
  std::vector<int> keys;
  if (spec.first_key <= 0) return keys;
  int last = spec.last_key < 0 ? static_cast<int>(argc) + spec.last_key : spec.last_key;
  int step = spec.key_step > 0 ? spec.key_step : 1;
  for (int i = spec.first_key; i <= last && i < static_cast<int>(argc); i += step) {
    keys.push_back(i);
  }
  return keys;
}

void CommandContext::ReplicateAs(std::initializer_list<std::string_view> argv) {
  propagation.ReplicateAs(argv);
}

void CommandContext::ReplicateAs(std::vector<std::string> argv) {
  propagation.ReplicateAs(std::move(argv));
}

void CommandContext::ReplicateNothing() { propagation.ReplicateNothing(); }

void CommandContext::ForceReplication() { propagation.ForceReplication(); }

}  // namespace redistp
