// HyperLogLog representation and estimator; the model is described in hyperloglog.h.
#include "types/hyperloglog.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace redistp::hll {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);
// Ertl's alpha_infinity = 1 / (2 ln 2).
constexpr double kAlphaInf = 0.721347520444481703680;

// Opcode tests and fields of the sparse encoding.
inline bool IsZero(uint8_t op) { return (op & 0xc0) == 0x00; }
inline bool IsXZero(uint8_t op) { return (op & 0xc0) == 0x40; }
inline bool IsVal(uint8_t op) { return (op & 0x80) != 0; }
inline int ZeroLen(uint8_t op) { return (op & 0x3f) + 1; }
inline int XZeroLen(uint8_t op, uint8_t low) { return (((op & 0x3f) << 8) | low) + 1; }
inline int ValValue(uint8_t op) { return ((op >> 2) & 0x1f) + 1; }
inline int ValLen(uint8_t op) { return (op & 0x3) + 1; }
inline uint8_t MakeVal(int value, int len) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
inline uint8_t MakeZero(int len) { return static_cast<uint8_t>(len - 1); }
inline void MakeXZero(uint8_t* out, int len) {
  out[0] = static_cast<uint8_t>(0x40 | ((len - 1) >> 8));
  out[1] = static_cast<uint8_t>((len - 1) & 0xff);
}

// Writes a zero run of `len` registers (ZERO when it fits, else XZERO) at `out`; returns the
// bytes written.
int PutZeroRun(uint8_t* out, int len) {
  if (len > kSparseZeroMaxLen) {
    MakeXZero(out, len);
    return 2;
  }
  out[0] = MakeZero(len);
  return 1;
}

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }
uint8_t* Bytes(std::string* s) { return reinterpret_cast<uint8_t*>(s->data()); }

// One opcode of a sparse body read at `pos` (< end): its register span, value (0 for the zero
// runs) and size in bytes. The second byte of an XZERO cut by the end reads as 0.
struct Op {
  int span;
  int value;
  size_t size;
};
Op ReadOp(const uint8_t* b, size_t pos, size_t end) {
  const uint8_t op = b[pos];
  if (IsZero(op)) return {ZeroLen(op), 0, 1};
  if (IsVal(op)) return {ValLen(op), ValValue(op), 1};
  const uint8_t low = pos + 1 < end ? b[pos + 1] : 0;
  return {XZeroLen(op, low), 0, 2};
}

// Unpacks all dense registers into out[kRegisters], four registers per three bytes.
void DenseUnpack(const uint8_t* regs, uint8_t* out) {
  for (int i = 0, byte = 0; i < kRegisters; i += 4, byte += 3) {
    const unsigned b0 = regs[byte], b1 = regs[byte + 1], b2 = regs[byte + 2];
    out[i] = static_cast<uint8_t>(b0 & 63);
    out[i + 1] = static_cast<uint8_t>(((b0 >> 6) | (b1 << 2)) & 63);
    out[i + 2] = static_cast<uint8_t>(((b1 >> 4) | (b2 << 4)) & 63);
    out[i + 3] = static_cast<uint8_t>(b2 >> 2);
  }
}

// The sum series of Ertl's estimator for the share of registers at the maximum value.
double Tau(double x) {
  if (x == 0.0 || x == 1.0) return 0.0;
  double y = 1.0;
  double z = 1 - x;
  double previous;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (previous != z);
  return z / 3;
}

// The sum series for the share of registers still at zero.
double Sigma(double x) {
  if (x == 1.0) return INFINITY;
  double y = 1;
  double z = x;
  double previous;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}

