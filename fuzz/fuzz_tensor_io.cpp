// fuzz_tensor_io — the .npy and .safetensors readers on arbitrary bytes.
// Each parser must either return tensors whose data lie inside the file's
// buffer with the size their shape and dtype say, or throw TensorError /
// std::invalid_argument with a reason; anything else (another exception, a
// crash, a sanitizer report, an out-of-bounds view) is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "samebits/oracle/tensor_io.hpp"

namespace {

using namespace samebits::oracle;

void check(const TensorFile& f) {
  const auto* lo = f.storage->data();
  const auto* hi = lo + f.storage->size();
  for (const Tensor& t : f.tensors) {
    std::uint64_t n = 1;
    for (auto d : t.shape) n *= d;
    if (n != t.elements || t.data.size() != t.elements * dtype_size(t.dtype) ||
        (t.data.size() && (t.data.data() < lo || t.data.data() + t.data.size() > hi))) {
      std::fprintf(stderr, "finding: tensor '%s' views %zu bytes outside its %zu-byte file or lies about its size\n",
                   t.name.c_str(), t.data.size(), f.storage->size());
      std::abort();
    }
  }
}

template <class Parse>
void run(const std::uint8_t* data, std::size_t size, Parse parse) {
  ReadOptions opts;
  opts.max_header_bytes = 1 << 20;  // keep the fuzzer's JSON small
  for (bool bf16 : {false, true}) {
    opts.as_bf16 = bf16;
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(data, data + size);
    try {
      check(parse(bytes, opts));
    } catch (const TensorError&) {
    } catch (const std::invalid_argument&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  run(data, size, [](auto b, const ReadOptions& o) { return parse_npy(b, "fuzz.npy", o); });
  run(data, size, [](auto b, const ReadOptions& o) { return parse_safetensors(b, "fuzz.safetensors", o); });
  return 0;
}
