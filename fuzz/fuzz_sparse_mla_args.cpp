// fuzz_sparse_mla_args — the sparse MLA argument validation
// (kernels/src/validate/sparse_mla_validate.cpp, behind both the C++ host API
// and the C ABI) on random sizes, strides, dtypes, codes, chunk sizes,
// workspaces and pointers, and its host index check (check_indices) on small
// random index arrays. Pointers are fake (never dereferenced); what kind of
// memory each is (device, host, unknown to CUDA) comes from the input, through
// the validator's pointer-kind callback, so no GPU is needed.
//
// Each input is checked these ways:
//  - the validator (check_forward / check_backward) against an independent
//    model of what must be refused, written from docs/kernels/sparse_mla.md,
//    sparse_mla/params.hpp, api.hpp and c_api.h: it must refuse exactly when
//    the model finds a violated rule, with the status code of one of the
//    violated rules, and a message that names that rule's argument;
//  - what it accepts must be safe for the kernels: every tensor's largest
//    element offset (computed in __int128) within int64/4, its last byte
//    inside the address space, its (row, head) spans disjoint (checked
//    exhaustively when there are at most 4096), the indices' rows disjoint,
//    the chunk a multiple of B whose chunk * topk fits int32, the workspace
//    at least what the launcher needs;
//  - the C ABI entry points (samebits_sparse_mla_forward / _backward /
//    _backward_workspace_bytes / _fingerprint / _check_index_error, built
//    without CUDA: the launches run the whole validation, pointer kinds
//    excepted, and return its refusal or SAMEBITS_NOT_BUILT) against the same
//    model plus the C ABI's own rules;
//  - samebits_sparse_mla_check (the problem without tensors) against the
//    model's problem rules, and, when it refuses, the call refusing with the
//    same status and message;
//  - check_indices on a host index array against the rule every index is in
//    -1 .. num_kv - 1 (the refusal names a bad token and slot).
// Outputs must not overlap inputs or each other (bytes first to last); a scale
// is NaN (the default) or finite and > 0; num_kv is any count (more or fewer
// rows than tokens).
// Any disagreement is a finding (abort, "finding: ..." on stderr). With
// SAMEBITS_FUZZ_VERBOSE set, each call and the verdicts are printed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "samebits/kernels/c_api.h"
#include "samebits/kernels/sparse_mla/api.hpp"
#include "fuzz_args_common.hpp"
#include "sparse_mla_validate.hpp"

