//===- tsc.cpp - the tsc compiler driver ----------------------------------===//

#include "compiler/driver/Driver.h"

int main(int argc, char **argv) { return mlir::tsc::runTscDriver(argc, argv); }
