// A BERT-style encoder layer (post-LN, padding mask, erf GELU) in the tsc
// dialect, with symbolic batch and sequence dims: the bundled example of the
// README's first command. Hidden 32, 4 heads of 8, FFN 64; weights are small
// splat constants (an imported model carries dense_resource blobs instead).
//
//   build/bin/tsc docs/examples/encoder_layer.mlir --emit=graph --dim seq=1..128
//
// prints the graph phase: shape queries resolved, every dynamic tensor bound to
// an affine expression of `batch` and `seq`.

func.func @encoder_layer(%hidden: tensor<?x?x32xf32>, %attention_mask: tensor<?x?xi64>)
    -> tensor<?x?x32xf32> {
  %batch = tsc.symbol "batch" [1, 64]
  %seq = tsc.symbol "seq" [1, 512]
  tsc.bind_shape %hidden[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1, 32)> : tensor<?x?x32xf32>
  tsc.bind_shape %attention_mask[%batch, %seq], affine_map<()[s0, s1] -> (s0, s1)> : tensor<?x?xi64>

  %wq = tsc.constant dense<0.011> : tensor<32x32xf32>
  %wk = tsc.constant dense<0.012> : tensor<32x32xf32>
  %wv = tsc.constant dense<0.013> : tensor<32x32xf32>
  %wo = tsc.constant dense<0.014> : tensor<32x32xf32>
  %bq = tsc.constant dense<0.001> : tensor<32xf32>
  %bk = tsc.constant dense<0.002> : tensor<32xf32>
  %bv = tsc.constant dense<0.003> : tensor<32xf32>
  %bo = tsc.constant dense<0.004> : tensor<32xf32>
  %w1 = tsc.constant dense<0.015> : tensor<64x32xf32>
  %b1 = tsc.constant dense<0.005> : tensor<64xf32>
  %w2 = tsc.constant dense<0.016> : tensor<32x64xf32>
  %b2 = tsc.constant dense<0.006> : tensor<32xf32>
  %ln1_g = tsc.constant dense<1.1> : tensor<32xf32>
  %ln1_b = tsc.constant dense<0.1> : tensor<32xf32>
  %ln2_g = tsc.constant dense<0.9> : tensor<32xf32>
  %ln2_b = tsc.constant dense<-0.1> : tensor<32xf32>

  // Sizes as an exporter computes them: from the input's shape at run time.
  %b = tsc.dim %hidden, 0 : tensor<?x?x32xf32>
  %s = tsc.dim %hidden, 1 : tensor<?x?x32xf32>

  // Projections and the head split [b, s, 32] -> [b, 4, s, 8].
  %q = tsc.linear %hidden, %wq, %bq : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %k = tsc.linear %hidden, %wk, %bk : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %v = tsc.linear %hidden, %wv, %bv : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %q4 = tsc.reshape %q [%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %k4 = tsc.reshape %k [%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %v4 = tsc.reshape %v [%b, %s] : tensor<?x?x32xf32> -> tensor<?x?x4x8xf32>
  %qh = tsc.transpose %q4 perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %kh = tsc.transpose %k4 perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>
  %vh = tsc.transpose %v4 perm = [0, 2, 1, 3] : (tensor<?x?x4x8xf32>) -> tensor<?x4x?x8xf32>

  // Additive padding mask (1 - mask) * -10000, shaped [b, 1, 1, s].
  %maskf = tsc.cast %attention_mask : tensor<?x?xi64> to tensor<?x?xf32>
  %one = tsc.constant dense<1.0> : tensor<f32>
  %keep = tsc.sub %one, %maskf : (tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %big = tsc.constant dense<-10000.0> : tensor<f32>
  %additive = tsc.mul %keep, %big : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %mask4 = tsc.unsqueeze %additive dims = [1, 2] : (tensor<?x?xf32>) -> tensor<?x1x1x?xf32>

  %ctx = tsc.attention %qh, %kh, %vh mask %mask4
      : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x1x1x?xf32>) -> tensor<?x4x?x8xf32>
  %ctx_t = tsc.transpose %ctx perm = [0, 2, 1, 3] : (tensor<?x4x?x8xf32>) -> tensor<?x?x4x8xf32>
  %merged = tsc.reshape %ctx_t [%b, %s] : tensor<?x?x4x8xf32> -> tensor<?x?x32xf32>
  %attn = tsc.linear %merged, %wo, %bo : (tensor<?x?x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>

  // Residual + LayerNorm, FFN with exact GELU, residual + LayerNorm.
  %res1 = tsc.add %attn, %hidden : (tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %ln1 = tsc.layer_norm %res1 scale %ln1_g bias %ln1_b axis = 2 epsilon = 1.0e-12
      : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %up = tsc.linear %ln1, %w1, %b1 : (tensor<?x?x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %act = tsc.gelu %up : tensor<?x?x64xf32>
  %down = tsc.linear %act, %w2, %b2 : (tensor<?x?x64xf32>, tensor<32x64xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  %res2 = tsc.add %down, %ln1 : (tensor<?x?x32xf32>, tensor<?x?x32xf32>) -> tensor<?x?x32xf32>
  %out = tsc.layer_norm %res2 scale %ln2_g bias %ln2_b axis = 2 epsilon = 1.0e-12
      : (tensor<?x?x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  return %out : tensor<?x?x32xf32>
}
