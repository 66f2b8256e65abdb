//===- TscIndexingOps.td - Indexing op family -*- tablegen -*-===//
//
// Gathers, scatters, padding and tiling; included by TscOps.td after the core ops,
// whose base classes these use.
//
// Index operands are data (run-time values), so no verifier can check their
// range. Every op here says what an index out of range does: gathers clamp
// it to the dim (they read an element of the input, never outside it),
// scatters skip the update (they write nothing outside the result). Signed
// indices count from the end when negative, as ONNX does, before either.
//
//===----------------------------------------------------------------------===//

#ifndef TSCINDEXINGOPS_TD
#define TSCINDEXINGOPS_TD

def Tsc_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how a scatter combines an update with the element it lands on", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"add", 1>,
      I32EnumAttrCase<"mul", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"min", 4>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

def Tsc_PadMode : I32EnumAttr<"PadMode",
    "what tsc.pad puts in the border", [
      I32EnumAttrCase<"constant", 0>,
      I32EnumAttrCase<"reflect", 1>,
      I32EnumAttrCase<"edge", 2>,
      I32EnumAttrCase<"wrap", 3>
    ]> {
  let cppNamespace = "::mlir::tsc";
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

def Tsc_GatherElementsOp : Tsc_InferredOp<"gather_elements",
                                          [Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "takes one element of `data` along `axis` per index";
  let description = [{
    ONNX `GatherElements`: `indices` has `data`'s rank, and the result has
    the shape of `indices`; along every dim but `axis` both index the same
    position. For a rank-3 `data` and `axis = 1`:
    `result[i, j, k] = data[i, indices[i, j, k], k]`.
    A negative index counts from the end of `data`'s dim `axis`; an index
    still outside `[0, data.shape[axis])` is clamped to it.

    ```mlir
    %y = tsc.gather_elements %logits[%labels] axis = 1
        : (tensor<?x32000xf32>, tensor<?x1xi64>) -> tensor<?x1xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$data, Tsc_IntTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_GatherNdOp : Tsc_InferredOp<"gather_nd", [Tsc_FollowsPrecision,
                                                  Tsc_ShapeRule]> {
  let summary = "takes slices of `data` at index tuples";
  let description = [{
    ONNX `GatherND`: the last dim of `indices` (static, `k`) holds tuples
    indexing `data`'s dims `b .. b + k - 1` after the `b = batch_dims`
    leading dims that `data` and `indices` share; each tuple selects the
    slice `data[batch..., tuple..., :]`. The result's shape is
    `indices.shape[:-1] ++ data.shape[b + k:]`. Negative entries count from
    the end of their dim; entries still out of range are clamped to it.

    ```mlir
    %y = tsc.gather_nd %data[%indices] batch_dims = 1
        : (tensor<2x2x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$data, Tsc_IntTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `batch_dims` `=` $batch_dims attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

/// A copy of `data` with `updates` written into it at positions given by
/// indices; its result has `data`'s type.
class Tsc_ScatterOp<string mnemonic>
    : Tsc_InferredOp<mnemonic, [Tsc_ShapeOfFirstOperand,
                                Tsc_FollowsPrecision]> {
  let results = (outs Tsc_Tensor:$result);
  let hasVerifier = 1;
}

def Tsc_ScatterElementsOp : Tsc_ScatterOp<"scatter_elements"> {
  let summary = "writes each update at its index along `axis`";
  let description = [{
    ONNX `ScatterElements`: a copy of `data` in which, for every position
    `p` of `updates` (whose shape is that of `indices`, of `data`'s rank and
    within its shape), the element at `p` with dim `axis` replaced by
    `indices[p]` becomes `updates[p]`, or that element combined with it by
    `reduction` (add, mul, max, min). Updates landing on one element are
    applied in the row-major order of their positions, so duplicate indices
    give the same result every time (with `none`, the last one wins).
    Negative indices count from the end; an update whose index is still out
    of range is skipped.

    ```mlir
    %y = tsc.scatter_elements %data[%indices], %updates axis = 1
        reduction = add
        : (tensor<1x5xf32>, tensor<1x2xi64>, tensor<1x2xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$data, Tsc_IntTensor:$indices,
                       Tsc_Tensor:$updates, I64Attr:$axis,
                       DefaultValuedAttr<Tsc_ScatterReduction,
                           "::mlir::tsc::ScatterReduction::none">:$reduction);
  let assemblyFormat = [{
    $data `[` $indices `]` `,` $updates `axis` `=` $axis
    (`reduction` `=` $reduction^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Tsc_ScatterNdOp : Tsc_ScatterOp<"scatter_nd"> {
  let summary = "writes slices of updates at index tuples";
  let description = [{
    ONNX `ScatterND`, the inverse of `tsc.gather_nd` without batch dims: the
    last dim of `indices` (static, `k`) holds tuples indexing `data`'s first
    `k` dims; `updates` has shape `indices.shape[:-1] ++ data.shape[k:]`.
    The result is a copy of `data` whose slice at each tuple becomes the
    matching slice of `updates`, or is combined with it element by element
    by `reduction`. Tuples are applied in row-major order, so duplicates
    give the same result every time (with `none`, the last one wins).
    Negative entries count from the end; a tuple still out of range is
    skipped.

    ```mlir
    %cache2 = tsc.scatter_nd %cache[%positions], %rows
        : (tensor<512x8x64xf32>, tensor<?x1xi64>, tensor<?x8x64xf32>)
        -> tensor<512x8x64xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$data, Tsc_IntTensor:$indices,
                       Tsc_Tensor:$updates,
                       DefaultValuedAttr<Tsc_ScatterReduction,
                           "::mlir::tsc::ScatterReduction::none">:$reduction);
  let assemblyFormat = [{
    $data `[` $indices `]` `,` $updates (`reduction` `=` $reduction^)?
    attr-dict `:` functional-type(operands, results)
  }];
}

def Tsc_TensorScatterOp : Tsc_ScatterOp<"tensor_scatter"> {
  let summary = "writes a block of sequence positions into a cache";
  let description = [{
    ONNX `TensorScatter`, the KV-cache update: `update` has `cache`'s shape
    but `S <= cache.shape[axis]` positions along `axis` (which is not 0,
    the batch dim). Update position `s` of batch entry `b` goes to
    `write_indices[b] + s` along `axis` (0 when `write_indices` is absent),
    taken modulo `cache.shape[axis]` (into `[0, cache.shape[axis])`) when
    `circular`. Without it, a position outside the cache is skipped.

    ```mlir
    %k2 = tsc.tensor_scatter %k_cache[%lengths], %k_new axis = 2
        : (tensor<4x8x1024x64xf16>, tensor<4xi64>, tensor<4x8x1x64xf16>)
        -> tensor<4x8x1024x64xf16>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$cache,
                       Optional<1DTensorOf<[I64]>>:$write_indices,
                       Tsc_Tensor:$update, I64Attr:$axis,
                       UnitAttr:$circular);
  let assemblyFormat = [{
    $cache (`[` $write_indices^ `]`)? `,` $update `axis` `=` $axis
    (`circular` $circular^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Padding and reordering
//===----------------------------------------------------------------------===//

def Tsc_PadOp : Tsc_InferredOp<"pad", [Tsc_FollowsPrecision, Tsc_ShapeRule]> {
  let summary = "adds a border around a tensor";
  let description = [{
    ONNX `Pad` (numpy `pad`) with non-negative `low` and `high` border
    widths per dim: the result's dim `d` has `low[d] + input.shape[d] +
    high[d]` elements, and result index `i` stands for input index
    `i - low[d]`, which `mode` maps into the input when it is outside:
    `constant` does not and gives `value` (a 0-d tensor, 0 when absent),
    `edge` clamps to the nearest end, `reflect` mirrors at the first and
    last element without repeating them (period `2 * (n - 1)`; a dim of one
    element repeats it), `wrap` takes it modulo `n`. A border may be wider
    than the dim in every mode; an empty dim has nothing to reflect, wrap
    or repeat and gives `value` (0) there too.

    ```mlir
    %y = tsc.pad %x low = [0, 0, 1, 1] high = [0, 0, 1, 1] mode = reflect
        : (tensor<?x3x32x32xf32>) -> tensor<?x3x34x34xf32>
    %z = tsc.pad %ids, %pad_id low = [0, 0] high = [0, 3]
        : (tensor<?x5xi64>, tensor<i64>) -> tensor<?x8xi64>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, Optional<Tsc_Tensor>:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high,
                       DefaultValuedAttr<Tsc_PadMode,
                           "::mlir::tsc::PadMode::constant">:$mode);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $value^)? `low` `=` $low `high` `=` $high
    (`mode` `=` $mode^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Tsc_ReverseSequenceOp : Tsc_InferredOp<"reverse_sequence",
    [Tsc_ShapeOfFirstOperand, Tsc_FollowsPrecision]> {
  let summary = "reverses the first `lengths[b]` steps of each sequence";
  let description = [{
    ONNX `ReverseSequence`: for batch entry `b` (index along `batch_axis`),
    the first `lengths[b]` elements along `time_axis` are reversed and the
    rest copied. A length is clamped to `[0, input.shape[time_axis]]`.

    ```mlir
    %y = tsc.reverse_sequence %x, %lengths batch_axis = 1 time_axis = 0
        : (tensor<?x4x16xf32>, tensor<4xi64>) -> tensor<?x4x16xf32>
    ```
  }];
  let arguments = (ins Tsc_Tensor:$input, 1DTensorOf<[AnyInteger]>:$lengths,
                       I64Attr:$batch_axis, I64Attr:$time_axis);
  let results = (outs Tsc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $lengths `batch_axis` `=` $batch_axis `time_axis` `=`
    $time_axis attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // TSCINDEXINGOPS_TD
