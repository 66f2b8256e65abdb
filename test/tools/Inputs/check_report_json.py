"""Checks `tsc --report=json` against `tsc --report` (text) of the same compile.

Usage: check_report_json.py TEXT_REPORT JSON_REPORT

Every number the text report prints is read back from the text and compared
with the JSON's field (MB figures after rounding the JSON's bytes the way the
text does); the step list, the layers and the quantization decisions must
agree line by line. Prints what it compared and exits 1 on the first
disagreement.
"""
import json
import re
import sys

text = open(sys.argv[1]).read().splitlines()
report = json.load(open(sys.argv[2]))
checked = 0


def check(what, got, expected):
    global checked
    if got != expected:
        sys.exit(f"check_report_json: {what}: JSON has {got!r}, the text {expected!r}")
    checked += 1


def mb(count):
    return f"{count / 1e6:.2f} MB"


def line(prefix):
    found = [l for l in text if l.startswith(prefix)]
    if not found:
        sys.exit(f"check_report_json: the text report has no line '{prefix}...'")
    return found[0]


m = re.match(r"plan: (\d+) steps: (\d+) kernels, (\d+) GEMM library calls, (\d+) copies; "
             r"(\d+) views", line("plan: "))
plan = report["plan"]
for key, value in zip(["steps", "kernels", "gemm_calls", "copies", "views"], m.groups()):
    check(f"plan.{key}", plan[key], int(value))
symbols = re.findall(r"(\S+)=\[(\d+), (\d+)\]", line("symbols:"))
check("symbols", [(s["name"], s["min"], s["max"]) for s in report["symbols"]],
      [(n, int(lo), int(hi)) for n, lo, hi in symbols])
check("memory traffic", mb(plan["memory_traffic_bytes"]),
      line("memory traffic (estimate").split(": ")[1])
if any(l.startswith("fusion ") for l in text):
    off = report["unfused"]
    for label, key in [("kernels ", "kernels"), ("GEMM library calls", "gemm_calls"),
                       ("copies ", "copies")]:
        on_text, off_text = line(label).split()[-2:]
        check(f"{key} fused", plan[key], int(on_text))
        check(f"{key} unfused", off[key], int(off_text))
    check("unfused traffic", mb(off["memory_traffic_bytes"]),
          " ".join(line("memory traffic  ").split()[-2:]))
    check("unfused arena", mb(off["arena_bytes"]), " ".join(line("arena  ").split()[-2:]))
else:
    check("no unfused baseline", "unfused" in report, False)
layer_lines = [l for l in text if re.match(r"  \S.* kernels +\d+ GEMM calls", l)]
layers = report["layers"] + [dict(report["outside_layers"], name="(outside layers)")]
if report["layers"]:
    check("layer count", len(layer_lines), len(layers))
for l, layer in zip(layer_lines, layers):
    m = re.match(r"  (.*?) +(\d+) kernels +(\d+) GEMM calls +(\d+) copies +(\S+ MB)$", l)
    check("layer", (layer["name"], layer["kernels"], layer["gemm_calls"], layer["copies"],
                    mb(layer["memory_traffic_bytes"])),
          (m[1], int(m[2]), int(m[3]), int(m[4]), m[5]))
m = re.match(r"arena: (\d+) bytes .* intermediates sum to (\d+) bytes \(reuse saves "
             r"([\d.]+)%\)", line("arena: "))
check("arena_bytes", report["arena_bytes"], int(m[1]))
check("intermediate_bytes", report["intermediate_bytes"], int(m[2]))
check("reuse", f"{report['arena_reuse_saves_percent']:.1f}", m[3])
check("weight_bytes", report["weight_bytes"], int(line("weights: ").split()[1]))
precision = line("precision: ")
check("precision", report["precision"]["storage"], precision.split()[1])
for op, count in report["precision"].get("ops_kept_fp32", {}).items():
    check(f"kept {op}", f"{op} x{count}" in precision, True)
quantization = report.get("quantization")
check("quantization line", quantization is not None,
      any(l.startswith("quantization: ") and not l.startswith("quantization: weight-only")
          for l in text))
weight_only = [l for l in text if l.startswith("quantization: weight-only ")]
check("weight-only lines", len(weight_only), len(report.get("weight_only", [])))
for l, form in zip(weight_only, report.get("weight_only", [])):
    m = re.match(r"quantization: weight-only (i\d) weights \(a scale per "
                 r"(?:group of (\d+) along K|output channel)( and a zero point)?;.*: (\d+) of \d+ "
                 r"GEMMs$", l)
    check("weight-only form", (form["weights"], form["group_size"], form["zero_points"],
                               form["gemms"]),
          (m[1], int(m[2] or 0), m[3] is not None, int(m[4])))
decisions = [l for l in text if l.startswith("  step ")]
if quantization:
    int8_line = [l for l in text if l.startswith("quantization: ") and l not in weight_only][0]
    m = re.search(r"(\d+) of (\d+) GEMMs int8", int8_line)
    check("int8_gemms", quantization["int8_gemms"], int(m[1]))
    check("gemms", quantization["gemms"], int(m[2]))
    m = re.search(r", (\d+) of them with a zero point", int8_line)
    check("zero_point_gemms", quantization["zero_point_gemms"], int(m[1]) if m else 0)
    m = re.search(r", (\d+) of them smoothed", int8_line)
    check("smoothed_gemms", quantization.get("smoothed_gemms", 0), int(m[1]) if m else 0)
    m = re.search(r", (\d+) of them per tensor by its range", int8_line)
    ranged = (int(m[1]) if m else quantization["int8_gemms"]
              if "activations u8 per tensor by their range" in int8_line else 0)
    check("range_gemms", quantization.get("range_gemms", 0), ranged)
    gemm_steps = [s for s in report["steps"] if s["kind"] == "gemm"]
    check("decisions", len(decisions), len(gemm_steps))
    for l, step in zip(decisions, gemm_steps):
        m = re.match(r"  step +(\d+) (.*?)  (.*)$", l)
        check("decision", (step["index"], step["quantization"]), (int(m[1]), m[2]))
        check("decision's nodes", m[3].startswith(", ".join(step["source_nodes"][:2])), True)
step_lines = text[text.index("steps:") + 1:]
step_lines = [l for l in step_lines if re.match(r" +\d+ ", l)]
check("step count", len(step_lines), len(report["steps"]))
for l, step in zip(step_lines, report["steps"]):
    m = re.match(r" +(\d+) (.*?) +(\d+\.\d\d MB)  ?(.*)$", l)
    check("step", (step["index"], step["name"], mb(step["memory_traffic_bytes"]), step["layer"]),
          (int(m[1]), m[2], m[3], m[4].strip()))
measured = [l for l in text if l.startswith("measured error of ")]
check("measured_error", report.get("measured_error"), measured[0] if measured else None)
check("pruning", bool(report["pruning"]), any(l == "pruning:" for l in text))
print(f"check_report_json: {checked} fields agree ({len(report['steps'])} steps, "
      f"{len(report['layers'])} layers)")
