//===- ImportUtils.cpp - input symbols and weight constants ---------------===//

#include "compiler/importers/common/ImportUtils.h"
#include "dialects/tsc/IR/TscOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/MathExtras.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tsc;

Value InputSymbols::symbolFor(StringRef name) {
  Value &symbol = symbols[name];
  if (!symbol)
    symbol = SymbolOp::create(builder, loc, name,
                              static_cast<uint64_t>(defaultMin),
                              static_cast<uint64_t>(defaultMax));
  return symbol;
}

Value InputSymbols::declare(StringRef name, int64_t min, int64_t max) {
  return symbols[name] =
             SymbolOp::create(builder, loc, name, static_cast<uint64_t>(min),
                              static_cast<uint64_t>(max));
}

void InputSymbols::bind(Value arg, ArrayRef<InputDim> dims) {
  SmallVector<Value> operands;
  SmallVector<AffineExpr> exprs;
  for (const InputDim &dim : dims) {
    if (const auto *size = std::get_if<int64_t>(&dim)) {
      exprs.push_back(builder.getAffineConstantExpr(*size));
      continue;
    }
    Value symbol = symbolFor(std::get<std::string>(dim));
    auto *pos = llvm::find(operands, symbol);
    if (pos == operands.end()) {
      operands.push_back(symbol);
      pos = operands.end() - 1;
    }
    exprs.push_back(builder.getAffineSymbolExpr(pos - operands.begin()));
  }
  if (operands.empty())
    return;
  BindShapeOp::create(
      builder, loc, arg, operands,
      AffineMap::get(0, operands.size(), exprs, builder.getContext()));
}

FailureOr<std::shared_ptr<MappedFile>> MappedFile::open(StringRef path,
                                                        std::string &error) {
  error.clear();
  std::string name = path.str();
  int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return failure();
  }
  struct stat info;
  void *data = nullptr;
  if (::fstat(fd, &info) != 0)
    error = std::strerror(errno);
  else if (!S_ISREG(info.st_mode))
    error = "not a regular file";
  // An empty file has no mapping (mmap refuses length 0).
  else if (info.st_size > 0 &&
           (data = ::mmap(nullptr, static_cast<size_t>(info.st_size), PROT_READ,
                          MAP_PRIVATE, fd, 0)) == MAP_FAILED)
    error = std::strerror(errno);
  ::close(fd);
  if (!error.empty())
    return failure();
  return std::shared_ptr<MappedFile>(new MappedFile(
      static_cast<const char *>(data), static_cast<size_t>(info.st_size)));
}

MappedFile::~MappedFile() {
  if (size)
    ::munmap(const_cast<char *>(data), size);
}

/// The largest power of two, at most 64, that `p` is aligned to.
static size_t alignmentOf(const void *p) {
  auto address = reinterpret_cast<uintptr_t>(p);
  return address ? std::min<size_t>(64, address & -address) : 64;
}

AsmResourceBlob tsc::mappedBlob(std::shared_ptr<MappedFile> file,
                                ArrayRef<char> bytes) {
  auto release = [file = std::move(file)](void *data, size_t size, size_t) {
    // The mapping is private and never written: dropped pages read the file
    // again if anything still looks at them.
    static const uintptr_t page = ::sysconf(_SC_PAGESIZE);
    auto begin = llvm::alignTo(reinterpret_cast<uintptr_t>(data), page);
    uintptr_t end =
        llvm::alignDown(reinterpret_cast<uintptr_t>(data) + size, page);
    if (begin < end)
      ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
  };
  return AsmResourceBlob(bytes, alignmentOf(bytes.data()), std::move(release),
                         /*dataIsMutable=*/false);
}

AsmResourceBlob tsc::stringBlob(std::unique_ptr<std::string> bytes) {
  ArrayRef<char> data(bytes->data(), bytes->size());
  size_t alignment = alignmentOf(data.data());
  return AsmResourceBlob(
      data, alignment, [owner = std::move(bytes)](void *, size_t, size_t) {},
      /*dataIsMutable=*/false);
}

ElementsAttr tsc::weightAttr(RankedTensorType type, AsmResourceBlob blob,
                             StringRef name, int64_t maxInlineElements) {
  ArrayRef<char> bytes = blob.getData();
  Type element = type.getElementType();
  if (type.getNumElements() <= maxInlineElements &&
      element.getIntOrFloatBitWidth() >= 8) {
    bool splat = false;
    if (DenseElementsAttr::isValidRawBuffer(type, bytes, splat))
      return DenseElementsAttr::getFromRawBuffer(type, bytes);
  } else if (element.isInteger(1)) {
    SmallVector<bool> bits(bytes.begin(), bytes.end());
    return DenseElementsAttr::get(type, bits);
  }
  // Weights: blobs, never printed as text.
  return DenseResourceElementsAttr::get(type, name, std::move(blob));
}

ElementsAttr tsc::weightAttr(RankedTensorType type, ArrayRef<char> bytes,
                             StringRef name, int64_t maxInlineElements) {
  return weightAttr(
      type, HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, /*align=*/64),
      name, maxInlineElements);
}

void tsc::finishForward(OpBuilder &builder, func::FuncOp func,
                        ValueRange results, Location loc) {
  func::ReturnOp::create(builder, loc, results);
  // The entry block's arguments: the function's type has none yet.
  func.setType(builder.getFunctionType(func.front().getArgumentTypes(),
                                       TypeRange(results)));
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    func.setArgAttr(i, "tsc.name", cast<NameLoc>(arg.getLoc()).getName());
  for (unsigned i = 0, e = results.size(); i < e; ++i)
    func.setResultAttr(i, "tsc.name",
                       builder.getStringAttr("output_" + std::to_string(i)));
}
