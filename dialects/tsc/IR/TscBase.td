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
// Op traits: what passes ask of an op, declared with the op instead of kept
// as lists of ops in the passes (C++ classes in TscTraits.h)
//===----------------------------------------------------------------------===//

class Tsc_OpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::OpTrait::tsc";
}

/// Each result element is a function of the operand elements at the same
/// position (after numpy broadcasting) alone: any layout or loop order
/// computes it, and chains of such ops become one loop.
def Tsc_Elementwise : Tsc_OpTrait<"Elementwise">;
/// The result's shape is the numpy broadcast of all operands' shapes.
def Tsc_Broadcasting : Tsc_OpTrait<"Broadcasting">;
/// The result's shape is the first operand's (also implied by
/// SameOperandsAndResultType).
def Tsc_ShapeOfFirstOperand : Tsc_OpTrait<"ShapeOfFirstOperand">;
/// The planner puts the op's kernel in one fusion group with fusible
/// neighbours (elementwise chains, norms and softmax over rows, the slices of
/// a split projection): one kernel, one pass over memory.
def Tsc_Fusible : Tsc_OpTrait<"Fusible">;
/// Every result element is an element of the first operand and every
/// operand element is in the result (reshapes, transposes, broadcasts): what
/// holds for the operand's set of values (its bounds, its sign, that it
/// counts 0..n-1) holds for the result's.
def Tsc_RearrangesElements : Tsc_OpTrait<"RearrangesElements">;

// The precision policy of tsc-reduce-precision (PyTorch autocast's rules);
// an op with none of these stays in f32.
/// Computes on half-precision operands when its inputs are model data.
def Tsc_HalfCompute : Tsc_OpTrait<"HalfCompute">;
/// Its results may leave the half range (exp, log, pow, sums): kept in f32,
/// and what computes elementwise from them too.
def Tsc_KeepsF32ForRange : Tsc_OpTrait<"KeepsF32ForRange">;
/// Its results stay within its inputs' values (data movement, mean, max,
/// min): it takes its operands' precision rather than setting one.
def Tsc_FollowsPrecision : Tsc_OpTrait<"FollowsPrecision">;
/// Bounded or normalized results, or a library call on half operands: on
/// half even next to f32 values.
def Tsc_AlwaysHalf : Tsc_OpTrait<"AlwaysHalf">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tsc_Tensor : RankedTensorOf<[AnyType]>;
def Tsc_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Tsc_IntTensor : RankedTensorOf<[AnySignlessInteger, AnyUnsignedInteger]>;
def Tsc_BoolTensor : RankedTensorOf<[I1]>;
def Tsc_NumericTensor
    : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;
/// Element types that hold quantized values: 2-, 4-, 8- and 16-bit integers,
/// the 8-bit floats and the 4-bit float (ONNX QuantizeLinear's outputs).
def Tsc_QuantizedTensor
    : RankedTensorOf<[I<2>, I<4>, I8, I16, UI<2>, UI<4>, UI8, UI16, SI<2>,
                      SI<4>, SI8, SI16, F8E4M3FN, F8E4M3FNUZ, F8E5M2,
                      F8E5M2FNUZ, F4E2M1FN]>;
def Tsc_Scalar : AnyTypeOf<[Index, AnySignlessInteger, AnyFloat]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tsc_ExponentRounding : I32EnumAttr<"ExponentRounding",
    "how a cast to f8E8M0FNU (a power of two) rounds (ONNX Cast's round_mode)", [
      I32EnumAttrCase<"up", 0>,
      I32EnumAttrCase<"down", 1>,
      I32EnumAttrCase<"nearest", 2>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how tsc.gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_GemmActivation : I32EnumAttr<"GemmActivation",
    "what tsc.linear applies to x·Wᵀ + b before adding its residual", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"gelu", 1>,
      I32EnumAttrCase<"gelu_tanh", 2>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

#endif // TSC_BASE_TD
