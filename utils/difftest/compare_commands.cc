// The command-table check: COMMAND INFO and COMMAND DOCS of every command (and subcommand) both
// servers have, compared field by field (see compare_commands.h).
#include "compare_commands.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "command_table.h"
#include "policy.h"
#include "resp.h"

namespace difftest {

namespace {

// The positions of a COMMAND INFO entry, for readable paths.
const char* const kInfoFields[] = {"name", "arity",          "flags", "first-key", "last-key",
                                   "step", "acl-categories", "tips",  "key-specs", "subcommands"};

// Documentation prose that is written in our own words, so it is not compared: summaries and
// key-spec notes. History entries are [version, text]: the versions are compared, not the text.
bool IsProse(const std::string& field) { return field == "summary" || field == "notes"; }

Value HistoryVersions(const Value& history) {
  Value out;
  out.kind = Value::Kind::kArray;
  for (const auto& entry : history.elements) {
    if (!entry.elements.empty()) out.elements.push_back(entry.elements[0]);
  }
  return out;
}

// Removes the prose from a COMMAND INFO or DOCS value, at any depth (key specs sit in a set,
// where a field-by-field walk cannot reach them), and keeps only the versions of a history.
Value WithoutProse(const Value& v) {
  Value out = v;
  out.elements.clear();
  bool map = v.kind == Value::Kind::kMap;
  for (size_t i = 0; i < v.elements.size(); ++i) {
    if (map && i % 2 == 0 && i + 1 < v.elements.size()) {
      const std::string& k = v.elements[i].str;
      if (IsProse(k)) {
        ++i;
        continue;
      }
      out.elements.push_back(v.elements[i]);
      ++i;
      out.elements.push_back(k == "history" ? HistoryVersions(v.elements[i])
                                            : WithoutProse(v.elements[i]));
      continue;
    }
    out.elements.push_back(WithoutProse(v.elements[i]));
  }
  return out;
}

// ---- our additions: what newer servers added to rows Redis 7.0 has -----------------------------

// The fields of rows both servers have that differ from Redis 7.0's by design, because an option
// of a newer server changed them; each is reported as an addition, not a difference. Arguments
// and history entries newer than 7.0 need no row here: they are recognised by their versions
// (StripNewer).
struct ChangedField {
  const char* path;  // as the differ prints it
  const char* why;
};
constexpr ChangedField kChangedFields[] = {
    {"bitop docs.arguments[operation].type",
     "a oneof of the operations' tokens, as Redis 8.2 lists them with DIFF, DIFF1, ANDOR, ONE"},
    {"bitop docs.arguments[operation].arguments", "the operations' tokens (Redis 8.2)"},
};

const ChangedField* FindChangedField(const std::string& diff) {
  for (const auto& f : kChangedFields) {
    const std::string p = f.path;
    if (diff.compare(0, p.size(), p) == 0 && diff.size() > p.size() && diff[p.size()] == ':') {
      return &f;
    }
  }
  return nullptr;
}

// Removes from our COMMAND DOCS entry what is newer than Redis 7.0: arguments (and alternatives
// of a oneof) whose `since` is after 7.0, and history entries of later versions (the history
// key goes when nothing is left). Each removal is named in `removed` ("zrank withscore 7.2.0").
Value StripNewer(const Value& doc, const std::string& where, std::vector<std::string>& removed) {
  Value out = doc;
  if (doc.kind != Value::Kind::kMap) return out;
  out.elements.clear();
  for (size_t i = 0; i + 1 < doc.elements.size(); i += 2) {
    const std::string& k = doc.elements[i].str;
    const Value& v = doc.elements[i + 1];
    if (k == "history") {
      Value kept = v;
      kept.elements.clear();
      for (const auto& h : v.elements) {
        const std::string version = h.elements.empty() ? "" : h.elements[0].str;
        if (NewerThanReference(version)) {
          removed.push_back(where + " history " + version);
        } else {
          kept.elements.push_back(h);
        }
      }
      if (kept.elements.empty()) continue;
      out.elements.push_back(doc.elements[i]);
      out.elements.push_back(kept);
      continue;
    }
    if (k == "arguments") {
      Value kept = v;
      kept.elements.clear();
      for (const auto& a : v.elements) {
        const Value* since = FindField(a, "since");
        const Value* name = FindField(a, "name");
        const std::string arg = name != nullptr ? name->str : "?";
        if (since != nullptr && NewerThanReference(since->str)) {
          removed.push_back(where + " " + arg + " " + since->str);
        } else {
          kept.elements.push_back(StripNewer(a, where + " " + arg, removed));
        }
      }
      out.elements.push_back(doc.elements[i]);
      out.elements.push_back(kept);
      continue;
    }
    out.elements.push_back(doc.elements[i]);
    out.elements.push_back(v);
  }
  return out;
}

std::string Label(const Value& v, size_t i) {
  // An argument or a key spec is easier to find by its name than by its index.
  if (const Value* n = FindField(v, "name"); n != nullptr && !n->str.empty()) {
    return "[" + n->str + "]";
  }
  return "[" + std::to_string(i) + "]";
}

class Differ {
 public:
  explicit Differ(std::vector<std::string>& out) : out_(out) {}

