//===- npy.cpp - reading and writing NumPy .npy files for tsc-run ---------===//

#include "npy.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace tsc::run {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Descr {
  const char *text;
  tsc_dtype_t dtype;
};
constexpr Descr kDescrs[] = {
    {"<f4", TSC_DTYPE_F32}, {"<f2", TSC_DTYPE_F16}, {"<f8", TSC_DTYPE_F64},
    {"|i1", TSC_DTYPE_I8},  {"|u1", TSC_DTYPE_U8},  {"<i2", TSC_DTYPE_I16},
    {"<i4", TSC_DTYPE_I32}, {"<i8", TSC_DTYPE_I64}, {"|b1", TSC_DTYPE_BOOL},
    {"<u2", TSC_DTYPE_U16}, {"<u4", TSC_DTYPE_U32}, {"<u8", TSC_DTYPE_U64},
};

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw std::runtime_error(path + ": " + what);
}

/// The bytes an array of `shape` and whole-byte `dtype` holds; false when a
/// dim is negative or the count overflows 64 bits.
bool dataBytes(tsc_dtype_t dtype, const std::vector<int64_t> &shape,
               uint64_t &bytes) {
  uint64_t n = tsc_dtype_size(dtype);
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, uint64_t(d), &n))
      return false;
  bytes = n;
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &path)
      : s_(text), path_(path) {}

  void parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    expect('{');
    while (!peek('}')) {
      std::string key = quoted();
      expect(':');
      if (key == "descr") {
        descr = quoted();
        haveDescr = true;
      } else if (key == "fortran_order") {
        fortran = boolean();
        haveFortran = true;
      } else if (key == "shape") {
        shape = tuple();
        haveShape = true;
      } else {
        fail(path_, "unexpected key '" + key + "' in the .npy header");
      }
      if (!peek('}'))
        expect(',');
    }
    if (!haveDescr || !haveFortran || !haveShape)
      fail(path_, "the .npy header lacks descr, fortran_order or shape");
  }

private:
  void skipSpace() {
    while (pos_ < s_.size() &&
           std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool peek(char c) {
    skipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c))
      fail(path_, std::string("malformed .npy header: expected '") + c +
                      "' at " + std::to_string(pos_));
    ++pos_;
  }
  std::string quoted() {
    skipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      fail(path_, "malformed .npy header: expected a string at " +
                      std::to_string(pos_));
    char quote = s_[pos_++];
    size_t end = s_.find(quote, pos_);
    if (end == std::string::npos)
      fail(path_, "malformed .npy header: unterminated string");
    std::string text = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return text;
  }
  bool boolean() {
    skipSpace();
    for (bool value : {true, false}) {
      const char *word = value ? "True" : "False";
      if (s_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail(path_, "malformed .npy header: expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!peek(')')) {
      skipSpace();
      size_t start = pos_;
      while (pos_ < s_.size() &&
             std::isdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
      if (start == pos_ || pos_ - start > 18)
        fail(path_, "malformed .npy header: bad shape");
      dims.push_back(std::stoll(s_.substr(start, pos_ - start)));
      if (!peek(')'))
        expect(',');
    }
    expect(')');
    return dims;
  }

  const std::string &s_;
  const std::string &path_;
  size_t pos_ = 0;
};

} // namespace

Tensor readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  return parseNpy(bytes, path);
}

