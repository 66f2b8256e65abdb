"""CUDA artifacts of a model, checked: shared by the node-test and model
suites and the lit tests.

check(tsc, model, out_dir, extra) runs
    tsc MODEL --target=cuda:sm_80,cuda:sm_90 -o OUT_DIR/model.tscm [EXTRA...]
and decodes the artifact independently of the runtime (docs/artifact-format.md,
format 1.2). It requires:
  - a "cuda" plan whose kernel work is launch steps, and a CUDA section for
    sm_80 and sm_90;
  - per module and chip, SASS (an ELF, which tsc writes only when ptxas
    accepted the PTX) and PTX whose `.entry` is the module's kernel;
  - per launch, one argument per `.param` of its kernel's entry, each 64 bits
    wide (the runtime passes pointers and i64s), pointer arguments naming plan
    values and sizes naming expressions.
tsc runs ptxas itself (CUDA toolkit: $CUDA_HOME, /usr/local/cuda or PATH);
without one, callers report their cases as skipped.
"""
import os
import pathlib
import re
import shutil
import struct
import subprocess

CHIPS = ("sm_80", "sm_90")
DTYPE_F32 = 1  # tsc_dtype_t TSC_DTYPE_F32 (runtime/include/tsc/runtime.h)
DTYPES_1_4 = (11, 12, 13)  # u16, u32, u64: values of format 1.4
DTYPES_1_5 = (14, 15, 16, 17, 18)  # the 8-bit floats: values of format 1.5
DTYPES_1_7 = (19, 20, 21, 22, 23)  # u4, i4, f4e2m1, u2, i2 (packed): format 1.7
DTYPES = {2: "f16", 3: "bf16", 8: "s8 -> s32"}  # GEMMs other than f32, as --dump shows them
DTYPE_I8, DTYPE_I32, DTYPE_F8E4M3FN = 5, 8, 14
STORAGE_WEIGHT = 3


