//===- TscOps.td - tsc op definitions ----------------------*- tablegen -*-===//
//
// Conventions shared by every op here:
// - Tensors have value semantics; dims that are `?` are bound to symbols by
//   `tsc.bind_shape` (see DESIGN.md, "Symbolic dimensions").
// - Axis and dim attributes are normalized: in [0, rank), never negative.
//   Converters from sources with negative axes normalize them.
// - Ops with inferable results still print their result types, so that IR
//   whose types were refined by a pass round-trips; verification accepts any
//   result type at least as static as the inferred one.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_OPS_TD
#define TSC_OPS_TD

include "dialects/tsc/IR/TscBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "dialects/tsc/IR/TscInterfaces.td"

/// The op states its shape rule (ShapeDerivationOpInterface), defined in C++.
defvar Tsc_ShapeRule =
    DeclareOpInterfaceMethods<Tsc_ShapeDerivationOpInterface>;

/// `isCompatibleReturnTypes` for ops with inferred results: the declared
/// result types may refine (be more static than) the inferred ones.
defvar refinableResults = [{
  bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                          ::mlir::TypeRange actual) {
    return ::mlir::tsc::areRefinements(inferred, actual);
  }
}];

/// An op whose result types follow from its operands and attributes.
class Tsc_InferredOp<string mnemonic, list<Trait> traits = []>
    : Tsc_Op<mnemonic, !listconcat(traits, [Pure,
        InferTypeOpAdaptorWithIsCompatible])> {
  let extraClassDefinition = refinableResults;
}

//===----------------------------------------------------------------------===//
// Symbolic dimensions
//===----------------------------------------------------------------------===//

