// The notification streams: what a subscriber connection receives while the commands run.
//
// Model. Each server gets one more connection, the subscriber (RESP2, in subscribed mode for the
// whole run). It PSUBSCRIBEs `__key*@*__:*` (every keyspace and keyevent channel of every
// database), SUBSCRIBEs a few fixed channels the generator publishes to (so PUBSUB NUMSUB,
// CHANNELS and NUMPAT have something to count, the same on both sides), SSUBSCRIBEs a shard
// channel, and SUBSCRIBEs the sentinel channel. The subscriber never sends anything after that.
//
// With tracking, the command connections redirect their invalidations here, on
// `__redis__:invalidate`. In BCAST mode Redis sends invalidations when its event loop is about
// to sleep, after the whole pipeline it read, so there the runner sends one step at a time and
// its sentinel after the reply (see runner.h).
//
// Drain by sentinel. After a step, the connection that ran it PUBLISHes a sentinel (a number
// that grows through the run) on the sentinel channel. A server is single-threaded and delivers
// in order, so every message caused by the step (and by nothing after it) reaches the subscriber
// before that sentinel: reading until the sentinel collects exactly the step's messages, with no
// timeout and no sleep. The sentinels are pipelined behind the steps, so a batch of pipelined
// steps stays one round trip. A connection inside MULTI gets no sentinel (it would be queued);
// its queued steps cause nothing until EXEC, whose sentinel follows its reply.
//
// The runner (runner.h) compares the two subscribers' messages for each step exactly, as RESP
// values, in order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "resp.h"

namespace difftest {

// The channel of the sentinels; the generator never publishes to it.
extern const char* const kSentinelChannel;

// What the subscriber listens to, beside the sentinel channel.
struct StreamOptions {
  bool enabled = false;   // a subscriber at all (our server has SUBSCRIBE and PUBLISH)
  bool keyspace = false;  // PSUBSCRIBE __key*@*__:* (our server emits keyspace events)
  bool shard = false;     // SSUBSCRIBE shard:a (our server has SSUBSCRIBE)
  // Client-side caching: every command connection runs CLIENT TRACKING ON REDIRECT <the
  // subscriber>, in the default mode or in BCAST mode with TrackingPrefixes(), and the
  // subscriber SUBSCRIBEs __redis__:invalidate, so the invalidation messages join the stream.
  enum class Tracking { kOff, kDefault, kBcast };
  Tracking tracking = Tracking::kOff;
};

// The prefixes of the BCAST variant.
const std::vector<std::string>& TrackingPrefixes();
// The CLIENT TRACKING request that redirects a command connection to subscriber `id`.
std::vector<std::string> TrackingRequest(const StreamOptions& options, long long id);

// The exact channels the subscriber listens to (the generator publishes to some of them).
const std::vector<std::string>& SubscribedChannels();
// The shard channel the subscriber listens to, with StreamOptions::shard.
extern const char* const kSubscribedShardChannel;
// The pattern of the keyspace notifications, with StreamOptions::keyspace.
extern const char* const kKeyspacePattern;

// The request that publishes sentinel number `n`.
std::vector<std::string> SentinelRequest(uint64_t n);

class Subscriber {
 public:
  // Connects to 127.0.0.1:port and subscribes as `options` say, reading every confirmation.
  // Returns false with `error` set on failure.
  bool Open(int port, const StreamOptions& options, std::string& error);
  void Close() { conn_.Close(); }
  // The subscriber's client id (asked before subscribing when tracking is on), for REDIRECT.
  long long id() const { return id_; }
  // Reads messages until sentinel number `n` and appends the ones before it to `out`. Returns
  // false when the connection is lost or another sentinel comes first (the value appended last
  // says which); the subscriber must then be reopened.
  bool DrainUntil(uint64_t n, std::vector<Value>& out);

 private:
  Connection conn_;
  long long id_ = -1;
};

// True when the server on `port` emits keyspace events: a subscriber sees `__keyevent@0__:set`
// after a SET with notify-keyspace-events KEA. Leaves notify-keyspace-events empty and the key
// deleted. Returns false with `error` set only when the server could not be asked.
bool EmitsKeyspaceEvents(int port, bool& emits, std::string& error);

}  // namespace difftest