Tensor parseNpy(const std::string &bytes, const std::string &path) {
  if (bytes.size() < 10 ||
      bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
    fail(path, "not a .npy file (bad magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength = 0, start = 0;
  if (major == 1) {
    headerLength = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      fail(path, "truncated .npy header");
    for (int i = 3; i >= 0; --i)
      headerLength = headerLength << 8 | uint8_t(bytes[8 + i]);
    start = 12;
  } else {
    fail(path,
         ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (headerLength > bytes.size() - start)
    fail(path, "truncated .npy header");
  std::string header = bytes.substr(start, headerLength);
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  HeaderParser(header, path).parse(descr, fortran, shape);
  if (fortran)
    fail(path, "Fortran-order arrays are not supported (save a C-order array)");
  if (!descr.empty() && descr[0] == '>')
    fail(path, "big-endian dtype '" + descr + "' is not supported");
  tsc_dtype_t dtype = tsc_dtype_t(0);
  for (const Descr &d : kDescrs)
    if (descr == d.text || (descr.size() == 3 && descr[0] == '=' &&
                            descr.compare(1, 2, d.text + 1) == 0))
      dtype = d.dtype;
  if (!dtype)
    fail(path, "dtype '" + descr + "' is not supported");
  // The header's claim is checked against the file before anything of
  // that size is allocated.
  size_t dataStart = start + headerLength;
  uint64_t expected = 0;
  if (!dataBytes(dtype, shape, expected))
    fail(path, "shape " + shapeString(shape) + " is too large");
  uint64_t present = bytes.size() - dataStart;
  if (present < expected)
    fail(path, "truncated: " + std::to_string(expected) +
                   " data bytes expected, " + std::to_string(present) +
                   " present");
  if (present > expected)
    fail(path, std::to_string(present - expected) +
                   " bytes after the data that shape " + shapeString(shape) +
                   " holds (" + std::to_string(expected) + " bytes)");
  Tensor tensor = Tensor::createHost(dtype, shape);
  std::memcpy(tensor.data(), bytes.data() + dataStart, tensor.byteSize());
  return tensor;
}

std::string npyBytes(const Tensor &packedOrNot, const std::string &what) {
  Tensor tensor =
      isPacked(packedOrNot.dtype()) ? unpackTensor(packedOrNot) : packedOrNot;
  std::vector<int64_t> dims = tensor.dims();
  const char *descr = nullptr;
  for (const Descr &d : kDescrs)
    if (d.dtype == tensor.dtype())
      descr = d.text;
  bool bf16 = tensor.dtype() == TSC_DTYPE_BF16;
  if (bf16)
    descr = "<f4";
  if (isFloat8(tensor.dtype()))
    descr = "|u1"; // the bits: NumPy has no 8-bit floats
  if (!descr)
    fail(what, "cannot write dtype " + std::to_string(int(tensor.dtype())));
  std::string shape = "(";
  for (size_t d = 0; d < dims.size(); ++d)
    shape += (d ? ", " : "") + std::to_string(dims[d]);
  shape += dims.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64, as NumPy does.
  bool v2 = header.size() + 11 > 65535;
  size_t prefix = v2 ? 12 : 10;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += char(v2 ? 2 : 1);
  out += char(0);
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out += char((header.size() >> (8 * i)) & 0xFF);
  out += header;
  if (bf16) {
    const uint16_t *src = tensor.data<uint16_t>();
    std::vector<float> converted(tensor.byteSize() / 2);
    for (size_t i = 0; i < converted.size(); ++i)
      converted[i] = bf16ToFloat(src[i]);
    out.append(reinterpret_cast<const char *>(converted.data()),
               converted.size() * sizeof(float));
  } else {
    out.append(static_cast<const char *>(tensor.data()), tensor.byteSize());
  }
  return out;
}

void writeNpy(const std::string &path, const Tensor &tensor) {
  std::string bytes = npyBytes(tensor, path);
  std::ofstream out(path, std::ios::binary);
  if (!out)
    fail(path, std::string("cannot create: ") + std::strerror(errno));
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out.flush())
    fail(path, std::string("cannot write: ") + std::strerror(errno));
}

bool isFloat8(tsc_dtype_t dtype) {
  return dtype >= TSC_DTYPE_F8E4M3FN && dtype <= TSC_DTYPE_F8E8M0;
}

bool isPacked(tsc_dtype_t dtype) {
  return dtype >= TSC_DTYPE_U4 && dtype <= TSC_DTYPE_I2;
}

namespace {

bool isSignedPacked(tsc_dtype_t dtype) {
  return dtype == TSC_DTYPE_I4 || dtype == TSC_DTYPE_I2;
}

int64_t elementCount(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

} // namespace

Tensor packTensor(const Tensor &bytes, tsc_dtype_t dtype,
                  const std::string &what) {
  unsigned bits = unsigned(tsc_dtype_bits(dtype));
  bool isSigned = isSignedPacked(dtype);
  if (bytes.dtype() != (isSigned ? TSC_DTYPE_I8 : TSC_DTYPE_U8))
    throw std::runtime_error(
        what + ": a " + tsc_dtype_name(dtype) + " input is given as " +
        (isSigned ? "|i1" : "|u1") + ", not " + tsc_dtype_name(bytes.dtype()));
  Tensor t = Tensor::createHost(dtype, bytes.dims());
  std::memset(t.data(), 0, t.byteSize());
  int lo = isSigned ? -(1 << (bits - 1)) : 0;
  int hi = isSigned ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  auto *out = t.data<uint8_t>();
  int64_t n = elementCount(bytes.dims());
  for (int64_t i = 0; i < n; ++i) {
    int v =
        isSigned ? int(bytes.data<int8_t>()[i]) : int(bytes.data<uint8_t>()[i]);
    if (v < lo || v > hi)
      throw std::runtime_error(what + ": element " + std::to_string(i) +
                               " is " + std::to_string(v) + ", outside " +
                               tsc_dtype_name(dtype) + "'s " +
                               std::to_string(lo) + ".." + std::to_string(hi));
    unsigned code = unsigned(v) & ((1u << bits) - 1);
    out[i * bits / 8] |= uint8_t(code << (i * bits % 8));
  }
  return t;
}

Tensor unpackTensor(const Tensor &tensor) {
  tsc_dtype_t dtype = tensor.dtype();
  unsigned bits = unsigned(tsc_dtype_bits(dtype));
  bool isSigned = isSignedPacked(dtype);
  Tensor t =
      Tensor::createHost(isSigned ? TSC_DTYPE_I8 : TSC_DTYPE_U8, tensor.dims());
  const auto *in = tensor.data<uint8_t>();
  int64_t n = elementCount(tensor.dims());
  for (int64_t i = 0; i < n; ++i) {
    unsigned code = (in[i * bits / 8] >> (i * bits % 8)) & ((1u << bits) - 1);
    // Sign-extend from `bits`.
    t.data<uint8_t>()[i] =
        uint8_t(isSigned && code >> (bits - 1) ? code | (0xFFu << bits) : code);
  }
  return t;
}

} // namespace tsc::run
