// Strict .npy and .safetensors readers; see tensor_io.hpp.
#include "samebits/oracle/tensor_io.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

namespace samebits::oracle {

std::string_view dtype_name(DType t) noexcept {
  switch (t) {
    case DType::f64: return "f64";
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::i32: return "i32";
  }
  return "?";
}

std::size_t dtype_size(DType t) noexcept {
  switch (t) {
    case DType::f64: return 8;
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::i32: return 4;
  }
  return 0;
}

std::string_view format_name(TensorFormat f) noexcept {
  return f == TensorFormat::npy ? "npy" : "safetensors";
}

std::string quote_for_message(std::string_view s, std::size_t max_len) {
  std::string out = "'";
  std::size_t n = 0;
  for (unsigned char c : s) {
    if (n++ == max_len) {
      out += "...";
      break;
    }
    if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "'";
}

TensorError::TensorError(std::string file, std::string reason)
    : std::runtime_error(file.empty() ? reason : file + ": " + reason),
      file_(std::move(file)),
      reason_(std::move(reason)) {}

namespace {

constexpr std::uint8_t kNpyMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

std::uint64_t load_le(const std::uint8_t* p, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string shape_str(const std::vector<std::uint64_t>& shape, bool python_tuple) {
  std::string s = python_tuple ? "(" : "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (python_tuple && shape.size() == 1) s += ",";
  return s + (python_tuple ? ")" : "]");
}

// Element count and byte size of a shape, or nullopt-with-reason on overflow.
// A zero dimension makes the count zero whatever the others are.
std::optional<std::string> shape_sizes(const std::vector<std::uint64_t>& shape,
                                       std::size_t itemsize, std::uint64_t& elements,
                                       std::uint64_t& nbytes) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  elements = 1;
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    elements = 0;
  } else {
    for (std::uint64_t d : shape) {
      if (elements > kMax / d) return std::string("element count overflows 64 bits");
      elements *= d;
    }
  }
  if (elements > kMax / itemsize) return std::string("byte size overflows 64 bits");
  nbytes = elements * itemsize;
  return std::nullopt;
}

void byteswap_in_place(std::uint8_t* p, std::uint64_t elements, std::size_t itemsize) {
  for (std::uint64_t i = 0; i < elements; ++i, p += itemsize) std::reverse(p, p + itemsize);
}

std::string lower_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// ---- the npy header dictionary ----------------------------------------------

class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    skip_ws();
    expect('{', "the header must start with '{'");
    skip_ws();
    while (peek() != '}') {
      std::size_t key_at = pos_;
      std::string key = string_literal("a key (a quoted string)");
      skip_ws();
      expect(':', "expected ':' after key");
      skip_ws();
      auto once = [&](bool& seen) {
        if (seen) fail(key_at, "duplicate key " + quote_for_message(key));
        seen = true;
      };
      if (key == "descr") {
        once(seen_descr);
        if (peek() == '[') {
          fail(pos_, "descr is a list: structured dtypes are not supported");
        }
        h.descr = string_literal("descr to be a quoted string");
      } else if (key == "fortran_order") {
        once(seen_fortran);
        h.fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape);
        h.shape = tuple();
      } else {
        fail(key_at, "unexpected key " + quote_for_message(key) + " (allowed: descr, fortran_order, shape)");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        skip_ws();
      } else if (peek() != '}') {
        fail(pos_, "expected ',' or '}' after the value of " + quote_for_message(key));
      }
    }
    ++pos_;  // '}'
    skip_ws();
    if (pos_ != s_.size()) fail(pos_, "unexpected characters after the closing '}'");
    if (!seen_descr) fail(pos_, "missing key 'descr'");
    if (!seen_fortran) fail(pos_, "missing key 'fortran_order'");
    if (!seen_shape) fail(pos_, "missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& why) const {
    throw std::invalid_argument(why + " (at offset " + std::to_string(at) + " of the header)");
  }
  int peek() const { return pos_ < s_.size() ? static_cast<unsigned char>(s_[pos_]) : -1; }
  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c, const char* why) {
    if (peek() != c) fail(pos_, peek() < 0 ? std::string(why) + ", found the end of the header"
                                            : std::string(why));
    ++pos_;
  }
  std::string string_literal(const char* what) {
    int q = peek();
    if (q != '\'' && q != '"') fail(pos_, std::string("expected ") + what);
    std::size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\') fail(pos_, "escape sequences in strings are not supported");
      if (s_[pos_] == '\n') fail(pos_, "unterminated string");
      ++pos_;
    }
    if (pos_ == s_.size()) fail(start - 1, "unterminated string");
    return std::string(s_.substr(start, pos_++ - start));
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(pos_, "fortran_order must be True or False");
  }
  std::uint64_t integer() {
    std::size_t start = pos_;
    if (peek() == '-') fail(pos_, "negative shape dimension");
    if (peek() < '0' || peek() > '9') fail(pos_, "expected a non-negative integer in shape");
    if (peek() == '0' && pos_ + 1 < s_.size() && s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '9')
      fail(pos_, "integer with a leading zero");
    std::uint64_t v = 0;
    bool overflow = false;
    while (peek() >= '0' && peek() <= '9') {
      unsigned d = static_cast<unsigned>(s_[pos_] - '0');
      if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) overflow = true;
      v = v * 10 + d;
      ++pos_;
    }
    if (overflow) {
      // Not a syntax error: the shape is well formed but too large for us.
      throw std::overflow_error("shape dimension " + std::string(s_.substr(start, pos_ - start)) +
                                " overflows 64 bits");
    }
    return v;
  }
  std::vector<std::uint64_t> tuple() {
    std::vector<std::uint64_t> dims;
    std::size_t open_at = pos_;
    expect('(', "shape must be a tuple like (), (5,) or (3, 4)");
    skip_ws();
    bool trailing_comma = false;
    while (peek() != ')') {
      dims.push_back(integer());
      skip_ws();
      trailing_comma = false;
      if (peek() == ',') {
        ++pos_;
        skip_ws();
        trailing_comma = true;
      } else if (peek() != ')') {
        fail(pos_, "expected ',' or ')' in shape");
      }
    }
    ++pos_;  // ')'
    // In Python "(5)" is the integer 5, not a tuple.
    if (dims.size() == 1 && !trailing_comma)
      fail(open_at, "shape (" + std::to_string(dims[0]) + ") is not a tuple; write (" +
                        std::to_string(dims[0]) + ",)");
    return dims;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

struct NpyDType {
  DType dtype;
  bool swap;
  std::string note;
};

// descr -> element type. Returns the reason when unsupported.
std::variant<NpyDType, std::string> npy_dtype(const std::string& descr, bool as_bf16) {
  const std::string q = quote_for_message(descr);
  if (descr == "bfloat16")
    return NpyDType{DType::bf16, false, "descr 'bfloat16' read as little-endian bfloat16"};
  if (descr == "|V2" || descr == "<V2")
    return NpyDType{DType::bf16, false,
                    "descr " + q +
                        " (2-byte void) read as bfloat16 (np.save writes ml_dtypes bfloat16 "
                        "arrays as 2-byte void)"};
  std::string supported = " (compare reads f8, f4, f2, i4 with byte order '<' '>' or '=', and "
                          "bfloat16 as '|V2', '<V2' or 'bfloat16')";
  if (descr.size() != 3) return "unsupported dtype " + q + supported;
  char order = descr[0], kind = descr[1], size = descr[2];
  if (order != '<' && order != '>' && order != '=' && order != '|')
    return "unsupported dtype " + q + supported;
  std::optional<DType> t;
  std::string note;
  if (kind == 'f' && size == '8') t = DType::f64;
  if (kind == 'f' && size == '4') t = DType::f32;
  if (kind == 'f' && size == '2') t = DType::f16;
  if (kind == 'i' && size == '4') t = DType::i32;
  if ((kind == 'u' || kind == 'i') && size == '2') {
    if (!as_bf16) return "unsupported dtype " + q + " (if it holds bfloat16 bits, pass --as bf16)";
    t = DType::bf16;
    note = "descr " + q + " read as bfloat16 bits (--as bf16)";
  }
  if (!t) return "unsupported dtype " + q + supported;
  // '|' means "byte order does not apply", which is false for multi-byte numbers.
  if (order == '|')
    return "unsupported dtype " + q + " (byte order '|' is for single bytes; expected '<' or '>')";
  if (order == '=') {
    // numpy itself never writes '='; "native" is little-endian on every
    // platform samebits supports.
    if (!note.empty()) note += "; ";
    note += "byte order '=' read as little-endian";
  }
  if (order == '>') {
    if (!note.empty()) note += "; ";
    note += "big-endian data byte-swapped";
  }
  return NpyDType{*t, order == '>', note};
}

}  // namespace

