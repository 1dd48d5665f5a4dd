// Bytes per element of the server's container encodings, measured with jemalloc's own
// accounting (stats.allocated, the figure behind INFO's used_memory), for 1M small elements:
//   - a set member in HashTable<MemberTableTraits>      ("member:<i>", 8-14 bytes)
//   - a hash field in HashTable<FieldTableTraits>       ("field:<i>" -> "value:<i>")
//   - a sorted-set member in ZSetIndex                  ("member:<i>", score i)
//   - a pointer in HashTable<BoxedTraits<void*>>        (a node-based pointer set, for
//     comparison with the open-addressing PtrSet / TaggedTable layouts)
//
// Build and run from the repository root (release flags, linked with jemalloc):
//   g++ -O2 -std=c++20 -Isrc utils/bench/table_memory.cc src/util/hash.cc \
//       src/types/skiplist.cc src/types/zset_index.cc -ljemalloc -o /tmp/table-memory
//   /tmp/table-memory [count]
#include <jemalloc/jemalloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "types/member_nodes.h"
#include "types/zset_index.h"
#include "util/hash_table.h"

namespace {

size_t Allocated() {
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  size_t allocated = 0;
  sz = sizeof(allocated);
  mallctl("stats.allocated", &allocated, &sz, nullptr, 0);
  return allocated;
}

void Report(const char* what, size_t before, size_t after, size_t n, size_t buckets) {
  std::printf("%-44s %8.1f B/element  (buckets %zu, %.1f B/element of it)\n", what,
              static_cast<double>(after - before) / n, buckets,
              static_cast<double>(buckets * sizeof(void*)) / n);
}

struct PtrKey {
  using Key = const void*;
  static const void* KeyOf(const void* p) { return p; }
  static uint64_t Hash(const void* p) { return redistp::MixBits(reinterpret_cast<uintptr_t>(p)); }
  static bool Equal(const void* p, const void* k) { return p == k; }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace redistp;
  size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  {
    size_t before = Allocated();
    HashTable<MemberTableTraits> set;
    for (size_t i = 0; i < n; ++i) set.Insert(MemberNode::Create("member:" + std::to_string(i)));
    while (set.Rehash(1000)) {
    }
    Report("set member (HashTable<MemberNode>)", before, Allocated(), n, set.buckets());
  }
  {
    size_t before = Allocated();
    HashTable<FieldTableTraits> hash;
    for (size_t i = 0; i < n; ++i) {
      std::string s = std::to_string(i);
      hash.Insert(FieldNode::Create("field:" + s, "value:" + s));
    }
    while (hash.Rehash(1000)) {
    }
    Report("hash field+value (HashTable<FieldNode>)", before, Allocated(), n, hash.buckets());
  }
  {
    size_t before = Allocated();
    ZSetIndex z;
    for (size_t i = 0; i < n; ++i) z.Add("member:" + std::to_string(i), static_cast<double>(i));
    while (z.RehashFor(100000)) {
    }
    size_t after = Allocated();
    std::printf("%-44s %8.1f B/element  (node bytes requested %.1f B/element)\n",
                "zset member (ZSetIndex: skiplist + table)",
                static_cast<double>(after - before) / n, static_cast<double>(z.list().bytes()) / n);
  }
  {
    std::vector<char> objects(n * 16);
    size_t before = Allocated();
    using Traits = BoxedTraits<const void*, PtrKey>;
    HashTable<Traits> ptrs;
    for (size_t i = 0; i < n; ++i) ptrs.Insert(Traits::Make(&objects[i * 16]));
    while (ptrs.Rehash(1000)) {
    }
    Report("pointer (HashTable<BoxedTraits<void*>>)", before, Allocated(), n, ptrs.buckets());
  }
  return 0;
}
