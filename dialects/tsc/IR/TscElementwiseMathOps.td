//===- TscElementwiseMathOps.td - ElementwiseMath op family -*- tablegen -*-===//
//
// Elementwise math, logic and bitwise ops beyond the core set (rounding,
// trigonometry, classification, modulo, bitwise ops and shifts); included by
// TscOps.td after the core ops, whose base classes these use. Activations
// (LeakyRelu, Elu, Softplus, HardSwish, ...) are not here: converters build
// them from these and the core ops, which fuse into one kernel.
//
// Precision policy (see TscBase.td): rounding, sign and classification keep
// their operand's precision (a half value rounds to a half value); ops on
// PyTorch autocast's fp32 list (tan, asin, acos, sinh, cosh) keep f32;
// bounded or slowly growing functions compute on half. Bitwise ops and shifts
// take integers only and so have no precision policy.
//
//===----------------------------------------------------------------------===//

#ifndef TSCELEMENTWISEMATHOPS_TD
#define TSCELEMENTWISEMATHOPS_TD

//===----------------------------------------------------------------------===//
// Rounding and sign
//===----------------------------------------------------------------------===//

def Tsc_FloorOp : Tsc_UnaryOp<"floor", "floor(x)", Tsc_FloatTensor,
                              [Tsc_FollowsPrecision]>;
def Tsc_CeilOp : Tsc_UnaryOp<"ceil", "ceil(x)", Tsc_FloatTensor,
                             [Tsc_FollowsPrecision]>;

def Tsc_RoundOp : Tsc_UnaryOp<"round", "round(x)", Tsc_FloatTensor,
                              [Tsc_FollowsPrecision]> {
  let summary = "elementwise rounding to the nearest integer, halves to even";
  let description = [{
    Rounds each element to the nearest integer; a value halfway between two
    integers goes to the even one (`2.5 -> 2`, `-1.5 -> -2`), as ONNX `Round`
    and numpy `round` do. Integers, ±0, ±inf and NaN are unchanged.

    ```mlir
    %y = tsc.round %x : tensor<?x768xf32>
    ```
  }];
}

