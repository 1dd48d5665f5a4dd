// The subscriber connection and the drain by sentinel (see streams.h).
#include "streams.h"

#include <chrono>

namespace difftest {

namespace {

constexpr std::chrono::milliseconds kMessageTimeout{10000};

// True when `v` is a RESP2 `message` frame on the sentinel channel; `payload` gets its number.
bool IsSentinel(const Value& v, std::string& payload) {
  if (v.kind != Value::Kind::kArray || v.elements.size() != 3) return false;
  const Value& type = v.elements[0];
  const Value& channel = v.elements[1];
  if (type.kind != Value::Kind::kBulk || type.str != "message" ||
      channel.kind != Value::Kind::kBulk || channel.str != kSentinelChannel) {
    return false;
  }
  payload = v.elements[2].str;
  return true;
}

// Sends `argv` and reads `confirmations` replies, each an array whose first element is `kind`.
bool SubscribeTo(Connection& conn, const std::vector<std::string>& argv, const char* kind,
                 size_t confirmations, std::string& error) {
  if (!conn.Send(argv)) {
    error = "subscriber: " + conn.error();
    return false;
  }
  for (size_t i = 0; i < confirmations; ++i) {
    Value v = conn.Receive(kMessageTimeout);
    if (v.kind != Value::Kind::kArray || v.elements.empty() || v.elements[0].str != kind) {
      error = "subscriber: " + argv[0] + " answered " + v.Render();
      return false;
    }
  }
  return true;
}

}  // namespace

const char* const kSentinelChannel = "difftest:sentinel";
const char* const kSubscribedShardChannel = "shard:a";
const char* const kKeyspacePattern = "__key*@*__:*";

const std::vector<std::string>& SubscribedChannels() {
  static const std::vector<std::string> channels = {"chan:a", "chan:b", ""};
  return channels;
}

const std::vector<std::string>& TrackingPrefixes() {
  static const std::vector<std::string> prefixes = {"h:", "key:", "s:"};
  return prefixes;
}

std::vector<std::string> TrackingRequest(const StreamOptions& options, long long id) {
  std::vector<std::string> argv = {"CLIENT", "TRACKING", "ON", "REDIRECT", std::to_string(id)};
  if (options.tracking == StreamOptions::Tracking::kBcast) {
    argv.push_back("BCAST");
    for (const auto& p : TrackingPrefixes()) argv.insert(argv.end(), {"PREFIX", p});
  }
  return argv;
}

std::vector<std::string> SentinelRequest(uint64_t n) {
  return {"PUBLISH", kSentinelChannel, std::to_string(n)};
}

bool Subscriber::Open(int port, const StreamOptions& options, std::string& error) {
  if (!conn_.Open(port)) {
    error = "subscriber: " + conn_.error();
    return false;
  }
  id_ = -1;
  if (options.tracking != StreamOptions::Tracking::kOff) {
    Value id = conn_.Call({"CLIENT", "ID"});
    if (id.kind != Value::Kind::kInteger) {
      error = "subscriber: CLIENT ID answered " + id.Render();
      return false;
    }
    id_ = id.integer;
  }
  std::vector<std::string> channels = SubscribedChannels();
  channels.push_back(kSentinelChannel);
  if (options.tracking != StreamOptions::Tracking::kOff) {
    channels.push_back("__redis__:invalidate");
  }
  std::vector<std::string> argv = {"SUBSCRIBE"};
  argv.insert(argv.end(), channels.begin(), channels.end());
  if (!SubscribeTo(conn_, argv, "subscribe", channels.size(), error)) return false;
  if (options.keyspace &&
      !SubscribeTo(conn_, {"PSUBSCRIBE", kKeyspacePattern}, "psubscribe", 1, error)) {
    return false;
  }
  if (options.shard &&
      !SubscribeTo(conn_, {"SSUBSCRIBE", kSubscribedShardChannel}, "ssubscribe", 1, error)) {
    return false;
  }
  return true;
}

bool Subscriber::DrainUntil(uint64_t n, std::vector<Value>& out) {
  const std::string want = std::to_string(n);
  for (;;) {
    Value v = conn_.Receive(kMessageTimeout);
    if (v.kind == Value::Kind::kLost) {
      v.str = "subscriber waiting for sentinel " + want + ": " + v.str;
      out.push_back(std::move(v));
      return false;
    }
    std::string payload;
    if (IsSentinel(v, payload)) {
      if (payload == want) return true;
      Value wrong;
      wrong.kind = Value::Kind::kLost;
      wrong.str = "sentinel " + payload + " arrived while waiting for sentinel " + want;
      out.push_back(std::move(wrong));
      conn_.Close();
      return false;
    }
    out.push_back(std::move(v));
  }
}

bool EmitsKeyspaceEvents(int port, bool& emits, std::string& error) {
  emits = false;
  Connection cmd;
  Subscriber sub;
  if (!cmd.Open(port)) {
    error = "keyspace probe: " + cmd.error();
    return false;
  }
  Value v = cmd.Call({"CONFIG", "SET", "notify-keyspace-events", "KEA"});
  if (v.kind != Value::Kind::kStatus) {
    error = "keyspace probe: CONFIG SET notify-keyspace-events answered " + v.Render();
    return false;
  }
  StreamOptions options;
  options.enabled = true;
  options.keyspace = true;
  if (!sub.Open(port, options, error)) return false;
  cmd.Call({"SET", "difftest:probe", "1"});
  cmd.Call(SentinelRequest(0));
  std::vector<Value> messages;
  if (!sub.DrainUntil(0, messages)) {
    error = "keyspace probe: " + messages.back().str;
    return false;
  }
  for (const auto& m : messages) {
    if (m.elements.size() == 4 && m.elements[0].str == "pmessage" &&
        m.elements[2].str == "__keyevent@0__:set") {
      emits = true;
    }
  }
  cmd.Call({"DEL", "difftest:probe"});
  cmd.Call({"CONFIG", "SET", "notify-keyspace-events", ""});
  return true;
}

}  // namespace difftest