namespace {

namespace ks = samebits::kernels::sparse_mla;
namespace ksv = samebits::kernels::sparse_mla::validate;
using samebits::kernels::DType;
using ks::StatusCode;
using namespace fuzz_args;

// A [rows, width] matrix's row stride (kv, dkv: width D; indices: width topk).
std::int64_t decode_row_stride(Reader& r, std::int64_t width) {
  const std::uint8_t c = r.u8();
  switch (c % 10) {
    case 1: return wadd(width, r.u8());
    case 2: return wadd(width, -1);
    case 3: return static_cast<std::int64_t>(r.u32() % 8192) - 2;
    case 4: return kHugeStrides[r.u8() % 16];
    case 5: return static_cast<std::int64_t>(r.u64());
    case 6: return wmul(width, 1 + r.u8() % 8);
    case 7: return 0;
    default: return width;
  }
}

constexpr auto kInvalid = StatusCode::invalid_argument;
constexpr auto kUnsupported = StatusCode::unsupported;

struct Call {
  bool backward = false;
  std::int32_t libm = 0, in_dtype = 1, o_dtype = 1, grad_dtype = 1;
  std::int64_t tokens = 0, num_kv = 0;
  std::int32_t heads = 1, d = 512, topk = 1;
  float scale = 0.04419417f;
  std::int64_t chunk_tokens = 0;
  TensorArg q{"q"}, o{"o"}, dout{"dout"}, dq{"dq"};
  TensorArg kv{"kv"}, dkv{"dkv"}, indices{"indices"};  // row stride only
  FakePtr lse, lse_excl, sink, dsink, error_flag;
  FakePtr workspace;
  std::int64_t workspace_need = 0;  // what the C++ launcher would pass (backward_workspace_bytes)
  std::int64_t workspace_bytes = 0;
  // C ABI only
  std::int32_t validate_indices = 0;
};

bool dtype_known(std::int32_t t) { return t == 0 || t == 1; }  // f32, bf16 (docs: no f16)
int size_of(std::int32_t t) { return t == 0 ? 4 : 2; }

bool sizes_in_range(const Call& c) {
  return c.heads >= 1 && c.heads <= 1048560 && c.tokens >= 0 && c.tokens <= INT32_MAX && c.num_kv >= 0 &&
         c.num_kv <= INT32_MAX - 1 && c.topk >= 1 && c.topk <= (1 << 24) && (c.d == 128 || c.d == 512) &&
         dtype_known(c.in_dtype);
}

std::vector<std::string> names_of(const std::string& n) {
  return {"sparse-mla: " + n + " ", "sparse-mla: " + n + ":"};
}

// An address: null only when empty (the callers skip empty ones), aligned,
// device memory, the last of `bytes` bytes inside the address space.
void model_address(const std::string& n, FakePtr f, i128 bytes, int align, Violations& v, bool kinds) {
  const std::vector<std::string> names = names_of(n);
  if (f.addr == 0) { v.push_back({n + " null", kInvalid, names}); return; }
  if (f.addr % align) v.push_back({n + " misaligned", kInvalid, names});
  if (kinds && f.kind != kDevice) v.push_back({n + " not device memory", kInvalid, names});
  if (i128{f.addr} + bytes - 1 > i128{UINT64_MAX}) v.push_back({n + " past the address space", kInvalid, names});
}

i128 max_offset(const TensorArg& t, std::int64_t rows, std::int64_t heads, int d) {
  return i128{rows - 1} * t.row + i128{heads - 1} * t.head + (d - 1);
}

// A [rows, heads, D] tensor: last dimension contiguous, positive strides,
// (row, head) spans of D nested in either order without overlap (the inner
// dimension the one of the smaller stride, the head on a tie), element
// offsets within int64/4.
void model_tensor(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t heads, int d, Violations& v,
                  bool kinds) {
  if (rows <= 0) return;
  const std::string n = t.name;
  const int size = size_of(dtype);
  const i128 last = max_offset(t, rows, heads, d);
  const i128 cap = i128{1} << 80;
  model_address(n, t.ptr, t.row > 0 && t.head > 0 ? (last < cap ? (last + 1) * size : cap) : 1, size, v, kinds);
  if (t.row <= 0 || t.head <= 0) { v.push_back({n + " strides positive", kInvalid, names_of(n)}); return; }
  const bool head_inner = t.head <= t.row;
  const i128 in_stride = head_inner ? t.head : t.row, out_stride = head_inner ? t.row : t.head;
  const i128 in_count = head_inner ? heads : rows, out_count = head_inner ? rows : heads;
  if (in_stride < d || (out_count > 1 && out_stride < in_stride * in_count))
    v.push_back({n + " spans overlap", kInvalid, names_of(n)});
  if (last > INT64_MAX / 4) v.push_back({n + " offsets beyond int64/4", kInvalid, names_of(n)});
}

// A [rows, width] matrix with a row stride: the row stride at least the
// width (also for one row), the largest offset within int64/4.
void model_matrix(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t width, Violations& v,
                  bool kinds) {
  if (rows <= 0) return;
  const std::string n = t.name;
  const int size = size_of(dtype);
  const i128 last = i128{rows - 1} * t.row + (width - 1);
  const i128 cap = i128{1} << 80;
  model_address(n, t.ptr, t.row > 0 ? (last < cap ? (last + 1) * size : cap) : 1, size, v, kinds);
  if (t.row < width) v.push_back({n + " row stride below its width", kInvalid, names_of(n)});
  else if (last > INT64_MAX / 4) v.push_back({n + " offsets beyond int64/4", kInvalid, names_of(n)});
}

// A contiguous fp32 array of `elements`.
void model_array(const std::string& n, FakePtr f, i128 elements, Violations& v, bool kinds) {
  if (elements > 0) model_address(n, f, elements * 4, 4, v, kinds);
}

// The problem's rules without tensors (rules.hpp): libm, dtypes, D, sizes,
// scale (NaN: the default), and for the backward chunk_tokens.
void model_sizes(const Call& c, Violations& v) {
  if (c.libm != 0 && c.libm != 1) v.push_back({"libm code", kUnsupported, {"libm"}});
  if (!dtype_known(c.in_dtype)) v.push_back({"input dtype bf16 or f32", kUnsupported, {"in_dtype"}});
  if (c.d != 128 && c.d != 512) v.push_back({"D 128 or 512", kUnsupported, {"d = "}});
  if (c.heads < 1 || c.heads > 1048560) v.push_back({"heads in 1..1048560", kInvalid, {"heads"}});
  if (c.tokens < 0 || c.tokens > INT32_MAX) v.push_back({"tokens in 0..2^31-1", kInvalid, {"tokens"}});
  if (c.num_kv < 0 || c.num_kv > INT32_MAX - 1) v.push_back({"num_kv in 0..2^31-2", kInvalid, {"num_kv"}});
  if (c.topk < 1 || c.topk > (1 << 24)) v.push_back({"topk in 1..2^24", kInvalid, {"topk"}});
  if (!std::isnan(c.scale) && (!std::isfinite(c.scale) || c.scale <= 0.0f))
    v.push_back({"scale NaN or finite > 0", kInvalid, {"scale"}});
  if (c.o_dtype != c.in_dtype && c.o_dtype != 0) v.push_back({"o dtype", kUnsupported, {"o_dtype"}});
  if (c.backward && c.grad_dtype != c.in_dtype && c.grad_dtype != 0)
    v.push_back({"gradient dtype", kUnsupported, {"grad_dtype"}});
  if (c.backward && (c.chunk_tokens < 0 || c.chunk_tokens % 64 != 0))
    v.push_back({"chunk_tokens not a multiple of 64", kInvalid, {"chunk_tokens"}});
  // The product limit holds for any positive chunk, a multiple of 64 or not.
  const i128 chunk = c.chunk_tokens > 0 ? c.chunk_tokens : 512;
  if (c.backward && c.chunk_tokens >= 0 && c.topk >= 1 && chunk * c.topk > INT32_MAX)
    v.push_back({"chunk_tokens * topk above 2^31-1", kUnsupported, {"chunk_tokens"}});
}

// An argument's bytes, first to last (empty: none).
struct ModelSpan {
  std::string name;
  i128 first = 0, last = -1;
};
ModelSpan span(const std::string& name, FakePtr f, i128 bytes) {
  if (f.addr == 0 || bytes <= 0) return {name};
  return {name, i128{f.addr}, i128{f.addr} + bytes - 1};
}
ModelSpan tensor_span(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t heads, int d) {
  return rows <= 0 ? ModelSpan{t.name} : span(t.name, t.ptr, (max_offset(t, rows, heads, d) + 1) * size_of(dtype));
}
ModelSpan matrix_span(const TensorArg& t, int size, std::int64_t rows, std::int64_t width) {
  return rows <= 0 ? ModelSpan{t.name} : span(t.name, t.ptr, (i128{rows - 1} * t.row + width) * size);
}

// Outputs share no byte with an input or another output.
void model_overlaps(const Call& c, Violations& v) {
  const std::int64_t t = c.tokens, h = c.heads;
  const int d = c.d;
  std::vector<ModelSpan> in = {tensor_span(c.q, c.in_dtype, t, h, d), matrix_span(c.kv, size_of(c.in_dtype), c.num_kv, d),
                               matrix_span(c.indices, 4, t, c.topk), span("sink", c.sink, i128{h} * 4)};
  std::vector<ModelSpan> out;
  if (!c.backward) {
    out = {tensor_span(c.o, c.o_dtype, t, h, d), span("lse", c.lse, i128{t} * h * 4),
           span("lse_excl", c.lse_excl, i128{t} * h * 4), span("error_flag", c.error_flag, 4)};
  } else {
    in.push_back(tensor_span(c.o, c.o_dtype, t, h, d));
    in.push_back(tensor_span(c.dout, c.in_dtype, t, h, d));
    in.push_back(span("lse", c.lse, i128{t} * h * 4));
    out = {tensor_span(c.dq, c.grad_dtype, t, h, d), matrix_span(c.dkv, size_of(c.grad_dtype), c.num_kv, d),
           span("dsink", c.sink.addr ? c.dsink : FakePtr{}, i128{h} * 4), span("workspace", c.workspace, c.workspace_need),
           span("error_flag", c.error_flag, 4)};
  }
  auto meet = [](const ModelSpan& a, const ModelSpan& b) {
    return a.last >= a.first && b.last >= b.first && a.first <= b.last && b.first <= a.last;
  };
  for (std::size_t o = 0; o < out.size(); ++o) {
    for (const ModelSpan& i : in)
      if (meet(out[o], i)) v.push_back({out[o].name + " overlaps " + i.name, kInvalid, {out[o].name + " overlaps " + i.name}});
    for (std::size_t e = 0; e < o; ++e)
      if (meet(out[o], out[e]))
        v.push_back({out[o].name + " overlaps " + out[e].name, kInvalid, {out[o].name + " overlaps " + out[e].name}});
  }
}

// What the C++ API must refuse (kinds: whether pointer kinds are known).
Violations model_cpp(const Call& c, bool kinds) {
  Violations v;
  model_sizes(c, v);
  // The tensors' rules wherever their shapes mean something.
  if (!sizes_in_range(c)) return v;
  const std::int64_t t = c.tokens, h = c.heads, n = c.num_kv;
  const int d = c.d;
  model_matrix(c.indices, 0, t, c.topk, v, kinds);  // int32: 4 bytes, as f32
  if (c.sink.addr) model_array("sink", c.sink, h, v, kinds);
  if (c.error_flag.addr) model_array("error_flag", c.error_flag, 1, v, kinds);
  model_tensor(c.q, c.in_dtype, t, h, d, v, kinds);
  model_matrix(c.kv, c.in_dtype, n, d, v, kinds);
  model_tensor(c.o, c.o_dtype, t, h, d, v, kinds);
  model_array("lse", c.lse, i128{t} * h, v, kinds);
  if (!c.backward) {
    if (c.lse_excl.addr) model_array("lse_excl", c.lse_excl, i128{t} * h, v, kinds);
    // The validator looks at overlaps last, once every argument is well formed.
    if (v.empty()) model_overlaps(c, v);
    return v;
  }
  model_tensor(c.dout, c.in_dtype, t, h, d, v, kinds);
  model_tensor(c.dq, c.grad_dtype, t, h, d, v, kinds);
  model_matrix(c.dkv, c.grad_dtype, n, d, v, kinds);
  if (c.sink.addr) model_array("dsink", c.dsink, h, v, kinds);  // required with a sink
  if (c.workspace_need < 0) {
    v.push_back({"workspace size unknown", kInvalid, {"workspace"}});
  } else {
    if (c.workspace_bytes < c.workspace_need) v.push_back({"workspace_bytes >= need", kInvalid, {"workspace_bytes"}});
    if (c.workspace_need > 0) {
      // 256-byte aligned, device, need bytes inside the address space.
      const std::vector<std::string> names = names_of("workspace");
      const FakePtr w = c.workspace;
      if (w.addr == 0) v.push_back({"workspace null", kInvalid, names});
      else {
        if (w.addr % 256) v.push_back({"workspace 256-aligned", kInvalid, names});
        if (kinds && w.kind != kDevice) v.push_back({"workspace device memory", kInvalid, names});
        if (i128{w.addr} + c.workspace_need - 1 > i128{UINT64_MAX})
          v.push_back({"workspace past the address space", kInvalid, names});
        // Its size in whole fp32 words, in bytes, must fit int64 (byte
        // offsets are int64): need above INT64_MAX - 3 is refused.
        if ((i128{c.workspace_need} + 3) / 4 * 4 > INT64_MAX)
          v.push_back({"workspace bytes beyond int64", kInvalid, names});
      }
    }
  }
  if (v.empty()) model_overlaps(c, v);
  return v;
}

[[noreturn]] void finding(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "finding: %s\n  %s\n", what.c_str(), detail.c_str());
  std::abort();
}