  void Diff(const std::string& path, const Value& ours, const Value& theirs) {
    if (ours.kind != theirs.kind) {
      Report(path, ours, theirs);
      return;
    }
    if (ours.kind == Value::Kind::kMap) {
      std::map<std::string, const Value*> a, b;
      for (size_t i = 0; i + 1 < ours.elements.size(); i += 2) {
        a[ours.elements[i].str] = &ours.elements[i + 1];
      }
      for (size_t i = 0; i + 1 < theirs.elements.size(); i += 2) {
        b[theirs.elements[i].str] = &theirs.elements[i + 1];
      }
      for (const auto& [k, v] : a) {
        if (IsProse(k)) continue;
        auto it = b.find(k);
        if (it == b.end()) {
          out_.push_back(path + "." + k + ": only ours has it: " + Clip(v->Render()));
        } else {
          Diff(path + "." + k, *v, *it->second);
        }
      }
      for (const auto& [k, v] : b) {
        if (!IsProse(k) && a.count(k) == 0) {
          out_.push_back(path + "." + k + ": only Redis has it: " + Clip(v->Render()));
        }
      }
      return;
    }
    if (ours.kind == Value::Kind::kSet) {
      auto sorted = [](const Value& v) {
        std::vector<std::string> s;
        for (const auto& e : v.elements) s.push_back(e.Render());
        std::sort(s.begin(), s.end());
        return s;
      };
      if (sorted(ours) != sorted(theirs)) Report(path, ours, theirs);
      return;
    }
    if (ours.kind == Value::Kind::kArray) {
      if (ours.elements.size() != theirs.elements.size()) {
        Report(path, ours, theirs);
        return;
      }
      for (size_t i = 0; i < ours.elements.size(); ++i) {
        Diff(path + Label(theirs.elements[i], i), ours.elements[i], theirs.elements[i]);
      }
      return;
    }
    if (ours.Render() != theirs.Render()) Report(path, ours, theirs);
  }

