// Reading the command table from COMMAND INFO / COMMAND DOCS (see command_table.h).
#include "command_table.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace difftest {

namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool IsText(const Value& v) {
  return v.kind == Value::Kind::kBulk || v.kind == Value::Kind::kStatus ||
         v.kind == Value::Kind::kVerbatim;
}

ArgSpec ParseArg(const Value& v) {
  ArgSpec a;
  if (const Value* f = FindField(v, "name"); f && IsText(*f)) a.name = f->str;
  if (const Value* f = FindField(v, "type"); f && IsText(*f)) a.type = f->str;
  if (const Value* f = FindField(v, "token"); f && IsText(*f)) a.token = f->str;
  if (const Value* f = FindField(v, "since"); f && IsText(*f)) a.since = f->str;
  if (const Value* f = FindField(v, "flags"); f && f->IsAggregate()) {
    for (const auto& flag : f->elements) {
      if (flag.str == "optional") a.optional = true;
      if (flag.str == "multiple") a.multiple = true;
      if (flag.str == "multiple_token") a.multiple_token = true;
    }
  }
  if (const Value* f = FindField(v, "arguments"); f && f->IsAggregate()) {
    for (const auto& child : f->elements) a.args.push_back(ParseArg(child));
  }
  return a;
}

}  // namespace

bool NewerThanReference(const std::string& since) {
  if (since.empty()) return false;
  unsigned major = 0, minor = 0;
  if (std::sscanf(since.c_str(), "%u.%u", &major, &minor) != 2) return false;
  return major > 7 || (major == 7 && minor > 0);
}

const Value* FindField(const Value& pairs, const std::string& key) {
  if (pairs.kind != Value::Kind::kMap && pairs.kind != Value::Kind::kArray) return nullptr;
  for (size_t i = 0; i + 1 < pairs.elements.size(); i += 2) {
    if (pairs.elements[i].str == key) return &pairs.elements[i + 1];
  }
  return nullptr;
}

const CommandSpec* CommandTable::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &commands_[it->second];
}

bool CommandTable::Load(Connection& conn, std::string& error) {
  Value info = conn.Call({"COMMAND", "INFO"});
  if (info.kind != Value::Kind::kArray) {
    error = "COMMAND INFO: " + info.Render().substr(0, 200);
    return false;
  }
  // INFO entries: name, arity, flags, first, last, step, categories, tips, key specs, subcommands.
  auto add = [&](const Value& e, auto& self) -> void {
    if (e.kind != Value::Kind::kArray || e.elements.size() < 6) return;
    CommandSpec c;
    c.name = Lower(e.elements[0].str);
    c.arity = static_cast<int>(e.elements[1].integer);
    for (const auto& f : e.elements[2].elements) c.flags.insert(Lower(f.str));
    c.first_key = static_cast<int>(e.elements[3].integer);
    c.last_key = static_cast<int>(e.elements[4].integer);
    c.key_step = static_cast<int>(e.elements[5].integer);
    size_t bar = c.name.find('|');
    if (bar == std::string::npos) {
      c.words = {Upper(c.name)};
    } else {
      c.words = {Upper(c.name.substr(0, bar)), Upper(c.name.substr(bar + 1))};
    }
    if (e.elements.size() >= 10 && !e.elements[9].elements.empty()) {
      containers_.insert(c.name);
      c.has_subcommands = true;
      for (const auto& sub : e.elements[9].elements) self(sub, self);
    }
    index_[c.name] = commands_.size();
    commands_.push_back(std::move(c));
  };
  for (const auto& e : info.elements) add(e, add);

  Value docs = conn.Call({"COMMAND", "DOCS"});
  if (docs.kind != Value::Kind::kArray && docs.kind != Value::Kind::kMap) {
    error = "COMMAND DOCS: " + docs.Render().substr(0, 200);
    return false;
  }
  auto add_docs = [&](const std::string& name, const Value& doc, auto& self) -> void {
    auto it = index_.find(Lower(name));
    if (it != index_.end()) {
      CommandSpec& c = commands_[it->second];
      c.has_docs = true;
      if (const Value* args = FindField(doc, "arguments"); args && args->IsAggregate()) {
        for (const auto& a : args->elements) c.args.push_back(ParseArg(a));
      }
    }
    if (const Value* subs = FindField(doc, "subcommands"); subs) {
      for (size_t i = 0; i + 1 < subs->elements.size(); i += 2) {
        self(subs->elements[i].str, subs->elements[i + 1], self);
      }
    }
  };
  for (size_t i = 0; i + 1 < docs.elements.size(); i += 2) {
    add_docs(docs.elements[i].str, docs.elements[i + 1], add_docs);
  }
  std::sort(commands_.begin(), commands_.end(),
            [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
  index_.clear();
  for (size_t i = 0; i < commands_.size(); ++i) index_[commands_[i].name] = i;
  return true;
}

}  // namespace difftest
