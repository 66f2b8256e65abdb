//===- TscElementwiseMathOps.td - ElementwiseMath op family -*- tablegen -*-===//
//
// Elementwise math, logic and bitwise ops beyond the core set (rounding, trigonometry, classification, modulo, shifts); included by TscOps.td after the core ops,
// whose base classes these use.
//
//===----------------------------------------------------------------------===//

#ifndef TSCELEMENTWISEMATHOPS_TD
#define TSCELEMENTWISEMATHOPS_TD

#endif // TSCELEMENTWISEMATHOPS_TD
