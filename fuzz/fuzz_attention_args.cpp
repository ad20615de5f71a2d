// fuzz_attention_args — the attention argument validation
// (kernels/src/validate/attention_validate.cpp, behind both the C++ host API
// and the C ABI) on random shapes, strides, dtypes, cu_seqlens, options and
// pointers. Pointers are fake (never dereferenced); what kind of memory each
// is (device, host, unknown to CUDA) comes from the input, through the
// validator's pointer-kind callback, so no GPU is needed.
//
// Each input is checked three ways:
//  - the validator (check_forward / check_backward) against an independent
//    model of what must be refused, written from docs/kernels/attention.md §2,
//    api.hpp and c_api.h: it must refuse exactly when the model finds a
//    violated rule, with the status code of one of the violated rules, and a
//    message that names that rule's argument;
//  - what it accepts must be safe for the kernels: every tensor's largest
//    element offset (computed in __int128) within int64/4, its last byte
//    inside the address space, its (row, head) spans disjoint (checked
//    exhaustively when there are at most 4096), the sequences monotone and
//    inside the totals, the workspace sizes representable;
//  - the C ABI entry points (samebits_attention_forward / _backward, built
//    without CUDA: they run the whole validation, pointer kinds excepted, and
//    return its refusal or SAMEBITS_NOT_BUILT) against the same model plus the
//    C ABI's own rules.
// The problem also carries the arithmetic policy (attention.md §7: codes 0
// fma-chain, 1 sm90-tensor-core, and invalid ones) and, or not, the
// tensor-core model's parameters (samebits_mma_params, each field valid or
// not, enum codes that would wrap in a uint8 included). The GPU entry points
// take sm90-tensor-core only as its kernels can compute it (bf16/f16 inputs,
// the hardware's model parameters, tile_rows 0, rows in 16-byte chunks, a
// hand-over at 16-row groups), else SAMEBITS_UNSUPPORTED naming the rule;
// and two more C entry points see the same problem:
//  - samebits_attention_problem_fingerprint (reads policy, mma, libm): its
//    verdict against the model (buffer sizes too), and an accepted string
//    equal to the one written here from docs/kernels/attention-tc.md §9;
//  - the CPU reference (samebits_attention_reference_forward / _backward),
//    when the problem is small enough to give it real buffers filled with
//    one value of every input dtype (totals <= 32 rows, heads <= 4, D <= 128,
//    at most 4 sequences): refused exactly when the model of its checks (the
//    C problem's rules, sm90-tensor-core's 16-bit inputs) says so, else run.
//  - samebits_attention_check (the problem without tensors): its verdict
//    against the model's problem rules, and, when it refuses, the call
//    refusing with the same status and message.
// Outputs must not overlap inputs or each other (the bytes from first to last
// element, pointer, strides and shape), the backward's accum_*_in may be its
// accum_* exactly; a scale is NaN (the default) or finite and > 0.
// Any disagreement is a finding (abort, "finding: ..." on stderr). With
// SAMEBITS_FUZZ_VERBOSE set, each call and both verdicts are printed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attention_validate.hpp"
#include "capi/marshal.hpp"
#include "fuzz_args_common.hpp"
#include "samebits/kernels/attention/api.hpp"
#include "samebits/kernels/c_api.h"

