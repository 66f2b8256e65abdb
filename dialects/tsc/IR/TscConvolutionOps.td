//===- TscConvolutionOps.td - Convolution op family -*- tablegen -*-===//
//
// Convolutions, pooling, resizing and sampling; included by TscOps.td after the core ops,
// whose base classes these use.
//
//===----------------------------------------------------------------------===//

#ifndef TSCCONVOLUTIONOPS_TD
#define TSCCONVOLUTIONOPS_TD

#endif // TSCCONVOLUTIONOPS_TD
