//===- TscIndexingOps.td - Indexing op family -*- tablegen -*-===//
//
// Gathers, scatters, padding and tiling; included by TscOps.td after the core ops,
// whose base classes these use.
//
//===----------------------------------------------------------------------===//

#ifndef TSCINDEXINGOPS_TD
#define TSCINDEXINGOPS_TD

#endif // TSCINDEXINGOPS_TD