namespace {

namespace ka = samebits::kernels::attention;
namespace kv = samebits::kernels::attention::validate;
using samebits::kernels::DType;
using namespace fuzz_args;

constexpr auto kInvalid = ka::StatusCode::invalid_argument;
constexpr auto kUnsupported = ka::StatusCode::unsupported;

struct Problem {
  std::int32_t libm = 0, in_dtype = 1, o_dtype = 1, grad_dtype = 1;
  std::int32_t d = 64, hq = 1, hkv = 1, num_seqs = 1, tile_rows = 0, causal = 0;
  std::int32_t max_q = 0, max_k = 0;
  std::int64_t total_q = 0, total_k = 0;
  float scale = 0.125f;
  std::vector<std::int32_t> cu_q, cu_k;  // num_seqs + 1 entries when num_seqs is in 1..kMaxSeqs
  bool host_q_null = false, host_k_null = false;
  FakePtr dev_cu_q, dev_cu_k;
  std::int32_t policy = 0;  // c_api.h samebits_policy code (any int32)
  bool has_mma = false;     // samebits_attention_problem.mma non-null
  samebits_mma_params mma{25, 16, 0, 0, 1, 0, 1, 0};  // the header's defaults (ignored, positive)
};

// The tensor-core model's parameters, field by field (c_api.h, mma.md §2):
// the valid values of each, written here again.
struct MmaField {
  const char* name;
  std::int32_t samebits_mma_params::*member;
  bool (*valid)(std::int32_t);
};
const MmaField kMmaFields[] = {
    {"frac_bits", &samebits_mma_params::frac_bits, [](std::int32_t v) { return v >= 1 && v <= 40; }},
    {"group", &samebits_mma_params::group,
     [](std::int32_t v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16; }},
    {"rounding", &samebits_mma_params::rounding, [](std::int32_t v) { return v == 0 || v == 1; }},
    {"c_join", &samebits_mma_params::c_join, [](std::int32_t v) { return v == 0 || v == 1; }},
    {"zero_exponent", &samebits_mma_params::zero_exponent, [](std::int32_t v) { return v >= 0 && v <= 2; }},
    {"product_exponent", &samebits_mma_params::product_exponent, [](std::int32_t v) { return v == 0 || v == 1; }},
    {"zero_sign", &samebits_mma_params::zero_sign, [](std::int32_t v) { return v == 0 || v == 1; }},
    {"overflow", &samebits_mma_params::overflow, [](std::int32_t v) { return v == 0 || v == 1; }},
};

// The C ABI's rules on policy and mma (c_api.h: mma is read only by
// sm90-tensor-core, null means the defaults).
void model_policy_c(const Problem& p, Violations& v) {
  if (p.policy != 0 && p.policy != 1) v.push_back({"policy code", kUnsupported, {"policy code"}});
  if (!p.has_mma) return;
  if (p.policy != 1) v.push_back({"mma only under sm90-tensor-core", kInvalid, {"mma is read only"}});
  for (const MmaField& f : kMmaFields)
    if (!f.valid(p.mma.*f.member))
      v.push_back({std::string("mma.") + f.name, kInvalid, {std::string("mma: ") + f.name + ":"}});
}

constexpr std::int32_t kMaxSeqs = 65536;  // arrays longer than the limit 65535 are built

bool code_known(std::int32_t t) { return t == 0 || t == 1 || t == 2; }
int size_of(std::int32_t t) { return t == 0 ? 4 : 2; }

// The longest sequence (what max_seqlen must bound), in int64.
std::int64_t longest(const std::vector<std::int32_t>& cu) {
  std::int64_t m = 0;
  for (std::size_t s = 1; s < cu.size(); ++s) m = std::max(m, std::int64_t{cu[s]} - cu[s - 1]);
  return m;
}

// cu_seqlens (docs §2): num_seqs + 1 entries, starting at 0, non-decreasing,
// ending at the totals.
void model_cu(const Problem& p, Violations& v) {
  const auto& q = p.cu_q;
  const auto& k = p.cu_k;
  if (q[0] != 0 || k[0] != 0) v.push_back({"cu_seqlens start at 0", kInvalid, {"cu_seqlens"}});
  bool monotone = true;
  for (int s = 0; s < p.num_seqs; ++s) monotone = monotone && q[s + 1] >= q[s] && k[s + 1] >= k[s];
  if (!monotone) v.push_back({"cu_seqlens non-decreasing", kInvalid, {"cu_seqlens"}});
  if (q[p.num_seqs] != p.total_q || k[p.num_seqs] != p.total_k)
    v.push_back({"cu_seqlens[num_seqs] == totals", kInvalid, {"cu_seqlens", "total_q"}});
}

bool mma_valid(const samebits_mma_params& m) {
  for (const MmaField& f : kMmaFields)
    if (!f.valid(m.*f.member)) return false;
  return true;
}

// The problem's rules (api.hpp / params.hpp / docs §2, rules.hpp), for the C++
// API; device_pointers: whether the device cu_seqlens are looked at (the
// C ABI's samebits_attention_check does not).
void model_problem(const Problem& p, Violations& v, bool device_pointers = true) {
  // sm90-tensor-core (attention-tc.md §1): bf16/f16 inputs, the launcher's tiles, and the
  // hardware's model parameters only (tc::kHardwareParams: the header's defaults), valid ones first.
  if (p.policy == 1) {
    if (p.in_dtype != 1 && p.in_dtype != 2) v.push_back({"sm90-tensor-core: bf16 or f16 inputs", kUnsupported, {"in_dtype"}});
    if (p.tile_rows != 0) v.push_back({"sm90-tensor-core: tile_rows 0", kUnsupported, {"tile_rows"}});
    const samebits_mma_params hw{25, 16, 0, 0, 1, 0, 1, 0};
    if (p.has_mma && !mma_valid(p.mma))
      v.push_back({"sm90-tensor-core: the hardware's model parameters (valid ones)", kInvalid, {"mma: "}});
    else if (p.has_mma && std::memcmp(&p.mma, &hw, sizeof hw) != 0)
      v.push_back({"sm90-tensor-core: the hardware's model parameters", kUnsupported, {"other arithmetic"}});
  } else if (p.policy != 0) {
    v.push_back({"policy code", kUnsupported, {"policy code"}});
  }
  if (p.libm != 0 && p.libm != 1 && p.libm != 2) v.push_back({"libm code", kUnsupported, {"libm"}});
  else if (p.libm == 2 && p.policy != 1) v.push_back({"nvcc-fast: sm90-tensor-core only", kUnsupported, {"nvcc-fast"}});
  if (!code_known(p.in_dtype)) v.push_back({"input dtype code", kUnsupported, {"in_dtype"}});
  if (p.d != 64 && p.d != 128) v.push_back({"D not 64 or 128", kUnsupported, {"d = "}});
  if (p.hq <= 0 || p.hkv <= 0) v.push_back({"hq, hkv positive", kInvalid, {"hq", "hkv"}});
  else if (p.hq % p.hkv != 0) v.push_back({"hq % hkv != 0 (GQA)", kInvalid, {"hq", "hkv"}});
  if (p.hq > 65535) v.push_back({"hq above 65535", kUnsupported, {"hq"}});
  if (p.tile_rows != 0 && p.tile_rows != 64 && p.tile_rows != 128)
    v.push_back({"tile_rows", kUnsupported, {"tile_rows"}});
  // NaN: not given (the default); a given scale is finite and > 0 (0 is never the default).
  if (!std::isnan(p.scale) && (!std::isfinite(p.scale) || p.scale <= 0.0f))
    v.push_back({"scale NaN or finite > 0", kInvalid, {"scale"}});
  if (p.num_seqs < 1 || p.num_seqs > 65535) v.push_back({"num_seqs in 1..65535", kInvalid, {"num_seqs"}});
  if (p.host_q_null || p.host_k_null) v.push_back({"host cu_seqlens", kInvalid, {"cu_seqlens"}});
  if (device_pointers && (p.dev_cu_q.addr == 0 || p.dev_cu_k.addr == 0))
    v.push_back({"device cu_seqlens", kInvalid, {"cu_seqlens"}});
  if (p.num_seqs < 1 || p.num_seqs > 65535 || p.host_q_null || p.host_k_null) return;
  model_cu(p, v);
  if (p.max_q < longest(p.cu_q) || p.max_k < longest(p.cu_k))
    v.push_back({"max_seqlen >= longest", kInvalid, {"max_seqlen"}});
  if (p.max_q > (1 << 30) || p.max_k > (1 << 30)) v.push_back({"max_seqlen <= 2^30", kInvalid, {"max_seqlen"}});
}

// The output dtypes (o; the gradients' in the backward): the input dtype or float32.
void model_output_dtypes(const Problem& p, bool backward, Violations& v) {
  if (p.o_dtype != p.in_dtype && p.o_dtype != 0) v.push_back({"o dtype", kUnsupported, {"o_dtype"}});
  if (backward && p.grad_dtype != p.in_dtype && p.grad_dtype != 0)
    v.push_back({"gradient dtype", kUnsupported, {"grad_dtype"}});
}

// The largest element offset of a tensor, exactly.
i128 max_offset(const TensorArg& t, std::int64_t rows, std::int64_t heads, int d) {
  return i128{rows - 1} * t.row + i128{heads - 1} * t.head + (d - 1);
}

void model_address(const char* name, FakePtr f, i128 bytes, int align, Violations& v, bool kinds) {
  const std::string n = name;
  const std::vector<std::string> names = {std::string("attention: ") + n + " ", std::string("attention: ") + n + ":"};
  if (f.addr == 0) { v.push_back({n + " null", kInvalid, names}); return; }
  if (f.addr % align) v.push_back({n + " misaligned", kInvalid, names});
  if (kinds && f.kind != kDevice) v.push_back({n + " not device memory", kInvalid, names});
  if (i128{f.addr} + bytes - 1 > i128{UINT64_MAX}) v.push_back({n + " past the address space", kInvalid, names});
}

// A [rows, heads, D] tensor (docs §2: last dimension contiguous, strides in
// elements; api: positive strides, rows and heads nested in either order
// without overlap, element offsets within int64/4).
void model_tensor(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t heads, int d, Violations& v,
                  bool kinds) {
  if (rows <= 0) return;  // empty: anything goes (rows < 0 is refused by the problem's rules)
  const std::string n = t.name;
  const std::vector<std::string> names = {"attention: " + n + " ", "attention: " + n + ":"};
  const int size = size_of(dtype);
  const i128 last = max_offset(t, rows, heads, d);
  const i128 cap = i128{1} << 80;  // past any address space, and no overflow of i128 below
  model_address(t.name, t.ptr, t.row > 0 && t.head > 0 ? (last < cap ? (last + 1) * size : cap) : 1, size, v, kinds);
  if (t.row <= 0 || t.head <= 0) { v.push_back({n + " strides positive", kInvalid, names}); return; }
  // Nested: the inner dimension's spans of D do not overlap, and the outer
  // stride clears all of them; the inner dimension is the one of the smaller
  // stride (the head, on a tie).
  const bool head_inner = t.head <= t.row;
  const i128 in_stride = head_inner ? t.head : t.row, out_stride = head_inner ? t.row : t.head;
  const i128 in_count = head_inner ? heads : rows, out_count = head_inner ? rows : heads;
  if (in_stride < d || (out_count > 1 && out_stride < in_stride * in_count))
    v.push_back({n + " spans overlap", kInvalid, names});
  if (last > INT64_MAX / 4) v.push_back({n + " offsets beyond int64/4", kInvalid, names});
}

struct Call {
  Problem p;
  bool backward = false;
  TensorArg q{"q"}, k{"k"}, v{"v"}, o{"o"}, dout{"dout"}, dq{"dq"}, dk{"dk"}, dv{"dv"};
  FakePtr lse, delta, accum_k, accum_v, accum_k_in, accum_v_in, dq_accum, dq_flags;
  FakePtr ds_workspace;  // the C ABI's carving only (sm90-tensor-core, a workspace large enough)
  std::int64_t ds_workspace_bytes = 0;
  // C ABI only
  FakePtr workspace;
  std::int64_t workspace_bytes = 0;
  std::uint8_t fingerprint_mode = 0;  // the problem fingerprint's buffer (run_fingerprint)
  std::uint8_t reference_fill = 0;    // the reference's input values (run_reference)
};

// The stored-D^S workspace's bytes (api.hpp backward_ds_workspace_bytes), -1 when negative or past int64.
i128 ds_need(const Problem& p) {
  if (p.num_seqs < 0 || p.max_q < 0 || p.max_k < 0 || p.hq < 0) return -1;
  const i128 n = i128{p.num_seqs} * ((i128{p.max_q} + 63) / 64 + 1) * ((i128{p.max_k} + 127) / 128) * p.hq * 16384;
  return n > INT64_MAX ? -1 : n;
}

// An argument's bytes, first to last (empty: none).
struct ModelSpan {
  std::string name;
  i128 first = 0, last = -1;
  std::string alias_of;  // an output this input may be exactly
};
ModelSpan bytes_span(const std::string& name, FakePtr f, i128 bytes) {
  ModelSpan s;
  s.name = name;
  if (f.addr != 0 && bytes > 0) s.first = f.addr, s.last = i128{f.addr} + bytes - 1;
  return s;
}
ModelSpan tensor_span(const TensorArg& t, std::int32_t dtype, std::int64_t rows, std::int64_t heads, int d) {
  const i128 bytes = rows <= 0 || heads <= 0 ? 0 : (max_offset(t, rows, heads, d) + 1) * size_of(dtype);
  return bytes_span(t.name, t.ptr, bytes);
}

// Outputs share no byte with an input or another output (the accum_*_in
// inputs may be their accum_* workspace part exactly).
void model_overlaps(const Call& c, Violations& v) {
  const Problem& p = c.p;
  const std::int64_t tq = p.total_q, tk = p.total_k;
  const int d = p.d;
  const i128 rows_heads = i128{tq} * p.hq, accum = i128{tk} * p.hq * d;
  std::vector<ModelSpan> in = {tensor_span(c.q, p.in_dtype, tq, p.hq, d), tensor_span(c.k, p.in_dtype, tk, p.hkv, d),
                               tensor_span(c.v, p.in_dtype, tk, p.hkv, d),
                               bytes_span("cu_seqlens_q", p.dev_cu_q, (i128{p.num_seqs} + 1) * 4),
                               bytes_span("cu_seqlens_k", p.dev_cu_k, (i128{p.num_seqs} + 1) * 4)};
  std::vector<ModelSpan> out;
  if (!c.backward) {
    out = {tensor_span(c.o, p.o_dtype, tq, p.hq, d), bytes_span("lse", c.lse, rows_heads * 4)};
  } else {
    in.push_back(tensor_span(c.o, p.o_dtype, tq, p.hq, d));
    in.push_back(tensor_span(c.dout, p.in_dtype, tq, p.hq, d));
    in.push_back(bytes_span("lse", c.lse, rows_heads * 4));
    ModelSpan ak = bytes_span("accum_k_in", c.accum_k_in, accum * 4), av = bytes_span("accum_v_in", c.accum_v_in, accum * 4);
    ak.alias_of = "accum_k workspace", av.alias_of = "accum_v workspace";
    in.push_back(ak);
    in.push_back(av);
    out = {tensor_span(c.dq, p.grad_dtype, tq, p.hq, d), tensor_span(c.dk, p.grad_dtype, tk, p.hkv, d),
           tensor_span(c.dv, p.grad_dtype, tk, p.hkv, d), bytes_span("delta workspace", c.delta, rows_heads * 4),
           bytes_span("accum_k workspace", c.accum_k, accum * 4), bytes_span("accum_v workspace", c.accum_v, accum * 4),
           bytes_span("dq_accum workspace", c.dq_accum, rows_heads * d * 4),
           bytes_span("dq_flags workspace", c.dq_flags, (rows_heads + 1) * 4),
           bytes_span("ds_workspace", c.ds_workspace, c.ds_workspace.addr ? ds_need(p) : 0)};
  }
  auto meet = [](const ModelSpan& a, const ModelSpan& b) {
    return a.last >= a.first && b.last >= b.first && a.first <= b.last && b.first <= a.last;
  };
  for (std::size_t o = 0; o < out.size(); ++o) {
    for (const ModelSpan& i : in)
      if (meet(out[o], i) && !(i.alias_of == out[o].name && i.first == out[o].first && i.last == out[o].last))
        v.push_back({out[o].name + " overlaps " + i.name, kInvalid, {out[o].name + " overlaps " + i.name}});
    for (std::size_t e = 0; e < o; ++e)
      if (meet(out[o], out[e]))
        v.push_back({out[o].name + " overlaps " + out[e].name, kInvalid, {out[o].name + " overlaps " + out[e].name}});
  }
}

// What the C++ API must refuse (kinds: whether pointer kinds are known).
// The tensor-core kernels' rules on the tensors (attention-tc.md §1): rows
// copied in 16-byte chunks (q, k, v; the backward's dout too), and a backward
// continuing handed-on accumulators starts every sequence at a 16-row group.
void model_tc(const Call& c, Violations& v) {
  const Problem& p = c.p;
  if (p.policy != 1) return;
  auto chunked = [&](const TensorArg& t, std::int64_t rows) {
    if (rows > 0 && (t.ptr.addr % 16 != 0 || t.row % 8 != 0 || t.head % 8 != 0))
      v.push_back({std::string(t.name) + " in 16-byte chunks", kUnsupported, {"16-byte"}});
  };
  chunked(c.q, p.total_q);
  chunked(c.k, p.total_k);
  chunked(c.v, p.total_k);
  if (!c.backward) return;
  chunked(c.dout, p.total_q);
  if (c.accum_k_in.addr == 0 || p.host_q_null || p.host_k_null) return;
  for (int s = 0; s + 1 < static_cast<int>(p.cu_q.size()) && s < p.num_seqs && s + 1 < static_cast<int>(p.cu_k.size());
       ++s) {
    const std::int64_t lq = std::int64_t{p.cu_q[s + 1]} - p.cu_q[s], lk = std::int64_t{p.cu_k[s + 1]} - p.cu_k[s];
    if (lq > 0 && (((lk - lq) % 16) + 16) % 16 != 0)
      v.push_back({"hand-over at a 16-row group", kUnsupported, {"16-row group"}});
  }
}

Violations model_cpp(const Call& c, bool kinds) {
  Violations v;
  const Problem& p = c.p;
  model_problem(p, v);
  model_output_dtypes(p, c.backward, v);
  // The tensors' rules wherever their shapes mean something: even beside
  // another violation (a validator that wrongly passes that one must still
  // name the tensor it refuses).
  if (!code_known(p.in_dtype) || (p.d != 64 && p.d != 128) || p.hq <= 0 || p.hkv <= 0 || p.total_q < 0 ||
      p.total_k < 0)
    return v;
  const std::int64_t tq = p.total_q, tk = p.total_k;
  const int d = p.d;
  model_tensor(c.q, p.in_dtype, tq, p.hq, d, v, kinds);
  model_tensor(c.k, p.in_dtype, tk, p.hkv, d, v, kinds);
  model_tensor(c.v, p.in_dtype, tk, p.hkv, d, v, kinds);
  model_tensor(c.o, p.o_dtype, tq, p.hq, d, v, kinds);
  const i128 lse_elems = i128{tq} * p.hq;
  if (lse_elems > 0) model_address("lse", c.lse, lse_elems * 4, 4, v, kinds);
  if (!c.backward) {
    model_tc(c, v);
    if (v.empty()) model_overlaps(c, v);
    return v;
  }
  model_tensor(c.dout, p.in_dtype, tq, p.hq, d, v, kinds);
  model_tensor(c.dq, p.grad_dtype, tq, p.hq, d, v, kinds);
  model_tensor(c.dk, p.grad_dtype, tk, p.hkv, d, v, kinds);
  model_tensor(c.dv, p.grad_dtype, tk, p.hkv, d, v, kinds);
  const i128 accum_elems = i128{tk} * p.hq * d;
  if (lse_elems > 0) model_address("delta workspace", c.delta, lse_elems * 4, 4, v, kinds);
  if (accum_elems > 0) {
    model_address("accum_k workspace", c.accum_k, accum_elems * 4, 4, v, kinds);
    model_address("accum_v workspace", c.accum_v, accum_elems * 4, 4, v, kinds);
  }
  // dq's accumulators [total_q, hq, D] fp32, 16-byte aligned, and flags
  // [total_q * hq + 1] int32 (never empty).
  if (lse_elems > 0) model_address("dq_accum workspace", c.dq_accum, lse_elems * d * 4, 16, v, kinds);
  model_address("dq_flags workspace", c.dq_flags, (lse_elems + 1) * 4, 4, v, kinds);
  if ((c.accum_k_in.addr == 0) != (c.accum_v_in.addr == 0))
    v.push_back({"accum_k_in and accum_v_in together", kInvalid, {"accum_k_in"}});
  else if (c.accum_k_in.addr && accum_elems > 0) {
    model_address("accum_k_in", c.accum_k_in, accum_elems * 4, 4, v, kinds);
    model_address("accum_v_in", c.accum_v_in, accum_elems * 4, 4, v, kinds);
  }
  if (c.ds_workspace.addr) {  // the C ABI's carving of a workspace large enough (sm90-tensor-core)
    const i128 need = ds_need(p);
    if (p.policy != 1) v.push_back({"ds_workspace: sm90-tensor-core only", kInvalid, {"ds_workspace"}});
    else if (need < 0) v.push_back({"ds_workspace size representable", kInvalid, {"ds_workspace"}});
    else if (c.ds_workspace_bytes < need) v.push_back({"ds_workspace large enough", kInvalid, {"ds_workspace"}});
    else model_address("ds_workspace", c.ds_workspace, need / 4 * 4, 16, v, kinds);
  }
  model_tc(c, v);
  // The validator looks at overlaps last, once every tensor is well formed.
  if (v.empty()) model_overlaps(c, v);
  return v;
}

[[noreturn]] void finding(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "finding: %s\n  %s\n", what.c_str(), detail.c_str());
  std::abort();
}

