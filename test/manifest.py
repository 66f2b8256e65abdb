"""Expected-failure manifests, as every suite of the project keeps them.

A manifest lists, one per line, `GLOB reason` (a `#` line is a comment): a
case it lists is reported as skipped while it fails for exactly that reason;
one that passes, or fails for another reason, fails the suite, so a manifest
can neither go stale nor hide a regression. Numerics reasons
(`numerics: rel L2 3e-2 on output 'y'`) match whatever the error measures now.
"""
import fnmatch
import pathlib
import re
import xml.etree.ElementTree as ET


def load_exclusions(path):
    """`pattern reason` per line; lines starting with `#` are comments
    (reasons may contain `#`). Patterns are fnmatch globs."""
    exclusions = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, _, reason = line.partition(" ")
        exclusions.append((pattern, reason.strip()))
    return exclusions


def exclusion_reason(name, exclusions):
    for pattern, reason in exclusions:
        if fnmatch.fnmatchcase(name, pattern):
            return reason
    return None


def same_reason(recorded, now):
    """Numerics reasons match whatever the measured error now is."""
    if now is None:
        return False
    mask = (lambda r: re.sub(r"[\d.]+(e[-+]?\d+)?", "N", r)) \
        if recorded.startswith("numerics:") else (lambda r: r)
    return mask(recorded) == mask(now)


def report(suite_name, results, manifest, reason_of=lambda problem: problem):
    """Judges `results` ({case: (problem or None, details)}) against the
    manifest file `manifest` (`reason_of` turns a problem into its manifest
    reason); prints each failure. Returns (passed, failed, skipped, xUnit
    suite element)."""
    manifest = pathlib.Path(manifest)
    exclusions = load_exclusions(manifest) if manifest.exists() else []
    suite = ET.Element("testsuite", name=suite_name)
    passed = failed = skipped = 0
    for name in sorted(results):
        problem, details = results[name]
        reason = exclusion_reason(name, exclusions)
        now = reason_of(problem) if problem else None
        case = ET.SubElement(suite, "testcase", classname=suite_name, name=name)
        if reason is not None and now is not None and same_reason(reason, now):
            ET.SubElement(case, "skipped", message=reason)
            skipped += 1
            continue
        if reason is not None and now is None:
            message = f"listed in {manifest.name} but passes now"
        elif reason is not None:
            message = f"expected to fail because {reason}, but now: {now}"
        elif now is not None:
            message = now
        else:
            passed += 1
            continue
        ET.SubElement(case, "failure", message=message).text = details
        print(f"FAIL: {name}: {message}")
        failed += 1
    suite.set("tests", str(len(results)))
    suite.set("failures", str(failed))
    suite.set("skipped", str(skipped))
    return passed, failed, skipped, suite


def write(manifest, header, results, reason_of=lambda problem: problem):
    """Rewrites `manifest` from the failures in `results`, after the comment
    lines `header`; returns how many it lists."""
    lines = [f"# {line}" if line else "#" for line in header]
    entries = [f"{n} {reason_of(p)}" for n, (p, _) in sorted(results.items()) if p]
    pathlib.Path(manifest).write_text("\n".join(lines + entries) + "\n")
    return len(entries)