def Tsc_SignOp : Tsc_UnaryOp<"sign", "sign(x)", Tsc_NumericTensor,
                             [Tsc_FollowsPrecision]> {
  let summary = "elementwise sign: -1, 0 or 1";
  let description = [{
    1 for positive elements, -1 for negative ones, 0 for zero (keeping the
    sign of a float zero); NaN stays NaN. Unsigned integers give 0 or 1.

    ```mlir
    %s = tsc.sign %x : tensor<?x768xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Trigonometric and hyperbolic functions
//===----------------------------------------------------------------------===//

def Tsc_TanOp : Tsc_UnaryOp<"tan", "tan(x)", Tsc_FloatTensor,
                            [Tsc_KeepsF32ForRange]>;
def Tsc_AsinOp : Tsc_UnaryOp<"asin", "asin(x)", Tsc_FloatTensor,
                             [Tsc_KeepsF32ForRange]>;
def Tsc_AcosOp : Tsc_UnaryOp<"acos", "acos(x)", Tsc_FloatTensor,
                             [Tsc_KeepsF32ForRange]>;
def Tsc_AtanOp : Tsc_UnaryOp<"atan", "atan(x)", Tsc_FloatTensor,
                             [Tsc_HalfCompute]>;
def Tsc_SinhOp : Tsc_UnaryOp<"sinh", "sinh(x)", Tsc_FloatTensor,
                             [Tsc_KeepsF32ForRange]>;
def Tsc_CoshOp : Tsc_UnaryOp<"cosh", "cosh(x)", Tsc_FloatTensor,
                             [Tsc_KeepsF32ForRange]>;
def Tsc_AsinhOp : Tsc_UnaryOp<"asinh", "asinh(x)", Tsc_FloatTensor,
                              [Tsc_HalfCompute]>;
def Tsc_AcoshOp : Tsc_UnaryOp<"acosh", "acosh(x)", Tsc_FloatTensor,
                              [Tsc_HalfCompute]>;
def Tsc_AtanhOp : Tsc_UnaryOp<"atanh", "atanh(x)", Tsc_FloatTensor,
                              [Tsc_HalfCompute]>;

//===----------------------------------------------------------------------===//
// Classification: float in, i1 out
//===----------------------------------------------------------------------===//

/// An elementwise test of float elements with an `i1` result of the
/// operand's shape.
class Tsc_ClassifyOp<string mnemonic> : Tsc_InferredOp<mnemonic, [
    Tsc_Elementwise, Tsc_ShapeOfFirstOperand, Tsc_Fusible,
    Tsc_FollowsPrecision]> {
  let results = (outs Tsc_BoolTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = refinableResults # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      results.push_back(
          ::llvm::cast<::mlir::RankedTensorType>(adaptor.getInput().getType())
              .clone(::mlir::IntegerType::get(context, 1)));
      return ::mlir::success();
    }
  }];
}

def Tsc_IsNanOp : Tsc_ClassifyOp<"is_nan"> {
  let summary = "elementwise test for NaN";
  let description = [{
    True where the element is a NaN (of any payload or sign).

    ```mlir
    %m = tsc.is_nan %x : (tensor<?x?xf32>) -> tensor<?x?xi1>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input);
}

def Tsc_IsInfOp : Tsc_ClassifyOp<"is_inf"> {
  let summary = "elementwise test for infinities";
  let description = [{
    True where the element is +inf (when `detect_positive`, the default) or
    -inf (when `detect_negative`, the default); with both false, false
    everywhere.

    ```mlir
    %any = tsc.is_inf %x : (tensor<?x?xf32>) -> tensor<?x?xi1>
    %neg = tsc.is_inf %x detect_positive = false
        : (tensor<?x?xf32>) -> tensor<?x?xi1>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_positive,
                       DefaultValuedAttr<BoolAttr, "true">:$detect_negative);
  let assemblyFormat = [{
    $input (`detect_positive` `=` $detect_positive^)?
    (`detect_negative` `=` $detect_negative^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Comparisons, modulo, bitwise ops and shifts, numpy broadcasting
//===----------------------------------------------------------------------===//

// Their own ops rather than not(less) / not(greater): a comparison with NaN
// is false, its negation true.
def Tsc_GreaterEqualOp : Tsc_BinaryOp<"greater_equal", "x >= y",
                                      Tsc_NumericTensor, 1, [Tsc_HalfCompute]>;
def Tsc_LessEqualOp : Tsc_BinaryOp<"less_equal", "x <= y", Tsc_NumericTensor,
                                   1, [Tsc_HalfCompute]>;

def Tsc_ModOp : Tsc_BinaryOp<"mod", "x mod y", Tsc_NumericTensor, 0,
                             [Tsc_HalfCompute]> {
  let summary = "elementwise floored modulo (the sign of the divisor)";
  let description = [{
    `x - floor(x / y) * y` (Python's `%`, ONNX `Mod` with `fmod = 0`): the
    result is 0 or has the sign of `y`. For floats a zero result is a zero
    of `y`'s sign, `y = ±0` or `x = ±inf` give NaN, and a finite nonzero `x`
    against `y = ±inf` gives `x` when their signs agree and `y` otherwise.
    For integers `y = 0` gives 0. Operands broadcast (numpy rules).

    ```mlir
    %r = tsc.mod %x, %y : (tensor<?x8xi64>, tensor<8xi64>) -> tensor<?x8xi64>
    ```
  }];
  let hasFolder = 1;
}

def Tsc_FmodOp : Tsc_BinaryOp<"fmod", "fmod(x, y)", Tsc_NumericTensor, 0,
                              [Tsc_HalfCompute]> {
  let summary = "elementwise truncated modulo (the sign of the dividend)";
  let description = [{
    `x - trunc(x / y) * y` (C's `fmod` and `%`, ONNX `Mod` with `fmod = 1`):
    the result is 0 or has the sign of `x`, exact for floats. `y = ±0` or
    `x = ±inf` give NaN for floats; for integers `y = 0` gives 0. Operands
    broadcast (numpy rules).

    ```mlir
    %r = tsc.fmod %x, %y : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
    ```
  }];
  let hasFolder = 1;
}

def Tsc_BitwiseAndOp : Tsc_BinaryOp<"bitwise_and", "x & y", Tsc_IntTensor, 0,
                                    [Commutative]>;
def Tsc_BitwiseOrOp : Tsc_BinaryOp<"bitwise_or", "x | y", Tsc_IntTensor, 0,
                                   [Commutative]>;
def Tsc_BitwiseXorOp : Tsc_BinaryOp<"bitwise_xor", "x ^ y", Tsc_IntTensor, 0,
                                    [Commutative]>;

def Tsc_ShiftLeftOp : Tsc_BinaryOp<"shift_left", "x << y", Tsc_IntTensor> {
  let summary = "elementwise left shift";
  let description = [{
    Shifts each element of `x` left by the matching element of `y`; bits
    shifted past the top are lost. A shift amount that is negative or at
    least the element width gives 0. Operands broadcast (numpy rules).

    ```mlir
    %z = tsc.shift_left %x, %y : (tensor<?x8xui8>, tensor<8xui8>) -> tensor<?x8xui8>
    ```
  }];
}

def Tsc_ShiftRightOp : Tsc_BinaryOp<"shift_right", "x >> y", Tsc_IntTensor> {
  let summary = "elementwise right shift, arithmetic for signed integers";
  let description = [{
    Shifts each element of `x` right by the matching element of `y`: signed
    (and signless) elements shift in copies of the sign bit, unsigned ones
    zeros. A shift amount that is negative or at least the element width
    gives what the fill alone gives: -1 for a negative signed `x`, else 0.
    Operands broadcast (numpy rules).

    ```mlir
    %z = tsc.shift_right %x, %y : (tensor<?x8xi32>, tensor<8xi32>) -> tensor<?x8xi32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Bit reinterpretation
//===----------------------------------------------------------------------===//

def Tsc_BitcastOp : Tsc_Op<"bitcast", [Pure, Tsc_Elementwise,
    Tsc_ShapeOfFirstOperand, Tsc_Fusible]> {
  let summary = "elementwise reinterpretation of the bits as another type";
  let description = [{
    Keeps each element's bits and reads them as the result's element type,
    which has the same width (ONNX `BitCast`): `1.0 : f32` becomes
    `1065353216 : i32`. `i1` counts as a byte, as ONNX stores bool: a bool
    becomes 0 or 1, a byte becomes true where it is nonzero. The shape is
    kept. No precision policy: a half pass must not change the bits read.

    ```mlir
    %i = tsc.bitcast %x : tensor<?x3xf32> to tensor<?x3xi32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // TSCELEMENTWISEMATHOPS_TD