def find_ptxas():
    """ptxas where tsc looks for it, or None."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_ROOT"), "/usr/local/cuda"):
        if root and os.access(os.path.join(root, "bin", "ptxas"), os.X_OK):
            return os.path.join(root, "bin", "ptxas")
    return shutil.which("ptxas")


def first_error(stderr):
    lines = [l for l in stderr.splitlines() if "error" in l]
    return (lines or stderr.splitlines() or ["(no message)"])[0]


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def bytes(self, n):
        if self.pos + n > len(self.data):
            raise ValueError(f"truncated at byte {self.pos}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def str(self):
        return self.bytes(self.take("I")).decode()


def sections(data):
    """{id: bytes} of a .tscm file."""
    if data[:8] != b"\x89TSCM\r\n\x1a":
        raise ValueError("not a .tscm file")
    major, minor, count, table = struct.unpack_from("<HHIQ", data, 8)
    out = {"version": (major, minor)}
    for i in range(count):
        sid, _, offset, size = struct.unpack_from("<4sIQQ", data, table + 32 * i)
        out[sid.decode()] = data[offset:offset + size]
    return out


def decode_plan(data, minor=0):
    """The plan's target, value and expression counts, and its steps as
    (kind, fields) with launch steps decoded."""
    r = Reader(data)
    plan = {"target": r.str(), "isa": r.take("Q")}
    plan["symbols"] = [(r.str(), r.take("q"), r.take("q")) for _ in range(r.take("I"))]
    plan["exprs"] = [r.bytes(r.take("I")) for _ in range(r.take("I"))]
    values = []
    for _ in range(r.take("I")):
        dtype, storage, _, rank = r.take("BBHI")
        dims = [r.take("I") for _ in range(rank)]
        payload = {1: "I", 2: "I", 3: "QQ", 4: "Q", 5: "I"}[storage]
        values.append((dtype, storage, dims, r.take(payload)))
    plan["values"] = values
    plan["arena"] = r.take("Q")
    for ports in ("inputs", "outputs"):
        plan[ports] = [(r.str(), r.take("I")) for _ in range(r.take("I"))]
    steps = []

    def skip_expectations(count):
        # Format 1.9: what the step's code expects of each buffer.
        for _ in range(count if minor >= 9 else 0):
            r.take("BBH")
            for _ in range(r.take("I")):
                r.bytes(r.take("I"))

    for _ in range(r.take("I")):
        kind = r.take("B")
        if kind == 1:
            name = r.str()
            steps.append((kind, {"function": name,
                                 "buffers": [r.take("I") for _ in range(r.take("I"))]}))
            skip_expectations(len(steps[-1][1]["buffers"]))
        elif kind in (2, 4):
            fields = r.take("IIIIBBH" + "I" * 10 + "ff")
            residual = r.take("I") if kind == 4 else 0xFFFFFFFF
            skip_expectations(3 + (fields[3] != 0xFFFFFFFF) + (residual != 0xFFFFFFFF))
            steps.append((kind, {"fields": fields}))
        elif kind == 3:
            steps.append((kind, {"copy": r.take("II")}))
        elif kind == 5:
            module = r.take("I")
            sizes = [r.take("I") for _ in range(6)]
            args = [r.take("BI") for _ in range(r.take("I"))]
            steps.append((kind, {"module": module, "sizes": sizes, "args": args,
                                 "source": r.str()}))
            # Format 1.11: what the kernel expects of each pointer argument.
            if minor >= 11:
                skip_expectations(sum(1 for a in args if a[0] == 1))
        else:
            raise ValueError(f"unknown step kind {kind}")
    # Format 1.6: symbols defined from the inputs' data, when there are any.
    plan["definitions"] = []
    if r.pos != len(data):
        # Format 1.8: each definition ends with the step it follows.
        plan["definitions"] = [(r.take("I"), r.bytes(r.take("I")),
                                r.take("I") if minor >= 8 else 0xFFFFFFFF)
                               for _ in range(r.take("I"))]
    if r.pos != len(data):
        raise ValueError(f"{len(data) - r.pos} bytes after the last step")
    plan["steps"] = steps
    return plan


def decode_cuda(data):
    """(chips [(capability, min driver)], modules [(name, kernel, [(sass, ptx)])])."""
    r = Reader(data)
    chips = [r.take("II") for _ in range(r.take("I"))]
    modules = []
    for _ in range(r.take("I")):
        name, kernel = r.str(), r.str()
        codes = [(r.bytes(r.take("Q")), r.bytes(r.take("Q"))) for _ in chips]
        modules.append((name, kernel, codes))
    if r.pos != len(data):
        raise ValueError(f"{len(data) - r.pos} bytes after the last module")
    return chips, modules


def entry_params(ptx, kernel):
    """The `.param` declarations of `.entry kernel(...)` in the PTX, or None."""
    match = re.search(rf"\.entry\s+{re.escape(kernel)}\s*\((.*?)\)", ptx, re.S)
    if not match:
        return None
    return re.findall(r"\.param\s+\.(\w+)", match.group(1))


def inspect(path, chips_wanted=CHIPS):
    """(summary, problem) for the CUDA artifact at `path`, compiled for
    `chips_wanted`."""
    try:
        parts = sections(pathlib.Path(path).read_bytes())
        if "CUDA" not in parts or "PLAN" not in parts:
            return None, "no CUDA or PLAN section"
        plan = decode_plan(parts["PLAN"], parts["version"][1])
        chips, modules = decode_cuda(parts["CUDA"])
    except (ValueError, KeyError, struct.error, UnicodeDecodeError) as e:
        return None, f"undecodable artifact: {e}"
    # 1.2 has the CUDA section; GEMMs on fp16/bf16 operands are 1.3's,
    # u16/u32/u64 values 1.4's, 8-bit float values 1.5's, symbols defined
    # from data 1.6's, packed sub-byte values 1.7's, GEMM activations (flags
    # bits 8-15) 1.8's, GEMMs (their buffer expectations) 1.9's, launches
    # (their pointer arguments' expectations) 1.11's.
    launches = any(kind == 5 for kind, _ in plan["steps"])
    gemms = any(kind in (2, 4) for kind, _ in plan["steps"])
    half_gemm = any(plan["values"][fields["fields"][2]][0] != DTYPE_F32
                    for kind, fields in plan["steps"] if kind in (2, 4))
    activations = [fields["fields"][6] >> 8 for kind, fields in plan["steps"] if kind in (2, 4)]
    # cuBLASLt's GELU epilogue is the tanh approximation (2): an exact GELU
    # (1) must stay a kernel of its own on CUDA.
    if any(a not in (0, 2) for a in activations):
        return None, f"GEMM activations {sorted(set(activations))} in a CUDA plan (only 2, tanh GELU)"
    wide_unsigned = any(value[0] in DTYPES_1_4 for value in plan["values"])
    float8 = any(value[0] in DTYPES_1_5 for value in plan["values"])
    packed = any(value[0] in DTYPES_1_7 for value in plan["values"])
    late = any(d[2] != 0xFFFFFFFF for d in plan["definitions"])
    expected = ((1, 11) if launches else (1, 9) if gemms else (1, 8) if late or any(activations) else (1, 7) if packed
                else (1, 6) if plan["definitions"] else (1, 5) if float8
                else (1, 4) if wide_unsigned
                else (1, 3) if half_gemm else (1, 2))
    # Since 1.13 every artifact has the STEP section (a layer and source
    # nodes per step, each launch counted), which makes it 1.13.
    if "STEP" not in parts:
        return None, "no STEP section (format 1.13)"
    step_count = struct.unpack_from("<I", parts["STEP"], 0)[0]
    if step_count != len(plan["steps"]):
        return None, f"STEP has {step_count} steps, the plan {len(plan['steps'])}"
    expected = max(expected, (1, 13))
    # 2:4 sparse GEMMs (flags bit 1, compressed weights) are 1.14's.
    if any(fields["fields"][6] & 2 for kind, fields in plan["steps"] if kind in (2, 4)):
        expected = (1, 14)
    # s8 · s8 -> s32 GEMMs (cuBLASLt's int8 GEMM) are 1.19's, f8 · f8 -> f32
    # ones (its fp8 GEMM) 1.20's: A s8 (f8e4m3fn), B a weight of A's dtype
    # taken transposed (N × K, "TN"), C s32 (f32), nothing else in them.
    counts = {}
    for label, a_dtype, c_dtype, minor in (("int8", DTYPE_I8, DTYPE_I32, 19),
                                           ("fp8", DTYPE_F8E4M3FN, DTYPE_F32, 20)):
        found = [fields["fields"] for kind, fields in plan["steps"]
                 if kind in (2, 4) and plan["values"][fields["fields"][0]][0] == a_dtype]
        for a, b, c, bias, trans_a, trans_b, flags, *rest in found:
            alpha, beta = rest[-2:]
            value = plan["values"]
            if (value[b][0], value[b][1], value[c][0]) != (a_dtype, STORAGE_WEIGHT, c_dtype):
                return None, (f"{label} GEMM of value {a} by value {b}: B must be a weight "
                              "of A's dtype, C " + ("s32" if c_dtype == DTYPE_I32 else "f32"))
            if (bias, trans_a, trans_b, flags, alpha, beta) != (0xFFFFFFFF, 0, 1, 0, 1.0, 0.0):
                return None, (f"{label} GEMM of value {a}: bias {bias}, transA {trans_a}, "
                              f"transB {trans_b}, flags {flags}, alpha {alpha}, beta {beta} "
                              f"(cuBLASLt's {label} GEMM wants A · Bᵀ alone)")
        if found:
            expected = (1, minor)
        counts[label] = len(found)
    if parts["version"] != expected:
        return None, f"format version {parts['version']}, expected {expected}"
    if plan["target"] != "cuda":
        return None, f"plan target '{plan['target']}'"
    wanted = [int(c[3:]) for c in chips_wanted]
    if [c for c, _ in chips] != wanted:
        return None, f"chips {chips}, expected {wanted}"
    params = []
    for name, kernel, codes in modules:
        per_chip = []
        for (cc, _), (sass, ptx) in zip(chips, codes):
            if sass[:4] != b"\x7fELF":
                return None, f"module {name} has no SASS for sm_{cc} (ptxas did not run)"
            found = entry_params(ptx.decode(errors="replace"), kernel)
            if found is None:
                return None, f"module {name}'s PTX for sm_{cc} has no entry {kernel}"
            per_chip.append(found)
        if any(p != per_chip[0] for p in per_chip):
            return None, f"module {name}: kernel parameters differ between chips"
        params.append(per_chip[0])
    launches = [fields for kind, fields in plan["steps"] if kind == 5]
    if any(kind == 1 for kind, _ in plan["steps"]):
        return None, "a host kernel step in a CUDA plan"
    used = set()
    for launch in launches:
        m = launch["module"]
        if m >= len(modules):
            return None, f"launch of module {m}, there are {len(modules)}"
        used.add(m)
        kernel = modules[m][1]
        if len(launch["args"]) != len(params[m]):
            return None, (f"{kernel}: {len(launch['args'])} launch arguments for "
                          f"{len(params[m])} kernel parameters")
        wide = [p for p in params[m] if p not in ("u64", "b64", "s64")]
        if wide:
            return None, f"{kernel}: parameters of type {wide}, the runtime passes 64 bits"
        for kind, index in launch["args"]:
            limit = len(plan["values"]) if kind == 1 else len(plan["exprs"])
            if kind not in (1, 2) or index >= limit:
                return None, f"{kernel}: argument ({kind}, {index}) out of range"
        if any(e >= len(plan["exprs"]) for e in launch["sizes"]):
            return None, f"{kernel}: a launch size names no expression"
    if used != set(range(len(modules))):
        return None, f"{len(modules) - len(used)} modules no launch uses"
    summary = f"{len(modules)} modules, {len(launches)} launches"
    return summary + "".join(f", {n} {label} GEMMs" for label, n in counts.items() if n), None


def check(tsc, model, out_dir, extra=(), chips=CHIPS):
    """(summary, problem): summary like '22 modules, 22 launches' when tsc wrote
    a CUDA artifact that inspect() accepts and the runtime loads (tsc-run
    beside tsc, `--info`: the loader's checks of the plan, among them what
    each launch expects of its buffers, which need no GPU), else problem says
    why."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    artifact = out_dir / "model.tscm"
    targets = ",".join(f"cuda:{chip}" for chip in chips)
    cmd = [str(tsc), str(model), f"--target={targets}", "-o", str(artifact), *extra]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired as e:
        return None, f"tsc timed out after {e.timeout} s"
    if proc.returncode:
        return None, f"tsc --target=cuda: {first_error(proc.stderr)}"
    summary, problem = inspect(artifact, chips)
    if problem:
        return summary, problem
    tsc_run = pathlib.Path(tsc).with_name("tsc-run")
    proc = subprocess.run([str(tsc_run), str(artifact), "--info"], capture_output=True,
                          text=True, timeout=600)
    if proc.returncode:
        return None, f"the runtime refuses it: {first_error(proc.stderr)}"
    return summary, None


