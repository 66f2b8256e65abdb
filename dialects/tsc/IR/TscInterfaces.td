//===- TscInterfaces.td - op interfaces of the tsc dialect -*- tablegen -*-===//
//
// What passes ask of an op that a marker trait cannot answer (C++ helpers in
// ShapeDerivation.h).
//
//===----------------------------------------------------------------------===//

#ifndef TSC_INTERFACES_TD
#define TSC_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tsc_ShapeDerivationOpInterface
    : OpInterface<"ShapeDerivationOpInterface"> {
  let cppNamespace = "::mlir::tsc";
  let description = [{
    The shape rule of an op: each dim of its results as an affine expression
    of its operands' dims and the values of its index operands, read through
    a `DimReader`. One rule serves every question about shapes: folding
    `tsc.dim` follows an answer that is one operand dim or index value, and
    tsc-bind-symbolic-shapes reads operand dims as expressions of the
    function's symbols to bind each result.

    Ops whose result has the first operand's shape or the numpy broadcast of
    their operands' shapes say so with `Tsc_ShapeOfFirstOperand`,
    `SameOperandsAndResultType` or `Tsc_Broadcasting` instead;
    `tsc::deriveResultDim` asks those traits, then this interface.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{
        Dim `dim` (dynamic in the result type) of result `result` as an
        expression of what `reader` reads; a null expression where that dim
        is not affine in them (a data-dependent size, a ceil-mode window
        count, a size only the result type states).
      }],
      /*retType=*/"::mlir::AffineExpr",
      /*methodName=*/"deriveResultDim",
      /*args=*/(ins "unsigned":$result, "int64_t":$dim,
                    "::mlir::tsc::DimReader &":$reader)>
  ];
}

#endif // TSC_INTERFACES_TD
