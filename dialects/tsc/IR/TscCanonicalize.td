//===- TscCanonicalize.td - declarative canonicalization patterns -*- tablegen -*-===//
//
// Local rewrites that never lose precision or change results: involutions,
// idempotent ops, and sign-only rewrites. Fusions (x * sigmoid(x) -> silu, ...)
// are not canonicalizations; they live in the fuse phase.
//
//===----------------------------------------------------------------------===//

#ifndef TSC_CANONICALIZE_TD
#define TSC_CANONICALIZE_TD

include "mlir/IR/PatternBase.td"
include "dialects/tsc/IR/TscOps.td"

// -(-x) -> x
def NegNeg : Pat<(Tsc_NegOp (Tsc_NegOp $x)), (replaceWithValue $x)>;
// not(not(x)) -> x
def NotNot : Pat<(Tsc_NotOp (Tsc_NotOp $x)), (replaceWithValue $x)>;
// relu(relu(x)) -> relu(x)
def ReluRelu : Pat<(Tsc_ReluOp (Tsc_ReluOp:$inner $x)),
                   (replaceWithValue $inner)>;
// |(|x|)| -> |x|
def AbsAbs : Pat<(Tsc_AbsOp (Tsc_AbsOp:$inner $x)), (replaceWithValue $inner)>;
// |-x| -> |x|
def AbsNeg : Pat<(Tsc_AbsOp (Tsc_NegOp $x)), (Tsc_AbsOp $x)>;
// 1 / sqrt(x) -> rsqrt(x): one op, and the form norm kernels look for.
def ReciprocalSqrt : Pat<(Tsc_ReciprocalOp (Tsc_SqrtOp $x)), (Tsc_RsqrtOp $x)>;
// x - (-y) -> x + y
def SubNeg : Pat<(Tsc_SubOp $x, (Tsc_NegOp $y)), (Tsc_AddOp $x, $y)>;
// x + (-y) -> x - y and (-y) + x -> x - y
def AddNegRhs : Pat<(Tsc_AddOp $x, (Tsc_NegOp $y)), (Tsc_SubOp $x, $y)>;
def AddNegLhs : Pat<(Tsc_AddOp (Tsc_NegOp $y), $x), (Tsc_SubOp $x, $y)>;

#endif // TSC_CANONICALIZE_TD