def show_expr(code, symbols):
    """Postfix expression code as infix text with symbol names."""
    stack, r = [], Reader(code)
    ops = {0x10: "+", 0x11: "*", 0x12: "floordiv", 0x13: "ceildiv", 0x14: "mod"}
    while r.pos < len(code):
        op = r.take("B")
        if op == 0x01:
            stack.append(str(r.take("q")))
        elif op == 0x02:
            stack.append(symbols[r.take("I")][0])
        else:
            b, a = stack.pop(), stack.pop()
            stack.append(f"({a} {ops[op]} {b})")
    return stack[0]


def dump(path, steps_only=False):
    """One line per launch: kernel, grid, block and arguments (with
    `steps_only`, the kernel and the nodes it computes)."""
    parts = sections(pathlib.Path(path).read_bytes())
    plan = decode_plan(parts["PLAN"], parts["version"][1])
    _, modules = decode_cuda(parts["CUDA"])
    show = lambda e: show_expr(plan["exprs"][e], plan["symbols"])
    names = {v: n for n, v in plan["inputs"] + plan["outputs"]}
    for kind, launch in plan["steps"]:
        if kind != 5:
            gemm = kind in (2, 4)
            tf32 = gemm and launch["fields"][6] & 1
            dtype = gemm and (
                "f8 -> f32"
                if plan["values"][launch["fields"][0]][0] == DTYPE_F8E4M3FN
                else DTYPES.get(plan["values"][launch["fields"][2]][0]))
            print({2: "gemm", 4: "gemm", 3: "copy"}[kind] + (f" {dtype}" if dtype else "")
                  + (" (tf32)" if tf32 else "")
                  + (" (2:4)" if gemm and launch["fields"][6] & 2 else ""))
            continue
        if steps_only:
            print(f"{modules[launch['module']][1]} from {launch['source']}")
            continue
        args = [names.get(i, f"v{i}") if k == 1 else show(i) for k, i in launch["args"]]
        print(f"{modules[launch['module']][1]}: grid ({', '.join(map(show, launch['sizes'][:3]))})"
              f" block ({', '.join(map(show, launch['sizes'][3:]))})"
              f" args [{', '.join(args)}] from {launch['source']}")


if __name__ == "__main__":
    import sys
    if sys.argv[1] == "--dump":
        dump(sys.argv[2])
        sys.exit(0)
    summary, problem = inspect(sys.argv[1])
    print(summary if summary else f"error: {problem}")
    sys.exit(1 if problem else 0)
