// A stand-in for libsamebits_kernels for the Python loader's negative controls
// (tests/python/test_lib.py): every C ABI symbol, but C ABI version
// FAKE_VERSION; with FAKE_PARTIAL only the first three. The loader looks the
// symbols up by name only, so the stubs need not have the real signatures.
#include <cstdint>

#ifndef FAKE_VERSION
#define FAKE_VERSION 4
#endif

#define STUB(name) \
  std::int32_t name(void) { return 0; }

extern "C" {
std::int32_t samebits_c_abi_version(void) { return FAKE_VERSION; }
const char* samebits_last_error(void) { return "fake"; }
std::int32_t samebits_has_cuda_kernels(void) { return 0; }
#ifndef FAKE_PARTIAL
STUB(samebits_code_name)
STUB(samebits_attention_check)
STUB(samebits_sparse_mla_check)
STUB(samebits_attention_fingerprint)
STUB(samebits_attention_problem_fingerprint)
STUB(samebits_attention_forward)
STUB(samebits_attention_backward_workspace_bytes)
STUB(samebits_attention_backward_accum_offset)
STUB(samebits_attention_backward)
STUB(samebits_attention_reference_forward)
STUB(samebits_attention_reference_backward)
STUB(samebits_sparse_mla_fingerprint)
STUB(samebits_sparse_mla_forward)
STUB(samebits_sparse_mla_backward_workspace_bytes)
STUB(samebits_sparse_mla_backward)
STUB(samebits_sparse_mla_check_index_error)
STUB(samebits_sparse_mla_reference_forward)
STUB(samebits_sparse_mla_reference_backward)
#endif
}
