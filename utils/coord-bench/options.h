// Command-line options of the load tool: `--name value` pairs after the subcommand.
//
// Every option takes exactly one value; an option given several times keeps all its values in
// order (used for `--target`). Accessors validate as they read and record the first problem,
// so a subcommand reads all it needs and then checks ok() once. Unknown options are an error,
// caught by CheckAllUsed() after the subcommand has read the ones it knows.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace coordbench {

// A server to measure: `name=port:mode`, e.g. `ours=23456:watchex3`.
struct Target {
  std::string name;
  int port = 0;
  std::string mode;
};

class Options {
 public:
  // Parses argv[first..argc). Sets an error for a missing value or a non-option argument.
  Options(int argc, char** argv, int first);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The last value of an integer option within [min, max], or `fallback` when absent.
  int64_t Int(const std::string& name, int64_t fallback, int64_t min, int64_t max);
  // The last value of a string option that is one of `allowed` (any when empty), or `fallback`.
  std::string String(const std::string& name, const std::string& fallback,
                     const std::set<std::string>& allowed = {});
  // Every `--target` value, each checked against `modes`; an error when there is none.
  std::vector<Target> Targets(const std::set<std::string>& modes);
  // Records an error for any option that no accessor asked about.
  void CheckAllUsed();

 private:
  void SetError(const std::string& message);

  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> used_;
  std::string error_;
};

}  // namespace coordbench