// The sparse update at the heart of PFADD on a sparse HLL; see Raise. `hll` is sparse.
Update SparseRaise(std::string* hll, uint32_t index, uint8_t count, size_t sparse_max_bytes) {
  if (count > kSparseValMaxValue) goto promote;
  {
    size_t len = hll->size();
    // Room for the worst split (one XZERO becoming XZERO VAL XZERO: 3 bytes more) and the
    // terminating zero byte a cut XZERO reads.
    hll->resize(len + 4, '\0');
    uint8_t* b = Bytes(hll);
    const size_t start = kHeaderSize;
    size_t end = len;

    // Step 1: find the opcode covering `index`.
    size_t p = start, prev = kNone;
    long first = 0;
    Op op{0, 0, 1};
    while (p < end) {
      op = ReadOp(b, p, end + 1);
      if (index <= first + op.span - 1) break;
      prev = p;
      p += op.size;
      first += op.span;
    }
    if (op.span == 0 || p >= end) {
      hll->resize(len);
      return Update::kCorrupt;
    }
    const bool is_zero = IsZero(b[p]);
    const bool is_val = IsVal(b[p]);
    size_t next = p + op.size;
    if (next >= end) next = kNone;

    bool rewritten = false;
    if (is_val) {
      // A VAL already at or above count needs nothing; a one-register VAL is set in place.
      if (op.value >= count) {
        hll->resize(len);
        return Update::kUnchanged;
      }
      if (op.span == 1) {
        b[p] = MakeVal(count, 1);
        rewritten = true;
      }
    }
    if (!rewritten && is_zero && op.span == 1) {
      b[p] = MakeVal(count, 1);
      rewritten = true;
    }
    if (!rewritten) {
      // Split the opcode into (left run) VAL(count,1) (right run): at most 5 bytes.
      uint8_t seq[5];
      int n = 0;
      const long last = first + op.span - 1;
      if (is_val) {
        if (index != first) seq[n++] = MakeVal(op.value, static_cast<int>(index - first));
        seq[n++] = MakeVal(count, 1);
        if (index != last) seq[n++] = MakeVal(op.value, static_cast<int>(last - index));
      } else {
        if (index != first) n += PutZeroRun(seq + n, static_cast<int>(index - first));
        seq[n++] = MakeVal(count, 1);
        if (index != last) n += PutZeroRun(seq + n, static_cast<int>(last - index));
      }
      const long delta = n - static_cast<long>(op.size);
      if (delta > 0 && len + delta > sparse_max_bytes) {
        hll->resize(len);
        goto promote;
      }
      if (delta != 0 && next != kNone) std::memmove(b + next + delta, b + next, end - next);
      len += delta;
      end += delta;
      b[end] = 0;
      std::memcpy(b + p, seq, n);
    }

    // Step 4: merge equal adjacent VALs, scanning at most five opcodes from the one before.
    size_t q = prev != kNone ? prev : start;
    int scan = 5;
    while (q < end && scan-- > 0) {
      if (IsXZero(b[q])) {
        q += 2;
        continue;
      }
      if (IsZero(b[q])) {
        q++;
        continue;
      }
      if (q + 1 < end && IsVal(b[q + 1]) && ValValue(b[q]) == ValValue(b[q + 1])) {
        const int merged = ValLen(b[q]) + ValLen(b[q + 1]);
        if (merged <= kSparseValMaxLen) {
          b[q + 1] = MakeVal(ValValue(b[q]), merged);
          std::memmove(b + q, b + q + 1, end - q);
          len--;
          end--;
          continue;
        }
      }
      q++;
    }
    hll->resize(len);
    return Update::kChanged;
  }

promote:
  if (!SparseToDense(hll)) return Update::kCorrupt;
  return DenseRaise(Bytes(hll) + kHeaderSize, static_cast<int>(index), count);
}

}  // namespace

uint64_t MurmurHash64A(const void* data, size_t len, uint64_t seed) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = seed ^ (static_cast<uint64_t>(len) * kMul);
  const uint8_t* blocks_end = p + (len & ~static_cast<size_t>(7));
  for (; p != blocks_end; p += 8) {
    uint64_t k;
    std::memcpy(&k, p, sizeof(k));  // little endian, as the HLL format assumes
    k *= kMul;
    k ^= k >> kShift;
    k *= kMul;
    h ^= k;
    h *= kMul;
  }
  const size_t tail = len & 7;
  if (tail != 0) {
    for (size_t i = tail; i-- > 0;) h ^= static_cast<uint64_t>(p[i]) << (8 * i);
    h *= kMul;
  }
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

int HashElement(std::string_view element, uint32_t* index) {
  uint64_t hash = MurmurHash64A(element.data(), element.size(), kHashSeed);
  *index = static_cast<uint32_t>(hash & (kRegisters - 1));
  hash >>= kIndexBits;
  hash |= 1ULL << kRunBits;  // caps the run length at kRunBits + 1
  return __builtin_ctzll(hash) + 1;
}

bool IsHll(std::string_view s) {
  if (s.size() < kHeaderSize) return false;
  if (std::memcmp(s.data(), "HYLL", 4) != 0) return false;
  const uint8_t enc = EncodingOf(s);
  if (enc > kSparse) return false;
  if (enc == kDense && s.size() != kDenseSize) return false;
  return true;
}

bool CacheValid(const uint8_t* hll) { return (hll[15] & 0x80) == 0; }

