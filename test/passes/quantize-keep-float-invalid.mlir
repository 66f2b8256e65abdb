// RUN: not tsc-opt %s --tsc-quantize-dynamic-int8="keep-float=[z-a]" 2>&1 | FileCheck %s

// A pattern that does not parse is an error naming it.
// CHECK: keep-float: '[z-a]': invalid glob pattern
func.func @bad_pattern(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  return %x : tensor<?x16xf32>
}