std::string describe(const Call& c) {
  std::string s = std::string(c.backward ? "backward" : "forward") + " libm=" + std::to_string(c.libm) +
                  " dtypes=" + std::to_string(c.in_dtype) + "," + std::to_string(c.o_dtype) + "," +
                  std::to_string(c.grad_dtype) + " d=" + std::to_string(c.d) + " heads=" + std::to_string(c.heads) +
                  " tokens=" + std::to_string(c.tokens) + " num_kv=" + std::to_string(c.num_kv) +
                  " topk=" + std::to_string(c.topk) + " chunk=" + std::to_string(c.chunk_tokens) +
                  " ws=" + std::to_string(c.workspace_bytes) + "/" + std::to_string(c.workspace_need);
  for (const TensorArg* t : {&c.q, &c.o, &c.dout, &c.dq})
    s += std::string(" ") + t->name + "=(" + std::to_string(t->row) + "," + std::to_string(t->head) + ")";
  for (const TensorArg* t : {&c.kv, &c.dkv, &c.indices}) s += std::string(" ") + t->name + "=" + std::to_string(t->row);
  return s;
}

// A refusal must carry the code of a violated rule and name its argument.
void compare(const char* who, const Violations& v, bool accepted, StatusCode code, const std::string& message,
             const Call& c) {
  if (accepted && !v.empty())
    finding(std::string(who) + " accepts what the model refuses: " + v.front().rule, describe(c));
  if (accepted) return;
  if (v.empty()) finding(std::string(who) + " refuses what the model accepts", message + " | " + describe(c));
  bool code_ok = false, named = false;
  for (const Violation& x : v) {
    if (x.code != code) continue;
    code_ok = true;
    for (const std::string& n : x.names) named = named || message.find(n) != std::string::npos;
  }
  if (!code_ok)
    finding(std::string(who) + " refuses with a code no violated rule has",
            std::to_string(static_cast<int>(code)) + ": " + message + " | first rule: " + v.front().rule);
  if (!named)
    finding(std::string(who) + " refusal names no violated argument", message + " | first rule: " + v.front().rule);
}

