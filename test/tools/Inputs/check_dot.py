"""Checks the SVG that Graphviz rendered from `tsc --emit=dot` against the plan.

Usage: check_dot.py GRAPH.svg REPORT.json

REPORT.json is `tsc --report=json` of the same compile. The SVG must have one
node per plan step, whose first text line is "INDEX: NAME" as the report
names the step and whose fill says its kind and precision (kernels grey or
light blue, GEMMs green or blue, int8 GEMMs orange, copies white), input and
output nodes, and edges between them. Prints the counts; exits 1 naming the
first disagreement.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

svg = ET.parse(sys.argv[1]).getroot()
with open(sys.argv[2]) as f:
    report = json.load(f)
ns = {"s": "http://www.w3.org/2000/svg"}


def fail(message):
    sys.exit(f"check_dot: {message}")


steps, ports, edges = {}, [], 0
for g in svg.iter("{http://www.w3.org/2000/svg}g"):
    kind = g.get("class")
    if kind == "edge":
        edges += 1
    if kind != "node":
        continue
    title = g.find("s:title", ns).text
    fill = next((p.get("fill") for p in g.iter()
                 if p.tag.endswith(("polygon", "ellipse")) and p.get("fill")), None)
    texts = [t.text for t in g.iter("{http://www.w3.org/2000/svg}text")]
    m = re.fullmatch(r"step(\d+)", title)
    if m:
        steps[int(m[1])] = (fill, texts)
    elif re.fullmatch(r"(input|output)\d+", title):
        ports.append(title)
    else:
        fail(f"unexpected node {title}")
plan = report["plan"]
if sorted(steps) != list(range(plan["steps"])):
    fail(f"step nodes {sorted(steps)}, the plan has {plan['steps']} steps")
GREY, LIGHT_BLUE, GREEN, BLUE, ORANGE, WHITE = (
    "#d3d3d3", "#add8e6", "#98fb98", "#63b8ff", "#ffa500", "#ffffff")
colours = {"kernel": {GREY, LIGHT_BLUE}, "gemm": {GREEN, BLUE, ORANGE}, "copy": {WHITE}}
half = report["precision"]["storage"] in ("fp16", "bf16")
for step in report["steps"]:
    fill, texts = steps[step["index"]]
    if texts[0] != f"{step['index']}: {step['name']}":
        fail(f"step {step['index']}: label '{texts[0]}', the report names it '{step['name']}'")
    if fill not in colours[step["kind"]]:
        fail(f"step {step['index']} ({step['kind']}) filled {fill}")
    if step.get("quantization", "").startswith("int8") != (fill == ORANGE):
        fail(f"step {step['index']}: filled {fill}, quantization {step.get('quantization')}")
    if fill in (LIGHT_BLUE, BLUE) and not half:
        fail(f"step {step['index']}: filled {fill} in {report['precision']['storage']}")
# With fp16/bf16 most steps write half values (some keep f32: exp, casts).
blue = sum(1 for fill, _ in steps.values() if fill in (LIGHT_BLUE, BLUE))
if half and 2 * blue < len(steps):
    fail(f"{blue} of {len(steps)} steps filled as half precision in "
         f"{report['precision']['storage']}")
count = {k: sum(1 for s in report["steps"] if s["kind"] == k) for k in colours}
if count["kernel"] != plan["kernels"] or count["gemm"] != plan["gemm_calls"]:
    fail("the report's steps disagree with its totals")
if not any(p.startswith("input") for p in ports) or not any(p.startswith("output") for p in ports):
    fail(f"input or output nodes missing: {ports}")
if edges < plan["steps"]:
    fail(f"{edges} edges for {plan['steps']} steps")
orange = sum(1 for fill, _ in steps.values() if fill == ORANGE)
print(f"check_dot: {len(steps)} step nodes ({plan['kernels']} kernels, {plan['gemm_calls']} "
      f"GEMM calls, {plan['copies']} copies, {orange} int8, {blue} half), {len(ports)} "
      f"inputs/outputs, {edges} edges")
