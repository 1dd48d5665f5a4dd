// Hash-table nodes for the large encodings of sets and hashes: one block per element, the
// bytes inline after a small header, chained intrusively by util/hash_table.h.
//
//   MemberNode  [ next (8) | len (4) | member bytes ]                  a set member
//   FieldNode   [ next (8) | field_len (4) | value_len (4) | field | value ]   a hash field
//
// A 10-byte member is a 22-byte block (jemalloc class 24); a 10-byte field with a 10-byte value
// is a 36-byte block (class 48). Nodes never move while in a table; a hash field whose value
// changes size gets a new node (unlink the old, insert the new), one of the same size is
// overwritten in place with SetValue.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>

#include "util/hash.h"

namespace redistp {

struct MemberNode {
  MemberNode* next;
  uint32_t len;

  std::string_view member() const { return {reinterpret_cast<const char*>(&len + 1), len}; }
  size_t AllocSize() const { return BlockBytes(len); }
  static size_t BlockBytes(size_t len) {
    return offsetof(MemberNode, len) + sizeof(uint32_t) + len;
  }

  static MemberNode* Create(std::string_view member) {
    auto* n = static_cast<MemberNode*>(::operator new(BlockBytes(member.size())));
    n->next = nullptr;
    n->len = static_cast<uint32_t>(member.size());
    std::memcpy(n->bytes(), member.data(), member.size());
    return n;
  }
  static void Destroy(MemberNode* n) { ::operator delete(n, n->AllocSize()); }

 private:
  // The bytes start right after `len` (offset 12), inside the struct's tail padding.
  char* bytes() { return reinterpret_cast<char*>(&len + 1); }
};

struct MemberTableTraits {
  using Node = MemberNode;
  using Key = std::string_view;
  static MemberNode*& Next(MemberNode* n) { return n->next; }
  static std::string_view KeyOf(const MemberNode* n) { return n->member(); }
  static uint64_t Hash(std::string_view k) { return HashBytes(k); }
  static bool Equal(const MemberNode* n, std::string_view k) { return n->member() == k; }
  static void Destroy(MemberNode* n) { MemberNode::Destroy(n); }
};

struct FieldNode {
  FieldNode* next;
  uint32_t field_len;
  uint32_t value_len;

  std::string_view field() const { return {bytes(), field_len}; }
  std::string_view value() const { return {bytes() + field_len, value_len}; }
  size_t AllocSize() const { return BlockBytes(field_len, value_len); }
  static size_t BlockBytes(size_t f, size_t v) { return sizeof(FieldNode) + f + v; }

  static FieldNode* Create(std::string_view field, std::string_view value) {
    auto* n = static_cast<FieldNode*>(::operator new(BlockBytes(field.size(), value.size())));
    n->next = nullptr;
    n->field_len = static_cast<uint32_t>(field.size());
    n->value_len = static_cast<uint32_t>(value.size());
    std::memcpy(n->bytes(), field.data(), field.size());
    std::memcpy(n->bytes() + field.size(), value.data(), value.size());
    return n;
  }
  static void Destroy(FieldNode* n) { ::operator delete(n, n->AllocSize()); }
  // Overwrites the value in place; only when value.size() == value_len.
  void SetValue(std::string_view value) {
    std::memcpy(bytes() + field_len, value.data(), value.size());
  }

 private:
  char* bytes() { return reinterpret_cast<char*>(this + 1); }
  const char* bytes() const { return reinterpret_cast<const char*>(this + 1); }
};

struct FieldTableTraits {
  using Node = FieldNode;
  using Key = std::string_view;
  static FieldNode*& Next(FieldNode* n) { return n->next; }
  static std::string_view KeyOf(const FieldNode* n) { return n->field(); }
  static uint64_t Hash(std::string_view k) { return HashBytes(k); }
  static bool Equal(const FieldNode* n, std::string_view k) { return n->field() == k; }
  static void Destroy(FieldNode* n) { FieldNode::Destroy(n); }
};

}  // namespace redistp