// What an accepted call must be, whatever the rules say: safe to index.
void check_safe_tensor(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t heads, int d) {
  if (rows == 0) return;
  const i128 last = max_offset(t, rows, heads, d);
  if (t.row <= 0 || t.head <= 0 || last > INT64_MAX / 4 ||
      i128{t.ptr.addr} + (last + 1) * size_of(dtype) - 1 > i128{UINT64_MAX} || t.ptr.addr == 0)
    finding(std::string("accepted tensor ") + t.name + " indexes out of bounds",
            std::to_string(t.row) + "," + std::to_string(t.head));
  if (i128{rows} * heads > 4096) return;
  std::vector<i128> offs;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < heads; ++h) offs.push_back(i128{r} * t.row + i128{h} * t.head);
  std::sort(offs.begin(), offs.end());
  for (std::size_t i = 1; i < offs.size(); ++i)
    if (offs[i] - offs[i - 1] < d) finding(std::string("accepted tensor ") + t.name + " has overlapping spans", "");
}

void check_safe_matrix(const TensorArg& t, int size, std::int64_t rows, std::int64_t width) {
  if (rows == 0) return;
  const i128 last = i128{rows - 1} * t.row + (width - 1);
  if (t.ptr.addr == 0 || (rows > 1 && t.row < width) || t.row <= 0 || last > INT64_MAX / 4 ||
      i128{t.ptr.addr} + (last + 1) * size - 1 > i128{UINT64_MAX})
    finding(std::string("accepted matrix ") + t.name + " indexes out of bounds or overlaps", std::to_string(t.row));
}

void check_safe_array(const char* name, FakePtr f, i128 elements) {
  if (elements <= 0) return;
  if (f.addr == 0 || f.addr % 4 || i128{f.addr} + elements * 4 - 1 > i128{UINT64_MAX})
    finding(std::string("accepted array ") + name + " out of bounds", "");
}