std::string describe(const Call& c) {
  const Problem& p = c.p;
  std::string s = std::string(c.backward ? "backward" : "forward") + " libm=" + std::to_string(p.libm) +
                  " dtypes=" + std::to_string(p.in_dtype) + "," + std::to_string(p.o_dtype) + "," +
                  std::to_string(p.grad_dtype) + " d=" + std::to_string(p.d) + " hq=" + std::to_string(p.hq) +
                  " hkv=" + std::to_string(p.hkv) + " num_seqs=" + std::to_string(p.num_seqs) +
                  " total_q=" + std::to_string(p.total_q) + " total_k=" + std::to_string(p.total_k) +
                  " max=" + std::to_string(p.max_q) + "," + std::to_string(p.max_k) +
                  " policy=" + std::to_string(p.policy);
  if (p.has_mma)
    for (const MmaField& f : kMmaFields) s += std::string(" ") + f.name + "=" + std::to_string(p.mma.*f.member);
  for (const TensorArg* t : {&c.q, &c.k, &c.v, &c.o, &c.dout, &c.dq, &c.dk, &c.dv})
    s += std::string(" ") + t->name + "=(" + std::to_string(t->row) + "," + std::to_string(t->head) + ")";
  return s;
}

// A refusal must carry the code of a violated rule and name its argument.
void compare(const char* who, const Violations& v, bool accepted, ka::StatusCode code, const std::string& message,
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
  if (t.row <= 0 || t.head <= 0 || last > INT64_MAX / 4 || i128{t.ptr.addr} + (last + 1) * size_of(dtype) - 1 > i128{UINT64_MAX})
    finding(std::string("accepted tensor ") + t.name + " indexes out of bounds", std::to_string(t.row) + "," +
                                                                               std::to_string(t.head));
  if (rows * heads > 4096) return;
  std::vector<i128> offs;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t h = 0; h < heads; ++h) offs.push_back(i128{r} * t.row + i128{h} * t.head);
  std::sort(offs.begin(), offs.end());
  for (std::size_t i = 1; i < offs.size(); ++i)
    if (offs[i] - offs[i - 1] < d) finding(std::string("accepted tensor ") + t.name + " has overlapping spans", "");
}

