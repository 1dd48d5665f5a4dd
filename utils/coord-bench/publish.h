// Publish: PUBLISH throughput from one publisher to N subscribers of one channel.
//
// For each target (run one after another, in the order given), N RESP2 connections SUBSCRIBE
// to a channel named after the target and one publisher connection sends M PUBLISH commands
// in batches of P (the pipeline depth, as redis-benchmark -P: a batch is written at once and
// the next one is sent when all its replies are in). Every reply must be the integer N (the
// number of receivers); every subscriber must receive every message, in order: the payload
// starts with the message's sequence number (10 digits, padded to --payload-bytes), which the
// subscriber checks against the count it has received. Figures:
//   published/s  M / (time from the first send to the last PUBLISH reply);
//   delivered/s  N x M / (time from the first send to the last subscriber's last message).
// Losses are counted, not hidden: `lost` is what never arrived within a drain of at least 2 s
// after the last reply, `disorder` a message whose number is not the one expected next,
// `reply_mismatch` a PUBLISH reply other than N, `closed` subscribers the server disconnected
// (an output-buffer limit, say).
//
// Flow control: the publisher never runs more than --window messages ahead of the slowest
// subscriber, so the server's output buffers (and the machine's memory) stay bounded at about
// N x window messages; it stops batches, not the measurement. All sockets share one epoll loop
// in one thread; subscriber bytes are scanned in place (no allocation per message), so the
// tool's own cost per delivery stays small next to the server's. The tool prints its own CPU
// time (`tool_cpu_s`): when it nears the elapsed time, the tool, not the server, was the limit.
#pragma once

namespace coordbench {

class Options;

// Runs the benchmark described by `options` (see the usage text in main.cc) and prints one
// result line per target. Returns 0 when it ran to the end, 1 when setup failed or the
// publisher's connection broke, 2 on bad options.
int RunPublish(Options& options);

}  // namespace coordbench
