// HyperLogLog: Redis 7.0's cardinality sketch, stored as an ordinary string value.
//
// Representation (byte for byte Redis's documented one, so an HLL copied with GET/SET,
// DUMP/RESTORE or an RDB between Redis and redis-tp keeps working):
//
//   +------+---+-----+----------+
//   | HYLL | E | N/U | Cardin.  |      16-byte header
//   +------+---+-----+----------+
//    4 B    1B   3 B    8 B
//
//   - "HYLL" magic; E the encoding (0 dense, 1 sparse); three unused bytes (kept as found);
//   - the cached cardinality, 64-bit little endian; the top bit of its last byte set means
//     "cache invalid" (every change sets it, PFCOUNT of one key recomputes and clears it).
//
// Then the 16384 registers (the low 14 bits of an element's MurmurHash64A pick one; the other
// 50 bits give the run length "count" 1..51, the position of their lowest set bit + 1):
//
//   - dense: 12288 bytes, 6 bits per register packed least significant bit first, register i
//     starting at bit 6*i, so it may straddle two bytes;
//   - sparse: a run-length sequence of opcodes covering exactly 16384 registers:
//       ZERO  00xxxxxx           xxxxxx+1 registers (1..64) set to 0
//       XZERO 01xxxxxx yyyyyyyy  xxxxxxyyyyyyyy+1 registers (1..16384) set to 0
//       VAL   1vvvvvxx           xx+1 registers (1..4) set to vvvvv+1 (1..32)
//     A new HLL is sparse: the header and one XZERO of 16384.
//
// Sparse to dense promotion happens exactly where Redis does it: when an update needs a value
// above 32, or when the split of an opcode would grow the string past hll-sparse-max-bytes
// (the whole string, header included). The in-place sparse update splits the covering opcode
// the way Redis does and then merges equal adjacent VALs over the same five-opcode window, so
// the bytes after any sequence of additions equal Redis's.
//
// The "raw" form (internal only, never stored) is one byte per register: the target of merges
// (PFMERGE, PFCOUNT of many keys).
//
// Estimation: Otmar Ertl's improved estimator (2017), which Redis 7.0 uses: a histogram of
// register values feeds the tau and sigma series; the operations are performed in the same
// order and precision as Redis's so that estimates are bit-equal.
//
// Untrusted input. Every reader bounds itself by the string's length. A sparse sequence is
// valid when its runs cover exactly 16384 registers; an XZERO cut by the end of the string
// reads its missing second byte as 0 (what Redis finds there: its strings end with a NUL), so
// valid/invalid decisions and the resulting bytes agree with Redis's even on corrupt input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace redistp::hll {

inline constexpr int kIndexBits = 14;
inline constexpr int kRegisters = 1 << kIndexBits;  // 16384
inline constexpr int kRegisterBits = 6;
inline constexpr int kRegisterMax = (1 << kRegisterBits) - 1;
inline constexpr int kRunBits = 64 - kIndexBits;  // the Q of the papers: 50
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kDenseBytes = (kRegisters * kRegisterBits + 7) / 8;  // 12288
inline constexpr size_t kDenseSize = kHeaderSize + kDenseBytes;
inline constexpr uint8_t kDense = 0;
inline constexpr uint8_t kSparse = 1;
inline constexpr uint64_t kHashSeed = 0xadc83b19ULL;
inline constexpr int kSparseValMaxValue = 32;
inline constexpr int kSparseValMaxLen = 4;
inline constexpr int kSparseZeroMaxLen = 64;
inline constexpr int kSparseXZeroMaxLen = 16384;
// Histogram slots: register values 0..63 (valid ones stop at kRunBits + 1).
inline constexpr int kHistogramSize = 64;

// Outcome of an update: a register changed, nothing changed, or the sparse body is corrupt.
enum class Update : int8_t { kCorrupt = -1, kUnchanged = 0, kChanged = 1 };

// Austin Appleby's 64-bit MurmurHash2 for 64-bit platforms, little-endian reads.
uint64_t MurmurHash64A(const void* data, size_t len, uint64_t seed);

// The register an element lands in (*index, 0..16383) and its run length (returned, 1..51).
int HashElement(std::string_view element, uint32_t* index);

// --- header ----------------------------------------------------------------------------------

// True when `s` can be an HLL: at least a header, the magic, a known encoding, and a dense one
// of exactly kDenseSize bytes (Redis's check before every command; the body is checked later).
bool IsHll(std::string_view s);
inline uint8_t EncodingOf(std::string_view s) { return static_cast<uint8_t>(s[4]); }
// The cache, on a string that passed IsHll.
bool CacheValid(const uint8_t* hll);
uint64_t CachedCardinality(const uint8_t* hll);
void StoreCardinality(uint8_t* hll, uint64_t card);  // also marks the cache valid
void InvalidateCache(uint8_t* hll);

// A new, empty HLL: sparse, cache valid at 0 (18 bytes).
std::string NewSparse();

// --- dense registers (regs points at the kDenseBytes bytes after the header) ---------------

uint8_t DenseGet(const uint8_t* regs, int index);
void DensePut(uint8_t* regs, int index, uint8_t value);
// Raises register `index` to `count` if it is lower; kChanged when it did.
Update DenseRaise(uint8_t* regs, int index, uint8_t count);

// --- updates -----------------------------------------------------------------------------------

// Adds an element to the HLL in `hll` (either encoding, already IsHll). A sparse HLL may be
// promoted to dense (see the essay). Does not touch the cache bit: callers invalidate it once.
Update Add(std::string* hll, std::string_view element, size_t sparse_max_bytes);
// Adds to a dense HLL's registers in place (no reallocation: the command's fast path).
Update DenseAdd(uint8_t* regs, std::string_view element);
// Raises register `index` to `count` in a sparse or dense `hll` (PFMERGE's writer).
Update Raise(std::string* hll, uint32_t index, uint8_t count, size_t sparse_max_bytes);
// Rewrites a sparse HLL as dense (header copied, encoding byte changed). False, with `hll`
// unchanged, when the sparse body is corrupt. A dense HLL is left alone (true).
bool SparseToDense(std::string* hll);

// --- reading -----------------------------------------------------------------------------------

// max[i] = max(max[i], register i of hll) for an IsHll string; false on a corrupt sparse body.
bool MergeInto(uint8_t* max, std::string_view hll);
// Counts register values into histo[kHistogramSize] (zeroed by the caller); false when a
// sparse body does not cover exactly 16384 registers.
bool Histogram(std::string_view hll, int* histo);
// The same for a raw register array of kRegisters bytes.
void RawHistogram(const uint8_t* max, int* histo);
// Ertl's estimate from a histogram.
uint64_t Estimate(const int* histo);
// Estimate of an IsHll string ignoring its cache; false on a corrupt sparse body.
bool Count(std::string_view hll, uint64_t* card);

// PFDEBUG DECODE's text of a sparse body ("Z:8436 v:1,1 ..."), opcodes separated by spaces.
std::string DecodeSparse(std::string_view hll);

// PFSELFTEST: checks register packing, sparse/dense agreement and the estimator's error.
// Returns an empty string on success, else what failed.
std::string SelfTest();

}  // namespace redistp::hll
