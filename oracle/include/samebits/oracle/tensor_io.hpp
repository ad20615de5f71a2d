// samebits/oracle/tensor_io.hpp — strict readers for .npy and .safetensors,
// and for raw binary32 result files (RawF32File).
//
// A reader either returns tensors whose bytes exactly cover what the header
// promises, or throws TensorError naming the file and the problem. Files are
// read whole into memory after a size check; every offset is checked against
// that buffer before it is used, so a malformed file can never make us read
// out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace samebits::oracle {

// Element types compare understands. Data is always held little-endian.
enum class DType { f64, f32, f16, bf16, i32 };

std::string_view dtype_name(DType t) noexcept;  // "f64", "f32", "f16", "bf16", "i32"
std::size_t dtype_size(DType t) noexcept;       // bytes per element

enum class TensorFormat { npy, safetensors };
std::string_view format_name(TensorFormat f) noexcept;  // "npy", "safetensors"

// s in single quotes for an error message, control characters, quotes and
// backslashes escaped as \xNN (names come from files and may be hostile),
// cut after max_len bytes.
std::string quote_for_message(std::string_view s, std::size_t max_len = 200);

// A problem with an input: `file` is the path it concerns (may be empty for
// problems with no file), `reason` says what is wrong. what() is
// "<file>: <reason>".
class TensorError : public std::runtime_error {
 public:
  TensorError(std::string file, std::string reason);
  const std::string& file() const noexcept { return file_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  std::string reason_;
};

struct ReadOptions {
  // Read 2-byte integer containers (npy '<u2' '<i2', safetensors U16 I16) as
  // bfloat16 bit patterns.
  bool as_bf16 = false;
  // Refuse files larger than this before allocating for them.
  std::uint64_t max_file_bytes = std::uint64_t{1} << 40;
  // Refuse safetensors headers larger than this (the JSON is parsed whole).
  std::uint64_t max_header_bytes = 100'000'000;
};

struct Tensor {
  std::string name;           // safetensors key; empty for .npy
  DType dtype = DType::f32;
  std::string source_dtype;   // as the file spells it: "<f4", "|V2", "BF16", ...
  std::string note;           // how source_dtype was interpreted, when not obvious
  std::vector<std::uint64_t> shape;
  std::uint64_t elements = 0;

  // Little-endian element bytes, elements * dtype_size(dtype) of them. They
  // live in the owning file's buffer (byte-swapped in place when the file was
  // big-endian).
  std::span<const std::uint8_t> data;
};

struct TensorFile {
  std::string path;
  TensorFormat format = TensorFormat::npy;
  std::vector<Tensor> tensors;                  // safetensors: sorted by name
  std::map<std::string, std::string> metadata;  // safetensors __metadata__
  std::shared_ptr<std::vector<std::uint8_t>> storage;  // owns the bytes `data` views
};

// Reads a whole regular file (size-checked against opts.max_file_bytes).
std::vector<std::uint8_t> read_file_bytes(const std::string& path, const ReadOptions& opts = {});

// Format by content first (the npy magic), then by extension, then by the
// shape of a safetensors prefix. Throws when it cannot tell.
TensorFormat detect_format(std::span<const std::uint8_t> bytes, const std::string& path);

// Parse a file already in memory. `path` is only used in messages. The
// returned tensors view `*bytes`, which they share ownership of.
TensorFile parse_npy(std::shared_ptr<std::vector<std::uint8_t>> bytes, const std::string& path,
                     const ReadOptions& opts = {});
TensorFile parse_safetensors(std::shared_ptr<std::vector<std::uint8_t>> bytes,
                             const std::string& path, const ReadOptions& opts = {});

// read_file_bytes + detect_format + parse_*.
TensorFile read_tensor_file(const std::string& path, const ReadOptions& opts = {});

// Results computed elsewhere (a GPU): a raw file of little-endian binary32
// values, one per input, nothing else, which must hold exactly `count` of
// them. Memory-mapped read-only, not read: all 2^32 results are 16 GiB.
// Throws TensorError naming the file (cannot open, not a regular file, a size
// that is not count * 4 bytes).
class RawF32File {
 public:
  RawF32File(const std::string& path, std::uint64_t count);
  ~RawF32File();
  RawF32File(const RawF32File&) = delete;
  RawF32File& operator=(const RawF32File&) = delete;

  const std::string& path() const noexcept { return path_; }
  std::span<const float> values() const noexcept { return {data_, static_cast<std::size_t>(count_)}; }

 private:
  std::string path_;
  std::uint64_t count_ = 0;
  const float* data_ = nullptr;
};

// The npy header dictionary, parsed. Exposed for tests of the strict parser.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
};
// Parses exactly `{'descr': <str>, 'fortran_order': True|False, 'shape': <tuple>}`
// (keys in any order, each once, optional trailing comma, whitespace anywhere
// between tokens). Throws std::invalid_argument with the reason.
NpyHeader parse_npy_header_dict(std::string_view text);

}  // namespace samebits::oracle