void check_safe(const Call& c, std::int64_t need) {
  if (!sizes_in_range(c) || (c.o_dtype != 0 && c.o_dtype != c.in_dtype)) finding("accepted impossible sizes", describe(c));
  const std::int64_t t = c.tokens, h = c.heads;
  check_safe_matrix(c.indices, 4, t, c.topk);
  check_safe_tensor(c.q, c.in_dtype, t, h, c.d);
  check_safe_matrix(c.kv, size_of(c.in_dtype), c.num_kv, c.d);
  check_safe_tensor(c.o, c.o_dtype, t, h, c.d);
  check_safe_array("lse", c.lse, i128{t} * h);
  if (c.sink.addr) check_safe_array("sink", c.sink, h);
  if (!c.backward) {
    if (c.lse_excl.addr) check_safe_array("lse_excl", c.lse_excl, i128{t} * h);
    return;
  }
  if (c.grad_dtype != 0 && c.grad_dtype != c.in_dtype) finding("accepted a gradient dtype", describe(c));
  check_safe_tensor(c.dout, c.in_dtype, t, h, c.d);
  check_safe_tensor(c.dq, c.grad_dtype, t, h, c.d);
  check_safe_matrix(c.dkv, size_of(c.grad_dtype), c.num_kv, c.d);
  if (c.sink.addr) check_safe_array("dsink", c.dsink, h);
  const i128 chunk = c.chunk_tokens ? c.chunk_tokens : 512;
  if (c.chunk_tokens < 0 || c.chunk_tokens % 64 || chunk * c.topk > INT32_MAX)
    finding("accepted a chunk the kernels cannot run", describe(c));
  if (need < 0 || c.workspace_bytes < need) finding("accepted a workspace below its need", describe(c));
  if (need > 0 && (c.workspace.addr == 0 || c.workspace.addr % 256 ||
                   i128{c.workspace.addr} + need - 1 > i128{UINT64_MAX}))
    finding("accepted a workspace that is null, misaligned or wraps", describe(c));
}

// --- decoding one call ---
std::int32_t pick_i32(Reader& r, std::int32_t valid, std::initializer_list<std::int32_t> others) {
  const std::uint8_t c = r.u8();
  if (c < 200) return valid;
  const std::size_t i = c - 200;
  if (i < others.size()) return others.begin()[i];
  return static_cast<std::int32_t>(r.u32());
}
std::int64_t pick_i64(Reader& r, std::int64_t valid, std::initializer_list<std::int64_t> others) {
  const std::uint8_t c = r.u8();
  if (c < 200) return valid;
  const std::size_t i = c - 200;
  if (i < others.size()) return others.begin()[i];
  return static_cast<std::int64_t>(r.u64());
}

Call decode(Reader& r, KindTable& kinds) {
  Call c;
  const std::uint8_t mode = r.u8();
  c.backward = mode & 1;
  c.libm = pick_i32(r, (mode >> 1) & 1, {2, -1, INT32_MIN});
  c.in_dtype = pick_i32(r, (mode >> 2) & 1 ? 0 : 1, {2, 3, -1, 0, 1});
  c.o_dtype = pick_i32(r, c.in_dtype, {0, 1, 2, 3});
  c.grad_dtype = pick_i32(r, c.in_dtype, {0, 1, 2, 3});
  c.d = pick_i32(r, (mode >> 3) & 1 ? 128 : 512, {64, 256, 0, -512, 511, 1024});
  const std::uint8_t sz = r.u8();
  c.heads = pick_i32(r, 1 + sz % 8, {64, 128, 0, -1, 1048560, 1048561, INT32_MAX, 65536});
  c.tokens = pick_i64(r, (sz >> 3) % 8 * 9, {0, 64, 65, INT32_MAX, std::int64_t{INT32_MAX} + 1, -1, INT64_MIN});
  c.num_kv = pick_i64(r, (sz >> 6) * 40, {0, 1, INT32_MAX - 1, INT32_MAX, -1, INT64_MAX});
  const std::uint8_t kb = r.u8();
  c.topk = pick_i32(r, 1 + kb % 70, {512, 2048, 0, -1, 1 << 24, (1 << 24) + 1, 1 << 22, INT32_MAX, 4194303});
  const std::uint8_t sc = r.u8();
  c.scale = sc < 200   ? 0.04419417f
            : sc < 210 ? 0.0f
            : sc < 220 ? INFINITY
            : sc < 230 ? NAN
            : sc < 240 ? -0.5f
                       : [&] {
                           float f;
                           const std::uint32_t u = r.u32();
                           std::memcpy(&f, &u, 4);
                           return f;
                         }();
  c.chunk_tokens = pick_i64(r, 0, {64, 512, 63, 65, -64, 1 << 30, std::int64_t{1} << 31, 128, 4096, 32, 1});
  c.validate_indices = pick_i32(r, (mode >> 4) & 1, {2, -1, INT32_MIN});
  // Tensors: shapes as the kernels read them; the strides may be anything.
  const std::int64_t t = c.tokens, h = c.heads;
  const int d = c.d;
  int index = 0;
  TensorArg* prev = nullptr;
  for (TensorArg* x : {&c.q, &c.o, &c.dout, &c.dq}) {
    x->ptr = decode_ptr(r, index++, &kinds);
    decode_strides(r, *x, t, h, d, prev);
    prev = x;
  }
  for (TensorArg* x : {&c.kv, &c.dkv}) {
    x->ptr = decode_ptr(r, index++, &kinds);
    x->row = decode_row_stride(r, d);
    x->head = d;
  }
  c.indices.ptr = decode_ptr(r, index++, &kinds);
  c.indices.row = decode_row_stride(r, c.topk);
  c.indices.head = c.topk;
  c.lse = decode_ptr(r, index++, &kinds);
  c.lse_excl = decode_optional(r, index++, &kinds);
  c.sink = decode_optional(r, index++, &kinds);
  c.dsink = decode_ptr(r, index++, &kinds);
  c.error_flag = decode_optional(r, index++, &kinds);
  c.workspace = decode_ptr(r, index++, &kinds);
  const std::uint8_t nb = r.u8();
  c.workspace_need = nb < 200 ? std::int64_t{256} * (nb % 16)
                     : nb < 210 ? -1
                     : nb < 220 ? std::int64_t{1} << 40
                     : nb < 230 ? 4096
                                : static_cast<std::int64_t>(r.u64());
  const std::uint8_t wb = r.u8();
  auto sat = [](i128 x) { return static_cast<std::int64_t>(std::clamp<i128>(x, INT64_MIN, INT64_MAX)); };
  c.workspace_bytes = wb < 200   ? sat(i128{c.workspace_need} + (wb % 4) * 256)
                      : wb < 210 ? sat(i128{c.workspace_need} - 1)
                      : wb < 220 ? INT64_MAX
                      : wb < 230 ? -1
                                 : static_cast<std::int64_t>(r.u64());
  // Two fake pointers may share an address: the kind is the address's, as
  // the callback answers it.
  for (FakePtr* f : {&c.q.ptr, &c.o.ptr, &c.dout.ptr, &c.dq.ptr, &c.kv.ptr, &c.dkv.ptr, &c.indices.ptr, &c.lse,
                     &c.lse_excl, &c.sink, &c.dsink, &c.error_flag, &c.workspace}) {
    const ksv::MemoryKind m = KindTable::query(reinterpret_cast<const void*>(f->addr), &kinds);
    f->kind = m == ksv::MemoryKind::device ? kDevice : m == ksv::MemoryKind::host ? kHost : kNotCuda;
  }
  return c;
}

