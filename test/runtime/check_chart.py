"""Checks tools/layer_chart.py's SVG against the same run's --profile.

Usage: check_chart.py CHART.svg PROFILE.txt

The SVG must parse as XML, have one bar group (data-layer, data-ms) per layer
of the profile's "per layer:" lines, in the same order, each with at least
one segment whose tooltip names the layer, and a time equal to the
profile's (which tsc-run computes in C++ from the same measured runs) to
the profile's printed precision. Prints a summary line; exits 1 naming the
first difference.
"""
import re
import sys
import xml.etree.ElementTree as ET

svg_path, profile_path = sys.argv[1], sys.argv[2]


def fail(message):
    sys.exit(f"check_chart: {message}")


root = ET.parse(svg_path).getroot()
ns = "{http://www.w3.org/2000/svg}"
groups = [g for g in root.iter(ns + "g") if "data-layer" in g.attrib]
text = open(profile_path).read()
if "per layer:" not in text:
    fail(f"{profile_path}: no 'per layer:' section")
section = text.split("per layer:", 1)[1].split("per step:", 1)[0]
profile = [(m.group(3), float(m.group(1)))
           for m in re.finditer(r"^\s+([0-9.]+)\s+(\d+) steps?\s+(.+?)\s*$", section, re.M)]
chart = [(g.attrib["data-layer"], float(g.attrib["data-ms"])) for g in groups]
if [name for name, _ in chart] != [name for name, _ in profile]:
    fail(f"layers {[n for n, _ in chart]} differ from the profile's {[n for n, _ in profile]}")
for g, (name, ms), (_, expected) in zip(groups, chart, profile):
    if abs(ms - expected) > 0.0005 + 1e-6:
        fail(f"layer {name}: chart {ms:.6f} ms, profile {expected:.3f} ms")
    tips = [t.text for t in g.iter(ns + "title")]
    if not tips or not all(t.startswith(name + ": ") for t in tips):
        fail(f"layer {name}: segments' tooltips {tips}")
print(f"check_chart: {len(chart)} layers agree with the profile")
