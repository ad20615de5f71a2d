// fuzz/fuzz_args_common.hpp — what the argument fuzzers (fuzz_attention_args,
// fuzz_sparse_mla_args) share: the input reader, fake pointers and their
// kinds for the validators' pointer-kind callback, the stride decoding, and
// the model's rule record. Header-only, one translation unit each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention_validate.hpp"

namespace fuzz_args {

namespace kv = samebits::kernels::attention::validate;
__extension__ typedef __int128 i128;

// --- input decoding: bytes past the end read as 0, and 0 always decodes to
// the valid choice, so short inputs are well-formed problems. ---
struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t{u8()} << (8 * i);
    return v;
  }
  std::uint64_t u64() { return u32() | (std::uint64_t{u32()} << 32); }
};

const std::int64_t kHugeStrides[] = {0,          -1,        1,         63,          2147483648LL, 4294967296LL,
                                     1LL << 40,  1LL << 61, 1LL << 62, INT64_MAX,   INT64_MIN,    (1LL << 61) / 3,
                                     -(1LL << 62), 3,        (1LL << 31) - 1, (1LL << 53)};

enum Kind : std::uint8_t { kDevice = 0, kHost = 1, kNotCuda = 2 };

struct FakePtr {
  std::uintptr_t addr = 0;
  Kind kind = kDevice;
};

// A [rows, heads, D] tensor (row, head strides), or a [rows, D] one (row
// stride only).
struct TensorArg {
  explicit TensorArg(const char* n) : name(n) {}
  const char* name;
  FakePtr ptr;
  std::int64_t row = 0, head = 0;
};

// The fake pointers' kinds, for the validator's callback (unknown: device).
struct KindTable {
  std::vector<FakePtr> entries;
  static kv::MemoryKind query(const void* ptr, void* ctx) {
    const auto* t = static_cast<const KindTable*>(ctx);
    for (const FakePtr& e : t->entries)
      if (e.addr == reinterpret_cast<std::uintptr_t>(ptr))
        return e.kind == kDevice ? kv::MemoryKind::device
               : e.kind == kHost ? kv::MemoryKind::host
                                 : kv::MemoryKind::not_cuda;
    return kv::MemoryKind::device;
  }
};

FakePtr decode_ptr(Reader& r, int index, KindTable* kinds) {
  FakePtr f;
  const std::uintptr_t base = (static_cast<std::uintptr_t>(index) + 1) << 32;  // 256-aligned, distinct
  const std::uint8_t c = r.u8();
  switch (c % 16) {
    case 1: f.addr = 0; break;
    case 2: f.addr = base + 1; break;
    case 3: f.addr = base + 2; break;
    case 4: f.addr = base + 4; break;
    case 5: f.addr = UINTPTR_MAX - 4095; break;  // near the top: a large tensor wraps
    case 6: f.addr = (UINTPTR_MAX - (1ULL << 40)) & ~std::uintptr_t{255}; break;
    case 7: f.addr = static_cast<std::uintptr_t>(r.u64()); break;
    case 8: f.addr = base + 128; break;
    case 9: f.addr = base + 16; break;
    default: f.addr = base; break;
  }
  const std::uint8_t k = c >> 4;
  f.kind = k == 1 ? kHost : k == 2 ? kNotCuda : kDevice;
  if (!kinds) f.kind = kDevice;
  else if (f.addr && f.kind != kDevice) kinds->entries.push_back(f);
  return f;
}

// An optional pointer (sink, error_flag, lse_excl): byte < 128 null.
FakePtr decode_optional(Reader& r, int index, KindTable* kinds) {
  if (r.u8() < 128) return FakePtr{};
  return decode_ptr(r, index, kinds);
}

// Two's-complement arithmetic on strides (the decoder may build any int64).
std::int64_t wmul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t wadd(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

void decode_strides(Reader& r, TensorArg& t, std::int64_t rows, std::int64_t heads, int d, const TensorArg* share) {
  const std::uint8_t c = r.u8();
  const std::int64_t hd = wmul(heads, d), rd = wmul(rows, d);
  switch (c % 12) {
    case 0: t.row = hd, t.head = d; break;                             // [rows, heads, D] contiguous
    case 1: t.row = d, t.head = rd; break;                             // [heads, rows, D]
    case 2: t.row = wadd(hd, r.u8()), t.head = std::int64_t{d} + r.u8() % 8; break;  // padded
    case 3:
      t.row = static_cast<std::int64_t>(r.u32() % 8192) - 2;
      t.head = static_cast<std::int64_t>(r.u32() % 8192) - 2;
      break;
    case 4:
      t.row = kHugeStrides[r.u8() % 16];
      t.head = kHugeStrides[r.u8() % 16];
      break;
    case 5: t.row = static_cast<std::int64_t>(r.u64()), t.head = static_cast<std::int64_t>(r.u64()); break;
    case 6: t.row = hd, t.head = kHugeStrides[r.u8() % 16]; break;
    case 7: t.row = kHugeStrides[r.u8() % 16], t.head = d; break;
    case 8: t.row = wadd(hd, -1), t.head = d; break;
    case 9: t.row = d, t.head = wadd(rd, -1); break;
    case 10:
      if (share) t.row = share->row, t.head = share->head;
      else t.row = hd, t.head = d;
      break;
    default: t.row = wmul(hd, 1 + r.u8() % 4), t.head = wmul(d, 1 + r.u8() % 4); break;
  }
}

// --- the model: the rules, each with its status code and the words a
// refusal must name it by. ---
struct Violation {
  std::string rule;
  samebits::kernels::attention::StatusCode code;
  std::vector<std::string> names;
};
using Violations = std::vector<Violation>;

}  // namespace fuzz_args
