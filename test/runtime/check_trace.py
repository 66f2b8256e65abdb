"""Checks a `tsc-run --trace` file against the Chrome trace-event format.

Usage: check_trace.py TRACE.json RUNS STEPS

The file is one JSON object with `traceEvents`; every complete ("X") event
has name, ph, ts, dur, pid and tid, numbers where numbers belong; there are
RUNS run events, each with STEPS step events on its thread; the steps of a
run lie inside it, in plan order, without overlapping, and their durations
sum to more than 0 and at most the run's. Prints a summary line; exits 1
naming the first violation.
"""
import json
import sys

path, runs, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
trace = json.load(open(path))


def fail(message):
    sys.exit(f"check_trace: {path}: {message}")


events = trace.get("traceEvents")
if not isinstance(events, list):
    fail("no traceEvents list")
complete = [e for e in events if e.get("ph") == "X"]
for e in complete:
    for key in ("name", "ph", "ts", "dur", "pid", "tid"):
        if key not in e:
            fail(f"event {e} has no '{key}'")
    if not isinstance(e["name"], str) or not e["name"]:
        fail(f"event {e}: name is not a string")
    for key in ("ts", "dur"):
        if not isinstance(e[key], (int, float)) or e[key] < 0:
            fail(f"event {e}: {key} is not a non-negative number")
    for key in ("pid", "tid"):
        if not isinstance(e[key], int):
            fail(f"event {e}: {key} is not an integer")
run_events = [e for e in complete if e.get("cat") == "run"]
if len(run_events) != runs:
    fail(f"{len(run_events)} run events, expected {runs}")
total = 0.0
for run in run_events:
    number = run["args"]["run"]
    mine = [e for e in complete if e.get("cat") == "step" and e["args"]["run"] == number]
    if len(mine) != steps:
        fail(f"run {number}: {len(mine)} step events, expected {steps}")
    if [e["args"]["step"] for e in mine] != list(range(steps)):
        fail(f"run {number}: steps out of order")
    end = run["ts"]
    for e in mine:
        if (e["pid"], e["tid"]) != (run["pid"], run["tid"]):
            fail(f"run {number}: step {e['args']['step']} on another thread")
        # Times are printed to 1 ns (3 decimals of a microsecond).
        if e["ts"] < end - 0.002 or e["ts"] + e["dur"] > run["ts"] + run["dur"] + 0.002:
            fail(f"run {number}: step {e['args']['step']} [{e['ts']}, +{e['dur']}] "
                 f"overlaps the previous step or leaves the run "
                 f"[{run['ts']}, +{run['dur']}]")
        end = e["ts"] + e["dur"]
    busy = sum(e["dur"] for e in mine)
    if not 0 < busy <= run["dur"] + 0.002 * steps:
        fail(f"run {number}: steps sum to {busy} us, the run took {run['dur']} us")
    total += busy
layers = sorted({e["args"]["layer"] for e in complete if e.get("cat") == "step"})
print(f"check_trace: {len(complete)} events: {runs} runs of {steps} steps; "
      f"layers {layers}")
