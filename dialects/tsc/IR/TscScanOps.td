//===- TscScanOps.td - Scan op family -*- tablegen -*-===//
//
// Scans, index reductions and selection (cumulative sums and products, arg max/min, top-k); included by TscOps.td after the core ops,
// whose base classes these use.
//
//===----------------------------------------------------------------------===//

#ifndef TSCSCANOPS_TD
#define TSCSCANOPS_TD

#endif // TSCSCANOPS_TD
