// Threaded I/O: `io-threads N` (N > 1) runs the write pass of BeforeSleep on N threads, and
// `io-threads-do-reads yes` the loop turn's reads too, as Redis 7.0 runs its own
// (docs/multicore.md, sections 1, 2 and 5).
//
// Model. Commands, and everything that decides what a client is sent, stay on the main thread.
// Only system calls move, in passes: the main thread deals a batch of clients round-robin over
// the N workers of util/io_threads.h (itself being worker 0), each worker makes the system
// calls of its clients and records their results, touching nothing but the client's socket
// and the buffer bytes the call reads or fills, and after the fan-in the main thread, alone
// again, acts on the results client by client. No allocation, free, reference count, counter,
// event or close happens on another thread.
//
// Writes. FlushPending hands FlushThreaded the turn's batch of clients with output once the
// replicas have been written (they stay first, on the main thread: a write reaches every
// replica before its client reads the reply). Each worker calls ReplyBuffer::WriteTo, which
// writes what is pending until the socket is full and consumes nothing. The main thread then
// walks the batch in its usual order (newest first) and finishes each client as a plain flush
// does (FinishWrite): consumes the written bytes (dropping shared frames' references and
// freeing emptied blocks, so reference counts and the main thread's memory counters never see
// another thread), counts them, closes a client whose write failed, arms the write event of
// one whose socket was full, and checks its output limits and client eviction. A client closed
// by an earlier one's finishing (client eviction, a released temporary key's push that
// overflowed it) is skipped: its buffers went with it. Who goes to the threads: clients that
// are not replicas, not TLS connections (OpenSSL's state and its re-arming of events stay on
// the main thread, as Redis's TLS notes say), not refused by an output limit and not closed;
// the others are flushed on the main thread after the fan-in.
//
// Reads. With io-threads-do-reads, while the threads are active (the last write pass used
// them), a readable client's callback only queues it (DeferRead). After the loop's callbacks,
// before BeforeSleep, ReadPending sizes each queued client's query buffer on the main thread
// (PrepareRead: any growth is the main thread's allocation), the workers make the read(2)
// calls into that room, and the main thread walks the queue in order and finishes each read
// as a plain one (FinishRead: close on EOF or error, else AfterRead: limits, then the commands
// and their replies). Parsing stays on the main thread (Redis parses the first command on the
// threads; a command such as AUTH or HELLO changes how the next is parsed, and ours parses as
// it runs). Not deferred: TLS connections, our master's link, blocked clients, protected
// clients and any read while a busy script serves the others (busy.cc has its own poll).
// A client closed between its queueing and the pass (a write error, CLIENT KILL from an
// earlier client's command in the same pass) is skipped; a read already made for it is
// dropped with it.
//
// When: Redis's rule. The threads are used for a write pass with at least twice as many
// clients with output as there are workers; a smaller batch is written on the main thread,
// exactly as with io-threads 1, and io_threads_active (INFO) is 1 only while batches are big
// enough; reads are deferred only while it is 1. Between passes a helper spins briefly, then
// sleeps (util/io_threads.h). REDISTP_IO_THREADS_ALWAYS=1 in the server's environment uses the
// threads for every write pass (and so keeps reads deferred); it exists for the tests
// (tests/unit/io-threads.tcl, and the whole suite with `--io-threads N`).
//
// What it changes for a client: nothing in its bytes or their order; only when, relative to
// other clients, its bytes leave, and, with threaded reads, that clients read in the same turn
// run their commands after all of them were read rather than each right after its own read.
// INFO io_threaded_writes_processed and io_threaded_reads_processed count the clients written
// or read by a threaded pass (once per client per pass), also counted in total_*_processed.
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "server/server.h"
#include "util/io_threads.h"

namespace redistp {

namespace {

// A pass: one job per client, dealt round-robin; worker `w` runs jobs w, w + workers, ...
template <typename Job>
struct Pass {
  std::vector<Job> jobs;
  int workers;

