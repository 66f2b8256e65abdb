//===- Passes.td - tsc passes ------------------------------*- tablegen -*-===//

#ifndef TSC_PASSES_TD
#define TSC_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph: shapes
//===----------------------------------------------------------------------===//

def BindSymbolicShapesPass : Pass<"tsc-bind-symbolic-shapes", "func::FuncOp"> {
  let summary = "Record every dynamic tensor's shape as affine expressions of "
                "the function's symbols";
  let description = [{
    Walks the function in order and, for each tensor result with dynamic dims
    and no `tsc.bind_shape`, derives its shape from its operands' shapes and
    the op's semantics (broadcasting, contraction, reshape operands, slice
    sizes, concat sums, ...) and records it with a new `tsc.bind_shape`.
    Index values feeding shape operands are read as affine expressions when
    they are built from `tsc.symbol`, `tsc.dim`, constants and `arith`
    add/sub/mul/div/rem. Function arguments must already be bound.

    Before:
    ```mlir
    %batch = tsc.symbol "batch" [1, 64]
    tsc.bind_shape %x[%batch], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
    %y = tsc.gelu %x : tensor<?x768xf32>
    ```
    After, additionally:
    ```mlir
    tsc.bind_shape %y[%batch], affine_map<()[s0] -> (s0, 768)> : tensor<?x768xf32>
    ```

    With `require-all`, a dynamic dim that cannot be expressed is an error
    naming the op and result: the graph contract of the `graph` phase.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [
    Option<"requireAll", "require-all", "bool", /*default=*/"false",
           "Fail if some dynamic dim cannot be expressed in the symbols">
  ];
}

def InferSymbolRangesPass : Pass<"tsc-infer-symbol-ranges", "func::FuncOp"> {
  let summary = "Tighten symbol ranges to what the model can index";
  let description = [{
    Models say how long a sequence may be: a position table of 512 rows read
    at positions `0 .. seq-1` (a `tsc.gather` at a `tsc.range` from 0), or a
    buffer sliced to `seq` rows (a `tsc.slice` of size `seq` from a static
    dim), bound `seq` to at most 512. This pass lowers each symbol's maximum
    to the smallest such bound, so the memory planner plans for sizes the
    model can run. A range the user set with `--dim` (a `tsc.symbol` marked
    `command_line`) that exceeds a bound is an error naming the op.

    Before:
    ```mlir
    %seq = tsc.symbol "seq" [1, 4096]
    %pos = tsc.slice %table[0, 0] [%seq, 32] [1, 1] : tensor<512x32xf32> to tensor<?x32xf32>
    ```
    After: `%seq = tsc.symbol "seq" [1, 512]`.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

//===----------------------------------------------------------------------===//
// Fuse: recognise decomposed ops
//===----------------------------------------------------------------------===//

def FuseNormsPass : Pass<"tsc-fuse-norms", "func::FuncOp"> {
  let summary = "Recognise decomposed LayerNorm and RMSNorm";
  let description = [{
    Rewrites the formulas exporters and hand-written modules produce into one
    `tsc.layer_norm` / `tsc.rms_norm`:
    `(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps)` (also with
    `* rsqrt(...)`, and `pow 2` or a self-product for the square), followed by
    `* scale` and `+ bias` when those have the normalized shape; and
    `x * rsqrt(mean(x^2) + eps)` (or `x / sqrt(...)`) followed by `* scale`.
    The means must be over the trailing dims with keepdim, and the
    intermediates used nowhere else. A square left outside any norm
    (`pow(x, 2)`) becomes `x * x`, which kernels compute without pow's
    exp/log expansion.

    Before:
    ```mlir
    %m = tsc.reduce_mean %x dims = [2] keepdim : ...
    %d = tsc.sub %x, %m : ...
    %p = tsc.pow %d, %two : ...
    %v = tsc.reduce_mean %p dims = [2] keepdim : ...
    %e = tsc.add %v, %eps : ...
    %s = tsc.sqrt %e : ...
    %n = tsc.div %d, %s : ...
    ```
    After:
    ```mlir
    %n = tsc.layer_norm %x axis = 2 epsilon = 1.0e-05 : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

def FuseActivationsPass : Pass<"tsc-fuse-activations", "func::FuncOp"> {
  let summary = "Recognise GELU (erf and tanh forms) and SiLU formulas";
  let description = [{
    `0.5 * x * (1 + erf(x / sqrt 2))` becomes `tsc.gelu %x`,
    `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` becomes
    `tsc.gelu %x approximate = tanh`, and `x * sigmoid(x)` becomes
    `tsc.silu %x`. Products may associate in any order; constants match to a
    relative 1e-5, as exporters round them differently.

    Before:
    ```mlir
    %s = tsc.sigmoid %x : tensor<?x64xf32>
    %y = tsc.mul %x, %s : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
    ```
    After:
    ```mlir
    %y = tsc.silu %x : tensor<?x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

def FuseAttentionPass : Pass<"tsc-fuse-attention", "func::FuncOp"> {
  let summary = "Recognise scaled dot-product attention";
  let description = [{
    Rewrites `softmax(mask(Q·Kᵀ · scale)) · V` into `tsc.attention`: the
    scale as a division or multiplication of the scores or of Q; masks as an
    added tensor and/or a `where(keep, scores, -big)`; Kᵀ as a transpose of
    K in [B, H, S, D] or straight from the [B, S, H, D] head split; K and V
    heads repeated for grouped-query attention (unsqueeze/expand/reshape)
    taken unrepeated. Intermediates must be used nowhere else.

    Then the head split/merge transposes go into the op's layout: when Q, K
    and V are all `transpose [0, 2, 1, 3]` of [B, S, H, D] tensors, the
    attention takes those with `bshd` and gives its result in [B, S, H, D]
    too, cancelling the merge transpose. Transposes are first sunk through
    what lies between them and the attention (a rotary embedding's
    elementwise ops, slice and concat; a [1, 1, S, D] cos/sin table becomes
    a reshape), and only where every user of the transpose can take it.

    Before:
    ```mlir
    %kt = tsc.transpose %k perm = [0, 1, 3, 2] : ...
    %s = tsc.matmul %q, %kt : ...
    %d = tsc.div %s, %sqrt_d : ...
    %m = tsc.add %d, %mask : ...
    %p = tsc.softmax %m axis = 3 : ...
    %o = tsc.matmul %p, %v : ...
    ```
    After:
    ```mlir
    %o = tsc.attention %q, %k, %v mask %mask scale = 0.125 : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

def FuseGemmEpiloguesPass : Pass<"tsc-fuse-gemm-epilogues", "func::FuncOp"> {
  let summary = "Fold bias adds, GELUs and residual adds into the GEMM that feeds them";
  let description = [{
    A product by a constant matrix becomes `tsc.linear` (`weight_kn` keeps an
    ONNX-style `[K, N]` weight as it is), then the adds that follow it fold
    in: a bias of `N` elements (added to the bias a linear already has:
    two constants become their sum), then a residual of the result's type; a
    `tsc.gelu` of a linear without a residual becomes its `activation`
    (`gelu` or `gelu_tanh`). A library GEMM writes `act(x·W + b) + r` in one
    pass over its output instead of leaving elementwise passes behind it.
    Only ops that are the GEMM's sole use fold, and nothing folds into a
    linear with an activation (a bias or residual add after it is not the
    epilogue's order).

    Before:
    ```mlir
    %p = tsc.matmul %x, %w : (tensor<?x?x768xf32>, tensor<768x768xf32>) -> tensor<?x?x768xf32>
    %pb = tsc.add %p, %b : (tensor<?x?x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %y = tsc.add %r, %pb : (tensor<?x?x768xf32>, tensor<?x?x768xf32>) -> tensor<?x?x768xf32>
    ```
    After:
    ```mlir
    %y = tsc.linear %x, %w, %b residual %r {weight_kn} : ...
    ```
    cuBLASLt's GELU epilogue is the tanh approximation only: for CUDA
    targets the driver turns `erf-gelu` off, and an exact GELU stays its own
    op rather than being computed by the wrong formula.
  }];
  let options = [
    Option<"erfGelu", "erf-gelu", "bool", /*default=*/"true",
           "Fold exact (erf) GELUs too, not only tanh-approximated ones (off "
           "when a target's GEMM library has no erf GELU epilogue)">
  ];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

def MergeGemmsPass : Pass<"tsc-merge-gemms", "func::FuncOp"> {
  let summary = "Merge GEMMs that share an input into one wider GEMM";
  let description = [{
    `tsc.linear` ops of the same input by constant weights of one layout
    (the Q, K and V projections; gate and up of a gated MLP), without
    residuals, become one linear by the weights concatenated along N at
    compile time, with the biases concatenated too (zeros where one has
    none), and a `tsc.split` of its result: one library call instead of
    several, each reading the input. Runs after `tsc-fuse-gemm-epilogues`,
    which turns products by constant weights into linear ops. Quantized
    weights, `dequantize` of constant codes by constant scales (and zero
    points) per output channel or per group along K, merge the same way:
    codes, scales and zero points concatenated along N, one dequantize.

    Then a split whose pieces are each reshaped into heads of one size
    (`[..., n_i] -> [..., n_i / d, d]`, Q/K/V before attention) becomes a
    split along the heads axis of the reshaped projection: the reshape is a
    view, and the pieces are strided slices of it that a kernel reads in
    place (a reshape of a strided slice would need a copy).

    Before:
    ```mlir
    %q = tsc.linear %x, %wq, %bq {weight_kn} : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %k = tsc.linear %x, %wk, %bk {weight_kn} : (tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    ```
    After:
    ```mlir
    %qk = tsc.linear %x, %wqk, %bqk {weight_kn} : (tensor<?x?x768xf32>, tensor<768x1536xf32>, tensor<1536xf32>) -> tensor<?x?x1536xf32>
    %q, %k = tsc.split %qk axis = 2 sizes = [768, 768] : ...
    ```

    With `free-replaced-weights`, the weights and biases merged are erased
    and their data freed as soon as no op reads them, group by group, so
    that the originals and the concatenations do not all coexist.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [
    Option<"freeReplacedWeights", "free-replaced-weights", "bool",
           /*default=*/"false",
           "Free the data of the weights merged, once no op of the function "
           "refers to them (only when nothing outside the function shares "
           "them: tsc without --report)">
  ];
}

//===----------------------------------------------------------------------===//
// Graph: pruning (docs/pruning.md)
//===----------------------------------------------------------------------===//

def PruneHeadsPass : Pass<"tsc-prune-heads", "ModuleOp"> {
  let summary = "Remove whole attention heads, shrinking the projections";
  let description = [{
    Finds each attention block from its projections: constant-weight GEMMs
    of one input whose outputs are reshaped into heads (`[..., H·D] ->
    [..., H, D]`; a merged QKV GEMM whose result is split is first split
    into one GEMM per piece). The heads are grouped by K/V head (grouped-
    query attention: a K/V head goes only with all its query heads), and
    every value from the projections to the output projection is followed
    through reshapes, transposes, GQA repeats, rotary embeddings, the
    score and context products and the softmax. A block whose values reach
    anything else (a function result, an op the pass does not follow) is
    left unchanged and recorded as refused with the op that stopped it.

    Then the fraction `ratio` of groups with the smallest importance (per
    layer, or ranked over all layers with `global`) is removed: the Q, K, V
    columns and biases, the output projection's rows, and the static head
    counts of every reshape, transpose, slice, expand and product between
    them shrink. Importance of a group: the product over the projections of
    the L2 norm of the group's weight slice; when the output projection
    carries calibration's `tsc.input_norms` (per input channel, the L2 norm
    of its input over the calibration tokens), the norm of the group's
    attention output times that of its rows of the output projection
    instead. What was removed, and by which importance, is recorded in the
    module attribute `tsc.prune` (docs/pruning.md).

    Before (H = 4):
    ```mlir
    %q = tsc.matmul %x, %wq : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
    %h = tsc.reshape %q[%batch, %seq] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
    ```
    After (`ratio=0.25`):
    ```mlir
    %q = tsc.matmul %x, %wq2 : (tensor<?x?x32xf32>, tensor<32x24xf32>) -> tensor<?x?x24xf32>
    %h = tsc.reshape %q[%batch, %seq] : tensor<?x?x24xf32> -> tensor<?x?x3x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options =
      [Option<"ratio", "ratio", "double", /*default=*/"0.0",
              "Fraction of the heads (K/V groups) to remove, in [0, 1)">,
       Option<"globalRanking", "global", "bool", /*default=*/"false",
              "Rank the heads of all layers together instead of per layer">,
       Option<"exact", "exact", "bool", /*default=*/"false",
              "Remove only the groups whose output-projection rows are all "
              "zero (an already-pruned model: exact), without a ratio; merged "
              "QKV GEMMs are not split; only what is removed is recorded">];
}

def PruneFfnPass : Pass<"tsc-prune-ffn", "ModuleOp"> {
  let summary = "Remove FFN intermediate neurons, shrinking the GEMMs";
  let description = [{
    An FFN is a constant-weight GEMM (down) whose input is computed by
    elementwise ops, at least one of them nonlinear, from the outputs of
    other constant-weight GEMMs of the same width (up; gate and up for
    gated MLPs), biases being constant operands of those elementwise ops.
    Neuron `j` is column `j` of the up/gate weights (row `j` of an `[N, K]`
    weight), element `j` of their biases and row `j` of the down weight.
    The fraction `ratio` of neurons with the smallest importance
    `‖W_up[:, j]‖₂ · ‖W_gate[:, j]‖₂ · ‖W_down[j, :]‖₂` (per FFN, or over all
    FFNs with `global`) is removed: the GEMMs' shapes shrink. When the down
    GEMM carries calibration's `tsc.input_norms` (per input channel, the L2
    norm of its input over the calibration tokens), the importance is
    activation-aware instead: `‖X[:, j]‖₂ · ‖W_down[j, :]‖₂` (Wanda's
    |W|·‖X‖ with the row's L2 norm). An FFN whose
    intermediate values reach anything else is left unchanged and recorded
    as refused.

    Before:
    ```mlir
    %u = tsc.matmul %x, %wu : (tensor<?x?x32xf32>, tensor<32x64xf32>) -> tensor<?x?x64xf32>
    %g = tsc.gelu %u : tensor<?x?x64xf32>
    %d = tsc.matmul %g, %wd : (tensor<?x?x64xf32>, tensor<64x32xf32>) -> tensor<?x?x32xf32>
    ```
    After (`ratio=0.25`): `%wu` is `32x48`, `%wd` is `48x32`, `%u` and `%g`
    are `?x?x48`.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options =
      [Option<
           "ratio", "ratio", "double", /*default=*/"0.0",
           "Fraction of each FFN's intermediate neurons to remove, in [0, 1)">,
       Option<"globalRanking", "global", "bool", /*default=*/"false",
              "Rank the neurons of all FFNs together instead of per FFN">,
       Option<"exact", "exact", "bool", /*default=*/"false",
              "Remove only the neurons whose down-projection rows are all "
              "zero (an already-pruned model: exact), without a ratio; only "
              "what is removed is recorded">];
}

def DropInputNormsPass : Pass<"tsc-drop-input-norms", "ModuleOp"> {
  let summary = "Remove calibration's input norms once pruning has used them";
  let description = [{
    `tsc --prune=heads=R,ffn=R --calibration DIR` puts on every GEMM op a
    `tsc.input_norms` array (per input channel, the L2 norm of its input
    over the calibration tokens) for tsc-prune-heads and tsc-prune-ffn to
    rank by. After them the norms mean nothing: this pass removes them so
    that later phases and the printed IR do not carry them.
  }];
}

def PruneMagnitudePass : Pass<"tsc-prune-magnitude", "ModuleOp"> {
  let summary = "Zero the smallest linear weights over the whole model (L1)";
  let description = [{
    As PyTorch's `prune.global_unstructured(..., L1Unstructured, amount)`:
    over the weights of every constant-weight GEMM (`tsc.matmul` by a 2-D
    constant, `tsc.linear`), the `floor(ratio · count)` elements of smallest
    |w| (ties by position) become zero. Shapes do not change: dense kernels
    run the zeros, the report says so.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [Option<"ratio", "ratio", "double", /*default=*/"0.0",
                        "Fraction of all linear weights to zero, in [0, 1)">];
}

def PruneSemiStructuredPass : Pass<"tsc-prune-2-4", "ModuleOp"> {
  let summary = "2:4 semi-structured sparsity on the linear weights";
  let description = [{
    In every run of 4 consecutive weights along K (the reduction dim) of
    every constant-weight GEMM, the 2 of smallest |w| become zero (ties:
    the later ones), the pattern sparse tensor cores accelerate. A weight
    whose K is not a multiple of 4 is left dense and recorded as refused.
    On the host the pruned weights run dense.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

def DetectPrunedPass : Pass<"tsc-detect-pruned", "ModuleOp"> {
  let summary = "Report weights that arrive pruned";
  let description = [{
    Records in `tsc.prune`, per constant-weight GEMM, the rows and columns
    that are all zero, the fraction of zero weights and whether the weight
    already has the 2:4 pattern along K, so that the report shows pruning
    done before tsc. Changes nothing else.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

//===----------------------------------------------------------------------===//
// Graph: precision
//===----------------------------------------------------------------------===//

def AttentionBf16ProductsPass
    : Pass<"tsc-attention-bf16-products", "func::FuncOp"> {
  let summary = "Let f32 attention's two products round to bf16 "
                "(`--attention-products=bf16`)";
  let description = [{
    Sets `bf16_products` on every `tsc.attention` with f32 operands: Q·Kᵀ
    and P·V may then round Q, K, V and the probabilities to bf16 with f32
    accumulation, as bf16 attention computes them, while the scores, the
    softmax statistics, the output and everything around the op stay f32.
    The host lowering honours it where it has bf16 products (AMX tiles, or
    AVX512_BF16's vdpbf16ps) and the head dims are whole tiles (D a
    multiple of 32, Dv of 16); elsewhere the products stay f32. Quantized
    models use it (`--attention-products=auto`): their GEMMs lose more
    than bf16 products do, and on a CPU without AMX the products run twice
    as fast.

    Before:
    ```mlir
    %o = tsc.attention %q, %k, %v mask %m bshd : ...
    ```
    After:
    ```mlir
    %o = tsc.attention %q, %k, %v mask %m bshd bf16_products : ...
    ```
  }];
}

def ReducePrecisionPass : Pass<"tsc-reduce-precision", "func::FuncOp"> {
  let summary = "Store float tensors in fp16 or bf16 (`--precision=fp16|bf16`)";
  let description = [{
    Every op that computes correctly on half-precision storage reads and
    writes `f16` (or `bf16`) tensors instead of `f32`: elementwise math,
    comparisons, matmul and linear, softmax, norms, attention, mean, max and
    min, and the ops that move data. Their lowerings accumulate and compute
    in f32 (products and sums, softmax and norm statistics), so the reduced
    precision is that of storage: each op's result is rounded once.

    Ops whose results may leave the half range keep f32: `exp`, `log`,
    `pow` and `reduce_sum` (as PyTorch's autocast keeps them), and what
    reads them elementwise (autocast's promotion; matmul, linear, softmax,
    norms and attention excepted). Values computed only from integers and
    constants (rotary angles, masks) stay f32 until activations meet them.
    Data movement and mean/max/min take their operand's precision. Ops with
    their own number formats (quantization) or none at all (index math) are
    left alone; a float-to-integer cast reads f32, so integers past 2048
    survive. Casts to half saturate (finite values past the range become
    the largest finite value).
    `tsc.cast` ops convert at the boundaries; the function's inputs and
    outputs keep their types unless `convert-io` is set. Weights are
    converted at compile time (finite values past the half range saturate);
    with `free-replaced-weights`, each f32 weight is freed as soon as its
    last reader reads the converted one.

    Before:
    ```mlir
    %y = tsc.gelu %x : tensor<?x768xf32>
    ```
    After (`type=f16`):
    ```mlir
    %h = tsc.cast %x saturate : tensor<?x768xf32> to tensor<?x768xf16>
    %g = tsc.gelu %h : tensor<?x768xf16>
    %y = tsc.cast %g : tensor<?x768xf16> to tensor<?x768xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"f16\"",
           "The storage type of float tensors: f16 or bf16">,
    Option<"convertIO", "convert-io", "bool", /*default=*/"false",
           "Also the function's f32 arguments and results become half "
           "(callers that hold fp16 tensors; `--precision-io=storage`)">,
    Option<"freeReplacedWeights", "free-replaced-weights", "bool",
           /*default=*/"false",
           "Free the data of each f32 weight converted to half once no op of "
           "the function refers to it (only when nothing outside the "
           "function shares the weights: tsc without --report)">
  ];
}

//===----------------------------------------------------------------------===//
// Quantize
//===----------------------------------------------------------------------===//

def QuantizeDynamicInt8Pass : Pass<"tsc-quantize-dynamic-int8", "func::FuncOp"> {
  let summary = "GEMMs by constant weights in int8, activations quantized per "
                "row at run time (`--quantize=dynamic-int8`)";
  let description = [{
    Each `tsc.linear` and each `tsc.matmul` by a constant 2-D f32 weight
    becomes the same product in quantize-dequantize form: the weight is
    quantized at compile time to `i8`, symmetrically per output channel
    (`scale = max|W| / 127` per channel, f32); the activation is quantized
    at run time symmetrically per row (per token): `scale = max(max|x| /
    127, FLT_MIN)` over the last dim, `q = round_half_even(x / scale)`.
    The product stays a `tsc.linear` (so the fuse phase still folds bias,
    GELU and residual into its epilogue) whose operands are
    `tsc.dequantize` of the two `i8` tensors: the IR states exactly what is
    computed, and the host plan recognises the pattern as one int8 GEMM
    step (s8 x s8 -> s32, then the dequantize epilogue). Static int8, QDQ
    models and weight-only modes use the same form with other scales.

    Products of two activations (attention), weights that are not
    constants, non-f32 GEMMs and batched weights stay float; softmax, norms
    and the residual stream are not GEMMs and are never touched. GEMMs
    whose location name matches a `keep-float` pattern stay float too (the
    error budget's choice, replayable here): f32, or with
    `kept-precision=bf16` a `tsc.linear` of `cast(cast(x, bf16), f32)` by
    the weight rounded to bf16 (values bf16 holds, stored f32), which the
    host plan runs as a bf16 GEMM accumulating in f32. A GEMM op with
    `tsc.input_mean` (`tsc --calibration`) gets its bias corrected as
    tsc-quantize-static-int8 does, and the attribute removed. With
    `smoothing-alpha` and `tsc.input_channel_min`/`max` (the calibrated
    extremes of each input channel), outlier channels move into the weights
    as tsc-quantize-static-int8's smoothing does (Smoothing.h): the row
    scales are those of `tsc.mul(x, m)`.

    Before:
    ```mlir
    %y = tsc.linear %x, %w, %b : (tensor<?x384xf32>, tensor<1536x384xf32>,
        tensor<1536xf32>) -> tensor<?x1536xf32>
    ```
    After:
    ```mlir
    %a = tsc.abs %x : tensor<?x384xf32>
    %m = tsc.reduce_max %a dims = [1] keepdim : ... -> tensor<?x1xf32>
    %d = tsc.div %m, %c127 : ...
    %s = tsc.max %d, %tiny : ...
    %q = tsc.quantize %x, %s axis = 1 group_size = 384 : ... -> tensor<?x384xi8>
    %xd = tsc.dequantize %q, %s axis = 1 group_size = 384 : ... -> tensor<?x384xf32>
    %wd = tsc.dequantize %wq, %ws axis = 0
        : (tensor<1536x384xi8>, tensor<1536xf32>) -> tensor<1536x384xf32>
    %y = tsc.linear %xd, %wd, %b : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options =
      [Option<"minInputFeatures", "min-input-features", "int64_t",
              /*default=*/"16",
              "GEMMs whose K (input features) is smaller stay float: the "
              "quantization of a short row costs more than the product saves">,
       Option<"remarks", "remarks", "bool", /*default=*/"false",
              "Emit a remark on each GEMM kept float, saying why">,
       ListOption<"keepFloat", "keep-float", "std::string",
                  "GEMMs kept float, by name: glob patterns matched against "
                  "the name of the op's location (the source node's name, "
                  "e.g. /layer.0/output/dense/MatMul; KeepFloat.h). "
                  "`tsc --max-error` chooses them">,
       Option<"keptPrecision", "kept-precision", "std::string",
              /*default=*/"\"f32\"",
              "What the GEMMs keep-float names compute in: f32, or bf16 "
              "(both operands rounded to bf16, f32 accumulation and "
              "result: QuantizeGemm.h's roundGemmToBf16)">,
       Option<"smoothingAlpha", "smoothing-alpha", "double",
              /*default=*/"0.0",
              "Smoothing's migration strength in (0, 1), as "
              "tsc-quantize-static-int8's (needs tsc.input_channel_min/max); "
              "0: none">,
       Option<"narrowWeights", "narrow-weights", "bool", /*default=*/"false",
              "Weight codes in [-64, 64] (7 bits) rather than [-127, 127]: a "
              "CPU without VNNI then multiplies them with its u8 x s8 "
              "kernels exactly (QuantizeGemm.h's kNarrowInt8Max)">];
}

def QuantizeFp8Pass : Pass<"tsc-quantize-fp8", "func::FuncOp"> {
  let summary = "GEMMs by constant weights in fp8 (f8E4M3FN), activations "
                "quantized per row at run time (`--quantize=fp8`)";
  let description = [{
    tsc-quantize-dynamic-int8's form with `f8E4M3FN` codes: the weight is
    quantized at compile time per output channel (`scale = max|W| / 448`,
    codes rounded to nearest even), the activation at run time per row
    (`scale = max(max|x| / 448, FLT_MIN)` over the last dim, `tsc.quantize
    ... saturate`). Both scales factor out of the sum, so the product is
    one f8 · f8 GEMM accumulating in f32 (cuBLASLt on sm_89 and later, after
    tsc-expand-quantized-gemms) with the scales in the epilogue. Per-row
    activation scales cost one row reduction, as a per-tensor scale would
    (a reduction over the whole tensor), and keep a row of small values
    from being flushed by another row's outlier. The same GEMMs as
    dynamic-int8 stay float. With `input-ranges` (calibration), the
    activation's scale is one constant per tensor instead: no row
    reductions at run time, one quantize kernel.

    ```mlir
    %q = tsc.quantize %x, %s axis = 1 group_size = 384 saturate
        : ... -> tensor<?x384xf8E4M3FN>
    %xd = tsc.dequantize %q, %s axis = 1 group_size = 384 : ... -> tensor<?x384xf32>
    %wd = tsc.dequantize %wq, %ws axis = 0
        : (tensor<1536x384xf8E4M3FN>, tensor<1536xf32>) -> tensor<1536x384xf32>
    %y = tsc.linear %xd, %wd, %b : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [Option<"minInputFeatures", "min-input-features", "int64_t",
                        /*default=*/"16",
                        "GEMMs whose K (input features) is smaller stay float">,
                 Option<"remarks", "remarks", "bool", /*default=*/"false",
                        "Emit a remark on each GEMM kept float, saying why">,
                 ListOption<"keepFloat", "keep-float", "std::string",
                            "GEMMs kept float, by name (glob patterns; as "
                            "tsc-quantize-dynamic-int8's)">,
                 ListOption<"inputRanges", "input-ranges", "float",
                            "Static fp8 (`tsc --quantize=fp8 --calibration "
                            "DIR`): the calibrated max|x| of each GEMM op's "
                            "input in walk order, as "
                            "tsc-quantize-static-int8's; the activation is "
                            "then quantized per tensor by max(range / 448, "
                            "FLT_MIN), with no reduction at run time. Empty: "
                            "per row at run time">];
}

def QuantizeWeightOnlyPass : Pass<"tsc-quantize-weight-only", "func::FuncOp"> {
  let summary = "GEMM weights in i8 or i4 per channel or per group, "
                "activations float (`--quantize=weight-int8|weight-int4`)";
  let description = [{
    Each `tsc.linear` and `tsc.matmul` by a constant 2-D f32 weight becomes
    a `tsc.linear` by `tsc.dequantize` of the weight quantized at compile
    time, symmetrically: `bits` 8 (`i8`, codes in [-127, 127]) or 4 (`i4`,
    [-7, 7]; the artifact packs two a byte), with one f32 scale `max|W| /
    (2^(bits-1) - 1)` per output channel (`group-size` 0) or per group of
    `group-size` consecutive weights along K (the scale then has K replaced
    by ceil(K / group-size)). The activation stays f32. The IR states the
    arithmetic exactly; the host plan runs such a linear as one weight-only
    GEMM step, which dequantizes the weight once when a session is created
    (docs/quantization.md). An all-zero channel or group gets scale 1.
    A GEMM op with `tsc.input_mean` (`tsc --calibration`) gets its bias
    corrected as tsc-quantize-static-int8 does, and the attribute removed.

    Before:
    ```mlir
    %y = tsc.linear %x, %w, %b : (tensor<?x384xf32>, tensor<1536x384xf32>,
        tensor<1536xf32>) -> tensor<?x1536xf32>
    ```
    After (`bits=4 group-size=128`):
    ```mlir
    %wd = tsc.dequantize %wq, %ws axis = 1 group_size = 128
        : (tensor<1536x384xi4>, tensor<1536x3xf32>) -> tensor<1536x384xf32>
    %y = tsc.linear %x, %wd, %b : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options =
      [Option<"bits", "bits", "unsigned", /*default=*/"8",
              "Bits per weight: 8 (i8) or 4 (i4)">,
       Option<"groupSize", "group-size", "int64_t", /*default=*/"0",
              "Weights per scale along K; 0: one scale per output channel. "
              "A GEMM whose K is not more than the group gets one per "
              "channel">,
       Option<"zeroPoints", "zero-points", "bool", /*default=*/"false",
              "Asymmetric codes: each channel or group maps [min(w, 0), "
              "max(w, 0)] onto all 2^bits codes, scale (hi - lo) / "
              "(2^bits - 1) and a zero point of the codes' type (the "
              "dequantize's third operand)">,
       Option<"minInputFeatures", "min-input-features", "int64_t",
              /*default=*/"16",
              "GEMMs whose K (input features) is smaller stay float">,
       Option<"remarks", "remarks", "bool", /*default=*/"false",
              "Emit a remark on each GEMM kept float, saying why">,
       ListOption<"keepFloat", "keep-float", "std::string",
                  "GEMMs kept float, by name: glob patterns matched against "
                  "the name of the op's location (KeepFloat.h)">];
}

def QuantizeStaticInt8Pass : Pass<"tsc-quantize-static-int8", "func::FuncOp"> {
  let summary = "GEMMs by constant weights in int8, activations by "
                "calibrated per-tensor scales (`--quantize=static-int8`)";
  let description = [{
    The form of `tsc-quantize-dynamic-int8` with a constant activation
    scale: each `tsc.linear` and `tsc.matmul` by a constant 2-D f32 weight
    whose input has a calibrated range `r` (max|x| as the calibration's
    observer chose it) becomes a `tsc.linear` of `dequantize(quantize(x,
    s))`, `s = max(r / 127, FLT_MIN)` a 0-d f32 constant (symmetric s8, per
    tensor, values beyond `r` saturate), by the weight quantized per output
    channel as the dynamic pass does. The host plan runs it as an int8 GEMM
    step whose activation scale folds into the output scales.

    `input-ranges` holds one range per GEMM op (`tsc.linear` and
    `tsc.matmul`, in the function's walk order, including those that stay
    float); `tsc --quantize=static-int8 --calibration DIR` computes it by
    running the model in fp32 (docs/quantization.md). A range of 0 means
    none was measured: that GEMM stays float, as do those the dynamic pass
    keeps float and those `keep-float` names. A list whose length is not
    the number of GEMM ops is an error.

    With `input-minima` (one per GEMM op, as `input-ranges`), the
    activations are asymmetric: `input-ranges` holds each input's calibrated
    maximum and `input-minima` its minimum; with `lo = min(min, 0)` and
    `hi = max(max, 0)`, `s = max((hi - lo) / 255, FLT_MIN)` and the i8 zero
    point `z = clamp(round(-128 - lo / s), -128, 127)` (a 0-d constant on
    both the quantize and the dequantize) map `[lo, hi]` onto the s8 range.
    A GEMM whose `lo = hi` stays float.

    Bias correction: a GEMM op with `tsc.input_mean` (the calibrated mean of
    each input channel, K f32 values, which `tsc --calibration` attaches) gets
    `sum_k mean[k] * (W[k, n] - Wd[k, n])` added to its bias (Wd the
    dequantized weight): what the weight's rounding takes from the product at
    the mean input. The pass removes the attribute from every GEMM op; means
    of another length are ignored.

    Smoothing (`smoothing-alpha` in (0, 1); 0: none): GEMM ops with
    `tsc.input_channel_min` and `tsc.input_channel_max` (the calibrated
    extremes of each input channel, K f32 values each) read
    `tsc.mul(x, m)`, one per input shared by the GEMMs to quantize, with
    `m_k = 1 / f_k`, `f_k = max|x_k|^alpha / max|W_k|^(1 - alpha)` (the
    largest |W| of row k over every weight reading x; 1 where either is
    0), by weights whose row k is divided by `m_k`; the smoothed input's
    range is its channels' extremes times `m` (min-max) rather than
    `input-ranges`, and the means are multiplied by `m` too. An input whose
    readers lack the extremes, or disagree on them, is not smoothed. The
    host plan's int8 GEMM step multiplies as it quantizes (format 1.21).
    The pass removes both attributes from every GEMM op.

    Before (`input-ranges=6.35`):
    ```mlir
    %y = tsc.linear %x, %w, %b : (tensor<?x384xf32>, tensor<1536x384xf32>,
        tensor<1536xf32>) -> tensor<?x1536xf32>
    ```
    After:
    ```mlir
    %s = tsc.constant dense<5.000000e-02> : tensor<f32>
    %q = tsc.quantize %x, %s : (tensor<?x384xf32>, tensor<f32>) -> tensor<?x384xi8>
    %xd = tsc.dequantize %q, %s : (tensor<?x384xi8>, tensor<f32>) -> tensor<?x384xf32>
    %wd = tsc.dequantize %wq, %ws axis = 0
        : (tensor<1536x384xi8>, tensor<1536xf32>) -> tensor<1536x384xf32>
    %y = tsc.linear %xd, %wd, %b : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options =
      [ListOption<"inputRanges", "input-ranges", "float",
                  "The calibrated range (max|x|) of each GEMM op's input, in "
                  "walk order; 0: none (the GEMM stays float)">,
       ListOption<"inputMinima", "input-minima", "float",
                  "The calibrated minimum of each GEMM op's input, in walk "
                  "order, for asymmetric activations (input-ranges then "
                  "holds the maxima); empty: symmetric">,
       Option<"smoothingAlpha", "smoothing-alpha", "double",
              /*default=*/"0.0",
              "Smoothing's migration strength in (0, 1): each input channel "
              "divided by max|x_k|^alpha / max|W_k|^(1 - alpha), the weight "
              "multiplied by it (needs tsc.input_channel_min/max); 0: none">,
       Option<"narrowWeights", "narrow-weights", "bool", /*default=*/"false",
              "Weight codes in [-64, 64] (7 bits), as "
              "tsc-quantize-dynamic-int8's">,
       Option<"minInputFeatures", "min-input-features", "int64_t",
              /*default=*/"16",
              "GEMMs whose K (input features) is smaller stay float: the "
              "quantization of a short row costs more than the product saves">,
       Option<"remarks", "remarks", "bool", /*default=*/"false",
              "Emit a remark on each GEMM kept float, saying why">,
       ListOption<"keepFloat", "keep-float", "std::string",
                  "GEMMs kept float, by name, as tsc-quantize-dynamic-int8's "
                  "keep-float (KeepFloat.h); their ranges are still listed"
                  " in input-ranges">,
       Option<"keptPrecision", "kept-precision", "std::string",
              /*default=*/"\"f32\"",
              "What the GEMMs keep-float names (as "
              "tsc-quantize-dynamic-int8's) compute in: f32, or bf16 "
              "(both operands rounded to bf16, f32 accumulation and "
              "result: QuantizeGemm.h's roundGemmToBf16)">];
}

def QuantizeQdqPass : Pass<"tsc-quantize-qdq", "func::FuncOp"> {
  let summary = "QDQ pairs around GEMMs by dequantized constant s8 weights "
                "become the int8 GEMM form (QDQ models)";
  let description = [{
    A QDQ model (ONNX Runtime's `quantize_static` with `QuantFormat.QDQ`,
    QAT exports) imports to `dequantize(quantize(x, s, z), s, z)` on a
    GEMM's input and `dequantize(wq, ws, zw)` of a constant s8 weight. Such
    a GEMM becomes the form the int8 passes make and the host plan runs as
    an int8 GEMM step: symmetric s8 activations with one constant scale, s8
    weights with one scale per output channel. The activation's zero point
    (u8 or s8) becomes an s8 zero point of the int8 GEMM step, exactly; the
    weight's zero point must be 0.
    f8E4M3FN pairs (opset 19, zero points +0) become tsc-quantize-fp8's
    form likewise (the activation per tensor with its saturate flag).
    Anything else keeps the model's float semantics: QDQ around other ops,
    a computed weight, scales or zero points that differ between the pair
    or are not constants (docs/quantization-qdq.md, "QDQ models").
    ONNX Runtime's quantize_dynamic form (DynamicQuantizeLinear's u8 codes
    less their zero point, an i32 matmul by a widened s8 constant weight,
    cast to f32 and multiplied by the codes' scale times a constant weight
    scale) becomes a linear of the dequantized codes by the dequantized
    weight (per column): the same product, which the host plan runs as an
    int8 step quantizing per tensor by the range (format 1.23).
    Two exact rewrites spare each run work the model's form would cost: a
    gather of a dequantized constant table gathers the codes and
    dequantizes the rows it took (an embedding), and a small constant
    dequantized for no GEMM (a norm's weight, a bias) becomes the f32
    constant its kernel would compute.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
  let options = [Option<
      "remarks", "remarks", "bool", /*default=*/"false",
      "Emit a remark on each GEMM with a dequantized operand kept "
      "float, saying why">];
}

def ExpandQuantizedGemmsPass
    : Pass<"tsc-expand-quantized-gemms", "func::FuncOp"> {
  let summary = "int8 and fp8 GEMMs as an s8 or f8 product and a float "
                "epilogue (CUDA targets)";
  let description = [{
    Each `tsc.linear` in the int8 form of the quantize passes whose scales
    factor out of the product (the activation quantized per tensor, with an
    optional constant zero point, or per row; the s8 constant weight per
    output channel) becomes what a GPU runs: the activation's quantization
    (kept), `tsc.matmul` of it by `tsc.transpose` of the s8 weight stored
    `[N, K]` (s8 · s8 -> s32: cuBLASLt's int8 GEMM, which takes the weight
    transposed), minus the zero point times the weight's column sums (a
    constant, in s32), then `act(f32(acc) · Ws · s + bias) + residual` as
    elementwise ops. The CUDA plan runs the product as one GEMM step; the
    rest are kernels. The host plan runs the int8 form as one int8 step
    instead and does not need this pass (docs/quantization-cuda.md, "CUDA").
    fp8 linear ops (`f8E4M3FN` codes, tsc-quantize-fp8) become the same
    with `tsc.matmul` f8 · f8 -> f32 (cuBLASLt's fp8 GEMM, also "TN") and
    no zero point.

    Before:
    ```mlir
    %xq = tsc.quantize %x, %s axis = 1 group_size = 768 : ...
    %xd = tsc.dequantize %xq, %s axis = 1 group_size = 768 : ...
    %wd = tsc.dequantize %wq, %ws axis = 0 : (tensor<3072x768xi8>, ...)
    %y = tsc.linear %xd, %wd, %b activation = gelu_tanh : ...
    ```
    After:
    ```mlir
    %xq = tsc.quantize %x, %s axis = 1 group_size = 768 : ...
    %t = tsc.transpose %wq perm = [1, 0] : (tensor<3072x768xi8>) -> tensor<768x3072xi8>
    %acc = tsc.matmul %xq, %t : (tensor<?x768xi8>, tensor<768x3072xi8>) -> tensor<?x3072xi32>
    %f = tsc.cast %acc : (tensor<?x3072xi32>) -> tensor<?x3072xf32>
    %y0 = tsc.mul %f, %ws ...
    %y1 = tsc.mul %y0, %s ...
    %y2 = tsc.add %y1, %b ...
    %y = tsc.gelu %y2 approximate = tanh : ...
    ```
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect"];
}

//===----------------------------------------------------------------------===//
// Graph: conversions from source frameworks
//===----------------------------------------------------------------------===//

def ConvertOnnxToTscPass : Pass<"tsc-convert-onnx-to-tsc", "func::FuncOp"> {
  let summary = "Convert ONNX nodes (tsc.foreign \"onnx\" ops) into tsc ops";
  let description = [{
    Replaces each `tsc.foreign "onnx"` op by tsc ops, using the converter
    registered for its op type at the largest since-version not above the
    node's opset. Converters run in one greedy rewrite with the tsc, arith and
    tensor canonicalizations and the shape-arithmetic patterns, so exporters'
    shape subgraphs (Shape, Gather, Unsqueeze, Concat, ...) fold into dims,
    constants and symbols before the ops that consume them are converted.

    Before:
    ```mlir
    %y = tsc.foreign "onnx" "Relu" version 17 (%x) {} : (tensor<4xf32>) -> tensor<4xf32>
    ```
    After:
    ```mlir
    %y = tsc.relu %x : tensor<4xf32>
    ```

    Whatever is left is reported: one error listing every op type without a
    converter (with opset, count and node names), and one error per node
    whose converter rejected it, saying why. Unless `allow-unsupported` is
    set, the pass then fails.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"allowUnsupported", "allow-unsupported", "bool", /*default=*/"false",
           "Leave unconvertible nodes as tsc.foreign instead of failing">
  ];
}

def ConvertTorchToTscPass : Pass<"tsc-convert-torch-to-tsc", "func::FuncOp"> {
  let summary = "Convert TorchScript nodes (tsc.foreign \"aten\"/\"prim\" ops) into tsc ops";
  let description = [{
    Replaces each `tsc.foreign "aten"` and `"prim"` op by tsc ops, with the
    same driver as the ONNX conversion: converters keyed by op name, run in
    one greedy rewrite with the tsc, arith and tensor canonicalizations and
    the shape-arithmetic patterns, so `aten::size` arithmetic folds into dims
    and symbols before the views that read it are converted. Python scalars
    are 0-d tensors; type promotion follows torch's rules.

    Before:
    ```mlir
    %y = tsc.foreign "aten" "gelu" version 10 (%x, %none) {approximate = "tanh"}
        : (tensor<2x8xf32>, none) -> none
    ```
    After:
    ```mlir
    %y = tsc.gelu %x approximate = tanh : tensor<2x8xf32>
    ```

    Whatever is left is reported like the ONNX conversion's leftovers: one
    error listing every op without a converter (with count and node names),
    one error per node whose converter rejected it.
  }];
  let dependentDialects = ["::mlir::tsc::TscDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"allowUnsupported", "allow-unsupported", "bool", /*default=*/"false",
           "Leave unconvertible nodes as tsc.foreign instead of failing">
  ];
}

//===----------------------------------------------------------------------===//
// Lower: tsc to linalg for the host and device code generators
//===----------------------------------------------------------------------===//

def ConvertTscToLinalgPass : Pass<"tsc-convert-to-linalg", "func::FuncOp"> {
  let summary = "Lower tsc compute ops to linalg, tensor, arith and math on tensors";
  let description = [{
    The first step of the `lower` phase, run on each kernel the memory plan
    outlined. Elementwise ops become `linalg.generic` with numpy broadcasting
    maps; reductions, softmax and norms become generics that reduce the
    trailing dims; matmul and linear become contractions (a linear's bias and
    residual seed the accumulator); attention becomes a flash-attention loop
    nest (an `scf.forall` over batch, head and 32-query blocks, a loop over
    64-key blocks with an online softmax, never the full score matrix); data
    movement becomes `tensor` slices or index-computing generics. Every
    result is built in destination-passing style from a `tensor.empty` whose
    dynamic dims are read with `tensor.dim`, so bufferization can write it
    straight into the buffer the plan assigned.

    Before:
    ```mlir
    %y = tsc.add %x, %b : (tensor<?x768xf32>, tensor<768xf32>) -> tensor<?x768xf32>
    ```
    After:
    ```mlir
    %d = tensor.dim %x, %c0 : tensor<?x768xf32>
    %e = tensor.empty(%d) : tensor<?x768xf32>
    %y = linalg.generic {indexing_maps = [#id, #row, #id], ...}
        ins(%x, %b : tensor<?x768xf32>, tensor<768xf32>) outs(%e : tensor<?x768xf32>) {...}
    ```

    A tsc op left over (no host lowering yet) is an error naming the op.
  }];
  let options =
      [Option<
           "maxKeyValueBlockBytes", "max-key-value-block-bytes", "int64_t",
           /*default=*/"0",
           "The most bytes attention's key and value blocks may take together "
           "(fewer keys per block for wide heads; 0: 64 keys; half of it "
           "for fp16 tiles). The CUDA target keeps them in a "
           "block's shared memory.">,
       Option<"bf16Products", "bf16-products", "bool", /*default=*/"false",
              "bf16 attention (and f32 attention marked bf16_products) whose "
              "head dims are whole tiles keeps Q, K, V and P in bf16 and "
              "computes S = Q.K^T from K as it is, for the host codegen's bf16 "
              "pair products (a host with AMX-BF16 or AVX512_BF16).">];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TSC_PASSES_TD