template <class T>
T* ptr(FakePtr f) {
  return reinterpret_cast<T*>(f.addr);
}
ks::Strides strides(const TensorArg& t) { return ks::Strides{t.row, t.head}; }
samebits_tensor3 tensor3(const TensorArg& t) { return samebits_tensor3{ptr<void>(t.ptr), t.row, t.head}; }

void fill_problem(const Call& c, ks::ProblemParams& p) {
  p.tokens = c.tokens;
  p.num_kv = c.num_kv;
  p.heads = c.heads, p.d = c.d, p.topk = c.topk;
  p.scale = c.scale;
  p.in_dtype = static_cast<DType>(c.in_dtype);
  p.libm = static_cast<ks::Libm>(c.libm);
  p.indices = ptr<const std::int32_t>(c.indices.ptr);
  p.indices_row_stride = c.indices.row;
  p.sink = ptr<const float>(c.sink);
  p.error_flag = ptr<std::int32_t>(c.error_flag);
}

bool verbose() {
  static const bool v = std::getenv("SAMEBITS_FUZZ_VERBOSE") != nullptr;
  return v;
}

void run_cpp(const Call& c, const KindTable& kinds) {
  const ksv::PointerQuery query{&KindTable::query, const_cast<KindTable*>(&kinds)};
  ks::Status s;
  if (!c.backward) {
    ks::ForwardParams f;
    fill_problem(c, f);
    f.q = ptr<void>(c.q.ptr), f.kv = ptr<void>(c.kv.ptr), f.o = ptr<void>(c.o.ptr);
    f.lse = ptr<float>(c.lse), f.lse_excl = ptr<float>(c.lse_excl);
    f.q_stride = strides(c.q), f.o_stride = strides(c.o), f.kv_row_stride = c.kv.row;
    f.o_dtype = static_cast<DType>(c.o_dtype);
    s = ksv::check_forward(f, query);
  } else {
    ks::BackwardParams b;
    fill_problem(c, b);
    b.q = ptr<void>(c.q.ptr), b.kv = ptr<void>(c.kv.ptr), b.o = ptr<void>(c.o.ptr), b.dout = ptr<void>(c.dout.ptr);
    b.lse = ptr<float>(c.lse), b.dq = ptr<void>(c.dq.ptr), b.dkv = ptr<void>(c.dkv.ptr);
    b.dsink = ptr<float>(c.dsink);
    b.q_stride = strides(c.q), b.o_stride = strides(c.o), b.dout_stride = strides(c.dout);
    b.dq_stride = strides(c.dq);
    b.kv_row_stride = c.kv.row, b.dkv_row_stride = c.dkv.row;
    b.o_dtype = static_cast<DType>(c.o_dtype);
    b.grad_dtype = static_cast<DType>(c.grad_dtype);
    b.chunk_tokens = c.chunk_tokens;
    b.workspace = ptr<void>(c.workspace), b.workspace_bytes = c.workspace_bytes;
    s = ksv::check_backward(b, c.workspace_need, query);
  }
  if (verbose()) std::fprintf(stderr, "%s\n  -> %s\n", describe(c).c_str(), s.ok() ? "accepted" : s.message.c_str());
  compare("the validator", model_cpp(c, true), s.ok(), s.code, s.message, c);
  if (s.ok()) check_safe(c, c.workspace_need);
}