uint64_t CachedCardinality(const uint8_t* hll) {
  uint64_t card = 0;
  for (int i = 7; i >= 0; i--) card = (card << 8) | hll[8 + i];
  return card;
}

void StoreCardinality(uint8_t* hll, uint64_t card) {
  for (int i = 0; i < 8; i++) hll[8 + i] = static_cast<uint8_t>(card >> (8 * i));
}

void InvalidateCache(uint8_t* hll) { hll[15] |= 0x80; }

std::string NewSparse() {
  std::string s(kHeaderSize, '\0');
  std::memcpy(s.data(), "HYLL", 4);
  s[4] = static_cast<char>(kSparse);
  for (int left = kRegisters; left > 0;) {
    const int run = left < kSparseXZeroMaxLen ? left : kSparseXZeroMaxLen;
    uint8_t op[2];
    MakeXZero(op, run);
    s.append(reinterpret_cast<const char*>(op), 2);
    left -= run;
  }
  return s;
}

uint8_t DenseGet(const uint8_t* regs, int index) {
  const size_t bit = static_cast<size_t>(index) * kRegisterBits;
  const size_t byte = bit / 8;
  const unsigned shift = bit & 7;
  const unsigned b0 = regs[byte];
  const unsigned b1 = byte + 1 < kDenseBytes ? regs[byte + 1] : 0;
  return static_cast<uint8_t>(((b0 >> shift) | (b1 << (8 - shift))) & kRegisterMax);
}

void DensePut(uint8_t* regs, int index, uint8_t value) {
  const size_t bit = static_cast<size_t>(index) * kRegisterBits;
  const size_t byte = bit / 8;
  const unsigned shift = bit & 7;
  const unsigned v = value & kRegisterMax;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(kRegisterMax << shift)) | (v << shift));
  if (byte + 1 < kDenseBytes) {
    const unsigned rest = 8 - shift;
    regs[byte + 1] = static_cast<uint8_t>((regs[byte + 1] & ~(kRegisterMax >> rest)) | (v >> rest));
  }
}

Update DenseRaise(uint8_t* regs, int index, uint8_t count) {
  if (count <= DenseGet(regs, index)) return Update::kUnchanged;
  DensePut(regs, index, count);
  return Update::kChanged;
}

Update DenseAdd(uint8_t* regs, std::string_view element) {
  uint32_t index;
  const int count = HashElement(element, &index);
  return DenseRaise(regs, static_cast<int>(index), static_cast<uint8_t>(count));
}

Update Raise(std::string* hll, uint32_t index, uint8_t count, size_t sparse_max_bytes) {
  if (EncodingOf(*hll) == kDense) {
    return DenseRaise(Bytes(hll) + kHeaderSize, static_cast<int>(index), count);
  }
  return SparseRaise(hll, index, count, sparse_max_bytes);
}

Update Add(std::string* hll, std::string_view element, size_t sparse_max_bytes) {
  uint32_t index;
  const int count = HashElement(element, &index);
  return Raise(hll, index, static_cast<uint8_t>(count), sparse_max_bytes);
}

bool SparseToDense(std::string* hll) {
  if (EncodingOf(*hll) == kDense) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), hll->data(), kHeaderSize);
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = Bytes(&dense) + kHeaderSize;
  const uint8_t* b = Bytes(*hll);
  const size_t end = hll->size();
  long idx = 0;
  for (size_t p = kHeaderSize; p < end;) {
    const Op op = ReadOp(b, p, end);
    if (op.value != 0) {
      if (idx + op.span > kRegisters) return false;
      for (int i = 0; i < op.span; i++) DensePut(regs, static_cast<int>(idx + i), op.value);
    }
    idx += op.span;
    p += op.size;
  }
  if (idx != kRegisters) return false;
  hll->swap(dense);
  return true;
}

bool MergeInto(uint8_t* max, std::string_view hll) {
  const uint8_t* b = Bytes(hll);
  if (EncodingOf(hll) == kDense) {
    uint8_t regs[kRegisters];
    DenseUnpack(b + kHeaderSize, regs);
    // Branch-free, so the compiler turns it into vector maxima.
    for (int i = 0; i < kRegisters; i++) max[i] = regs[i] > max[i] ? regs[i] : max[i];
    return true;
  }
  long idx = 0;
  for (size_t p = kHeaderSize; p < hll.size();) {
    const Op op = ReadOp(b, p, hll.size());
    if (op.value != 0) {
      if (idx + op.span > kRegisters) return false;
      for (long i = idx; i < idx + op.span; i++) {
        if (op.value > max[i]) max[i] = static_cast<uint8_t>(op.value);
      }
    }
    idx += op.span;
    p += op.size;
  }
  return idx == kRegisters;
}

