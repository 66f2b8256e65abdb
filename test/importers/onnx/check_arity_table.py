#!/usr/bin/env python3
"""Checks compiler/importers/onnx/OnnxArity.cpp's table against the pinned
onnx package: one row per standard op version after opset 17, with that
schema's min/max input and output counts, nothing missing, nothing extra.

usage: check_arity_table.py OnnxArity.cpp
Prints one line per difference and `rows: N checked` at the end; exit 1 on
any difference.
"""
import re
import sys

import onnx
import onnx.defs

ANY = 2147483647
ROW = re.compile(r'^\s*\{"(\w+)", (\d+), (\w+), (\w+), (\w+), (\w+)\},\s*$')


def count(text):
    return ANY if text == "kAny" else int(text)


def main():
    source = open(sys.argv[1], encoding="utf-8").read()
    table = source.split("constexpr Row kRows[] = {", 1)[1].split("};", 1)[0]
    rows = {}
    problems = []
    for line in table.splitlines():
        if not line.strip():
            continue
        m = ROW.match(line)
        if not m:
            problems.append(f"unparsed line: {line.strip()}")
            continue
        key = (m.group(1), int(m.group(2)))
        if key in rows:
            problems.append(f"{key[0]}-{key[1]}: listed twice")
        rows[key] = tuple(count(m.group(i)) for i in range(3, 7))
    order = list(rows)
    if order != sorted(order):
        problems.append("rows are not sorted by op, then version")
    expected = {}
    for schema in onnx.defs.get_all_schemas_with_history():
        if schema.domain not in ("", "ai.onnx") or schema.since_version <= 17:
            continue
        expected[(schema.name, schema.since_version)] = (
            schema.min_input, schema.max_input, schema.min_output, schema.max_output)
    for key in sorted(set(expected) | set(rows)):
        name = f"{key[0]}-{key[1]}"
        if key not in rows:
            problems.append(f"{name}: missing (onnx {onnx.__version__}: {expected[key]})")
        elif key not in expected:
            problems.append(f"{name}: no such schema in onnx {onnx.__version__}")
        elif rows[key] != expected[key]:
            problems.append(f"{name}: table {rows[key]}, onnx {onnx.__version__} {expected[key]}")
    for problem in problems:
        print(problem)
    print(f"rows: {len(rows)} checked against onnx {onnx.__version__} "
          f"(opsets 18 to {onnx.defs.onnx_opset_version()}), {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
