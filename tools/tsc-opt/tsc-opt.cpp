//===- tsc-opt.cpp - replay tsc passes and pipelines on .mlir files -------===//

#include "compiler/driver/Driver.h"

int main(int argc, char **argv) { return mlir::tsc::runTscOpt(argc, argv); }
