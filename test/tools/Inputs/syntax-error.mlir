// Input of tsc-driver-errors.mlir: a parse error on line 4.
func.func @broken(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tsc.neg %x : tensor<4xf32>
  %z = tsc.frobnicate %y : tensor<4xf32>
  return %z : tensor<4xf32>
}
