// fuzz_tensor_io — the .npy and .safetensors readers on arbitrary bytes.
// Each parser must either return tensors whose data lie inside the file's
// buffer with the size their shape and dtype say, or throw TensorError /
// std::invalid_argument with a reason (a TensorError names the file it was
// given); anything else (another exception, a crash, a sanitizer report, an
// out-of-bounds view) is a finding. What parses is also compared: with itself
// (identical) and with a copy one bit off in one element (exactly 1 mismatch).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "samebits/oracle/compare.hpp"
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

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "finding: %s: %s\n", what, detail.c_str());
  std::abort();
}

// compare() on what parsed: a file equals itself (0 mismatches, bits policy);
// one flipped bit in one element's bytes is exactly one mismatch.
template <class Parse>
void check_compare(const TensorFile& f, const std::uint8_t* data, std::size_t size, Parse parse,
                   const ReadOptions& opts) {
  const CompareReport same = compare_tensor_files(f, f);
  if (!same.identical()) finding("compare(f, f) is not identical", std::to_string(same.total_mismatches));
  for (const Tensor& t : f.tensors) {
    if (t.elements == 0) continue;
    const std::size_t at = static_cast<std::size_t>(t.data.data() - f.storage->data());
    auto flipped = std::make_shared<std::vector<std::uint8_t>>(data, data + size);
    (*flipped)[at] ^= 1;
    const TensorFile g = parse(flipped, opts);
    const CompareReport r = compare_tensor_files(f, g);
    if (r.total_mismatches != 1)
      finding("one flipped bit is not exactly one mismatch",
              "tensor '" + t.name + "': " + std::to_string(r.total_mismatches) + " reported");
    return;
  }
}

// Each parser returns a sound file or refuses with a reason that names the
// file (TensorError) or says what is wrong (invalid_argument).
template <class Parse>
void run(const std::uint8_t* data, std::size_t size, const char* path, Parse parse) {
  ReadOptions opts;
  opts.max_header_bytes = 1 << 20;  // keep the fuzzer's JSON small
  for (bool bf16 : {false, true}) {
    opts.as_bf16 = bf16;
    auto bytes = std::make_shared<std::vector<std::uint8_t>>(data, data + size);
    try {
      const TensorFile f = parse(bytes, opts);
      check(f);
      check_compare(f, data, size, parse, opts);
    } catch (const TensorError& e) {
      if (e.reason().empty() || e.file() != path) finding("a refusal without a reason or naming another file", e.what());
    } catch (const std::invalid_argument& e) {
      if (std::string(e.what()).empty()) finding("an invalid_argument without a reason", "");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  run(data, size, "fuzz.npy", [](auto b, const ReadOptions& o) { return parse_npy(b, "fuzz.npy", o); });
  run(data, size, "fuzz.safetensors",
      [](auto b, const ReadOptions& o) { return parse_safetensors(b, "fuzz.safetensors", o); });
  return 0;
}