def Tsc_SymbolOp : Tsc_Op<"symbol", [Pure, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "declares a named symbolic dimension and its range";
  let description = [{
    Declares the dimension symbol `symbol`, whose run-time value lies in
    `[min, max]`. The result is the symbol's value; `tsc.bind_shape` uses it to
    name dynamic dims, and index arithmetic on it expresses derived sizes.
    A function declares each symbol name once.

    A plain symbol is the size of some input dim, which binds it at run time.
    Two other kinds are bound from data, as TensorRT's shape tensors are:
    `from %v[i]` reads element `i` of `%v`, a graph input (a value the
    model takes at run time, e.g. a Reshape's shape or a reduction's axes;
    the caller passes it in host memory) or a value the graph computes (read
    right after the step that computes it), and
    `= %v` defines the symbol as the index computation `%v` over other
    symbols, dims and constants (`arith` add, sub, mul, div, rem, min, max,
    cmpi, select and casts), which need not be affine. Such symbols may have a
    negative `min`; a run whose value falls outside `[min, max]` fails naming
    the symbol. The memory planner plans at `max`, as for every symbol.
    `command_line` marks a range the user set (`tsc --dim`): passes check
    the model against it instead of narrowing it.

    ```mlir
    %batch = tsc.symbol "batch" [1, 64]
    %seq = tsc.symbol "seq" [1, 512]
    %a0 = tsc.symbol "axes[0]" [-3, 2] from %axes[0] : tensor<1xi64>
    %r1 = tsc.symbol "r1" [0, 1] = %is1
    %len = tsc.symbol "len" [1, 64] command_line
    ```
  }];
  let arguments = (ins StrAttr:$symbol, I64Attr:$min, I64Attr:$max,
                       Optional<Index>:$definition,
                       Optional<Tsc_Tensor>:$source,
                       OptionalAttr<I64Attr>:$element,
                       UnitAttr:$command_line);
  let results = (outs Index:$result);
  let assemblyFormat = [{
    $symbol ` ` `[` $min `,` $max `]` (`=` $definition^)?
    (`from` $source^ `[` $element `]` `:` type($source))?
    (`command_line` $command_line^)? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$symbol, "uint64_t":$min,
                   "uint64_t":$max), [{
      build($_builder, $_state, symbol, min, max, ::mlir::Value(),
            ::mlir::Value(), ::mlir::IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Bound from the data of an input or defined by a computation, not by
    /// an input dim.
    bool isBoundFromData() { return getDefinition() || getSource(); }
    int64_t getLowest() { return static_cast<int64_t>(getMin()); }
    int64_t getHighest() { return static_cast<int64_t>(getMax()); }
  }];
  let hasVerifier = 1;
}

def Tsc_BindShapeOp : Tsc_Op<"bind_shape"> {
  let summary = "binds each dim of a tensor to an affine expression of symbols";
  let description = [{
    Records the shape of `operand` as one affine expression per dim over the
    listed `tsc.symbol` values (`s0`, `s1`, ... in `shape` are the symbols in
    list order). Static dims must bind to their own size. All bindings of one
    value must agree.

    ```mlir
    tsc.bind_shape %x[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1 * 2, 768)>
        : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$operand, Variadic<Index>:$symbols,
                       AffineMapAttr:$shape);
  let assemblyFormat = [{
    $operand `[` $symbols `]` `,` $shape attr-dict `:` type($operand)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Import and constants
//===----------------------------------------------------------------------===//

def Tsc_ForeignOp : Tsc_Op<"foreign"> {
  let summary = "a source-framework op not yet converted to tsc";
  let description = [{
    What importers emit for every source node: the node's `domain` (`onnx`,
    `com.microsoft`, `aten`, `prim`, ...), `op_type`, the opset or schema
    `version` it was written against, and its attributes, verbatim. Conversion
    patterns keyed by (domain, op_type, version) replace it with tsc ops;
    whatever foreign op is left afterwards is unsupported.

    ```mlir
    %y = tsc.foreign "onnx" "Gelu" version 20 (%x) {approximate = "tanh"}
        : (tensor<?x768xf32>) -> tensor<?x768xf32>
    ```

    A node's graph attributes (ONNX `If`, `Loop`, `Scan`) are its
    `subgraphs`: the attribute's value is the region's index (`0 : index`).
    A subgraph's block arguments are its formal inputs, typed `none` (the
    values bound to them are known only where the node is converted); its
    nodes read the enclosing graph's values directly, and `tsc.yield`
    returns its outputs.

    ```mlir
    %y = tsc.foreign "onnx" "If" version 11 (%c) {else_branch = 1 : index,
        then_branch = 0 : index} subgraphs {
      tsc.yield %a : tensor<2xf32>
    }, {
      tsc.yield %b : tensor<2xf32>
    } : (tensor<i1>) -> none
    ```
  }];
  let arguments = (ins StrAttr:$domain, StrAttr:$op_type, I64Attr:$version,
                       Variadic<AnyType>:$inputs,
                       DictionaryAttr:$source_attributes);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region VariadicRegion<AnyRegion>:$subgraphs);
  let assemblyFormat = [{
    $domain $op_type `version` $version ` ` `(` $inputs `)` $source_attributes
    (`subgraphs` $subgraphs^)? attr-dict `:` functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
}

def Tsc_YieldOp : Tsc_Op<"yield", [Pure, Terminator,
    HasParent<"ForeignOp">]> {
  let summary = "the outputs of a foreign op's subgraph";
  let description = [{
    Ends a subgraph region of `tsc.foreign` (an ONNX `If` branch, a `Loop`
    or `Scan` body) with the subgraph's outputs, in order.

    ```mlir
    tsc.yield %sum, %out : tensor<2xf32>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Tsc_NoneOp : Tsc_Op<"none", [Pure]> {
  let summary = "the absent value of an optional source operand";
  let description = [{
    Stands for an omitted optional input of a foreign op (an empty input name in
    ONNX, `None` in TorchScript), keeping operand positions meaningful.

    ```mlir
    %none = tsc.none
    %y = tsc.foreign "onnx" "Clip" version 13 (%x, %none, %max) {}
        : (tensor<4xf32>, none, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let results = (outs NoneType:$result);
  let assemblyFormat = "attr-dict";
}

def Tsc_ConstantOp : Tsc_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor: weights or folded values";
  let description = [{
    Weights are `dense_resource` blobs, so multi-gigabyte models never pass
    through text; `tsc --emit` elides their bytes. Small folded values are
    `dense` literals.

    ```mlir
    %w = tsc.constant dense_resource<w0> : tensor<768x768xf32>
    %s = tsc.constant dense<[0, 12, 64]> : tensor<3xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Tsc_UnaryOp<string mnemonic, string formula,
                  TypeConstraint type = Tsc_FloatTensor,
                  list<Trait> traits = []>
    : Tsc_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                            Tsc_Elementwise, Tsc_Fusible])> {
  let summary = "elementwise " # formula;
  let description = "Computes `" # formula # "` for each element.\n\n"
      "```mlir\n%y = tsc." # mnemonic # " %x : tensor<?x768x" #
      !if(!eq(type, Tsc_BoolTensor), "i1", "f32") # ">\n```";
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tsc_NegOp : Tsc_UnaryOp<"neg", "-x", Tsc_NumericTensor,
                               [Tsc_HalfCompute]>;
def Tsc_AbsOp : Tsc_UnaryOp<"abs", "|x|", Tsc_NumericTensor,
                               [Tsc_HalfCompute]>;
def Tsc_ExpOp : Tsc_UnaryOp<"exp", "e^x", Tsc_FloatTensor,
                               [Tsc_KeepsF32ForRange]>;
def Tsc_LogOp : Tsc_UnaryOp<"log", "ln(x)", Tsc_FloatTensor,
                               [Tsc_KeepsF32ForRange]>;
def Tsc_SqrtOp : Tsc_UnaryOp<"sqrt", "sqrt(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_RsqrtOp : Tsc_UnaryOp<"rsqrt", "1 / sqrt(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_ReciprocalOp : Tsc_UnaryOp<"reciprocal", "1 / x", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_TanhOp : Tsc_UnaryOp<"tanh", "tanh(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_ErfOp : Tsc_UnaryOp<"erf", "erf(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_SigmoidOp : Tsc_UnaryOp<"sigmoid", "1 / (1 + e^-x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_ReluOp : Tsc_UnaryOp<"relu", "max(x, 0)", Tsc_NumericTensor,
                               [Tsc_HalfCompute]>;
def Tsc_SiluOp : Tsc_UnaryOp<"silu", "x * sigmoid(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_SinOp : Tsc_UnaryOp<"sin", "sin(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_CosOp : Tsc_UnaryOp<"cos", "cos(x)", Tsc_FloatTensor,
                               [Tsc_HalfCompute]>;
def Tsc_NotOp : Tsc_UnaryOp<"not", "logical not", Tsc_BoolTensor>;

def Tsc_GeluOp : Tsc_Op<"gelu", [Pure, SameOperandsAndResultType,
    Tsc_Elementwise, Tsc_Fusible, Tsc_HalfCompute]> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `x * Φ(x)`, with the CDF Φ computed exactly through erf (`none`, the
    default) or by the tanh approximation of Hendrycks & Gimpel (`tanh`).

    ```mlir
    %y = tsc.gelu %x : tensor<?x3072xf32>
    %z = tsc.gelu %x approximate = tanh : tensor<?x3072xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input,
      DefaultValuedAttr<Tsc_GeluApproximation,
                        "::mlir::tsc::GeluApproximation::none">:$approximate);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def Tsc_ClipOp : Tsc_Op<"clip", [Pure, SameOperandsAndResultType,
    Tsc_Elementwise, Tsc_Fusible, Tsc_HalfCompute]> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    Clamps each element to `[min, max]`; a missing bound is unbounded.

    ```mlir
    %y = tsc.clip %x min = 0.0 max = 6.0 : tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`min` `=` $min^)? (`max` `=` $max^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Tsc_CastOp : Tsc_Op<"cast", [Pure, Tsc_Elementwise,
    Tsc_ShapeOfFirstOperand, Tsc_Fusible]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts each element, keeping the shape: float↔float rounds to nearest
    even, float→int truncates toward zero, int→bool tests for nonzero, bool→int
    gives 0 or 1. Unsigned integer types convert as unsigned. With `saturate`
    (float to float), a finite value past the result type's range becomes its
    largest finite value instead of infinity (`--precision=fp16` converting
    an exported mask of -3.4e38).

    The 8-bit floats (f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ) follow ONNX
    Cast: rounding to nearest even, and with `saturate` infinities and values
    past the range become the largest finite value; without it they become
    infinity (f8E5M2) or NaN (the others, which have no infinity). A cast to
    f8E8M0FNU keeps the exponent, rounding as `round_mode` says (default
    `up`); with `saturate` it stops at the largest power of two instead of
    NaN. f4E2M1FN saturates always: it has neither infinity nor NaN.

    ```mlir
    %m = tsc.cast %mask : tensor<?x?xi64> to tensor<?x?xf32>
    %h = tsc.cast %m saturate : tensor<?x?xf32> to tensor<?x?xf16>
    %e = tsc.cast %m saturate round_mode = nearest
        : tensor<?x?xf32> to tensor<?x?xf8E8M0FNU>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, UnitAttr:$saturate,
                       OptionalAttr<Tsc_ExponentRounding>:$round_mode);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input (`saturate` $saturate^)? (`round_mode` `=` $round_mode^)? attr-dict
    `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary, numpy broadcasting
//===----------------------------------------------------------------------===//

class Tsc_BinaryOp<string mnemonic, string formula,
                   TypeConstraint type = Tsc_NumericTensor,
                   bit comparison = 0, list<Trait> traits = []>
    : Tsc_InferredOp<mnemonic, !listconcat(traits, [Tsc_Elementwise,
                                                   Tsc_Broadcasting,
                                                   Tsc_Fusible])> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = "Computes `" # formula # "` for each element of the "
      "operands broadcast to a common shape (numpy rules); both operands have "
      "the same element type" #
      !if(comparison, " and the result is `i1`", "") # ".\n\n"
      "```mlir\n%z = tsc." # mnemonic # " %x, %y : "
      "(tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768x" #
      !if(comparison, "i1", "f32") # ">\n```";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs RankedTensorOf<[AnyType]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = refinableResults # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::tsc::inferElementwiseResult(
          loc, adaptor.getOperands().getTypes(), }] #
      !if(comparison, "true", "false") # [{, results);
    }
  }];
}

def Tsc_AddOp : Tsc_BinaryOp<"add", "x + y", Tsc_NumericTensor, 0,
                             [Commutative, Tsc_HalfCompute]> {
  let hasFolder = 1;
}
def Tsc_SubOp : Tsc_BinaryOp<"sub", "x - y", Tsc_NumericTensor, 0,
                             [Tsc_HalfCompute]> {
  let hasFolder = 1;
}
def Tsc_MulOp : Tsc_BinaryOp<"mul", "x * y", Tsc_NumericTensor, 0,
                             [Commutative, Tsc_HalfCompute]> {
  let hasFolder = 1;
}
def Tsc_DivOp : Tsc_BinaryOp<"div", "x / y", Tsc_NumericTensor, 0,
                             [Tsc_HalfCompute]> {
  let hasFolder = 1;
}
def Tsc_PowOp : Tsc_BinaryOp<"pow", "x ^ y", Tsc_NumericTensor, 0,
                             [Tsc_KeepsF32ForRange]> {
  let description = [{
    `x` to the power `y` for each element of the operands broadcast to a
    common shape (numpy rules); both have the same element type. Integers
    power exactly, wrapping around on overflow; a negative integer exponent
    gives the truncated quotient `1 / x^-y` (0 unless `x` is 1 or -1, and 0
    for `x = 0`).

    ```mlir
    %z = tsc.pow %x, %y : (tensor<?x768xf32>, tensor<f32>) -> tensor<?x768xf32>
    ```
  }];
}
def Tsc_MaxOp : Tsc_BinaryOp<"max", "max(x, y)", Tsc_NumericTensor, 0,
                             [Commutative, Tsc_HalfCompute]>;
def Tsc_MinOp : Tsc_BinaryOp<"min", "min(x, y)", Tsc_NumericTensor, 0,
                             [Commutative, Tsc_HalfCompute]>;
def Tsc_EqualOp : Tsc_BinaryOp<"equal", "x == y", Tsc_Tensor, 1,
                               [Commutative, Tsc_HalfCompute]>;
def Tsc_LessOp : Tsc_BinaryOp<"less", "x < y", Tsc_NumericTensor, 1,
                              [Tsc_HalfCompute]>;
def Tsc_GreaterOp : Tsc_BinaryOp<"greater", "x > y", Tsc_NumericTensor, 1,
                                 [Tsc_HalfCompute]>;
def Tsc_AndOp : Tsc_BinaryOp<"and", "x and y", Tsc_BoolTensor, 0,
                             [Commutative]>;
def Tsc_OrOp : Tsc_BinaryOp<"or", "x or y", Tsc_BoolTensor, 0,
                            [Commutative]>;

def Tsc_WhereOp : Tsc_InferredOp<"where", [Tsc_Elementwise, Tsc_Broadcasting,
                                           Tsc_Fusible, Tsc_HalfCompute]> {
  let summary = "elementwise select with numpy broadcasting";
  let description = [{
    `condition ? true_value : false_value` per element, all three broadcast to
    a common shape.

    ```mlir
    %s = tsc.where %mask, %scores, %neg_inf
        : (tensor<1x1x?x?xi1>, tensor<?x12x?x?xf32>, tensor<f32>)
        -> tensor<?x12x?x?xf32>
    ```
  }];
  let arguments = (ins Tsc_BoolTensor:$condition, Tsc_Tensor:$true_value,
                       Tsc_Tensor:$false_value);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Tsc_MatmulOp : Tsc_InferredOp<"matmul", [Tsc_AlwaysHalf, Tsc_ShapeRule]> {
  let summary = "matrix product with numpy matmul semantics";
  let description = [{
    numpy `matmul`: the last two dims contract as `[M, K] x [K, N]`, leading
    dims broadcast, a 1-D operand is a vector. Float operands give a result of
    their type; 8-bit integer operands accumulate into an `i32` result, 8-bit
    float ones (fp8 GEMMs) into an `f32` result.

    ```mlir
    %s = tsc.matmul %q, %kt : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>)
        -> tensor<?x12x?x?xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$lhs, Tsc_NumericTensor:$rhs);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Tsc_LinearOp : Tsc_InferredOp<"linear", [AttrSizedOperandSegments,
                                             Tsc_AlwaysHalf, Tsc_ShapeRule]> {
  let summary = "fully connected layer with its GEMM epilogue: act(x · Wᵀ + b) + r";
  let description = [{
    `input [..., K]` times the transpose of `weight [N, K]`, plus the optional
    `bias [N]`, giving `[..., N]` (PyTorch's `nn.Linear`). With `weight_kn`
    the weight is stored `[K, N]` and used as it is (ONNX's MatMul by an
    initializer); both layouts are GEMMs without a copy of the weight.

    The optional `activation` is applied to `x·Wᵀ + b`: `gelu` is the exact
    GELU `x·Φ(x)` through erf, `gelu_tanh` its tanh approximation (tsc.gelu's
    `approximate = tanh`), `none` (the default) nothing. It is the GELU after
    a transformer's first FFN GEMM, folded in by `tsc-fuse-gemm-epilogues`
    so that the GEMM's epilogue applies it instead of a pass of its own over
    the `[tokens, 4·hidden]` result.

    The optional `residual` has the result's type and is added last, after
    the activation: the residual connection of a transformer block, folded
    into the GEMM by `tsc-fuse-gemm-epilogues` so that a library writes
    `act(x·Wᵀ + b) + r` in one pass over the output (on the host: the
    residual as oneDNN's sum post-op, `beta = 1`).

    ```mlir
    %y = tsc.linear %x, %w, %b : (tensor<?x?x768xf32>, tensor<3072x768xf32>,
        tensor<3072xf32>) -> tensor<?x?x3072xf32>
    %g = tsc.linear %x, %w, %b activation = gelu_tanh
        : (tensor<?x?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>)
        -> tensor<?x?x3072xf32>
    %z = tsc.linear %x, %w2, %b2 residual %r {weight_kn}
        : (tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>,
           tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$weight,
                       Optional<Tsc_FloatTensor>:$bias,
                       Optional<Tsc_FloatTensor>:$residual,
                       UnitAttr:$weight_kn,
                       DefaultValuedAttr<Tsc_GemmActivation,
                           "::mlir::tsc::GemmActivation::none">:$activation);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`residual` $residual^)?
    (`activation` `=` $activation^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// N and K: the weight's output and input feature dims.
    int64_t getOutputFeaturesDim() { return getWeightKn() ? 1 : 0; }
    int64_t getInputFeaturesDim() { return getWeightKn() ? 0 : 1; }
  }];
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

class Tsc_ReduceOp<string mnemonic, string what, list<Trait> traits>
    : Tsc_InferredOp<mnemonic, !listconcat(traits, [Tsc_ShapeRule])> {
  let summary = what # " over the given dims";
  let description = "Reduces `dims` (strictly increasing, in [0, rank)) "
      "to their " # what # "; `keepdim` keeps them as size-1 dims.\n\n"
      "```mlir\n%m = tsc." # mnemonic # " %x dims = [2] keepdim : "
      "(tensor<?x?x768xf32>) -> tensor<?x?x1xf32>\n```";
  let arguments = (ins Tsc_NumericTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdim` $keepdim^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDefinition = refinableResults # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::mlir::tsc::inferReductionResult(loc, adaptor.getInput(),
          adaptor.getDims(), adaptor.getKeepdim(), results);
    }
    ::mlir::AffineExpr $cppClass::deriveResultDim(unsigned, int64_t dim,
        ::mlir::tsc::DimReader &reader) {
      return ::mlir::tsc::deriveReducedDim(getInput(), getDims(),
          getKeepdim(), dim, reader);
    }
  }];
}

def Tsc_ReduceSumOp : Tsc_ReduceOp<"reduce_sum", "sum", [Tsc_KeepsF32ForRange]>;
def Tsc_ReduceMeanOp
    : Tsc_ReduceOp<"reduce_mean", "mean", [Tsc_FollowsPrecision]>;
def Tsc_ReduceMaxOp
    : Tsc_ReduceOp<"reduce_max", "maximum", [Tsc_FollowsPrecision]>;
def Tsc_ReduceMinOp
    : Tsc_ReduceOp<"reduce_min", "minimum", [Tsc_FollowsPrecision]>;

class Tsc_SoftmaxOp<string mnemonic, string what, list<Trait> traits = []>
    : Tsc_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                            Tsc_AlwaysHalf])> {
  let summary = what # " along one axis";
  let description = "Computes " # what # " along `axis`; statistics are "
      "kept in at least fp32.\n\n"
      "```mlir\n%p = tsc." # mnemonic # " %s axis = 3 : tensor<?x12x?x?xf32>\n```";
  let arguments = (ins Tsc_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = "$input `axis` `=` $axis attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tsc_SoftmaxOp : Tsc_SoftmaxOp<"softmax", "softmax", [Tsc_Fusible]>;
def Tsc_LogSoftmaxOp : Tsc_SoftmaxOp<"log_softmax", "log of softmax">;

def Tsc_LayerNormOp : Tsc_Op<"layer_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>, Tsc_ShapeOfFirstOperand, Tsc_Fusible,
    Tsc_AlwaysHalf]> {
  let summary = "layer normalization over the trailing dims from `axis`";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, with mean and (biased)
    variance over dims `[axis, rank)`. `scale` and `bias`, when present, have
    the shape of those dims.

    ```mlir
    %y = tsc.layer_norm %x scale %g bias %b axis = 2 epsilon = 1.0e-12
        : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>)
        -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input,
                       Optional<Tsc_FloatTensor>:$scale,
                       Optional<Tsc_FloatTensor>:$bias,
                       I64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? (`bias` $bias^)? `axis` `=` $axis
    `epsilon` `=` $epsilon attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tsc_RmsNormOp : Tsc_Op<"rms_norm", [Pure,
    AllTypesMatch<["input", "result"]>, Tsc_ShapeOfFirstOperand, Tsc_Fusible,
    Tsc_AlwaysHalf]> {
  let summary = "root-mean-square normalization over the trailing dims";
  let description = [{
    `x / sqrt(mean(x²) + epsilon) * scale` over dims `[axis, rank)` (Llama's
    RMSNorm); `scale`, when present, has the shape of those dims.

    ```mlir
    %y = tsc.rms_norm %x scale %g axis = 2 epsilon = 1.0e-06
        : (tensor<?x?x4096xf32>, tensor<4096xf32>) -> tensor<?x?x4096xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input,
                       Optional<Tsc_FloatTensor>:$scale,
                       I64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` $scale^)? `axis` `=` $axis `epsilon` `=` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Tsc_AttentionOp : Tsc_InferredOp<"attention", [Tsc_AlwaysHalf, Tsc_ShapeRule]> {
  let summary = "scaled dot-product attention, grouped-query capable";
  let description = [{
    `softmax(scale · Q·Kᵀ + mask) · V` per head, with `query [B, H, Sq, D]`,
    `key [B, Hkv, Skv, D]`, `value [B, Hkv, Skv, Dv]` and result
    `[B, H, Sq, Dv]`. With `bshd` the sequence and head dims of all four
    swap places: `query [B, Sq, H, D]`, `key [B, Skv, Hkv, D]`,
    `value [B, Skv, Hkv, Dv]`, result `[B, Sq, H, Dv]`, the layout that
    projections reshaped to heads have, so no transpose is needed around the
    op. `H` is a multiple of `Hkv`: query head `h` reads K/V head
    `h / (H / Hkv)` (grouped-query attention). The optional `mask` broadcasts
    to `[B, H, Sq, Skv]` in both layouts: a float mask is added to the
    scores, an `i1` mask keeps positions where it is true. `causal` also
    masks key positions after the query's (aligned at the end when
    Skv > Sq). `scale` defaults to `1/sqrt(D)`. A query whose keys are all
    masked gets zeros. With `bf16_products` (on f32 operands) the two
    products may round their operands to bf16, Q, K, V and the
    probabilities P, accumulating in f32 (the scores, softmax statistics
    and output stay f32): the host does where it has bf16 products (AMX or
    AVX512_BF16) and the head dims fit them, other targets ignore it
    (`tsc-attention-bf16-products`).

    ```mlir
    %o = tsc.attention %q, %k, %v mask %m causal scale = 0.125
        : (tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>,
           tensor<?x8x?x128xf32>, tensor<?x1x1x?xf32>) -> tensor<?x32x?x128xf32>
    %p = tsc.attention %q2, %k2, %v2 bshd
        : (tensor<?x?x12x64xf32>, tensor<?x?x12x64xf32>,
           tensor<?x?x12x64xf32>) -> tensor<?x?x12x64xf32>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$query, Tsc_FloatTensor:$key,
      Tsc_FloatTensor:$value, Optional<Tsc_Tensor>:$mask, UnitAttr:$causal,
      UnitAttr:$bshd, OptionalAttr<F64Attr>:$scale, UnitAttr:$bf16_products);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? (`causal` $causal^)?
    (`bshd` $bshd^)? (`scale` `=` $scale^)? (`bf16_products` $bf16_products^)?
    attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = [{
    /// The dims of query, key, value and result holding the sequence and
    /// the heads: (2, 1), or (1, 2) with `bshd`.
    int64_t getSeqAxis() { return getBshd() ? 1 : 2; }
    int64_t getHeadsAxis() { return getBshd() ? 2 : 1; }
    /// Whether the head dims are static whole tiles of the host's bf16 pair
    /// products (D a multiple of 32, Dv of 16): where bf16 attention and
    /// `bf16_products` compute their products in bf16 on such a host.
    bool hasPairTileHeadDims() {
      int64_t d = getQuery().getType().getDimSize(3);
      int64_t dv = getValue().getType().getDimSize(3);
      return !ShapedType::isDynamic(d) && !ShapedType::isDynamic(dv) &&
             d > 0 && d % 32 == 0 && dv > 0 && dv % 16 == 0;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Tsc_ReshapeOp : Tsc_Op<"reshape", [Pure, Tsc_FollowsPrecision,
    Tsc_RearrangesElements, Tsc_ShapeRule]> {
  let summary = "reinterprets a tensor with another shape";
  let description = [{
    Same elements in row-major order, new shape. The result type gives the
    static dims; `shape` gives the dynamic ones, in order.

    ```mlir
    %h = tsc.reshape %x [%batch, %seq] : tensor<?x?x768xf32> -> tensor<?x?x12x64xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, Variadic<Index>:$shape);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input (`[` $shape^ `]`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_TransposeOp : Tsc_InferredOp<"transpose", [Tsc_FollowsPrecision,
    Tsc_RearrangesElements, Tsc_ShapeRule]> {
  let summary = "permutes dims";
  let description = [{
    Result dim `i` is input dim `perm[i]`.

    ```mlir
    %t = tsc.transpose %x perm = [0, 2, 1, 3]
        : (tensor<?x?x12x64xf32>) -> tensor<?x12x?x64xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tsc_ExpandOp : Tsc_Op<"expand", [Pure, Tsc_FollowsPrecision,
    Tsc_RearrangesElements, Tsc_ShapeRule]> {
  let summary = "broadcasts a tensor to a larger shape";
  let description = [{
    numpy `broadcast_to`: the input's dims align with the result's trailing
    dims and each is either equal or 1. `shape` gives the result's dynamic dims.

    ```mlir
    %k = tsc.expand %kv [%batch, %seq] : tensor<?x8x1x?x128xf32> -> tensor<?x8x4x?x128xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, Variadic<Index>:$shape);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input (`[` $shape^ `]`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_ConcatOp : Tsc_InferredOp<"concat", [Tsc_Fusible,
                                             Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "joins tensors along one axis";
  let description = [{
    ```mlir
    %kv = tsc.concat %past, %new axis = 2 : (tensor<?x12x?x64xf32>,
        tensor<?x12x1x64xf32>) -> tensor<?x12x?x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tsc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tsc_SliceOp : Tsc_Op<"slice", [Pure, AttrSizedOperandSegments, Tsc_Fusible,
                                   Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "strided slice: offsets, sizes and strides per dim";
  let description = [{
    Result element `i` along dim `d` is input element
    `offsets[d] + i * strides[d]`; the result has `sizes[d]` elements along `d`.
    Strides are nonzero and may be negative (reversal). Each entry is a constant
    or an `index` value.

    ```mlir
    %pos = tsc.slice %table[0, 0] [%seq, 384] [1, 1]
        : tensor<512x384xf32> to tensor<?x384xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input,
                       Variadic<Index>:$offsets, Variadic<Index>:$sizes,
                       Variadic<Index>:$strides,
                       DenseI64ArrayAttr:$static_offsets,
                       DenseI64ArrayAttr:$static_sizes,
                       DenseI64ArrayAttr:$static_strides);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input custom<DynamicIndexList>($offsets, $static_offsets)
    custom<DynamicIndexList>($sizes, $static_sizes)
    custom<DynamicIndexList>($strides, $static_strides)
    attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_SplitOp : Tsc_Op<"split", [Pure, Tsc_Fusible, Tsc_FollowsPrecision,
    Tsc_ShapeRule]> {
  let summary = "splits a tensor along one axis into pieces of given sizes";
  let description = [{
    ```mlir
    %q, %k, %v = tsc.split %qkv axis = 2 sizes = [768, 768, 768]
        : tensor<?x?x2304xf32> -> tensor<?x?x768xf32>, tensor<?x?x768xf32>,
          tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Tsc_Tensor>:$results);
  let assemblyFormat = [{
    $input `axis` `=` $axis `sizes` `=` $sizes attr-dict `:` type($input)
    `->` type($results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_GatherOp : Tsc_InferredOp<"gather", [Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "takes slices of `data` along `axis` at `indices`";
  let description = [{
    ONNX `Gather`: the result shape is
    `data[:axis] ++ indices.shape ++ data[axis + 1:]`. Indices are in
    `[0, data.shape[axis])`; converters wrap negative indices.

    ```mlir
    %emb = tsc.gather %table[%ids] axis = 0
        : (tensor<30522x384xf32>, tensor<?x?xi64>) -> tensor<?x?x384xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$data, Tsc_IntTensor:$indices, I64Attr:$axis);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_SqueezeOp : Tsc_InferredOp<"squeeze", [Tsc_FollowsPrecision,
    Tsc_RearrangesElements, Tsc_ShapeRule]> {
  let summary = "removes size-1 dims";
  let description = [{
    Removes `dims` (strictly increasing, each of static size 1).

    ```mlir
    %y = tsc.squeeze %x dims = [1] : (tensor<?x1x768xf32>) -> tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tsc_UnsqueezeOp : Tsc_InferredOp<"unsqueeze", [Tsc_FollowsPrecision,
    Tsc_RearrangesElements, Tsc_ShapeRule]> {
  let summary = "inserts size-1 dims";
  let description = [{
    Inserts size-1 dims at `dims`, which index the result (strictly increasing).

    ```mlir
    %m = tsc.unsqueeze %mask dims = [1, 2]
        : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Tsc_RangeOp : Tsc_Op<"range", [Pure, AllTypesMatch<["start", "limit",
                                                         "delta"]>, Tsc_ShapeRule]> {
  let summary = "1-D tensor of evenly spaced values";
  let description = [{
    `start, start + delta, ...` while below `limit` (above it for negative
    `delta`): `max(0, ceil((limit - start) / delta))` elements. `index`
    operands give an integer result; otherwise the element type is the
    operands' type.

    ```mlir
    %pos = tsc.range %c0, %seq, %c1 : index -> tensor<?xi64>
    ```
  }];
  let arguments = (ins Tsc_Scalar:$start, Tsc_Scalar:$limit,
                       Tsc_Scalar:$delta);
  let results = (outs 1DTensorOf<[AnySignlessInteger, AnyFloat]>:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` type($start) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_TriluOp : Tsc_Op<"trilu", [Pure, SameOperandsAndResultType,
                                   Tsc_FollowsPrecision]> {
  let summary = "keeps the upper or lower triangle of the last two dims";
  let description = [{
    Zeroes elements below (`upper`) or above (otherwise) the diagonal offset
    by `diagonal` in each matrix of the last two dims.

    ```mlir
    %causal = tsc.trilu %ones upper diagonal = 1 : tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, UnitAttr:$upper,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input (`upper` $upper^)? `diagonal` `=` $diagonal attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Tsc_DimOp : Tsc_Op<"dim", [Pure]> {
  let summary = "the size of one dim, as an index";
  let description = [{
    ```mlir
    %seq = tsc.dim %ids, 1 : tensor<?x?xi64>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$input `,` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tsc_ShapeOfOp : Tsc_InferredOp<"shape_of"> {
  let summary = "the shape of a tensor as a 1-D i64 tensor";
  let description = [{
    ONNX `Shape`: what exporters' shape subgraphs start from. Folds to a
    constant when the shape is static.

    ```mlir
    %s = tsc.shape_of %x : (tensor<?x?x768xf32>) -> tensor<3xi64>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input);
  let results = (outs 1DTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Tsc_QuantizeOp : Tsc_Op<"quantize", [Pure, Tsc_ShapeOfFirstOperand]> {
  let summary = "affine quantization: per tensor, per channel or per group";
  let description = [{
    `saturate(round_half_even(x / scale) + zero_point)` into the result's
    integer type. The granularity follows from `scale`: a 0-d scale is per
    tensor; with `axis` and a 1-D scale of `input.shape[axis]` elements it is
    per channel; with `axis` and `group_size` the scale has the input's shape
    except `ceil(input.shape[axis] / group_size)` along `axis` (per group).
    `zero_point`, when present, has the scale's shape and the result's element
    type; absent means 0. A float result (8- or 4-bit) is
    `cast(x / scale + zero_point)` without rounding to an integer first, with
    `saturate` as `tsc.cast` has it.

    ```mlir
    %q = tsc.quantize %w, %s axis = 0 group_size = 32
        : (tensor<4096x4096xf32>, tensor<128x4096xf32>) -> tensor<4096x4096xi4>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$input, Tsc_FloatTensor:$scale,
                       Optional<Tsc_QuantizedTensor>:$zero_point,
                       OptionalAttr<I64Attr>:$axis,
                       OptionalAttr<I64Attr>:$group_size,
                       UnitAttr:$saturate);
  let results = (outs Tsc_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? (`axis` `=` $axis^)?
    (`group_size` `=` $group_size^)? (`saturate` $saturate^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tsc_DequantizeOp : Tsc_Op<"dequantize", [Pure, Tsc_ShapeOfFirstOperand]> {
  let summary = "affine dequantization: per tensor, per channel or per group";
  let description = [{
    `(q - zero_point) * scale`, with `scale`, `zero_point`, `axis` and
    `group_size` as for `tsc.quantize`; the result has the scale's element type.

    ```mlir
    %w = tsc.dequantize %q, %s, %zp axis = 0
        : (tensor<768x768xi8>, tensor<768xf32>, tensor<768xi8>) -> tensor<768x768xf32>
    ```
  }];
  let arguments = (ins Tsc_QuantizedTensor:$input, Tsc_FloatTensor:$scale,
                       Optional<Tsc_QuantizedTensor>:$zero_point,
                       OptionalAttr<I64Attr>:$axis,
                       OptionalAttr<I64Attr>:$group_size);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? (`axis` `=` $axis^)?
    (`group_size` `=` $group_size^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tsc_QuantizedMatmulOp : Tsc_InferredOp<"quantized_matmul", [Tsc_ShapeRule]> {
  let summary = "matmul of a float tensor by a quantized weight matrix";
  let description = [{
    `lhs · dequantize(rhs, rhs_scale, rhs_zero_point)` with `lhs [..., M, K]`
    in floating point and `rhs [K, N]` quantized per tensor, per output channel
    (`axis = 1`) or per group along K (`axis = 0` with `group_size`), with the
    scale rules of `tsc.quantize`. The result has `lhs`'s element type. This is
    the weight-only quantized GEMM (int8 or int4 weights).

    ```mlir
    %y = tsc.quantized_matmul %x, %wq, %s axis = 0 group_size = 128
        : (tensor<?x?x4096xf16>, tensor<4096x11008xi4>, tensor<32x11008xf16>)
        -> tensor<?x?x11008xf16>
    ```
  }];
  let arguments = (ins Tsc_FloatTensor:$lhs, Tsc_QuantizedTensor:$rhs,
                       Tsc_FloatTensor:$rhs_scale,
                       Optional<Tsc_QuantizedTensor>:$rhs_zero_point,
                       OptionalAttr<I64Attr>:$axis,
                       OptionalAttr<I64Attr>:$group_size);
  let results = (outs Tsc_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $rhs_scale (`,` $rhs_zero_point^)? (`axis` `=` $axis^)?
    (`group_size` `=` $group_size^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// Op families, each in its own file.
include "dialects/tsc/IR/TscElementwiseMathOps.td"
include "dialects/tsc/IR/TscScanOps.td"
include "dialects/tsc/IR/TscIndexingOps.td"
include "dialects/tsc/IR/TscConvolutionOps.td"

#endif // TSC_OPS_TD