  template <void (*kRun)(Job&)>
  static void Slice(void* ctx, int w) {
    auto* pass = static_cast<Pass*>(ctx);
    for (size_t i = static_cast<size_t>(w); i < pass->jobs.size();
         i += static_cast<size_t>(pass->workers)) {
      kRun(pass->jobs[i]);
    }
  }
};

struct WriteJob {
  Client* client;
  size_t written;
  int err;
};

void RunWrite(WriteJob& j) { j.err = j.client->out.WriteTo(j.client->fd, &j.written); }

struct ReadJob {
  Client* client;
  size_t want;
  ssize_t n;
  int err;
};

void RunRead(ReadJob& j) {
  do {
    j.n = read(j.client->fd, j.client->query.WritePtr(), j.want);
  } while (j.n < 0 && errno == EINTR);
  j.err = j.n < 0 ? errno : 0;
}

bool Threadable(const Client* c) {
  return c->tls == nullptr && !c->out.refused() && c->out.Readable() > 0;
}

}  // namespace

bool Server::FlushThreaded(const std::vector<Client*>& batch) {
  const int workers = io_threads_->workers();
  if (!io_threads_always_) {
    size_t with_output = 0;
    for (const Client* c : batch) {
      if (c->kind() != ClientKind::kReplica && !c->closed && Threadable(c)) ++with_output;
    }
    if (with_output < 2 * static_cast<size_t>(workers)) {
      io_threads_active_ = false;
      return false;
    }
  }
  io_threads_active_ = true;
  Pass<WriteJob> pass;
  pass.workers = workers;
  pass.jobs.reserve(batch.size());
  std::vector<Client*> on_main;
  for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
    Client* c = *it;
    if (c->kind() == ClientKind::kReplica) continue;  // written before, on the main thread
    c->set_flag(kClientPendingFlush, false);
    if (c->closed) continue;
    if (Threadable(c)) {
      pass.jobs.push_back({c, 0, 0});
    } else {
      on_main.push_back(c);
    }
  }
  io_threads_->Run(&Pass<WriteJob>::Slice<RunWrite>, &pass);
  stats_.total_writes_processed += pass.jobs.size();
  stats_.io_threaded_writes_processed += pass.jobs.size();
  for (const WriteJob& j : pass.jobs) {
    if (!j.client->closed) FinishWrite(j.client, j.written, j.err);
  }
  for (Client* c : on_main) {
    if (!c->closed) FlushClient(c);
  }
  return true;
}

bool Server::DeferRead(Client* c) {
  // A client receiving a big argument is read in its callback: its read reserves the whole
  // argument (PrepareRead), which must not stand in the memory the pass's other commands see
  // (key eviction would count it before client eviction had looked at its owner).
  if (!config_.io_threads_do_reads || !io_threads_active_ || c->closed || c->tls != nullptr ||
      c->kind() == ClientKind::kMasterLink || c->blocking.active || c->has_flag(kClientProtected) ||
      busy_script() || ReadsBigArgument(c)) {
    return false;
  }
  if (!c->has_flag(kClientPendingRead)) {
    c->set_flag(kClientPendingRead, true);
    pending_reads_.push_back(c);
  }
  return true;
}

void Server::ReadPending() {
  Pass<ReadJob> pass;
  pass.workers = io_threads_->workers();
  pass.jobs.reserve(pending_reads_.size());
  for (Client* c : pending_reads_) {
    c->set_flag(kClientPendingRead, false);
    if (c->closed) continue;
    pass.jobs.push_back({c, PrepareRead(c), 0, 0});
  }
  pending_reads_.clear();
  io_threads_->Run(&Pass<ReadJob>::Slice<RunRead>, &pass);
  stats_.io_threaded_reads_processed += pass.jobs.size();
  // First every read is accounted (EOF and errors close here), then the input runs, client by
  // client. A command among them may open a busy script, whose rounds run the input of the
  // clients still waiting in read_ready_ (their bytes are in their buffers now, not on their
  // sockets, so the busy pass's poll would never see them): BusyRound takes them from the list.
  for (const ReadJob& j : pass.jobs) {
    if (j.client->closed) continue;
    if (j.n > 0) {
      ++stats_.total_reads_processed;
      j.client->query.Produced(static_cast<size_t>(j.n));
      read_ready_.push_back({j.client, static_cast<size_t>(j.n)});
    } else {
      FinishRead(j.client, j.n, j.err);
    }
  }
  RunReadyInput();
}

bool Server::RunReadyInput() {
  if (read_ready_next_ >= read_ready_.size()) return false;
  while (read_ready_next_ < read_ready_.size()) {
    auto [c, n] = read_ready_[read_ready_next_++];
    if (c->closed) continue;
    AfterRead(c, n);
    if (!busy_script()) AfterCallback();  // as after a read callback: hand-offs, unblocked clients
  }
  // Emptied by the outermost caller only: a busy round inside one of the AfterRead calls above
  // leaves the list to it.
  if (!busy_script()) {
    read_ready_.clear();
    read_ready_next_ = 0;
  }
  return true;
}

}  // namespace redistp
