// `--name value` option parsing with validation; see options.h.
#include "options.h"

#include <charconv>

namespace coordbench {
namespace {

bool ParseInt(const std::string& text, int64_t* value) {
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), last, *value);
  return !text.empty() && ec == std::errc() && ptr == last;
}

}  // namespace

Options::Options(int argc, char** argv, int first) {
  for (int i = first; i < argc; i += 2) {
    std::string name = argv[i];
    if (name.size() < 3 || name.compare(0, 2, "--") != 0) {
      SetError("expected an option, got '" + name + "'");
      return;
    }
    if (i + 1 >= argc) {
      SetError("option " + name + " needs a value");
      return;
    }
    values_[name.substr(2)].push_back(argv[i + 1]);
  }
}

void Options::SetError(const std::string& message) {
  if (error_.empty()) error_ = message;
}

int64_t Options::Int(const std::string& name, int64_t fallback, int64_t min, int64_t max) {
  used_.insert(name);
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  if (!ParseInt(it->second.back(), &value) || value < min || value > max) {
    SetError("--" + name + " must be an integer in [" + std::to_string(min) + ", " +
             std::to_string(max) + "]");
    return fallback;
  }
  return value;
}

std::string Options::String(const std::string& name, const std::string& fallback,
                            const std::set<std::string>& allowed) {
  used_.insert(name);
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& value = it->second.back();
  if (!allowed.empty() && allowed.count(value) == 0) {
    SetError("--" + name + " has an unknown value '" + value + "'");
    return fallback;
  }
  return value;
}

std::vector<Target> Options::Targets(const std::set<std::string>& modes) {
  used_.insert("target");
  std::vector<Target> targets;
  auto it = values_.find("target");
  if (it == values_.end()) {
    SetError("at least one --target name=port:mode is required");
    return targets;
  }
  for (const std::string& spec : it->second) {
    size_t eq = spec.find('=');
    size_t colon = spec.find(':', eq == std::string::npos ? 0 : eq);
    Target target;
    int64_t port = 0;
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos ||
        !ParseInt(spec.substr(eq + 1, colon - eq - 1), &port) || port < 1 || port > 65535 ||
        modes.count(spec.substr(colon + 1)) == 0) {
      SetError("bad --target '" + spec + "' (want name=port:mode with a known mode)");
      continue;
    }
    target.name = spec.substr(0, eq);
    target.port = static_cast<int>(port);
    target.mode = spec.substr(colon + 1);
    targets.push_back(target);
  }
  return targets;
}

void Options::CheckAllUsed() {
  for (const auto& [name, unused] : values_) {
    if (used_.count(name) == 0) SetError("unknown option --" + name);
  }
}

}  // namespace coordbench