// The C ABI's own rules (c_api.h: its representation), then the C++ API's
// on the converted arguments: no pointer kinds, and without CUDA the workspace
// need is unknown: the launch passes 0.
Violations model_c_own(const Call& c, bool null_problem) {
  Violations v;
  if (null_problem) v.push_back({"problem non-null", kInvalid, {"problem"}});
  else if (c.validate_indices != 0 && c.validate_indices != 1)
    v.push_back({"validate_indices 0 or 1", kInvalid, {"validate_indices"}});
  return v;
}
Violations model_c(const Call& c, bool null_problem) {
  Violations v = model_c_own(c, null_problem);
  if (null_problem) return v;
  Call cc = c;
  cc.workspace_need = 0;
  for (Violation& x : model_cpp(cc, false)) v.push_back(x);
  return v;
}
// samebits_sparse_mla_check: the C representation, then the problem's rules.
Violations model_check(const Call& c, bool null_problem) {
  Violations v = model_c_own(c, null_problem);
  if (!null_problem) model_sizes(c, v);
  return v;
}

void run_c(const Call& c, bool null_problem) {
  samebits_sparse_mla_problem cp{};
  cp.tokens = c.tokens, cp.num_kv = c.num_kv;
  cp.heads = c.heads, cp.d = c.d, cp.topk = c.topk;
  cp.scale = c.scale;
  cp.in_dtype = c.in_dtype, cp.o_dtype = c.o_dtype, cp.grad_dtype = c.grad_dtype;
  cp.libm = c.libm;
  cp.indices = ptr<const std::int32_t>(c.indices.ptr);
  cp.indices_row_stride = c.indices.row;
  cp.sink = ptr<const float>(c.sink);
  cp.error_flag = ptr<std::int32_t>(c.error_flag);
  cp.chunk_tokens = c.chunk_tokens;
  cp.validate_indices = c.validate_indices;
  const samebits_sparse_mla_problem* pp = null_problem ? nullptr : &cp;
  const std::int32_t rc_check = samebits_sparse_mla_check(pp, c.backward ? 1 : 0);
  const std::string check_message = rc_check ? samebits_last_error() : "";
  if (verbose()) std::fprintf(stderr, "  check -> %d %s\n", rc_check, check_message.c_str());
  compare("the C ABI check", model_check(c, null_problem), rc_check == SAMEBITS_OK, static_cast<StatusCode>(rc_check),
          check_message, c);
  std::int32_t rc;
  if (!c.backward)
    rc = samebits_sparse_mla_forward(pp, tensor3(c.q), ptr<const void>(c.kv.ptr), c.kv.row, tensor3(c.o),
                                     ptr<float>(c.lse), ptr<float>(c.lse_excl), nullptr);
  else
    rc = samebits_sparse_mla_backward(pp, tensor3(c.q), ptr<const void>(c.kv.ptr), c.kv.row, tensor3(c.o),
                                      tensor3(c.dout), ptr<const float>(c.lse), tensor3(c.dq), ptr<void>(c.dkv.ptr),
                                      c.dkv.row, ptr<float>(c.dsink), ptr<void>(c.workspace), c.workspace_bytes,
                                      nullptr);
  if (rc == SAMEBITS_OK || rc == SAMEBITS_CUDA_ERROR)
    finding("the C ABI without CUDA returned " + std::to_string(rc), samebits_last_error());
  const bool accepted = rc == SAMEBITS_NOT_BUILT;
  if (verbose()) std::fprintf(stderr, "  C ABI -> %d %s\n", rc, samebits_last_error());
  // What the check refuses, the call refuses with the same status and message.
  if (rc_check != SAMEBITS_OK && (rc != rc_check || check_message != samebits_last_error()))
    finding("the C ABI call and samebits_sparse_mla_check disagree",
            check_message + " | call: " + std::to_string(rc) + " " + samebits_last_error());
  compare("the C ABI", model_c(c, null_problem), accepted, static_cast<StatusCode>(rc), samebits_last_error(), c);
  if (accepted) check_safe(c, 0);
  // Without the GPU kernels the workspace size is unknown: -1, whatever the problem.
  if (const std::int64_t w = samebits_sparse_mla_backward_workspace_bytes(pp); w != -1)
    finding("samebits_sparse_mla_backward_workspace_bytes without CUDA returned " + std::to_string(w), describe(c));
}

