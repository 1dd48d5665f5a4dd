// Config: loading (file, stdin, command line), CONFIG GET, CONFIG SET with its all-or-nothing
// contract, and the change hooks. CONFIG REWRITE is in config_rewrite.cc; the table and the
// value grammars are in config_table.cc, config_parse.cc and config_special.cc.
#include "server/config.h"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_set>

#include "protocol/errors.h"
#include "server/config_parse.h"
#include "server/version.h"
#include "util/glob.h"
#include "util/numbers.h"
#include "util/repr.h"

namespace redistp {

// Per-load state shared by a file and everything it includes.
struct Config::LoadState {
  // The first `save` line of a load replaces the defaults and later ones add to it, until an
  // include has been read: from then on each `save` line replaces (Redis 7.0 stops treating
  // the rest of the load as "reading the config file" once an include returns).
  bool save_seen = false;
  bool save_accumulates = true;
  int include_depth = 0;
};

namespace {

// A chain of includes deeper than this is a loop (Redis would recurse until it crashed).
constexpr int kMaxIncludeDepth = 64;

size_t RowOf(const ConfigDef* def) { return static_cast<size_t>(def - ConfigTable().data()); }

Status CantOpen(const std::string& path, int err) {
  return Status::Error("Fatal error, can't open config file '" + path + "': " + std::strerror(err));
}

Status ReadWholeFile(const std::string& path, std::string* out) {
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  if (!f) return CantOpen(path, errno != 0 ? errno : ENOENT);
  out->append(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) return CantOpen(path, errno != 0 ? errno : EIO);
  return Status::Ok();
}

// The text of a config path: one file, or every match of a glob pattern concatenated in
// sorted order (nothing at all when no file matches), as Redis reads `include` and its
// config file argument.
Status ReadConfigSources(const std::string& pattern, std::string* out) {
  if (pattern.find_first_of("*?[") == std::string::npos) return ReadWholeFile(pattern, out);
  glob_t g{};
  int rc = glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  if (rc == GLOB_NOMATCH) {
    globfree(&g);
    return Status::Ok();
  }
  if (rc != 0) {
    globfree(&g);
    return CantOpen(pattern, errno != 0 ? errno : EIO);
  }
  Status s;
  for (size_t i = 0; i < g.gl_pathc && s.ok(); ++i) s = ReadWholeFile(g.gl_pathv[i], out);
  globfree(&g);
  return s;
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[4096];
  if (getcwd(buf, sizeof(buf)) == nullptr) return path;
  std::string out = buf;
  if (out.back() != '/') out.push_back('/');
  std::string_view rest = path;
  while (rest.substr(0, 2) == "./") rest.remove_prefix(2);
  out += rest;
  return out;
}

std::string SetFailed(std::string_view name, std::string_view message) {
  return err::ConfigSetFailed(name, message);
}

}  // namespace

Config::Config() {
  std::span<const ConfigDef> table = ConfigTable();
  values_.reserve(table.size());
  for (const ConfigDef& def : table) values_.emplace_back(def.default_value);
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) values_[RowOf(FindConfig("dir"))] = cwd;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].store != nullptr) table[i].store(*this, values_[i]);
  }
}

void Config::StoreRow(size_t row, std::string text) {
  values_[row] = std::move(text);
  const ConfigDef& def = ConfigTable()[row];
  if (def.store != nullptr) def.store(*this, values_[row]);
}

std::string Config::DisplayRow(size_t row) const {
  const ConfigDef& def = ConfigTable()[row];
  return def.display != nullptr ? def.display(values_[row]) : values_[row];
}

// ---- Loading ----------------------------------------------------------------------------------

Status Config::LoadFromString(std::string_view text) {
  LoadState state;
  Status s = LoadText(text, &state);
  if (!s.ok()) return s;
  if (!module_configs.empty()) {
    // redis-tp loads no modules, so a module parameter can never be applied.
    return Status::Error(
        "Module Configuration detected without loadmodule directive or no ApplyConfig call: "
        "aborting");
  }
  // A cluster node's replication is the cluster's business (CLUSTER REPLICATE), as in Redis.
  if (cluster_enabled && !replicaof_host.empty()) {
    return Status::Error(std::string("\n*** FATAL CONFIG FILE ERROR (Redis ") + kRedisVersion +
                         ") ***\nreplicaof directive not allowed in cluster mode");
  }
  // Redis tries the log file once everything is read, and reports it without a line.
  if (!logfile.empty()) {
    FILE* f = std::fopen(logfile.c_str(), "a");
    if (f == nullptr) {
      return Status::Error(std::string("\n*** FATAL CONFIG FILE ERROR (Redis ") + kRedisVersion +
                           ") ***\nCan't open the log file: " + std::strerror(errno));
    }
    std::fclose(f);
  }
  return Status::Ok();
}

