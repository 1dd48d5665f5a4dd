// Shared option parsing and messages of the redis-tp command-line tools (tool_common.h).
#include "tools/tool_common.h"

#include <sys/time.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace redistp::tools {

const char kConnectionHelp[] =
    " -h, --host <host>         server host (default 127.0.0.1)\n"
    " -p, --port <port>         server port (default 6379)\n"
    " -a, --pass <password>     password for AUTH (default: $REDISCLI_AUTH)\n"
    "     --user <username>     user name for AUTH (with --pass)\n"
    "     --db <number>         database number (default 0)\n"
    "     --sentinel <host:port>  find the master through this Redis Sentinel (repeatable;\n"
    "                           -h/-p are then unused) and follow its failovers\n"
    "     --master-name <name>  the master's name at the sentinels (default mymaster)\n";

namespace {

// Matches `arg` against a short and a long spelling. The value is what follows '=' in
// "--long=value", else the next argument.
bool Match(int argc, char** argv, int* i, const char* short_name, const char* long_name,
           std::string* value, bool* missing) {
  const std::string arg = argv[*i];
  const std::string long_eq = std::string(long_name) + "=";
  if (arg.rfind(long_eq, 0) == 0) {
    *value = arg.substr(long_eq.size());
    ++*i;
    return true;
  }
  if (arg != long_name && (short_name == nullptr || arg != short_name)) return false;
  if (*i + 1 >= argc) {
    *missing = true;
    return true;
  }
  *value = argv[*i + 1];
  *i += 2;
  return true;
}

}  // namespace

FlagResult ParseConnectionFlag(int argc, char** argv, int* i, client::ClientOptions* options,
                               std::string* error) {
  const std::string arg = argv[*i];
  std::string value;
  bool missing = false;
  long long n = 0;
  if (Match(argc, argv, i, "-h", "--host", &value, &missing)) {
    if (missing || value.empty()) {
      *error = "option " + arg + " needs a host";
      return FlagResult::kError;
    }
    options->host = value;
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, "-p", "--port", &value, &missing)) {
    if (missing || !ParseInteger(value, 1, 65535, &n)) {
      *error = "option " + arg + " needs a port number (1-65535)";
      return FlagResult::kError;
    }
    options->port = static_cast<int>(n);
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, "-a", "--pass", &value, &missing)) {
    if (missing) {
      *error = "option " + arg + " needs a password";
      return FlagResult::kError;
    }
    options->password = value;
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, nullptr, "--user", &value, &missing)) {
    if (missing) {
      *error = "option " + arg + " needs a user name";
      return FlagResult::kError;
    }
    options->user = value;
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, nullptr, "--sentinel", &value, &missing)) {
    const size_t colon = value.rfind(':');
    if (missing || colon == std::string::npos || colon == 0 ||
        !ParseInteger(value.substr(colon + 1), 1, 65535, &n)) {
      *error = "option " + arg + " needs host:port";
      return FlagResult::kError;
    }
    options->sentinels.push_back(value);
    if (options->master_name.empty()) options->master_name = "mymaster";
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, nullptr, "--master-name", &value, &missing)) {
    if (missing || value.empty()) {
      *error = "option " + arg + " needs a name";
      return FlagResult::kError;
    }
    options->master_name = value;
    return FlagResult::kTaken;
  }
  if (Match(argc, argv, i, nullptr, "--db", &value, &missing)) {
    if (missing || !ParseInteger(value, 0, 1000000, &n)) {
      *error = "option " + arg + " needs a database number";
      return FlagResult::kError;
    }
    options->db = static_cast<int>(n);
    return FlagResult::kTaken;
  }
  return FlagResult::kNotMine;
}

client::ClientOptions DefaultConnectionOptions() {
  client::ClientOptions o;
  if (const char* auth = std::getenv("REDISCLI_AUTH"); auth != nullptr) o.password = auth;
  return o;
}

bool ParseInteger(const std::string& text, long long min, long long max, long long* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

bool ParseSeconds(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e9) return false;
  *out = v;
  return true;
}

// Local time with milliseconds, ISO 8601 without the zone: 2024-05-01T12:00:00.123.
std::string LocalTimestamp() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  tm local;
  localtime_r(&tv.tv_sec, &local);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &local);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03d", static_cast<int>(tv.tv_usec / 1000));
  return buf;
}

// The key as is when it is printable and has no space or quote, else quoted with escapes.
// `json` selects JSON string escapes (always quoted).
std::string QuoteText(const std::string& key, bool json) {
  bool plain = !json && !key.empty();
  for (unsigned char c : key) {
    if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\') plain = false;
  }
  if (plain) return key;
  std::string out = "\"";
  for (unsigned char c : key) {
    char buf[8];
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < ' ' || c == 0x7f || (!json && c >= 0x80)) {
      std::snprintf(buf, sizeof(buf), json ? "\\u%04x" : "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);  // JSON keeps UTF-8 bytes as they are
    }
  }
  return out + "\"";
}

void Complain(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
}

int UsageError(const char* program, const std::string& message) {
  Complain(program, message);
  std::fprintf(stderr, "Try '%s --help' for more information.\n", program);
  return kExitUsage;
}

bool TakeOptionValue(int argc, char** argv, int* i, const char* name, std::string* out) {
  const std::string arg = argv[*i];
  const std::string eq = std::string(name) + "=";
  if (arg.rfind(eq, 0) == 0) {
    *out = arg.substr(eq.size());
    ++*i;
    return true;
  }
  if (*i + 1 >= argc) return false;
  *out = argv[*i + 1];
  *i += 2;
  return true;
}

}  // namespace redistp::tools