void check_safe(const Call& c) {
  const Problem& p = c.p;
  if (p.num_seqs < 1 || p.num_seqs > 65535 || p.hq < 1 || p.hkv < 1 || p.hq % p.hkv || p.hq > 65535)
    finding("accepted an impossible problem", describe(c));
  std::int64_t prev_q = 0, prev_k = 0;
  for (int s = 0; s <= p.num_seqs; ++s) {
    if (p.cu_q[s] < prev_q || p.cu_k[s] < prev_k || p.cu_q[s] > p.total_q || p.cu_k[s] > p.total_k)
      finding("accepted cu_seqlens that index outside the totals", describe(c));
    if (s && (p.cu_q[s] - prev_q > p.max_q || p.cu_k[s] - prev_k > p.max_k))
      finding("accepted a sequence longer than max_seqlen", describe(c));
    prev_q = p.cu_q[s], prev_k = p.cu_k[s];
  }
  check_safe_tensor(c.q, p.in_dtype, p.total_q, p.hq, p.d);
  check_safe_tensor(c.k, p.in_dtype, p.total_k, p.hkv, p.d);
  check_safe_tensor(c.v, p.in_dtype, p.total_k, p.hkv, p.d);
  check_safe_tensor(c.o, p.o_dtype, p.total_q, p.hq, p.d);
  if (c.backward) {
    check_safe_tensor(c.dout, p.in_dtype, p.total_q, p.hq, p.d);
    check_safe_tensor(c.dq, p.grad_dtype, p.total_q, p.hq, p.d);
    check_safe_tensor(c.dk, p.grad_dtype, p.total_k, p.hkv, p.d);
    check_safe_tensor(c.dv, p.grad_dtype, p.total_k, p.hkv, p.d);
    if (i128{p.total_k} * p.hq * p.d * 4 > INT64_MAX) finding("accepted a workspace beyond int64", describe(c));
  }
}

// --- decoding one call ---
std::int32_t pick_i32(Reader& r, std::int32_t valid, std::initializer_list<std::int32_t> others) {
  const std::uint8_t c = r.u8();
  if (c < 200) return valid;
  const std::size_t i = c - 200;
  if (i < others.size()) return others.begin()[i];
  return static_cast<std::int32_t>(r.u32());
}