Status Config::LoadText(std::string_view text, LoadState* state) {
  int line_number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view raw = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_number;
    std::string_view line = TrimConfigLine(raw);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> argv;
    if (!SplitConfigLine(line, &argv)) {
      return Status::Error(
          FatalConfigError(line_number, line, "Unbalanced quotes in configuration line"));
    }
    if (argv.empty()) continue;
    argv[0] = ToLower(argv[0]);
    if (argv[0] == "include" && argv.size() == 2) {
      // Errors inside an included file are already complete (their own line numbers).
      Status s = LoadInclude(argv[1], state);
      if (!s.ok()) return s;
      state->save_accumulates = false;
      continue;
    }
    Status s = LoadDirective(argv, state);
    if (!s.ok()) return Status::Error(FatalConfigError(line_number, line, s.message()));
  }
  return Status::Ok();
}

Status Config::LoadInclude(const std::string& pattern, LoadState* state) {
  if (state->include_depth >= kMaxIncludeDepth) {
    return Status::Error("Fatal error, include nesting deeper than " +
                         std::to_string(kMaxIncludeDepth) + " levels at '" + pattern + "'");
  }
  std::string text;
  Status s = ReadConfigSources(pattern, &text);
  if (!s.ok()) return s;
  ++state->include_depth;
  s = LoadText(text, state);
  --state->include_depth;
  return s;
}

Status Config::LoadDirective(const std::vector<std::string>& argv, LoadState* state) {
  const std::string& name = argv[0];
  const size_t argc = argv.size();
  std::vector<std::string> rest(argv.begin() + 1, argv.end());

  // Directives that are not parameters: recorded for their owners.
  bool recorded = false;
  if (name == "rename-command" && argc == 3) {
    rename_commands.emplace_back(argv[1], argv[2]);
    recorded = true;
  } else if (name == "user" && argc >= 2) {
    Status s = CheckUserDirective(rest, users);
    if (!s.ok()) return s;
    users.push_back(rest);
    recorded = true;
  } else if (name == "loadmodule" && argc >= 2) {
    loadmodules.push_back(rest);
    recorded = true;
  }
  if (recorded) {
    for (const auto& [n, handler] : directive_handlers_) {
      if (n == name) return handler(rest);
    }
    return Status::Ok();
  }
  if (name == "sentinel" && argc >= 2) {
    return Status::Error("sentinel directive while not in sentinel mode");
  }
  if (argc == 2 && IsDeprecatedConfig(name)) return Status::Ok();  // accepted and ignored

  const ConfigDef* def = FindConfig(name);
  if (def == nullptr && name.find('.') != std::string::npos) {
    // "module.option value": a module's parameter, kept for the module that never comes.
    if (argc < 2) return Status::Error("Module config specified without value");
    module_configs.push_back(argv);
    return Status::Ok();
  }
  if (def == nullptr) return Status::Error("Bad directive or wrong number of arguments");
  std::vector<std::string> args;
  if ((def->flags & kConfigMultiArg) != 0) {
    // One quoted word holding a list ("3600 1 300 100") is split like CONFIG SET's value; no
    // word at all is an empty list, which each grammar judges as Redis's does.
    args = argc == 2 ? SplitOnSpaces(argv[1]) : rest;
  } else {
    if (argc != 2) return Status::Error("wrong number of arguments");
    args = rest;
  }
  const size_t row = RowOf(def);
  std::string text;
  Status s = ParseConfigValue(*def, args, values_[row], /*loading=*/true, &text);
  if (!s.ok()) return s;
  if (def->name == "save") {
    // Save points accumulate across the lines of one load; an empty `save` clears them.
    if (state->save_accumulates && state->save_seen) {
      const bool bare = argc == 1;  // adds no point; `save ""` is a word and clears
      if (bare) {
        text = values_[row];
      } else if (!text.empty() && !values_[row].empty()) {
        text = values_[row] + ' ' + text;
      }
    }
    state->save_seen = true;
  }
  StoreRow(row, std::move(text));
  return Status::Ok();
}