 private:
  static std::string Clip(const std::string& s) {
    return s.size() <= 300 ? s : s.substr(0, 300) + "...";
  }
  void Report(const std::string& path, const Value& ours, const Value& theirs) {
    out_.push_back(path + ": ours " + Clip(ours.Render()) + " | redis " + Clip(theirs.Render()));
  }
  std::vector<std::string>& out_;
};

// name -> COMMAND INFO entry, subcommands included as "container|sub".
void IndexInfo(const Value& list, std::map<std::string, const Value*>& out) {
  for (const auto& e : list.elements) {
    if (e.kind != Value::Kind::kArray || e.elements.empty()) continue;
    out[e.elements[0].str] = &e;
    if (e.elements.size() > 9) IndexInfo(e.elements[9], out);
  }
}

bool Fetch(int port, const std::vector<std::string>& argv, Value& out, std::string& error) {
  Connection c;
  if (!c.Open(port)) {
    error = c.error();
    return false;
  }
  Value hello = c.Call({"HELLO", "3"});
  if (hello.IsError()) {
    error = "HELLO 3: " + hello.Render();
    return false;
  }
  out = c.Call(argv);
  if (!out.IsAggregate()) {
    error = "COMMAND answered " + out.Render().substr(0, 200);
    return false;
  }
  return true;
}

}  // namespace

int CompareCommands(int ours_port, int redis_port, bool test_line) {
  Value oi, ri, od, rd;
  std::string error;
  if (!Fetch(ours_port, {"COMMAND", "INFO"}, oi, error) ||
      !Fetch(redis_port, {"COMMAND", "INFO"}, ri, error) ||
      !Fetch(ours_port, {"COMMAND", "DOCS"}, od, error) ||
      !Fetch(redis_port, {"COMMAND", "DOCS"}, rd, error)) {
    std::cerr << "difftest: reading the command tables: " << error << "\n";
    return 2;
  }
  std::map<std::string, const Value*> ours_info, redis_info;
  IndexInfo(oi, ours_info);
  IndexInfo(ri, redis_info);

  std::vector<std::string> diffs;
  std::vector<std::string> notes;      // subcommands only Redis has: a subset, not a difference
  std::vector<std::string> additions;  // ours by design: newer servers' options and commands
  Differ differ(diffs);
  size_t compared = 0;
  for (const auto& [name, entry] : ours_info) {
    auto it = redis_info.find(name);
    if (it == redis_info.end()) continue;
    ++compared;
    const Value& a = *entry;
    const Value& b = *it->second;
    size_t n = std::max(a.elements.size(), b.elements.size());
    for (size_t i = 0; i < n && i < 9; ++i) {  // subcommands are compared as entries of their own
      std::string path = name + " info." + kInfoFields[i];
      if (i >= a.elements.size() || i >= b.elements.size()) {
        diffs.push_back(path + ": missing on one side");
      } else {
        differ.Diff(path, WithoutProse(a.elements[i]), WithoutProse(b.elements[i]));
      }
    }
    if (a.elements.size() > 9 && b.elements.size() > 9) {
      // Which subcommands each side has (their entries are compared under their own names).
      std::vector<std::string> sa, sb;
      for (const auto& s : a.elements[9].elements) sa.push_back(s.elements.at(0).str);
      for (const auto& s : b.elements[9].elements) sb.push_back(s.elements.at(0).str);
      std::sort(sa.begin(), sa.end());
      std::sort(sb.begin(), sb.end());
      for (const auto& s : sb) {
        if (!std::binary_search(sa.begin(), sa.end(), s)) {
          notes.push_back(s);
        }
      }
    }
  }
  // COMMAND DOCS: a map of name -> docs, subcommands nested under "subcommands".
  std::map<std::string, const Value*> ours_docs, redis_docs;
  // Subcommands are keyed by their full names ("config|get") inside their container's docs.
  auto index_docs = [](const Value& m, std::map<std::string, const Value*>& out,
                       auto& self) -> void {
    for (size_t i = 0; i + 1 < m.elements.size(); i += 2) {
      out[m.elements[i].str] = &m.elements[i + 1];
      if (const Value* subs = FindField(m.elements[i + 1], "subcommands")) self(*subs, out, self);
    }
  };
  index_docs(od, ours_docs, index_docs);
  index_docs(rd, redis_docs, index_docs);
  for (const auto& [name, doc] : ours_docs) {
    auto it = redis_docs.find(name);
    if (it == redis_docs.end() || redis_info.count(name) == 0) continue;
    // Strip the nested subcommands: each is compared under its own name.
    Value a = *doc, b = *it->second;
    for (Value* v : {&a, &b}) {
      for (size_t i = 0; i + 1 < v->elements.size(); i += 2) {
        if (v->elements[i].str == "subcommands") {
          v->elements.erase(v->elements.begin() + static_cast<long>(i),
                            v->elements.begin() + static_cast<long>(i) + 2);
          break;
        }
      }
    }
    differ.Diff(name + " docs", WithoutProse(StripNewer(a, name, additions)), WithoutProse(b));
  }
  // Commands and subcommands only ours has must be on the tester's list (the policy table),
  // with their reason: redis-tp's own, or a newer server's.
  for (const auto& [name, entry] : ours_info) {
    if (redis_info.count(name) != 0) continue;
    const PolicyRow* row = FindPolicy(name);
    if ((row == nullptr || row->rule != Rule::kNeverSend) && name.find('|') != std::string::npos) {
      row = FindPolicy(name.substr(0, name.find('|')));  // SESSION HELP: SESSION's row
    }
    if (row == nullptr || row->rule != Rule::kNeverSend) {
      diffs.push_back(name + " info: only ours has it, and the policy table does not list it");
    } else {
      additions.push_back(name + " (" + row->reason + ")");
    }
  }
  // The fields changed by design move from the differences to the additions.
  std::vector<std::string> real;
  for (const auto& d : diffs) {
    if (const ChangedField* f = FindChangedField(d)) {
      additions.push_back(std::string(f->path) + ": " + f->why);
    } else {
      real.push_back(d);
    }
  }
  diffs.swap(real);

  std::set<std::string> bad_commands;
  for (const auto& d : diffs) bad_commands.insert(d.substr(0, d.find(' ')));
  std::ostringstream title;
  title << "COMMAND INFO and COMMAND DOCS equal to Redis 7.0's (" << compared
        << " commands both have)";
  if (test_line) {
    std::cout << (diffs.empty() ? "[ok]: " : "[err]: ") << title.str() << "\n";
    for (const auto& d : diffs) std::cout << "    " << d << "\n";
  } else {
    for (const auto& d : diffs) std::cout << d << "\n";
    std::cout << "difftest: " << compared << " commands and subcommands in both tables, "
              << bad_commands.size() << " with differences (" << diffs.size()
              << " fields; summaries, key-spec notes and history texts are not compared)\n";
    if (!notes.empty()) {
      std::cout << "difftest: subcommands only Redis has (not compared):";
      for (const auto& n : notes) std::cout << " " << n;
      std::cout << "\n";
    }
    std::cout << "difftest: " << additions.size() << " additions of ours (not differences):\n";
    for (const auto& a : additions) std::cout << "  " << a << "\n";
  }
  return diffs.empty() ? 0 : 1;
}

}  // namespace difftest