std::vector<std::int32_t> decode_cu(Reader& r, int n) {
  std::vector<std::int32_t> cu(static_cast<std::size_t>(n) + 1, 0);
  std::int64_t acc = 0;
  for (int s = 0; s < n; ++s) {
    const std::uint8_t b = r.u8();
    std::int64_t len;
    if (b < 200) len = b % 33;
    else if (b < 240) len = std::int64_t{b - 200} << 26;  // up to 2^31 and past: wraps int32
    else if (b < 250) len = -(b - 239);
    else len = static_cast<std::int32_t>(r.u32());
    acc += len;
    cu[s + 1] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc));
  }
  if (r.u8() >= 240) cu[0] = static_cast<std::int32_t>(r.u32() | 1u);
  return cu;
}


std::int32_t decode_max(Reader& r, std::int32_t longest_len) {
  switch (r.u8() % 8) {
    case 1: return longest_len - 1;
    case 2: return 1 << 30;
    case 3: return (1 << 30) + 1;
    case 4: return static_cast<std::int32_t>(r.u32());
    case 5: return static_cast<std::int32_t>(std::min<std::int64_t>(std::int64_t{longest_len} + r.u8(), INT32_MAX));
    default: return longest_len;
  }
}

// byte < 160: a valid value (0: the default); then the listed values, then a raw u32.
std::int32_t decode_mma_field(Reader& r, std::int32_t dflt, std::int32_t (*valid)(std::uint8_t),
                              std::initializer_list<std::int32_t> others) {
  const std::uint8_t b = r.u8();
  if (b == 0) return dflt;
  if (b < 160) return valid(b);
  const std::size_t i = b - 160;
  if (i < others.size()) return others.begin()[i];
  return static_cast<std::int32_t>(r.u32());
}

void decode_policy(Reader& r, Problem& p) {
  const std::uint8_t pol = r.u8();
  if (pol < 128) p.policy = 0;
  else if (pol < 240) p.policy = 1;
  else {
    const std::int32_t bad[] = {2, -1, 256, 257, INT32_MIN, INT32_MAX};
    p.policy = pol - 240 < 6 ? bad[pol - 240] : static_cast<std::int32_t>(r.u32());
  }
  p.has_mma = r.u8() >= 128;
  if (!p.has_mma) return;
  // Enum codes past 255 would wrap into valid ones in the model's uint8 enums.
  const std::initializer_list<std::int32_t> bad_enum2 = {2, 255, 256, 257, -1, INT32_MIN, INT32_MAX, 3};
  p.mma.frac_bits = decode_mma_field(r, 25, [](std::uint8_t b) { return 1 + b % 40; },
                                     {0, 41, -1, 64, INT32_MIN, INT32_MAX, 256 + 25, 40, 1});
  p.mma.group = decode_mma_field(r, 16, [](std::uint8_t b) { return std::int32_t{1} << (b % 5); },
                                 {0, 3, 32, -16, 5, 6, 12, 17, 256 + 16, INT32_MIN});
  p.mma.rounding = decode_mma_field(r, 0, [](std::uint8_t b) { return std::int32_t{b % 2}; }, bad_enum2);
  p.mma.c_join = decode_mma_field(r, 0, [](std::uint8_t b) { return std::int32_t{b % 2}; }, bad_enum2);
  p.mma.zero_exponent = decode_mma_field(r, 1, [](std::uint8_t b) { return std::int32_t{b % 3}; },
                                         {3, 255, 256, 258, -1, INT32_MIN, INT32_MAX});
  p.mma.product_exponent = decode_mma_field(r, 0, [](std::uint8_t b) { return std::int32_t{b % 2}; }, bad_enum2);
  p.mma.zero_sign = decode_mma_field(r, 1, [](std::uint8_t b) { return std::int32_t{b % 2}; }, bad_enum2);
  p.mma.overflow = decode_mma_field(r, 0, [](std::uint8_t b) { return std::int32_t{b % 2}; }, bad_enum2);
}

std::int64_t decode_total(Reader& r, const std::vector<std::int32_t>& cu) {
  const std::int64_t t = cu.empty() ? 0 : cu.back();
  switch (r.u8() % 16) {
    case 1: return t + 1;
    case 2: return t - 1;
    case 3: return static_cast<std::int64_t>(r.u64());
    case 4: return t + (std::int64_t{1} << 32);
    default: return t;
  }
}

Call decode(Reader& r, KindTable& kinds) {
  Call c;
  Problem& p = c.p;
  const std::uint8_t mode = r.u8();
  c.backward = mode & 1;
  p.libm = pick_i32(r, (mode >> 1) & 1, {2, 3, -1, INT32_MIN});  // 2: nvcc-fast, sm90-tensor-core only
  p.in_dtype = pick_i32(r, 1 + ((mode >> 2) & 1), {0, 3, -1});
  p.o_dtype = pick_i32(r, p.in_dtype, {0, 1, 2, 3});
  p.grad_dtype = pick_i32(r, p.in_dtype, {0, 1, 2, 3});
  p.d = pick_i32(r, (mode >> 3) & 1 ? 128 : 64, {96, 256, 0, -64, 127});
  const std::uint8_t hb = r.u8();
  p.hkv = 1 + hb % 8;
  p.hq = p.hkv * (1 + (hb >> 3) % 8);
  p.hkv = pick_i32(r, p.hkv, {0, -1, 3, 65536, INT32_MAX, 7});
  p.hq = pick_i32(r, p.hq, {0, -8, 65535, 65536, INT32_MAX, 65535 * 2, 1 << 30, 12});
  p.tile_rows = pick_i32(r, 0, {64, 128, 32, -1, 256});
  p.causal = pick_i32(r, (mode >> 4) & 1, {2, -1});
  const std::uint8_t sc = r.u8();
  p.scale = sc < 200   ? 0.125f
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
  const std::uint8_t nb = r.u8();
  p.num_seqs = nb < 200 ? 1 + nb % 8
               : nb < 210 ? 0
               : nb < 220 ? -1
               : nb < 230 ? 65535
               : nb < 240 ? 65536
               : nb < 250 ? INT32_MIN
                          : 1 + static_cast<std::int32_t>(r.u32() % 300);
  if (p.num_seqs >= 1 && p.num_seqs <= kMaxSeqs) {
    p.cu_q = decode_cu(r, p.num_seqs);
    p.cu_k = r.u8() < 128 ? p.cu_q : decode_cu(r, p.num_seqs);
  }
  p.total_q = decode_total(r, p.cu_q);
  p.total_k = decode_total(r, p.cu_k);
  p.max_q = decode_max(r, static_cast<std::int32_t>(std::min<std::int64_t>(longest(p.cu_q), INT32_MAX)));
  p.max_k = decode_max(r, static_cast<std::int32_t>(std::min<std::int64_t>(longest(p.cu_k), INT32_MAX)));
  const std::uint8_t nulls = r.u8();
  p.host_q_null = nulls >= 250 && (nulls & 1);
  p.host_k_null = nulls >= 250 && (nulls & 2);
  p.dev_cu_q = FakePtr{nulls >= 240 && nulls < 245 ? 0 : std::uintptr_t{0x7000} << 32};
  p.dev_cu_k = FakePtr{nulls >= 245 && nulls < 250 ? 0 : std::uintptr_t{0x7100} << 32};
  // Tensors: rows and heads as the kernels read them (totals, hq, hkv); the
  // strides may be anything.
  const std::int64_t tq = p.total_q, tk = p.total_k;
  const int d = p.d;
  int index = 0;
  TensorArg* prev = nullptr;
  for (TensorArg* t : {&c.q, &c.k, &c.v, &c.o, &c.dout, &c.dq, &c.dk, &c.dv}) {
    const bool is_q = t == &c.q || t == &c.o || t == &c.dout || t == &c.dq;
    t->ptr = decode_ptr(r, index++, &kinds);
    decode_strides(r, *t, is_q ? tq : tk, is_q ? p.hq : p.hkv, d, prev);
    prev = t;
  }
  c.lse = decode_ptr(r, index++, &kinds);
  c.delta = decode_ptr(r, index++, &kinds);
  c.accum_k = decode_ptr(r, index++, &kinds);
  c.accum_v = decode_ptr(r, index++, &kinds);
  const std::uint8_t in = r.u8();
  if (in % 4 == 1 || in % 4 == 3) c.accum_k_in = decode_ptr(r, index++, &kinds);
  if (in % 4 == 2 || in % 4 == 3) c.accum_v_in = decode_ptr(r, index++, &kinds);
  if (in % 4 == 3 && (in & 4)) c.accum_k_in = c.accum_k, c.accum_v_in = c.accum_v;  // in place (allowed)
  // Workspace of the C ABI: 256-aligned base, its size what it needs or not.
  c.workspace = decode_ptr(r, 31, nullptr);  // the C ABI without CUDA asks no kinds
  const std::int64_t need = samebits_attention_backward_workspace_bytes(tq, tk, p.hq, d);
  const std::uint8_t wb = r.u8();
  c.workspace_bytes = wb < 200 ? need : wb < 220 ? need - 1 : wb < 240 ? INT64_MAX : static_cast<std::int64_t>(r.u64());
  // dq's workspaces (read last: inputs from before they existed decode as before).
  c.dq_accum = decode_ptr(r, 20, &kinds);
  c.dq_flags = decode_ptr(r, 21, &kinds);
  // The policy and the model's parameters, then the fingerprint's buffer and
  // the reference's fill (read after all of the above, for the same reason:
  // an older input decodes as fma-chain, mma null).
  decode_policy(r, p);
  c.fingerprint_mode = r.u8();
  c.reference_fill = r.u8();
  // Two fake pointers may share an address (the fixed ones near the top):
  // the kind is the address's, as the callback answers it.
  for (FakePtr* f : {&c.q.ptr, &c.k.ptr, &c.v.ptr, &c.o.ptr, &c.dout.ptr, &c.dq.ptr, &c.dk.ptr, &c.dv.ptr, &c.lse,
                     &c.delta, &c.accum_k, &c.accum_v, &c.accum_k_in, &c.accum_v_in, &c.dq_accum, &c.dq_flags}) {
    const kv::MemoryKind m = KindTable::query(reinterpret_cast<const void*>(f->addr), &kinds);
    f->kind = m == kv::MemoryKind::device ? kDevice : m == kv::MemoryKind::host ? kHost : kNotCuda;
  }
  return c;
}

