// Input of tsc-driver-errors.mlir: a dynamic argument with no binding.
func.func @unbound(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