bool Histogram(std::string_view hll, int* histo) {
  const uint8_t* b = Bytes(hll);
  if (EncodingOf(hll) == kDense) {
    uint8_t regs[kRegisters];
    DenseUnpack(b + kHeaderSize, regs);
    RawHistogram(regs, histo);
    return true;
  }
  long idx = 0;
  for (size_t p = kHeaderSize; p < hll.size();) {
    const Op op = ReadOp(b, p, hll.size());
    histo[op.value] += op.span;
    idx += op.span;
    p += op.size;
  }
  return idx == kRegisters;
}

void RawHistogram(const uint8_t* max, int* histo) {
  for (int i = 0; i < kRegisters; i++) histo[max[i] & (kHistogramSize - 1)]++;
}

uint64_t Estimate(const int* histo) {
  const double m = kRegisters;
  double z = m * Tau((m - histo[kRunBits + 1]) / m);
  for (int j = kRunBits; j >= 1; --j) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * Sigma(histo[0] / m);
  return static_cast<uint64_t>(std::llround(kAlphaInf * m * m / z));
}

bool Count(std::string_view hll, uint64_t* card) {
  int histo[kHistogramSize] = {};
  if (!Histogram(hll, histo)) return false;
  *card = Estimate(histo);
  return true;
}

std::string DecodeSparse(std::string_view hll) {
  std::string out;
  const uint8_t* b = Bytes(hll);
  for (size_t p = kHeaderSize; p < hll.size();) {
    const Op op = ReadOp(b, p, hll.size());
    if (!out.empty()) out += ' ';
    if (op.value != 0) {
      out += "v:" + std::to_string(op.value) + "," + std::to_string(op.span);
    } else {
      out += (op.size == 2 ? "Z:" : "z:") + std::to_string(op.span);
    }
    p += op.size;
  }
  return out;
}

std::string SelfTest() {
  // 1. Register packing: every register keeps its own value, whatever its neighbours hold.
  std::vector<uint8_t> regs(kDenseBytes, 0);
  std::vector<uint8_t> expect(kRegisters);
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i < kRegisters; i++) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      expect[i] = static_cast<uint8_t>((state >> 33) & kRegisterMax);
      DensePut(regs.data(), i, expect[i]);
    }
    for (int i = 0; i < kRegisters; i++) {
      if (DenseGet(regs.data(), i) != expect[i]) {
        return "Register error at " + std::to_string(i) + ". Expected " +
               std::to_string(expect[i]) + ", got " + std::to_string(DenseGet(regs.data(), i));
      }
    }
    uint8_t unpacked[kRegisters];
    DenseUnpack(regs.data(), unpacked);
    if (std::memcmp(unpacked, expect.data(), kRegisters) != 0) return "Unpacking error";
  }

  // 2. The same elements in a sparse HLL that never promotes for size and in a dense one give
  //    the same estimate while the sparse one stays sparse; then the dense estimate stays
  //    within five standard errors (1.04 / sqrt(m)) of the truth.
  std::string sparse = NewSparse();
  std::string dense = NewSparse();
  if (!SparseToDense(&dense)) return "Conversion of an empty HLL failed";
  const double bound = 5 * 1.04 / std::sqrt(static_cast<double>(kRegisters));
  uint64_t checkpoint = 10;
  for (uint64_t n = 1; n <= 200000; n++) {
    const std::string element = "selftest:" + std::to_string(n);
    if (n <= 20000 && Add(&sparse, element, static_cast<size_t>(-1)) == Update::kCorrupt) {
      return "Sparse update reported corruption";
    }
    Add(&dense, element, 0);
    if (n != checkpoint) continue;
    checkpoint *= 10;
    uint64_t from_dense, from_sparse;
    if (!Count(dense, &from_dense)) return "Dense count failed";
    if (n <= 20000) {
      if (!Count(sparse, &from_sparse)) return "Sparse count failed";
      if (from_sparse != from_dense) {
        return "Sparse and dense estimates differ at " + std::to_string(n) + ": " +
               std::to_string(from_sparse) + " vs " + std::to_string(from_dense);
      }
    }
    const double error = std::fabs(static_cast<double>(from_dense) - static_cast<double>(n)) / n;
    if (n >= 1000 && error > bound) {
      return "Estimate error too large at " + std::to_string(n) + ": " + std::to_string(from_dense);
    }
  }
  return "";
}

}  // namespace redistp::hll
