//===- TscScanOps.td - Scan op family -*- tablegen -*-===//
//
// Scans, index reductions and selection (cumulative sums and products, arg
// max/min, top-k) and the product reduction; included by TscOps.td after the
// core ops, whose base classes these use. What these ops do along their axis
// is sequential (a running sum, a selection), so their lowerings keep the
// axis a loop inside one thread and parallelize over the other dims.
//
//===----------------------------------------------------------------------===//

#ifndef TSCSCANOPS_TD
#define TSCSCANOPS_TD

//===----------------------------------------------------------------------===//
// Product reduction
//===----------------------------------------------------------------------===//

/// Products leave the half range as fast as sums do.
def Tsc_ReduceProdOp
    : Tsc_ReduceOp<"reduce_prod", "product", [Tsc_KeepsF32ForRange]>;

def Tsc_ReduceWindowOp : Tsc_Op<"reduce_window", [Pure, AttrSizedOperandSegments,
    Tsc_KeepsF32ForRange, Tsc_ShapeRule]> {
  let summary = "a reduction whose reduced dims are known only at run time";
  let description = [{
    `result[j] = kind over k < window of input[j + k]`, for every dim at once:
    a dim with `window = input.dim` is reduced to size 1, a dim with window 1
    is kept. This is how a reduction over axes given at run time (ONNX's
    `axes` as a graph input) runs: the converter defines each dim's window
    and result size as symbols bound from the axes' values, so `sizes[i]`
    must equal `input.dim[i] - window[i] + 1`. `kind` is `sum`, `mean`,
    `prod`, `max`, `min` or `logsumexp` (log of the sum of exponentials,
    shifted by each window's maximum); sums and products of half floats
    accumulate in f32. An empty window gives the reduction's identity.

    ```mlir
    %s = tsc.reduce_window %x window[%w0, %w1] sizes[%n0, %n1] kind = "sum"
        : (tensor<3x2xf32>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input, Variadic<Index>:$window,
                       Variadic<Index>:$sizes, StrAttr:$kind);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input `window` `[` $window `]` `sizes` `[` $sizes `]` `kind` `=` $kind
    attr-dict `:` functional-type($input, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Index reductions
//===----------------------------------------------------------------------===//

class Tsc_ArgReduceOp<string mnemonic, string what>
    : Tsc_InferredOp<mnemonic, [Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "index of the " # what # " along one axis";
  let description = "The `i64` position along `axis` of the " # what #
      " of each slice; among equal values the first, or the last with "
      "`select_last_index`. NaN compares above every number (numpy's "
      "`arg" # !if(!eq(what, "maximum"), "max", "min") # "` returns the "
      "first NaN for both). `keepdim` keeps `axis` as a size-1 dim. On "
      "half-precision data it follows its operand's precision: "
      "converting to half could make distinct values equal.\n\n"
      "```mlir\n%i = tsc." # mnemonic # " %x axis = 1 keepdim "
      "select_last_index : (tensor<?x10xf32>) -> tensor<?x1xi64>\n```";
  let arguments = (ins Tsc_NumericTensor:$input, I64Attr:$axis,
                       UnitAttr:$keepdim, UnitAttr:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `axis` `=` $axis (`keepdim` $keepdim^)?
    (`select_last_index` $select_last_index^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDefinition = refinableResults # [{
    ::mlir::AffineExpr $cppClass::deriveResultDim(unsigned, int64_t dim,
        ::mlir::tsc::DimReader &reader) {
      int64_t axis = getAxis();
      return ::mlir::tsc::deriveReducedDim(getInput(), axis, getKeepdim(),
          dim, reader);
    }
  }];
}

def Tsc_ArgMaxOp : Tsc_ArgReduceOp<"arg_max", "maximum">;
def Tsc_ArgMinOp : Tsc_ArgReduceOp<"arg_min", "minimum">;

//===----------------------------------------------------------------------===//
// Cumulative scans
//===----------------------------------------------------------------------===//

class Tsc_ScanOp<string mnemonic, string what, string combine>
    : Tsc_Op<mnemonic, [Pure, AllTypesMatch<["input", "result"]>,
                        Tsc_ShapeOfFirstOperand, Tsc_KeepsF32ForRange]> {
  let summary = "cumulative " # what # " along one axis";
  let description = "Element `i` along the axis is the " # what # " of "
      "elements `0..i` (`0..i-1` with `exclusive`, whose first element is "
      "the identity), or of `i..n-1` (`i+1..n-1`) with `reverse`: `y[i] = "
      "y[i-1] " # combine # " x[i]`. The axis is the attribute `axis`, or "
      "the 0-d integer operand `runtime_axis` when the model computes it "
      "(ONNX takes it as an input), in `[-rank, rank)`. Narrow floats "
      "accumulate in f32.\n\n"
      "```mlir\n%c = tsc." # mnemonic # " %x axis = 1 exclusive : "
      "tensor<?x128xf32>\n%d = tsc." # mnemonic # " %y runtime_axis %a reverse "
      ": tensor<2x3xi32>, tensor<i64>\n```";
  let arguments = (ins Tsc_NumericTensor:$input,
                       Optional<0DTensorOf<[I32, I64]>>:$runtime_axis,
                       OptionalAttr<I64Attr>:$axis, UnitAttr:$exclusive,
                       UnitAttr:$reverse);
  let results = (outs Tsc_NumericTensor:$result);
  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? (`runtime_axis` $runtime_axis^)?
    (`exclusive` $exclusive^)? (`reverse` $reverse^)? attr-dict `:`
    type($input) (`,` type($runtime_axis)^)?
  }];
  let hasVerifier = 1;
  // A run-time axis that folds to a constant becomes the attribute.
  let hasFolder = 1;
}

def Tsc_CumSumOp : Tsc_ScanOp<"cumsum", "sum", "+">;
def Tsc_CumProdOp : Tsc_ScanOp<"cumprod", "product", "*">;

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

def Tsc_TopKOp : Tsc_InferredOp<"top_k", [Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "the k largest (or smallest) elements along one axis";
  let description = [{
    `values` holds the `k` largest elements of each slice along `axis`
    (smallest with `smallest`), best first, and `indices` their `i64`
    positions in the slice; both have the input's shape with `k` along
    `axis`. Equal values come in index order; NaN ranks above every number
    for the largest and below every number for the smallest. `k` is at most
    the axis's size. Selection reads each slice k times, which suits the k
    of models (beam widths, sampling's top 50) much smaller than the axis.

    ```mlir
    %v, %i = tsc.top_k %logits k = 50 axis = 1
        : (tensor<?x32000xf32>) -> (tensor<?x50xf32>, tensor<?x50xi64>)
    ```
  }];
  let arguments = (ins Tsc_NumericTensor:$input, I64Attr:$k, I64Attr:$axis,
                       UnitAttr:$smallest);
  let results = (outs Tsc_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = [{
    $input `k` `=` $k `axis` `=` $axis (`smallest` $smallest^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

#endif // TSCSCANOPS_TD
