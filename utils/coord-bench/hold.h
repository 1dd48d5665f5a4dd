// Hold: register many watches (or subscriptions, or patterns) and keep them until told to let go.
//
// Used by the benchmark script to measure memory per watch and the cost of watches that never
// fire. C connections each register K keys: with `--layout shared` every connection watches
// the same K keys (C x K pairs over K keys, as many clients watching the same locks); with
// `--layout distinct` each connection has its own K keys (C x K pairs over C x K keys). Modes:
//   watchex    WATCHEX <keys...> in batches (RESP2), every status checked (EXIST/NOEXIST);
//   subscribe  SUBSCRIBE __keyspace@0__:<key> ... in batches: the Redis counterpart of a watch,
//              every confirmation checked, including the connection's channel count;
//   psubscribe PSUBSCRIBE __keyspace@0__:<key>:* ... likewise: one pattern per key.
// Registration is spread over the connections: batch b is sent on every connection before the
// replies to batch b are read, so the server works on many connections at once while each
// connection has one command outstanding (its query buffer never holds more than one batch).
//
// Steps, driven through standard input so that the caller can sample the server in between:
// the tool connects, sends one PING per connection and prints a `result ... kind=connected`
// line; it registers only after a line arrives on standard input (end of file instead: it
// exits 1 without registering). When everything is registered it prints a `result ...
// kind=hold` line and keeps the connections open, idle, until its standard input reaches end
// of file or `--max-seconds` passes; then it closes them (an orderly close) and exits 0.
#pragma once

namespace coordbench {

class Options;

// Returns 0 after an orderly hold, 1 when registration failed, 2 on bad options.
int RunHold(Options& options);

}  // namespace coordbench
