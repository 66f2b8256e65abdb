#!/usr/bin/env python3
"""A per-layer time chart (SVG) from a `tsc-run --trace` file.

Usage: layer_chart.py TRACE.json -o CHART.svg [--title TEXT]

Reads the measured runs of a Chrome trace that `tsc-run --trace` wrote (one
"run" event per run, one "step" event per plan step with its layer in
`args.layer`), and draws one horizontal bar per layer, in plan order, of the
mean milliseconds per run its steps took, split by what ran: GEMMs (library
calls), generated kernels, and any other step kind by name (copies,
attention, int8 GEMMs, ...). Steps outside every layer (embeddings, the
final norm) form the bar "(outside layers)", as in the profile. Each bar segment has a tooltip
(`<title>`) with its time; each bar's group carries `data-layer` and
`data-ms` for tools. Also prints the per-layer table on stdout, as
`tsc-run --profile` prints its "per layer" lines.

Standard library only: the chart needs no plotting package.
"""
import argparse
import collections
import html
import json
import sys

# Colour per segment kind, in legend order; other kinds take the rest.
KIND_COLOURS = {"gemm": "#4878d0", "kernel": "#ee854a"}
OTHER_COLOURS = ["#6acc64", "#d65f5f", "#956cb4", "#8c613c", "#dc7ec0", "#797979"]
NO_LAYER = "(outside layers)"


def fail(message):
    sys.exit(f"layer_chart: error: {message}")


def step_kind(name):
    if name.startswith("tsc_kernel_"):
        return "kernel"
    return name


def read_trace(path):
    """(runs, {layer: {kind: total us}}, layer order) of the trace."""
    try:
        with open(path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        fail(f"{path}: not a trace-event file (no traceEvents list)")
    runs = sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "run")
    steps = [e for e in events if e.get("ph") == "X" and e.get("cat") == "step"]
    if not runs or not steps:
        fail(f"{path}: no run and step events (write it with tsc-run --trace)")
    layers = collections.OrderedDict()
    for e in sorted(steps, key=lambda e: (e["args"].get("run", 0), e["args"].get("step", 0))):
        layer = e["args"].get("layer") or NO_LAYER
        kinds = layers.setdefault(layer, collections.Counter())
        kinds[step_kind(e["name"])] += float(e["dur"])
    return runs, layers


def colours_for(kinds):
    colours = dict(KIND_COLOURS)
    others = iter(OTHER_COLOURS)
    for kind in kinds:
        if kind not in colours:
            colours[kind] = next(others, "#a0a0a0")
    return colours


def svg(runs, layers, title):
    mean = {layer: {k: us / runs / 1000.0 for k, us in kinds.items()}
            for layer, kinds in layers.items()}
    totals = {layer: sum(kinds.values()) for layer, kinds in mean.items()}
    present = {k for ks in mean.values() for k in ks}
    kinds = [k for k in KIND_COLOURS if k in present] + sorted(present - set(KIND_COLOURS))
    colours = colours_for(kinds)
    label_w = max(90, 7 * max(len(layer) for layer in mean))
    bar_w, bar_h, gap, top = 520, 16, 6, 48
    longest = max(totals.values()) or 1.0
    height = top + len(mean) * (bar_h + gap) + 40
    width = label_w + bar_w + 110
    esc = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<text x="8" y="18" font-size="14">{esc(title)}</text>',
           f'<text x="8" y="34" fill="#555">mean ms per run over {runs} runs, by layer '
           f'(plan order)</text>']
    y = top
    for layer, parts in mean.items():
        total = totals[layer]
        out.append(f'<g data-layer="{esc(layer, quote=True)}" data-ms="{total:.6f}">')
        out.append(f'<text x="{label_w - 6}" y="{y + bar_h - 4}" text-anchor="end">'
                   f'{esc(layer)}</text>')
        x = float(label_w)
        for kind in kinds:
            ms = parts.get(kind, 0.0)
            if ms <= 0:
                continue
            w = bar_w * ms / longest
            out.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{bar_h}" '
                       f'fill="{colours[kind]}"><title>{esc(layer)}: {esc(kind)} '
                       f'{ms:.3f} ms</title></rect>')
            x += w
        out.append(f'<text x="{x + 4:.2f}" y="{y + bar_h - 4}">{total:.3f} ms</text>')
        out.append('</g>')
        y += bar_h + gap
    x = 8
    for kind in kinds:
        out.append(f'<rect x="{x}" y="{y + 8}" width="10" height="10" fill="{colours[kind]}"/>')
        label = {"gemm": "GEMM (library)", "kernel": "generated kernels"}.get(kind, kind)
        out.append(f'<text x="{x + 14}" y="{y + 17}">{esc(label)}</text>')
        x += 24 + 7 * len(label)
    out.append('</svg>')
    return "\n".join(out) + "\n", totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="a tsc-run --trace file")
    parser.add_argument("-o", "--output", required=True, help="the SVG to write")
    parser.add_argument("--title", help="chart title (default: the trace's file name)")
    args = parser.parse_args()
    runs, layers = read_trace(args.trace)
    text, totals = svg(runs, layers, args.title or args.trace)
    try:
        with open(args.output, "w") as f:
            f.write(text)
    except OSError as e:
        fail(f"-o: {e}")
    print(f"layer_chart: mean ms per run over {runs} runs")
    for layer, total in totals.items():
        print(f"{total:12.3f}  {layer}")
    print(f"layer_chart: wrote {args.output}")


if __name__ == "__main__":
    main()