NpyHeader parse_npy_header_dict(std::string_view text) { return DictParser(text).parse(); }

// ---- files ---------------------------------------------------------------------

std::vector<std::uint8_t> read_file_bytes(const std::string& path, const ReadOptions& opts) {
  // O_NONBLOCK so that a FIFO does not hang us before we can reject it.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw TensorError(path, std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw TensorError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw TensorError(path, "cannot read: is a directory");
  if (!S_ISREG(st.st_mode)) throw TensorError(path, "cannot read: not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > opts.max_file_bytes)
    throw TensorError(path, "file is " + std::to_string(size) + " bytes, more than the " +
                                std::to_string(opts.max_file_bytes) + "-byte limit");
  std::vector<std::uint8_t> bytes;
  try {
    bytes.resize(static_cast<std::size_t>(size));
  } catch (const std::bad_alloc&) {
    throw TensorError(path, "cannot allocate " + std::to_string(size) + " bytes to read the file");
  }
  std::uint64_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd, bytes.data() + got, static_cast<std::size_t>(size - got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw TensorError(path, std::string("read failed: ") + std::strerror(errno));
    if (n == 0)
      throw TensorError(path, "file shrank while being read (expected " + std::to_string(size) +
                                  " bytes, got " + std::to_string(got) + ")");
    got += static_cast<std::uint64_t>(n);
  }
  std::uint8_t extra;
  ssize_t n;
  do n = ::read(fd, &extra, 1); while (n < 0 && errno == EINTR);
  if (n > 0) throw TensorError(path, "file grew while being read");
  return bytes;
}

RawF32File::RawF32File(const std::string& path, std::uint64_t count) : path_(path), count_(count) {
  // The mapped bytes are used as floats as they lie.
  static_assert(std::endian::native == std::endian::little, "raw float32 files are read on a little-endian host");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw TensorError(path, std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw TensorError(path, std::string("cannot stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw TensorError(path, "cannot read: is a directory");
  if (!S_ISREG(st.st_mode)) throw TensorError(path, "cannot read: not a regular file");
  const std::uint64_t want = count * 4;
  if (count == 0 || count > (std::uint64_t{1} << 32))
    throw TensorError(path, "cannot read " + std::to_string(count) + " float32 results (1 to 2^32)");
  if (static_cast<std::uint64_t>(st.st_size) != want)
    throw TensorError(path, "holds " + std::to_string(st.st_size) + " bytes, but the range has " +
                                std::to_string(count) + " inputs (" + std::to_string(want) + " bytes of float32)");
  void* p = ::mmap(nullptr, static_cast<std::size_t>(want), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) throw TensorError(path, std::string("cannot map: ") + std::strerror(errno));
  data_ = static_cast<const float*>(p);
}

RawF32File::~RawF32File() {
  if (data_) ::munmap(const_cast<float*>(data_), static_cast<std::size_t>(count_ * 4));
}

TensorFormat detect_format(std::span<const std::uint8_t> bytes, const std::string& path) {
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), kNpyMagic, 6) == 0) return TensorFormat::npy;
  const std::string ext = lower_extension(path);
  if (ext == ".npy") return TensorFormat::npy;  // the npy reader names the bad magic
  if (ext == ".safetensors") return TensorFormat::safetensors;
  // No telling extension: a safetensors file starts with a length that fits
  // the file, followed by '{'.
  if (bytes.size() >= 10) {
    std::uint64_t n = load_le(bytes.data(), 8);
    if (n >= 2 && n <= bytes.size() - 8 && bytes[8] == '{') return TensorFormat::safetensors;
  }
  throw TensorError(path,
                    "unrecognized format: no .npy magic (\\x93NUMPY), no .npy or .safetensors "
                    "extension, and no safetensors header");
}

TensorFile parse_npy(std::shared_ptr<std::vector<std::uint8_t>> bytes, const std::string& path,
                     const ReadOptions& opts) {
  auto& b = *bytes;
  const std::uint64_t size = b.size();
  if (size < 6 || std::memcmp(b.data(), kNpyMagic, 6) != 0)
    throw TensorError(path, "bad magic: not a .npy file (expected \\x93NUMPY at offset 0)");
  if (size < 8) throw TensorError(path, "file ends inside the .npy version field");
  const int major = b[6], minor = b[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    throw TensorError(path, "unsupported .npy version " + std::to_string(major) + "." +
                                std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  const int len_bytes = major == 1 ? 2 : 4;
  const std::uint64_t prefix = 8 + static_cast<std::uint64_t>(len_bytes);
  if (size < prefix) throw TensorError(path, "file ends inside the .npy header length field");
  const std::uint64_t header_len = load_le(b.data() + 8, len_bytes);
  if (header_len > size - prefix)
    throw TensorError(path, "header longer than the file: the header length field says " +
                                std::to_string(header_len) + " bytes but only " +
                                std::to_string(size - prefix) + " follow it");
  std::string_view text(reinterpret_cast<const char*>(b.data() + prefix),
                        static_cast<std::size_t>(header_len));
  NpyHeader h;
  try {
    h = parse_npy_header_dict(text);
  } catch (const std::overflow_error& e) {
    throw TensorError(path, e.what());
  } catch (const std::invalid_argument& e) {
    throw TensorError(path, std::string("unparsable header: ") + e.what());
  }
  auto dt = npy_dtype(h.descr, opts.as_bf16);
  if (auto* why = std::get_if<std::string>(&dt)) throw TensorError(path, *why);
  const NpyDType& d = std::get<NpyDType>(dt);
  if (h.fortran_order) throw TensorError(path, "Fortran-order arrays are not supported");

  Tensor t;
  t.dtype = d.dtype;
  t.source_dtype = h.descr;
  t.note = d.note;
  t.shape = h.shape;
  std::uint64_t nbytes = 0;
  if (auto why = shape_sizes(t.shape, dtype_size(t.dtype), t.elements, nbytes))
    throw TensorError(path, "shape " + shape_str(t.shape, true) + " of " + quote_for_message(h.descr) + ": " +
                                *why);
  const std::uint64_t data_at = prefix + header_len;
  const std::uint64_t avail = size - data_at;
  const std::string needs = "shape " + shape_str(t.shape, true) + " of " + quote_for_message(h.descr) +
                            " needs " + std::to_string(nbytes) + " bytes of data, the file has " +
                            std::to_string(avail);
  if (avail < nbytes) throw TensorError(path, "data shorter than the shape says: " + needs);
  if (avail > nbytes)
    throw TensorError(path, "data longer than the shape says: " + needs + " (" +
                                std::to_string(avail - nbytes) + " extra)");
  if (d.swap) byteswap_in_place(b.data() + data_at, t.elements, dtype_size(t.dtype));
  t.data = std::span<const std::uint8_t>(b.data() + data_at, static_cast<std::size_t>(nbytes));

  TensorFile f;
  f.path = path;
  f.format = TensorFormat::npy;
  f.tensors.push_back(std::move(t));
  f.storage = std::move(bytes);
  return f;
}

namespace {

using nlohmann::json;

// A non-negative integer field, or the reason it is not one.
std::uint64_t json_uint(const json& v, const std::string& tensor, const char* what) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  const std::string who = "tensor " + quote_for_message(tensor) + ": ";
  if (v.is_number_integer())
    throw std::invalid_argument(who + "negative " + what + " (" + v.dump() + ")");
  if (v.is_number_float())
    throw std::invalid_argument(who + what + " is not an integer (" + v.dump() + ")");
  throw std::invalid_argument(who + what + " is not a number (" + v.dump().substr(0, 40) + ")");
}

struct Entry {
  std::string name;
  DType dtype;
  std::string source_dtype, note;
  std::vector<std::uint64_t> shape;
  std::uint64_t elements, begin, end;
};

Entry tensor_entry(const std::string& name, const json& v, std::uint64_t buffer_size,
                   const ReadOptions& opts) {
  const std::string who = "tensor " + quote_for_message(name) + ": ";
  auto bad = [&](const std::string& why) { return std::invalid_argument(who + why); };
  if (!v.is_object()) throw bad("entry is not a JSON object");
  for (const auto& [k, _] : v.items())
    if (k != "dtype" && k != "shape" && k != "data_offsets")
      throw bad("unexpected field " + quote_for_message(k) + " (allowed: dtype, shape, data_offsets)");
  for (const char* k : {"dtype", "shape", "data_offsets"})
    if (!v.contains(k)) throw bad(std::string("missing field '") + k + "'");
  const json& jd = v["dtype"];
  const json& js = v["shape"];
  const json& jo = v["data_offsets"];
  if (!jd.is_string()) throw bad("field 'dtype' is not a string");
  if (!js.is_array()) throw bad("field 'shape' is not an array");
  if (!jo.is_array() || jo.size() != 2)
    throw bad("field 'data_offsets' is not an array of two integers [begin, end]");

  Entry e;
  e.name = name;
  e.source_dtype = jd.get<std::string>();
  for (const json& d : js) e.shape.push_back(json_uint(d, name, "shape dimension"));
  e.begin = json_uint(jo[0], name, "data offset");
  e.end = json_uint(jo[1], name, "data offset");

  const std::string& sd = e.source_dtype;
  if (sd == "F64") e.dtype = DType::f64;
  else if (sd == "F32") e.dtype = DType::f32;
  else if (sd == "F16") e.dtype = DType::f16;
  else if (sd == "BF16") e.dtype = DType::bf16;
  else if (sd == "I32") e.dtype = DType::i32;
  else if (sd == "U16" || sd == "I16") {
    if (!opts.as_bf16)
      throw bad("unsupported dtype " + quote_for_message(sd) + " (if it holds bfloat16 bits, pass --as bf16)");
    e.dtype = DType::bf16;
    e.note = sd + " read as bfloat16 bits (--as bf16)";
  } else {
    throw bad("unsupported dtype " + quote_for_message(sd) + " (compare reads F64, F32, F16, BF16, I32)");
  }
  std::uint64_t nbytes = 0;
  if (auto why = shape_sizes(e.shape, dtype_size(e.dtype), e.elements, nbytes))
    throw bad("shape " + shape_str(e.shape, false) + " of " + sd + ": " + *why);
  const std::string offs =
      "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.begin > e.end) throw bad("data_offsets " + offs + ": begin > end");
  if (e.end > buffer_size)
    throw bad("data_offsets " + offs + " outside the byte buffer (" +
              std::to_string(buffer_size) + " bytes)");
  if (e.end - e.begin != nbytes)
    throw bad("data_offsets " + offs + " span " + std::to_string(e.end - e.begin) +
              " bytes but shape " + shape_str(e.shape, false) + " of " + sd + " needs " +
              std::to_string(nbytes));
  return e;
}

struct NestingTooDeep {};

}  // namespace

TensorFile parse_safetensors(std::shared_ptr<std::vector<std::uint8_t>> bytes,
                             const std::string& path, const ReadOptions& opts) {
  const auto& b = *bytes;
  const std::uint64_t size = b.size();
  if (size < 8)
    throw TensorError(path, "file is " + std::to_string(size) +
                                " bytes, too short for the 8-byte safetensors header length");
  const std::uint64_t n = load_le(b.data(), 8);
  if (n > opts.max_header_bytes)
    throw TensorError(path, "header length " + std::to_string(n) + " exceeds the limit of " +
                                std::to_string(opts.max_header_bytes) + " bytes");
  if (n > size - 8)
    throw TensorError(path, "header longer than the file: the header length field says " +
                                std::to_string(n) + " bytes but only " +
                                std::to_string(size - 8) + " follow it");
  const char* hb = reinterpret_cast<const char*>(b.data() + 8);
  const std::uint64_t buffer_at = 8 + n;
  const std::uint64_t buffer_size = size - buffer_at;

  // nlohmann keeps the last of duplicate keys silently; a duplicate tensor
  // name would hide a tensor, so watch for them while parsing.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto callback = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth > 16) throw NestingTooDeep{};
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (ev == json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
        !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(hb, hb + n, callback);
  } catch (const json::exception& e) {
    throw TensorError(path, std::string("header is not valid JSON: ") + e.what());
  } catch (const NestingTooDeep&) {
    throw TensorError(path, "header is not valid safetensors JSON: nested deeper than 16 levels");
  }
  if (!j.is_object()) throw TensorError(path, "header is not a JSON object");
  if (n == 0 || hb[0] != '{') throw TensorError(path, "header must begin with '{' (no leading whitespace)");
  if (!duplicate.empty())
    throw TensorError(path, "header has the key " + quote_for_message(duplicate) + " more than once");

  TensorFile f;
  f.path = path;
  f.format = TensorFormat::safetensors;
  std::vector<Entry> entries;
  try {
    for (const auto& [key, v] : j.items()) {
      if (key == "__metadata__") {
        if (!v.is_object()) throw std::invalid_argument("__metadata__ is not a JSON object");
        for (const auto& [mk, mv] : v.items()) {
          if (!mv.is_string())
            throw std::invalid_argument("__metadata__ value for " + quote_for_message(mk) +
                                        " is not a string");
          f.metadata[mk] = mv.get<std::string>();
        }
        continue;
      }
      entries.push_back(tensor_entry(key, v, buffer_size, opts));
    }
  } catch (const std::invalid_argument& e) {
    throw TensorError(path, e.what());
  }

  // The tensors must tile the byte buffer exactly: no overlap, no hole.
  std::vector<const Entry*> by_offset;
  for (const Entry& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* x, const Entry* y) {
    return std::tie(x->begin, x->end, x->name) < std::tie(y->begin, y->end, y->name);
  });
  std::uint64_t cursor = 0;
  const Entry* prev = nullptr;
  auto range = [](const Entry& e) {
    return "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  };
  for (const Entry* e : by_offset) {
    if (e->begin < cursor)
      throw TensorError(path, "tensors " + quote_for_message(prev->name) + " " + range(*prev) + " and " +
                                  quote_for_message(e->name) + " " + range(*e) + " overlap");
    if (e->begin > cursor)
      throw TensorError(path, "hole in the byte buffer: bytes [" + std::to_string(cursor) + ", " +
                                  std::to_string(e->begin) + ") before tensor " + quote_for_message(e->name) +
                                  " belong to no tensor");
    cursor = e->end;
    prev = e;
  }
  if (cursor != buffer_size)
    throw TensorError(path, "hole in the byte buffer: bytes [" + std::to_string(cursor) + ", " +
                                std::to_string(buffer_size) + ") at its end belong to no tensor");

  for (const Entry& e : entries) {
    Tensor t;
    t.name = e.name;
    t.dtype = e.dtype;
    t.source_dtype = e.source_dtype;
    t.note = e.note;
    t.shape = e.shape;
    t.elements = e.elements;
    t.data = std::span<const std::uint8_t>(b.data() + buffer_at + e.begin,
                                           static_cast<std::size_t>(e.end - e.begin));
    f.tensors.push_back(std::move(t));
  }
  std::sort(f.tensors.begin(), f.tensors.end(),
            [](const Tensor& x, const Tensor& y) { return x.name < y.name; });
  f.storage = std::move(bytes);
  return f;
}

TensorFile read_tensor_file(const std::string& path, const ReadOptions& opts) {
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(read_file_bytes(path, opts));
  TensorFormat fmt = detect_format(*bytes, path);
  return fmt == TensorFormat::npy ? parse_npy(std::move(bytes), path, opts)
                                  : parse_safetensors(std::move(bytes), path, opts);
}

}  // namespace samebits::oracle