// The fingerprint (docs §7) and the index-error report (without CUDA: not built).
void run_c_misc(Reader& r) {
  const std::int32_t libm = pick_i32(r, r.u8() & 1, {2, -1, INT32_MIN});
  const std::uint8_t lb = r.u8();
  char buf[80];
  std::memset(buf, 0x55, sizeof buf);
  const std::int64_t len = lb < 200 ? 64 : lb < 240 ? (lb - 200) : lb < 250 ? -1 : 0;
  const bool null_buf = lb >= 250;
  const std::int32_t rc = samebits_sparse_mla_fingerprint(libm, null_buf ? nullptr : buf, len);
  const std::string want =
      std::string("samebits-sparse-mla/1 policy=fma-chain/1 B=64 libm=") + (libm == 0 ? "nvcc" : "cr");
  const std::int32_t expect = libm != 0 && libm != 1 ? SAMEBITS_UNSUPPORTED
                              : null_buf || len < static_cast<std::int64_t>(want.size()) + 1
                                  ? SAMEBITS_INVALID_ARGUMENT
                                  : SAMEBITS_OK;
  if (rc != expect)
    finding("samebits_sparse_mla_fingerprint returned " + std::to_string(rc) + ", expected " + std::to_string(expect),
            "libm " + std::to_string(libm) + ", len " + std::to_string(len));
  if (rc == SAMEBITS_OK && want != buf) finding("samebits_sparse_mla_fingerprint wrote " + std::string(buf), want);
  if (rc != SAMEBITS_OK) {
    const std::string m = samebits_last_error();
    if (m.find(expect == SAMEBITS_UNSUPPORTED ? "libm" : "buffer") == std::string::npos)
      finding("samebits_sparse_mla_fingerprint refusal names no argument", m);
    for (std::size_t i = 0; i < sizeof buf; ++i)
      if (static_cast<unsigned char>(buf[i]) != 0x55) finding("samebits_sparse_mla_fingerprint wrote on refusal", m);
  }
  static std::int32_t flag = 0;
  if (samebits_sparse_mla_check_index_error(&flag, nullptr) != SAMEBITS_NOT_BUILT)
    finding("samebits_sparse_mla_check_index_error without CUDA did not return SAMEBITS_NOT_BUILT", "");
}

// check_indices on a small host array [tokens, topk] (row stride topk).
void run_indices(Reader& r) {
  ks::ProblemParams p;
  const std::uint8_t shape = r.u8();
  p.tokens = shape % 9;
  p.topk = 1 + (shape >> 4) % 9;
  const std::uint8_t kb = r.u8();
  p.num_kv = kb < 200 ? kb % 12 : kb < 220 ? 0 : kb < 240 ? INT32_MAX - 1 : 1;
  p.heads = 1, p.d = 512;
  std::vector<std::int32_t> idx(static_cast<std::size_t>(p.tokens * p.topk));
  for (std::int32_t& x : idx) {
    const std::uint8_t b = r.u8();
    if (b < 200) x = p.num_kv ? static_cast<std::int32_t>(b % std::min<std::int64_t>(p.num_kv, 200)) : -1;
    else if (b < 220) x = -1;
    else if (b < 225) x = -2;
    else if (b < 230) x = static_cast<std::int32_t>(p.num_kv);  // one past
    else if (b < 235) x = INT32_MIN;
    else if (b < 240) x = INT32_MAX;
    else if (b < 245) x = static_cast<std::int32_t>(p.num_kv - 1);
    else x = static_cast<std::int32_t>(r.u32());
  }
  const ks::Status s = ksv::check_indices(p, idx.data());
  // The model: every index in -1 .. num_kv - 1; a refusal names a bad (token, slot).
  std::vector<std::pair<std::int64_t, int>> bad;
  for (std::int64_t t = 0; t < p.tokens; ++t)
    for (int k = 0; k < p.topk; ++k) {
      const std::int64_t x = idx[static_cast<std::size_t>(t * p.topk + k)];
      if (x < -1 || x >= p.num_kv) bad.push_back({t, k});
    }
  if (verbose())
    std::fprintf(stderr, "indices tokens=%lld topk=%d num_kv=%lld -> %s\n", static_cast<long long>(p.tokens), p.topk,
                 static_cast<long long>(p.num_kv), s.ok() ? "accepted" : s.message.c_str());
  if (s.ok() && !bad.empty())
    finding("check_indices accepts an index outside -1 .. num_kv - 1",
            "token " + std::to_string(bad[0].first) + ", slot " + std::to_string(bad[0].second));
  if (!s.ok() && bad.empty()) finding("check_indices refuses valid indices", s.message);
  if (s.ok()) return;
  if (s.code != StatusCode::invalid_argument) finding("check_indices refuses with a code other than invalid", s.message);
  bool named = false;
  for (auto [t, k] : bad)
    named = named || (s.message.find("token " + std::to_string(t) + ",") != std::string::npos &&
                      s.message.find("slot " + std::to_string(k) + " ") != std::string::npos);
  if (!named || s.message.find("indices") == std::string::npos)
    finding("check_indices refusal names no bad token and slot", s.message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader r{data, size};
  KindTable kinds;
  const Call c = decode(r, kinds);
  run_cpp(c, kinds);
  run_c(c, r.u8() >= 250);
  run_c_misc(r);
  run_indices(r);
  return 0;
}
