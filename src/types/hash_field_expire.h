// FieldExpires: the per-field expire times of one hash (hash-field expiration, Redis 7.4).
//
// Model. Only a hash in the hashtable encoding carries field expire times: the first field TTL
// set on a listpack hash converts it (HashObject::SetFieldExpire). The times live beside the
// table, not in the field nodes, so a hash that never had a field TTL costs exactly what it cost
// before (no byte per node, no byte per hash: the index hangs off the table header, whose
// 72-byte allocation already rounds to jemalloc's 80-byte class). A hash whose last field TTL
// goes (HPERSIST, HSET, the field's removal) frees its index and is back to zero overhead.
//
// The index keys fields by node pointer, which is stable while the node is in the table (types/
// member_nodes.h); HashObject moves the entry when it replaces a node (a value of a new size),
// and clears it when it frees one. Two views of the same set:
//   when_   node -> absolute unix ms: the time of one field, O(1);
//   order_  (ms, node) ordered: the smallest time of the hash (the key's next field expiry) and
//           the due fields, smallest first, for lazy and active expiry.
// Times are absolute unix milliseconds, always > 0; 0 means "none" throughout the API.
// The index knows nothing of the clock: which fields are past due is the caller's question.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>

#include "types/member_nodes.h"

namespace redistp {

class FieldExpires {
 public:
  // The expire time of the field in node n, or 0.
  int64_t Get(const FieldNode* n) const {
    auto it = when_.find(n);
    return it == when_.end() ? 0 : it->second;
  }
  // Sets (or replaces) the expire time of n's field; when_ms > 0.
  void Set(const FieldNode* n, int64_t when_ms) {
    auto [it, added] = when_.try_emplace(n, when_ms);
    if (!added) {
      order_.erase({it->second, n});
      it->second = when_ms;
    }
    order_.insert({when_ms, n});
  }
  // Removes n's expire time; returns the time it had (0 if none).
  int64_t Clear(const FieldNode* n) {
    auto it = when_.find(n);
    if (it == when_.end()) return 0;
    const int64_t when = it->second;
    order_.erase({when, n});
    when_.erase(it);
    return when;
  }
  // The smallest expire time, 0 if no field has one.
  int64_t Min() const { return order_.empty() ? 0 : order_.begin()->first; }
  size_t size() const { return when_.size(); }
  bool empty() const { return when_.empty(); }
  // Calls fn(node, when_ms) for fields in increasing expire time, while fn returns true.
  template <typename Fn>
  void ForEachByTime(Fn&& fn) const {
    for (const auto& [when, n] : order_) {
      if (!fn(n, when)) return;
    }
  }
  // An estimate of the heap bytes of the index: a node of each container per field, plus the
  // unordered map's bucket array.
  size_t MemoryBytes() const {
    constexpr size_t kMapNode = 32;  // next, key, value, cached hash
    constexpr size_t kSetNode = 48;  // red-black links and colour, the pair
    return sizeof(FieldExpires) + when_.bucket_count() * sizeof(void*) +
           when_.size() * (kMapNode + kSetNode);
  }

 private:
  std::unordered_map<const FieldNode*, int64_t> when_;
  std::set<std::pair<int64_t, const FieldNode*>> order_;
};

}  // namespace redistp
