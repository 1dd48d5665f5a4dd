#include "types/zset_index.h"

namespace redistp {

ZSetIndex::AddResult ZSetIndex::Add(std::string_view member, double score) {
  ZNode* n = table_.Find(member);
  if (n == nullptr) {
    table_.Insert(list_.Insert(score, member));
    return AddResult::kAdded;
  }
  if (n->score == score) return AddResult::kUnchanged;
  list_.UpdateScore(n, score);  // the node stays the same block, so the table needs nothing
  return AddResult::kUpdated;
}

bool ZSetIndex::Remove(std::string_view member) {
  ZNode* n = table_.Unlink(member);
  if (n == nullptr) return false;
  double score = n->score;
  // n->member() views the node's own bytes; Delete reads them only before it frees the node.
  list_.Delete(score, n->member());
  // As Redis after a removal: a table left sparse starts an (incremental) shrink.
  table_.MaybeShrink();
  return true;
}

std::optional<size_t> ZSetIndex::Rank(std::string_view member, bool reverse) {
  ZNode* n = table_.Find(member);
  if (n == nullptr) return std::nullopt;
  size_t rank = list_.Rank(n->score, n->member());  // 1-based, > 0 since n is a member
  return reverse ? list_.size() - rank : rank - 1;
}

// The range removals check for a sparse table once, after the whole range is gone.
size_t ZSetIndex::RemoveRange(const ScoreRange& r) {
  size_t n = list_.DeleteRange(r, [this](ZNode* z) { table_.Unlink(z->member()); });
  table_.MaybeShrink();
  return n;
}

size_t ZSetIndex::RemoveRange(const LexRange& r) {
  size_t n = list_.DeleteRange(r, [this](ZNode* z) { table_.Unlink(z->member()); });
  table_.MaybeShrink();
  return n;
}

size_t ZSetIndex::RemoveRankRange(size_t start, size_t end) {
  size_t n = list_.DeleteRankRange(start, end, [this](ZNode* z) { table_.Unlink(z->member()); });
  table_.MaybeShrink();
  return n;
}

}  // namespace redistp
