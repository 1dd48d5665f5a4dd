// ListObject: the value of a list key.
//
// Redis 7.0 stores every list as a quicklist, a linked list of listpack nodes (types/
// quicklist.h), whatever its size: OBJECT ENCODING answers "quicklist" even for one element
// (the "listpack while small" list encoding came with Redis 7.2). So a list is a Quicklist whose
// node fill and compression depth come from list-max-listpack-size and list-compress-depth when
// it is created.
//
// The list's TypeOps row (kListOps) gives the server everything it does without knowing the
// type: free, deep copy, memory (sampled per node as MEMORY USAGE does), length, the DEBUG
// DIGEST contribution (each element mixed in order, integers as their decimal text), and RDB
// serialization as RDB_TYPE_LIST_QUICKLIST_2: the node count, then per node its container kind
// and its content as a string: 2 = packed, the listpack blob; 1 = plain, the one element itself.
// Loading accepts that form (a plain node stays plain, whatever its length) and the plain
// RDB_TYPE_LIST (a count, then each element, pushed under the packed threshold), validating
// every blob before use.
#pragma once

#include "types/quicklist.h"
#include "types/type_limits.h"
#include "types/type_ops.h"
#include "types/value.h"

namespace redistp {

extern const TypeOps kListOps;

// A new, empty list value with the configured node fill and compression.
Value NewListValue(const TypeLimits& limits);

// The quicklist of a list value (the caller checked the type).
inline Quicklist& ListOf(Value& v) { return *static_cast<Quicklist*>(v.object()); }
inline const Quicklist& ListOf(const Value& v) {
  return *static_cast<const Quicklist*>(v.object());
}

// RDB loaders of the list encodings (rows of the deserializer table).
Result<Value> LoadListQuicklist2(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadListPlain(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