ka::ForwardParams forward_params(const Call& c) {
  ka::ForwardParams f;
  const Problem& p = c.p;
  f.cu_seqlens_q = reinterpret_cast<const std::int32_t*>(p.dev_cu_q.addr);
  f.cu_seqlens_k = reinterpret_cast<const std::int32_t*>(p.dev_cu_k.addr);
  f.num_seqs = p.num_seqs;
  f.max_seqlen_q = p.max_q;
  f.max_seqlen_k = p.max_k;
  f.total_q = p.total_q;
  f.total_k = p.total_k;
  f.hq = p.hq, f.hkv = p.hkv, f.d = p.d;
  f.causal = p.causal != 0;
  f.scale = p.scale;
  f.in_dtype = static_cast<DType>(p.in_dtype);
  f.libm = static_cast<ka::Libm>(p.libm);
  f.tile_rows = p.tile_rows;
  f.policy = static_cast<ka::Policy>(p.policy);
  if (p.policy == 1 && p.has_mma) f.mma = samebits::kernels::capi::mma_params_of(&p.mma);
  return f;
}

template <class T>
T* ptr(FakePtr f) {
  return reinterpret_cast<T*>(f.addr);
}
ka::Strides strides(const TensorArg& t) { return ka::Strides{t.row, t.head}; }
samebits_tensor3 tensor3(const TensorArg& t) { return samebits_tensor3{ptr<void>(t.ptr), t.row, t.head}; }

ka::HostSeqlens host_of(const Call& c) {
  return ka::HostSeqlens{c.p.host_q_null || c.p.cu_q.empty() ? nullptr : c.p.cu_q.data(),
                         c.p.host_k_null || c.p.cu_k.empty() ? nullptr : c.p.cu_k.data()};
}