Status Config::LoadFromArgs(int argc, char** argv, std::istream& in) {
  int first = 1;
  int end = argc;
  std::string file;
  bool from_stdin = false;
  if (argc >= 2) {
    std::string_view a1 = argv[1];
    if (a1 == "-") {
      from_stdin = true;
      first = 2;
    } else if (a1.empty() || a1[0] != '-') {
      file = argv[1];
      first = 2;
    }
  }
  if (end - 1 >= first && std::string_view(argv[end - 1]) == "-") {
    from_stdin = true;
    --end;
  }

  // Options become config lines: "--name v1 v2" -> `name "v1" "v2"`. The name argument is
  // copied as it is, so one argument holding name and value ("--maxmemory 700mb") is a whole
  // line by itself. A word starting with "--" begins a new option only once the option before
  // it has a value (`has_value`): the first word after a bare "--name" is always its value,
  // even "--x" (a password may look like that).
  std::string options;
  bool has_value = true;
  for (int j = first; j < end; ++j) {
    std::string_view a = argv[j];
    if (has_value && a.size() >= 2 && a[0] == '-' && a[1] == '-') {
      if (!options.empty()) options.push_back('\n');
      options += a.substr(2);
      options.push_back(' ');
      std::vector<std::string> words;
      has_value = SplitConfigLine(a, &words) && words.size() > 1;
      if (!has_value && EqualsIgnoreCase(a, "--save")) {
        // `--save` followed by another option or by nothing means save "" (what tools that
        // build a command line from an empty list of save points produce).
        const bool last = j + 1 == end;
        if (last || std::string_view(argv[j + 1]).substr(0, 2) == "--") {
          options += "\"\"";
          has_value = true;
        }
      }
    } else {
      options += Repr(a);
      options.push_back(' ');
      has_value = true;
    }
  }

  std::string text;
  if (!file.empty()) {
    config_file = AbsolutePath(file);  // before any `dir` line moves the working directory
    Status s = ReadConfigSources(file, &text);
    if (!s.ok()) return s;
  }
  if (from_stdin) text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  text.push_back('\n');
  text += options;
  return LoadFromString(text);
}

// ---- CONFIG GET ------------------------------------------------------------------------------

Result<std::vector<std::pair<std::string, std::string>>> Config::Get(
    const std::vector<std::string_view>& patterns) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::unordered_set<std::string> seen;  // lower-case names already answered
  std::span<const ConfigDef> table = ConfigTable();
  for (std::string_view pattern : patterns) {
    if (pattern.find_first_of("*?[") == std::string_view::npos) {
      const ConfigDef* def = FindConfig(pattern);
      if (def != nullptr && seen.insert(ToLower(pattern)).second) {
        out.emplace_back(std::string(pattern), DisplayRow(RowOf(def)));
      }
      continue;
    }
    for (size_t i = 0; i < table.size(); ++i) {
      const ConfigDef& def = table[i];
      if ((def.flags & kConfigHidden) != 0) continue;
      for (std::string_view name : {def.name, def.alias}) {
        if (name.empty() || !GlobMatch(pattern, name, /*nocase=*/true)) continue;
        if (seen.insert(std::string(name)).second) out.emplace_back(name, DisplayRow(i));
      }
    }
  }
  return out;
}

bool Config::GetValue(std::string_view name, std::string* value) const {
  const ConfigDef* def = FindConfig(name);
  if (def == nullptr) return false;
  *value = DisplayRow(RowOf(def));
  return true;
}

void Config::SetFromServer(std::string_view name, std::string canonical) {
  const ConfigDef* def = FindConfig(name);
  if (def == nullptr) std::abort();
  StoreRow(RowOf(def), std::move(canonical));
}

// ---- CONFIG SET ------------------------------------------------------------------------------

