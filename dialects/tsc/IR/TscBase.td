//===- TscBase.td - tsc dialect, op base class, type constraints -*- tablegen -*-===//

#ifndef TSC_BASE_TD
#define TSC_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Tsc_Dialect : Dialect {
  let name = "tsc";
  let cppNamespace = "::mlir::tsc";
  let summary = "Graph-level dialect of the tsc transformer compiler";
  let description = [{
    Value-semantics tensor ops at the granularity of model graphs (ONNX nodes,
    aten ops): elementwise math with numpy broadcasting, matmul/linear,
    reductions, norms, attention, shape manipulation and quantization, plus
    `tsc.foreign` for source ops not yet converted. Dynamic dimensions are
    named by `tsc.symbol` declarations and bound by `tsc.bind_shape`.
  }];
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

/// Base class of every tsc op.
class Tsc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tsc_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tsc_Tensor : RankedTensorOf<[AnyType]>;
def Tsc_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Tsc_IntTensor : RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>;
def Tsc_BoolTensor : RankedTensorOf<[I1]>;
def Tsc_NumericTensor
    : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
/// Element types that hold quantized values: 4-, 8- and 16-bit integers.
def Tsc_QuantizedTensor
    : RankedTensorOf<[I<4>, I8, I16, UI<4>, UI8, UI16, SI<4>, SI8, SI16]>;
def Tsc_Scalar : AnyTypeOf<[Index, AnySignlessInteger, AnyFloat]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tsc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how tsc.gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

#endif // TSC_BASE_TD
