#!/usr/bin/env python3
"""Checks that every loop the runtime compiles once per x86 ISA level
(TSC_VECTOR_CLONES, runtime/src/vector_clones.h) has its clones and the
ifunc resolver that picks one when the library loads.

Debian 12's clang 14 gets an exported multiversioned function wrong (see
vector_clones.h): declared plainly in a header, it makes no clones, silently,
and compiles the body for AVX-512BW alone (SIGILL on an AVX2 CPU); declared
with the attribute, other files call its resolver as the function. So each
must have internal linkage, called by a plain function of its file. This
reads the definitions from the sources and the symbols from the built
library: a loop added in either wrong way fails here on every machine, not
only on one without AVX-512.

Usage: check_vector_clones.py LLVM_NM LIBRARY SOURCE_DIR
Prints `ok NAME: N clones` per function, or `FAIL NAME: ...`.
"""
import pathlib
import re
import subprocess
import sys


def main():
    nm, library, sources = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    names = sorted({m.group(1) for path in sources.glob("*.cpp")
                    for m in re.finditer(r"^TSC_VECTOR_CLONES\s+[\w:<>\s\*&]+?\b(\w+)\(",
                                         path.read_text(), re.M)})
    if not names:
        print("FAIL no TSC_VECTOR_CLONES definition found in", sources)
        return 1
    # "ADDRESS TYPE NAME" lines: type t is a local (internal) function.
    rows = [line.split() for line in subprocess.run(
        [nm, library], capture_output=True, text=True, check=True).stdout.splitlines()]
    symbols = [row[-1] for row in rows if len(row) >= 2]
    local = {row[-1] for row in rows if len(row) == 3 and row[1] == "t"}
    failed = 0
    for name in names:
        # Itanium mangling: the name's length, then the name.
        mangled = f"{len(name)}{name}E"
        clones = [s for s in symbols if mangled in s and re.search(r"\.(avx\w*|default)\.\d+$", s)]
        resolvers = [s for s in symbols if mangled in s and s.endswith(".resolver")]
        if len(clones) < 3 or not resolvers:
            print(f"FAIL {name}: {len(clones)} clones, {len(resolvers)} resolvers in {library}")
            failed += 1
        elif not set(clones) <= local:
            print(f"FAIL {name}: its clones are exported; give it internal linkage "
                  "(vector_clones.h)")
            failed += 1
        else:
            print(f"ok {name}: {len(clones)} clones")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