void run_cpp(const Call& c, const KindTable& kinds) {
  const kv::PointerQuery query{&KindTable::query, const_cast<KindTable*>(&kinds)};
  ka::Status s;
  ka::ForwardParams f = forward_params(c);
  if (!c.backward) {
    f.q = ptr<void>(c.q.ptr), f.k = ptr<void>(c.k.ptr), f.v = ptr<void>(c.v.ptr), f.o = ptr<void>(c.o.ptr);
    f.lse = ptr<float>(c.lse);
    f.q_stride = strides(c.q), f.k_stride = strides(c.k), f.v_stride = strides(c.v), f.o_stride = strides(c.o);
    f.o_dtype = static_cast<DType>(c.p.o_dtype);
    s = kv::check_forward(f, host_of(c), query);
  } else {
    ka::BackwardParams b;
    static_cast<ka::ProblemParams&>(b) = static_cast<const ka::ProblemParams&>(f);
    b.q = ptr<void>(c.q.ptr), b.k = ptr<void>(c.k.ptr), b.v = ptr<void>(c.v.ptr), b.o = ptr<void>(c.o.ptr);
    b.dout = ptr<void>(c.dout.ptr), b.lse = ptr<float>(c.lse);
    b.dq = ptr<void>(c.dq.ptr), b.dk = ptr<void>(c.dk.ptr), b.dv = ptr<void>(c.dv.ptr);
    b.q_stride = strides(c.q), b.k_stride = strides(c.k), b.v_stride = strides(c.v), b.o_stride = strides(c.o);
    b.dout_stride = strides(c.dout), b.dq_stride = strides(c.dq), b.dk_stride = strides(c.dk);
    b.dv_stride = strides(c.dv);
    b.o_dtype = static_cast<DType>(c.p.o_dtype);
    b.grad_dtype = static_cast<DType>(c.p.grad_dtype);
    b.delta = ptr<float>(c.delta), b.accum_k = ptr<float>(c.accum_k), b.accum_v = ptr<float>(c.accum_v);
    b.accum_k_in = ptr<float>(c.accum_k_in), b.accum_v_in = ptr<float>(c.accum_v_in);
    b.dq_accum = ptr<float>(c.dq_accum), b.dq_flags = ptr<std::int32_t>(c.dq_flags);
    s = kv::check_backward(b, host_of(c), query);
  }
  static const bool verbose = std::getenv("SAMEBITS_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "%s\n  -> %s\n", describe(c).c_str(), s.ok() ? "accepted" : s.message.c_str());
  compare("the validator", model_cpp(c, true), s.ok(), s.code, s.message, c);
  if (s.ok()) check_safe(c);
}

// The C ABI's own rules (c_api.h: its representation): causal an int32 0 or
// 1, and mma given only under a known policy that reads it (an unknown policy
// code is the validator's to name).
void model_c_own(const Problem& p, Violations& v) {
  if (p.causal != 0 && p.causal != 1) v.push_back({"causal 0 or 1", kInvalid, {"causal"}});
  if (p.has_mma && p.policy == 0) v.push_back({"mma only under sm90-tensor-core", kInvalid, {"mma is read only"}});
}

// samebits_attention_check: the C representation, then the problem's rules
// (no device pointers, no tile_rows in the C ABI) and the output dtypes.
Violations model_check(const Call& c) {
  Violations v;
  model_c_own(c.p, v);
  Problem p = c.p;
  p.tile_rows = 0;
  model_problem(p, v, false);
  model_output_dtypes(p, c.backward, v);
  return v;
}

// The C ABI's entry points: its own rules, then the C++ API's on the
// converted arguments (no tile_rows, no pointer kinds); the backward's
// workspace is checked (and carved) once the problem's rules pass.
Violations model_c(const Call& c) {
  Violations v;
  const Problem& p = c.p;
  model_c_own(p, v);
  Call cc = c;
  cc.p.tile_rows = 0;
  if (c.backward) {
    Violations problem;
    model_problem(cc.p, problem);
    model_output_dtypes(cc.p, true, problem);
    const auto up = [](i128 b) { return (b + 255) / 256 * 256; };
    const i128 need = p.total_q < 0 || p.total_k < 0
                          ? i128{-1}
                          : up(i128{p.total_q} * p.hq * 4) + 2 * up(i128{p.total_k} * p.hq * p.d * 4) +
                                up(i128{p.total_q} * p.hq * p.d * 4) + up((i128{p.total_q} * p.hq + 1) * 4);
    Violations ws;
    if (need < 0 || need > INT64_MAX) ws.push_back({"workspace size representable", kInvalid, {"workspace"}});
    else {
      if (c.workspace_bytes < need) ws.push_back({"workspace_bytes >= need", kInvalid, {"workspace_bytes"}});
      if (c.workspace.addr == 0 || c.workspace.addr % 256)
        ws.push_back({"workspace non-null, 256-aligned", kInvalid, {"workspace"}});
      else if (i128{c.workspace.addr} + need - 1 > i128{UINT64_MAX})
        ws.push_back({"workspace inside the address space", kInvalid, {"workspace"}});
    }
    if (!v.empty() || !problem.empty() || !ws.empty()) {
      // Refused before the workspace is carved: by the C representation, the problem or the workspace
      // (in that order); the C++ rules on the tensors would follow, with any of these codes.
      for (Violation& x : problem) v.push_back(x);
      for (Violation& x : ws) v.push_back(x);
      if (problem.empty() && ws.empty())
        for (Violation& x : model_cpp(cc, false)) v.push_back(x);
      return v;
    }
    const std::uintptr_t w = c.workspace.addr;
    cc.delta = FakePtr{w};
    cc.accum_k = FakePtr{w + static_cast<std::uintptr_t>(samebits_attention_backward_accum_offset(p.total_q, p.total_k, p.hq, p.d, 0))};
    cc.accum_v = FakePtr{w + static_cast<std::uintptr_t>(samebits_attention_backward_accum_offset(p.total_q, p.total_k, p.hq, p.d, 1))};
    // dq_accum and dq_flags follow accum_v, each part 256-aligned; the stored D^S (sm90-tensor-core)
    // after the whole, when the workspace is large enough for it.
    cc.dq_accum = FakePtr{cc.accum_v.addr + static_cast<std::uintptr_t>(up(i128{p.total_k} * p.hq * p.d * 4))};
    cc.dq_flags = FakePtr{cc.dq_accum.addr + static_cast<std::uintptr_t>(up(i128{p.total_q} * p.hq * p.d * 4))};
    const i128 ds = ds_need(p);
    if (p.policy == 1 && ds >= 0 && need + ds <= INT64_MAX && c.workspace_bytes >= need + ds) {
      cc.ds_workspace = FakePtr{w + static_cast<std::uintptr_t>(need)};
      cc.ds_workspace_bytes = static_cast<std::int64_t>(c.workspace_bytes - need);
    }
  }
  for (Violation& x : model_cpp(cc, false)) v.push_back(x);
  return v;
}

// The C problem's rules the CPU reference's entry points check (c_api.cpp:
// the C representation, then the problem's rules for the reference: no
// device pointers, tile_rows or max_seqlen; under fma-chain no dtype).
Violations model_reference(const Call& c) {
  Violations v;
  const Problem& p = c.p;
  model_c_own(p, v);
  if (p.policy != 0 && p.policy != 1) v.push_back({"policy code", kUnsupported, {"policy code"}});
  if (p.policy == 1) {
    if (!code_known(p.in_dtype)) v.push_back({"in_dtype code", kUnsupported, {"in_dtype code"}});
    else if (p.in_dtype == 0)
      v.push_back({"sm90-tensor-core takes 16-bit inputs", kUnsupported, {"in_dtype float32"}});
    if (p.has_mma && !mma_valid(p.mma)) v.push_back({"mma valid", kInvalid, {"mma: "}});
  }
  if (p.libm != 0 && p.libm != 1 && p.libm != 2) v.push_back({"libm code", kUnsupported, {"libm code"}});
  else if (p.libm == 2 && p.policy != 1) v.push_back({"nvcc-fast: sm90-tensor-core only", kUnsupported, {"nvcc-fast"}});
  if (!std::isnan(p.scale) && (!std::isfinite(p.scale) || p.scale <= 0.0f))
    v.push_back({"scale NaN or finite > 0", kInvalid, {"scale"}});
  if (p.d != 64 && p.d != 128) v.push_back({"d", kUnsupported, {"d = "}});
  if (p.hq <= 0 || p.hkv <= 0 || p.hq % p.hkv) v.push_back({"hq, hkv", kInvalid, {"hq"}});
  if (p.hq > 65535) v.push_back({"hq above 65535", kUnsupported, {"hq"}});
  if (p.num_seqs < 1 || p.num_seqs > 65535) v.push_back({"num_seqs in 1..65535", kInvalid, {"num_seqs"}});
  else if (p.host_q_null || p.host_k_null) v.push_back({"host cu_seqlens", kInvalid, {"cu_seqlens"}});
  else model_cu(p, v);
  return v;
}

// The C problem of a call (host cu_seqlens as given, fake device ones).
samebits_attention_problem c_problem(const Call& c) {
  const Problem& p = c.p;
  samebits_attention_problem cp{};
  cp.num_seqs = p.num_seqs;
  cp.max_seqlen_q = p.max_q, cp.max_seqlen_k = p.max_k;
  cp.total_q = p.total_q, cp.total_k = p.total_k;
  cp.hq = p.hq, cp.hkv = p.hkv, cp.d = p.d;
  cp.causal = p.causal;
  cp.scale = p.scale;
  cp.in_dtype = p.in_dtype, cp.o_dtype = p.o_dtype, cp.grad_dtype = p.grad_dtype;
  cp.libm = p.libm;
  cp.cu_seqlens_q = ptr<const std::int32_t>(p.dev_cu_q);
  cp.cu_seqlens_k = ptr<const std::int32_t>(p.dev_cu_k);
  const ka::HostSeqlens h = host_of(c);
  cp.cu_seqlens_q_host = h.cu_q;
  cp.cu_seqlens_k_host = h.cu_k;
  cp.policy = p.policy;
  cp.mma = p.has_mma ? &p.mma : nullptr;
  return cp;
}

void run_c(const Call& c) {
  const Problem& p = c.p;
  // The C ABI reads num_seqs + 1 host entries: give it only what exists.
  if (p.num_seqs > kMaxSeqs || (p.num_seqs > 0 && p.cu_q.empty())) return;
  const samebits_attention_problem cp = c_problem(c);
  static const bool verbose = std::getenv("SAMEBITS_FUZZ_VERBOSE") != nullptr;
  const std::int32_t rc_check = samebits_attention_check(&cp, c.backward ? 1 : 0);
  const std::string check_message = rc_check ? samebits_last_error() : "";
  if (verbose) std::fprintf(stderr, "  check -> %d %s\n", rc_check, check_message.c_str());
  compare("the C ABI check", model_check(c), rc_check == SAMEBITS_OK, static_cast<ka::StatusCode>(rc_check),
          check_message, c);
  std::int32_t rc;
  if (!c.backward)
    rc = samebits_attention_forward(&cp, tensor3(c.q), tensor3(c.k), tensor3(c.v), tensor3(c.o), ptr<float>(c.lse),
                                    nullptr);
  else
    rc = samebits_attention_backward(&cp, tensor3(c.q), tensor3(c.k), tensor3(c.v), tensor3(c.o), tensor3(c.dout),
                                     ptr<const float>(c.lse), tensor3(c.dq), tensor3(c.dk), tensor3(c.dv),
                                     ptr<void>(c.workspace), c.workspace_bytes, ptr<const float>(c.accum_k_in),
                                     ptr<const float>(c.accum_v_in), nullptr);
  if (rc == SAMEBITS_OK || rc == SAMEBITS_CUDA_ERROR)
    finding("the C ABI without CUDA returned " + std::to_string(rc), samebits_last_error());
  const bool accepted = rc == SAMEBITS_NOT_BUILT;
  if (verbose) std::fprintf(stderr, "  C ABI -> %d %s\n", rc, samebits_last_error());
  // What the check refuses, the call refuses with the same status and message.
  if (rc_check != SAMEBITS_OK && (rc != rc_check || check_message != samebits_last_error()))
    finding("the C ABI call and samebits_attention_check disagree",
            check_message + " | call: " + std::to_string(rc) + " " + samebits_last_error());
  compare("the C ABI", model_c(c), accepted, static_cast<ka::StatusCode>(rc), samebits_last_error(), c);
  if (accepted) check_safe(c);
}

// The fingerprint of a valid (policy, mma, libm), written from
// docs/kernels/attention-tc.md §9 (and attention.md §7 for fma-chain).
std::string expected_fingerprint(const Problem& p) {
  const std::string libm = p.libm == 1 ? "cr" : p.libm == 2 ? "nvcc-fast" : "nvcc";
  if (p.policy == 0) return "samebits-attention/1 policy=fma-chain/1 B=64 libm=" + libm;
  const samebits_mma_params m = p.has_mma ? p.mma : samebits_mma_params{25, 16, 0, 0, 1, 0, 1, 0};
  static const char* const rounding[] = {"rz", "rn"};
  static const char* const c_join[] = {"first", "after"};
  static const char* const zero_exponent[] = {"fmin", "ignored", "m126"};
  static const char* const product_exponent[] = {"raw", "norm"};
  static const char* const zero_sign[] = {"ieee", "pos"};
  static const char* const overflow[] = {"inf", "sat"};
  return "samebits-attention/1 policy=sm90-tc/1(F=" + std::to_string(m.frac_bits) + ",G=" + std::to_string(m.group) +
         ",R=" + rounding[m.rounding] + ",C=" + c_join[m.c_join] + ",Z=" + zero_exponent[m.zero_exponent] +
         ",P=" + product_exponent[m.product_exponent] + ",S=" + zero_sign[m.zero_sign] + ",O=" + overflow[m.overflow] +
         ",E=-133) Bk=128 libm=" + libm;  // the floor: not a C ABI field, always the measured one
}

// samebits_attention_problem_fingerprint: reads policy, mma and libm only.
void run_fingerprint(const Call& c) {
  const Problem& p = c.p;
  const std::uint8_t mode = c.fingerprint_mode;
  const bool null_problem = mode >= 250, null_buf = mode >= 240 && mode < 250;
  Violations v;
  if (null_problem) v.push_back({"problem non-null", kInvalid, {"problem is null"}});
  else {
    if (p.libm != 0 && p.libm != 1 && p.libm != 2) v.push_back({"libm code", kUnsupported, {"libm code"}});
    model_policy_c(p, v);
    if (p.libm == 2 && p.policy != 1) v.push_back({"nvcc-fast: sm90-tensor-core only", kUnsupported, {"nvcc-fast"}});
  }
  const std::string want = v.empty() ? expected_fingerprint(p) : std::string();
  const std::int64_t need = v.empty() ? static_cast<std::int64_t>(want.size()) + 1 : 256;
  const std::int64_t len = mode < 200 ? 256 : mode < 210 ? need : mode < 220 ? need - 1 : mode < 230 ? 0
                           : mode < 240 ? -1 : 256;
  if (v.empty() && (null_buf || len < need)) v.push_back({"buffer large enough", kInvalid, {"buffer needs"}});
  char buf[512];
  std::memset(buf, 'x', sizeof buf);
  const samebits_attention_problem cp = c_problem(c);
  const std::int32_t rc = samebits_attention_problem_fingerprint(null_problem ? nullptr : &cp,
                                                                 null_buf ? nullptr : buf, len);
  static const bool verbose = std::getenv("SAMEBITS_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "  fingerprint(len %lld) -> %d %s\n", static_cast<long long>(len), rc,
                            rc ? samebits_last_error() : buf);
  compare("the problem fingerprint", v, rc == SAMEBITS_OK, static_cast<ka::StatusCode>(rc),
          rc ? samebits_last_error() : "", c);
  if (rc == SAMEBITS_OK && want != buf)
    finding("the problem fingerprint differs from attention-tc.md §9", std::string(buf) + " | want " + want);
}

// The CPU reference on real buffers, when the problem is small (its sizes
// are the buffers': the reference trusts them once the checks pass).
void run_reference(const Call& c) {
  const Problem& p = c.p;
  if (p.num_seqs < 1 || p.num_seqs > 4 || p.cu_q.empty() || p.total_q < 0 || p.total_q > 32 || p.total_k < 0 ||
      p.total_k > 32 || p.hq < 0 || p.hq > 4 || p.hkv < 0 || p.hkv > 4 || p.d < 1 || p.d > 128)
    return;
  // Values of every input dtype (the tensor-core policy refuses others).
  const float fills[] = {0.0f, 1.0f, -0.0f, 0.5f, -2.0f};
  const float fill = fills[c.reference_fill % 5];
  const std::size_t nq = static_cast<std::size_t>(p.total_q * p.hq * p.d) + 1;
  const std::size_t nk = static_cast<std::size_t>(p.total_k * p.hkv * p.d) + 1;
  const std::size_t nl = static_cast<std::size_t>(p.total_q * p.hq) + 1;
  std::vector<float> q(nq, fill), k(nk, fill), v(nk, fill), o(nq, fill), dout(nq, fill), lse(nl, 0.0f);
  std::vector<float> dq(nq), dk(nk), dv(nk);
  const samebits_attention_problem cp = c_problem(c);
  const std::int32_t rc =
      c.backward ? samebits_attention_reference_backward(&cp, q.data(), k.data(), v.data(), o.data(), dout.data(),
                                                         lse.data(), dq.data(), dk.data(), dv.data(), 1)
                 : samebits_attention_reference_forward(&cp, q.data(), k.data(), v.data(), o.data(), lse.data(), 1);
  static const bool verbose = std::getenv("SAMEBITS_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "  reference -> %d %s\n", rc, rc ? samebits_last_error() : "");
  compare("the C reference", model_reference(c), rc == SAMEBITS_OK, static_cast<ka::StatusCode>(rc),
          rc ? samebits_last_error() : "", c);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader r{data, size};
  KindTable kinds;
  const Call c = decode(r, kinds);
  run_cpp(c, kinds);
  run_c(c);
  run_fingerprint(c);
  run_reference(c);
  return 0;
}
