// Contended lock: many clients looping acquire -> critical section -> release on one lock.
//
// N clients (one connection each, plus a pub/sub connection each for the Redis scheme) are
// driven by one epoll loop. Each loops for `--seconds`: acquire the lock, run the critical
// section (GET counter, then SET counter to that value + 1: two round trips inside the lock, a
// read-modify-write that loses an increment whenever two clients overlap), release. Modes:
//   bsettp          ours, fair: `BSETTP lock <token> 0` (blocks in the server's FIFO, answers 1
//                   when granted); release `DELTP lock`.
//   settp-watchex   ours, opportunistic: the connection (RESP3) does `WATCHEX lock` once; then
//                   `SETTP lock <token>`: 1 holds it; 0 waits for the `watchex lock DEL` push
//                   that follows the 0 in the stream and tries again; release `DELTP lock`.
//   redis-redisson  Redis 7.0: `SET lock <token> NX PX 30000`; on a null reply, wait for a
//                   message on `<lock>:channel` (the client's second connection is SUBSCRIBEd
//                   to it for the whole run) or 100 ms, then try again. A message read on the
//                   other connection between sending the SET and reading its null reply also
//                   counts (the two connections are not ordered with each other), so no wake-up
//                   is lost. Release: one EVAL that DELs and PUBLISHes only if GET == token.
// Sockets that one epoll_wait reports ready are handled in a random order, so that clients
// woken by the same release race as separate processes would, rather than in the order the
// kernel lists them (which otherwise lets the releasing client win every time).
// A waiting client that hears nothing for `--retry-ms` tries again anyway (counted as a
// timeout): for Redis that is the scheme's poll; for ours it would mean a lost push.
//
// Measured per run: completed acquisitions (each one a full critical section) and their rate
// over the run's wall time, including the drain after `--seconds` (a client whose attempt
// fails after that stops; one that is granted finishes its section and then stops, so a queued
// BSETTP waiter is never cut off holding the lock); acquisitions per client (min, median, max,
// coefficient of variation); wasted attempts (SETTP answering 0, SET NX answering null) per
// acquisition; acquire wait (first attempt to grant) percentiles. Mutual exclusion is checked
// twice: the tool counts a violation whenever a grant arrives while another of its clients is
// between its own grant and sending its release, and at the end the counter must equal the
// number of acquisitions (`lost_increments` is the difference). A release that the server
// answers with anything but 1 is counted too.
#pragma once

namespace coordbench {

class Options;

// Runs one contended-lock measurement (usage in main.cc) and prints one result line. Returns
// 0 when it ran to the end, 1 on a setup or connection failure, 2 on bad options.
int RunLocks(Options& options);

}  // namespace coordbench
