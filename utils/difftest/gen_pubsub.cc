// The Pub/Sub and notification-configuration families of the generator (see generator.h).
//
// PUBLISH and SPUBLISH go to channels from a small pool: some the subscriber of the stream
// comparison listens to (streams.h: chan:a, chan:b, the empty channel, shard:a, and every
// keyspace channel through its pattern), some nobody does, so the receiver counts and the
// messages vary. PUBSUB's introspection subcommands count those subscriptions. The generator
// never publishes on the sentinel channel, which would end a drain early.
//
// notify-keyspace-events is changed now and then by a CONFIG SET followed at once by CONFIG GET
// (compared exactly: the canonical form of the flags). Most values are KEA-like, some with m
// (key misses) and n (new keys), which A does not include; some are random strings of valid
// classes, some carry an invalid character (refused, the value unchanged). Every reset puts
// back KEA (policy.h, kResetNotifyFlags).
#include <string>
#include <vector>

#include "generator.h"

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

const std::vector<std::string> kChannels = {"chan:a",
                                            "chan:a",
                                            "chan:b",
                                            "chan:z",
                                            "",
                                            "Chan:a",
                                            "chan:*",
                                            "__keyspace@0__:k1",
                                            "__keyevent@0__:set",
                                            "__keyspace@3__:x",
                                            "__key",
                                            "shard:a",
                                            "x y",
                                            "\xff"};
const std::vector<std::string> kShardChannels = {"shard:a", "shard:a", "shard:b",
                                                 "",        "chan:a",  "Shard:a"};
const std::vector<std::string> kChannelPatterns = {
    "*", "chan:*", "__key*", "*:a", "chan:?", "[cs]*", "", "\\*", "shard*", "*z*", "[", "nomatch"};
const std::vector<std::string> kMessages = {"hello", "", "1", "x y", "\r\n", "\x00\x01", "m"};

// Characters of notify-keyspace-events: the valid classes, and some that are not.
constexpr const char kNotifyClasses[] = "KEg$lshzxetdmnA";
const std::vector<std::string> kCommonNotify = {"KEA",  "KEA",   "KEA", "KEA", "AKE",   "KEAm",
                                                "KEAn", "KEAmn", "KA",  "EA",  "KEAmn", "Kx"};
const std::vector<std::string> kInvalidNotify = {"Z", "k", "KEA ", "1", "KEAb", "\xff", "KE-"};

}  // namespace

std::vector<std::string> Generator::PubSubCommand() {
  auto some = [&](const std::vector<std::string>& pool, int most) {
    Argv out;
    for (int i = 0, n = static_cast<int>(rng_.Range(0, most)); i < n; ++i) {
      out.push_back(rng_.Pick(pool));
    }
    return out;
  };
  Argv a;
  uint64_t r = rng_.Below(100);
  if (r < 35) {
    a = {"PUBLISH", rng_.Pick(kChannels), rng_.Pick(kMessages)};
  } else if (r < 48) {
    a = {"SPUBLISH", rng_.Pick(kShardChannels), rng_.Pick(kMessages)};
  } else if (r < 60) {
    a = {"PUBSUB", Token("CHANNELS")};
    if (rng_.Percent(70)) a.push_back(rng_.Pick(kChannelPatterns));
  } else if (r < 70) {
    a = {"PUBSUB", Token("NUMSUB")};
    Argv c = some(kChannels, 4);
    a.insert(a.end(), c.begin(), c.end());
  } else if (r < 76) {
    a = {"PUBSUB", Token("NUMPAT")};
  } else if (r < 83) {
    a = {"PUBSUB", Token("SHARDCHANNELS")};
    if (rng_.Percent(70)) a.push_back(rng_.Pick(kChannelPatterns));
  } else if (r < 90) {
    a = {"PUBSUB", Token("SHARDNUMSUB")};
    Argv c = some(kShardChannels, 4);
    a.insert(a.end(), c.begin(), c.end());
  } else if (r < 92) {
    a = {"PUBSUB", Token("HELP")};
  } else {
    // Wrong arity and bad arguments.
    switch (rng_.Below(8)) {
      case 0:
        a = {"PUBLISH", rng_.Pick(kChannels)};
        break;
      case 1:
        a = {"PUBLISH", "chan:a", "m", "extra"};
        break;
      case 2:
        a = {"SPUBLISH", "shard:a"};
        break;
      case 3:
        a = {"PUBSUB", Token("NUMPAT"), "x"};
        break;
      case 4:
        a = {"PUBSUB", Token("CHANNELS"), "a", "b"};
        break;
      case 5:
        a = {"PUBSUB", Token("SHARDCHANNELS"), "a", "b"};
        break;
      case 6:
        a = {"PUBSUB", rng_.Pick(std::vector<std::string>{"NOSUCH", "", "HELP x"})};
        break;
      default:
        a = {"PUBSUB"};
        break;
    }
  }
  // A command our server lacks is not sent (its error would differ); an unknown subcommand
  // of PUBSUB is sent once PUBSUB CHANNELS exists.
  std::string name = a[0] == "PUBSUB" && a.size() > 1 ? "pubsub|" + a[1] : a[0];
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!Has(name.c_str()) && !(a[0] == "PUBSUB" && Has("pubsub|channels"))) return {};
  return a;
}

void Generator::NotifyConfigBlock(int conn, std::vector<Step>& out) {
  std::string flags;
  uint64_t r = rng_.Below(100);
  if (r < 65) {
    flags = rng_.Pick(kCommonNotify);
  } else if (r < 90) {
    for (int i = 0, n = static_cast<int>(rng_.Range(0, 6)); i < n; ++i) {
      flags.push_back(kNotifyClasses[rng_.Below(sizeof kNotifyClasses - 1)]);
    }
  } else {
    flags = rng_.Pick(kCommonNotify);
    std::string bad = rng_.Pick(kInvalidNotify);
    flags.insert(rng_.Below(flags.size() + 1), bad);
  }
  std::string param = rng_.Percent(90) ? "notify-keyspace-events" : "Notify-Keyspace-Events";
  if (rng_.Percent(3)) {
    out.push_back({conn, {"CONFIG", "SET", param}});
  } else {
    out.push_back({conn, {"CONFIG", "SET", param, flags}});
  }
  out.push_back({conn, {"CONFIG", "GET", param}});
}

}  // namespace difftest