Status Config::Set(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                   bool local_client) {
  std::span<const ConfigDef> table = ConfigTable();

  // 1. Names, pair by pair: known, settable, not given twice (spelling compared, so an alias
  //    and its canonical name may both appear; the later one wins).
  std::vector<size_t> rows;
  rows.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    std::string_view name = pairs[i].first;
    const ConfigDef* def = FindConfig(name);
    if (def == nullptr) {
      return Status::Error(err::ConfigSetUnknown(name));
    }
    if ((def->flags & kConfigImmutable) != 0) {
      return Status::Error(SetFailed(name, "can't set immutable config"));
    }
    if ((def->flags & kConfigProtected) != 0 &&
        !(enable_protected_configs == "yes" ||
          (enable_protected_configs == "local" && local_client))) {
      return Status::Error(SetFailed(name, "can't set protected config"));
    }
    for (size_t k = 0; k < i; ++k) {
      if (EqualsIgnoreCase(pairs[k].first, name)) {
        return Status::Error(SetFailed(name, "duplicate parameter"));
      }
    }
    rows.push_back(RowOf(def));
  }

  // 2. Values, in order, each stored as soon as it parses; any failure restores all.
  std::vector<std::pair<size_t, std::string>> saved;
  for (size_t row : rows) {
    bool have = false;
    for (const auto& [r, text] : saved) have = have || r == row;
    if (!have) saved.emplace_back(row, values_[row]);
  }
  // Puts every saved row back. As in Redis, a row among the first `tried` pairs (those whose
  // values were set, or refused) gets the value its CONFIG GET text reads as, not the exact
  // value it had: where that text loses something (notify-keyspace-events shows no `n` beside
  // `A`), the loss stays. Rows whose restored text differs from the saved one run their hooks
  // (all but the ones in `skip`), so the server follows.
  auto restore = [&](size_t tried, const std::vector<size_t>& skip) {
    std::vector<size_t> moved;
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      const ConfigDef& def = table[it->first];
      std::string text = it->second;
      bool was_tried = false;
      for (size_t i = 0; i < tried; ++i) was_tried = was_tried || rows[i] == it->first;
      if (was_tried && def.display != nullptr) {
        std::vector<std::string> args{def.display(it->second)};
        std::string reread;
        if (ParseConfigValue(def, args, it->second, /*loading=*/false, &reread).ok()) {
          text = std::move(reread);
        }
      }
      if (text != it->second) moved.push_back(it->first);
      StoreRow(it->first, std::move(text));
    }
    for (size_t h = 0; h < hooks_.size(); ++h) {
      bool watches = false;
      for (size_t r : hooks_[h].rows) {
        for (size_t m : moved) watches = watches || r == m;
      }
      bool skipped = false;
      for (size_t k : skip) skipped = skipped || k == h;
      if (watches && !skipped) hooks_[h].hook();  // its error cannot be reported any better
    }
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    const ConfigDef& def = table[rows[i]];
    std::vector<std::string> args;
    if ((def.flags & kConfigMultiArg) != 0) {
      args = SplitOnSpaces(pairs[i].second);
    } else {
      args.emplace_back(pairs[i].second);
    }
    // Redis reads integers with their length (a NUL byte is refused) and the rest as C strings.
    if ((def.flags & kConfigBinary) == 0 && def.type != ConfigType::kInt) {
      for (std::string& a : args) a.resize(std::min(a.size(), a.find('\0')));
    }
    std::string text;
    Status s = ParseConfigValue(def, args, values_[rows[i]], /*loading=*/false, &text);
    if (!s.ok()) {
      restore(i + 1, {});
      // A value is refused under the parameter's own name (lower case; the alias when the
      // alias was given), unlike the name checks above, which echo the argument as typed.
      bool by_alias = !def.alias.empty() && EqualsIgnoreCase(pairs[i].first, def.alias);
      return Status::Error(SetFailed(by_alias ? def.alias : def.name, s.message()));
    }
    StoreRow(rows[i], std::move(text));
  }

  // 3. Hooks of the rows whose text changed, each once, in the order of their first pair.
  std::vector<std::pair<size_t, size_t>> runs;  // (hook index, pair index)
  for (size_t i = 0; i < pairs.size(); ++i) {
    size_t row = rows[i];
    bool changed = false;
    for (const auto& [r, text] : saved) changed = changed || (r == row && text != values_[row]);
    if (!changed) continue;
    for (size_t h = 0; h < hooks_.size(); ++h) {
      bool watches = false;
      for (size_t r : hooks_[h].rows) watches = watches || r == row;
      bool queued = false;
      for (const auto& [qh, qi] : runs) queued = queued || qh == h;
      if (watches && !queued) runs.emplace_back(h, i);
    }
  }
  for (size_t n = 0; n < runs.size(); ++n) {
    Status s = hooks_[runs[n].first].hook();
    if (s.ok()) continue;
    if (apply_failure_) apply_failure_(table[rows[runs[n].second]].name);
    // Let every hook that already acted (and the failing one) see the old values again. Their
    // errors cannot be reported any better than the first one.
    std::vector<size_t> acted;
    for (size_t m = 0; m <= n; ++m) acted.push_back(runs[m].first);
    restore(pairs.size(), acted);
    for (size_t h : acted) hooks_[h].hook();
    return Status::Error(SetFailed(pairs[runs[n].second].first, s.message()));
  }
  return Status::Ok();
}

// ---- Registration ----------------------------------------------------------------------------

void Config::OnChange(std::string_view name, Hook hook) { OnChange({name}, std::move(hook)); }

void Config::OnChange(std::initializer_list<std::string_view> names, Hook hook) {
  HookEntry entry;
  for (std::string_view name : names) {
    const ConfigDef* def = FindConfig(name);
    if (def == nullptr) {
      std::fprintf(stderr, "Config::OnChange: unknown parameter '%.*s'\n",
                   static_cast<int>(name.size()), name.data());
      std::abort();
    }
    entry.rows.push_back(RowOf(def));
  }
  entry.hook = std::move(hook);
  hooks_.push_back(std::move(entry));
}

void Config::OnDirective(std::string_view directive, DirectiveHandler handler) {
  directive_handlers_.emplace_back(std::string(directive), std::move(handler));
}

void Config::SetRewriteLines(std::string_view directive, LinesProvider provider) {
  rewrite_providers_.emplace_back(ToLower(directive), std::move(provider));
}

}  // namespace redistp
