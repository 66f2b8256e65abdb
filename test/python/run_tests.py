#!/usr/bin/env python3
"""Runs the Python package's pytest suite (test/python/) against a build:
build/python on sys.path, the build's tsc as the compiler.

Usage (PyTorch 2 environment):
  tools/torch-python test/python/run_tests.py --build build [--xunit FILE]
      [pytest arguments...]
"""
import argparse
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--xunit")
    args, rest = parser.parse_known_args()
    build = pathlib.Path(args.build).resolve()
    sys.path.insert(0, str(build / "python"))
    os.environ["TSC_COMPILER"] = str(build / "bin" / "tsc")
    import pytest
    extra = [f"--junitxml={args.xunit}"] if args.xunit else []
    return pytest.main([str(HERE), "-q", "-p", "no:cacheprovider"] + extra + rest)


if __name__ == "__main__":
    sys.exit(main())
