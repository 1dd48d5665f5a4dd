#include "server/command.h"

#include <array>
#include <cctype>

#include "server/propagation.h"
#include "util/numbers.h"

namespace redistp {

namespace {

// ASCII case folding without the C locale machinery, one table load per byte: this runs for
// every request (the name's hash and its comparison).
constexpr std::array<unsigned char, 256> MakeFoldTable() {
  std::array<unsigned char, 256> t{};
  for (int i = 0; i < 256; ++i)
    t[i] = static_cast<unsigned char>(i >= 'A' && i <= 'Z' ? i + 32 : i);
  return t;
}
constexpr std::array<unsigned char, 256> kFold = MakeFoldTable();
inline unsigned char FoldAscii(char c) { return kFold[static_cast<unsigned char>(c)]; }

}  // namespace

uint64_t CommandTable::HashName(std::string_view s) {
  // FNV-1a over lower-cased bytes: command names are short.
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(FoldAscii(c));
    h *= 1099511628211ULL;
  }
  return h;
}

void CommandTable::Insert(std::string_view name, const CommandSpec* spec) {
  last_hit_ = Slot{};
  if ((commands_.size() + 1) * 4 > slots_.size()) {
    std::vector<Slot> old(slots_.empty() ? 64 : slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.spec != nullptr) Insert(s.name, s.spec);
    }
  }
  const size_t mask = slots_.size() - 1;
  size_t i = HashName(name) & mask;
  while (slots_[i].spec != nullptr) i = (i + 1) & mask;
  slots_[i] = Slot{name, spec};
}

Status CommandTable::Rename(std::string_view from, std::string_view to) {
  const CommandSpec* spec = Find(from);
  if (spec == nullptr) return Status::Error("No such command in rename-command");
  if (!to.empty() && Find(to) != nullptr) {
    return Status::Error("Target command name already exists");
  }
  // Rebuild the name table without the old name (deletion under linear probing would need
  // tombstones; renames happen a few times at startup).
  std::vector<Slot> kept;
  for (const Slot& s : slots_) {
    if (s.spec != nullptr && s.spec != spec) kept.push_back(s);
  }
  if (to.empty()) {
    for (auto it = commands_.begin(); it != commands_.end(); ++it) {
      if (it->get() != spec) continue;
      removed_.push_back(std::move(*it));
      commands_.erase(it);
      break;
    }
  } else {
    renamed_names_.emplace_back(to);
    kept.push_back(Slot{renamed_names_.back(), spec});
  }
  slots_.assign(slots_.size(), Slot{});
  last_hit_ = Slot{};
  for (const Slot& s : kept) Insert(s.name, s.spec);
  return Status::Ok();
}

namespace {

void Link(CommandSpec* spec, const CommandSpec* parent, uint32_t* next_id) {
  spec->parent = parent;
  spec->id = (*next_id)++;
  spec->full_name = parent != nullptr ? parent->name + "|" + spec->name : spec->name;
  for (CommandSpec& sub : spec->subcommands) Link(&sub, spec, next_id);
  for (CommandSpec& sub : spec->internal_subcommands) Link(&sub, spec, next_id);
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
  Link(owned.get(), nullptr, &next_id_);
  Insert(owned->name, owned.get());
  commands_.push_back(std::move(owned));
  return Status::Ok();
}

namespace {

bool SameName(std::string_view asked, std::string_view slot_name) {
  if (asked.size() != slot_name.size()) return false;
  for (size_t k = 0; k < asked.size(); ++k) {
    if (FoldAscii(asked[k]) != FoldAscii(slot_name[k])) return false;
  }
  return true;
}

}  // namespace

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (last_hit_.spec != nullptr && SameName(name, last_hit_.name)) return last_hit_.spec;
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = HashName(name) & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.spec == nullptr) return nullptr;
    if (SameName(name, s.name)) {
      last_hit_ = s;
      return s.spec;
    }
  }
}

const CommandSpec* CommandTable::FindByOwnName(std::string_view name) const {
  if (renamed_names_.empty() && removed_.empty()) return Find(name);
  for (const auto* list : {&commands_, &removed_}) {
    for (const auto& spec : *list) {
      if (EqualsIgnoreCase(spec->name, name)) return spec.get();
    }
  }
  return nullptr;
}

bool ArityAdmits(const CommandSpec& spec, const std::vector<std::string_view>& args) {
  const int argc = static_cast<int>(args.size());
  if (spec.arity > 0 ? argc == spec.arity : argc >= -spec.arity) return true;
  return spec.widen_arity != nullptr && spec.widen_arity(args);
}

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub) const {
  for (const CommandSpec& s : subcommands) {
    if (EqualsIgnoreCase(s.name, sub)) return &s;
  }
  return nullptr;
}

const CommandSpec* CommandSpec::FindInternalSubcommand(std::string_view sub) const {
  for (const CommandSpec& s : internal_subcommands) {
    if (EqualsIgnoreCase(s.name, sub)) return &s;
  }
  return nullptr;
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
