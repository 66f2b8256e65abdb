#!/usr/bin/env python3
"""Writes small .tscm fixtures for the runtime tests (docs/artifact-format.md).

    make_artifact.py OUTDIR [--host-object FILE.so]
        writes the valid artifacts copy.tscm and gemm.tscm, inputs and expected
        outputs as .npy, and corrupt variants of them (see FIXTURES below);
        with --host-object, also kernel.tscm (one kernel step "scale_by_two"
        from that shared object) and its corrupt variants.
    make_artifact.py compare ACTUAL.npy EXPECTED.npy [--tolerance T]
        prints MATCH when both hold the same dtype and shape and values within
        T (relative L2 for floats, exact otherwise), else MISMATCH and why.

Standard library only: the fixtures are built byte by byte, independently of
the compiler's writer.
"""

import argparse
import ast
import math
import os
import random
import struct
import sys

MAGIC = b"\x89TSCM\r\n\x1a"

# dtype codes and their .npy descriptors / struct formats.
F32, F16, BF16, I32, I64 = 1, 2, 3, 8, 9
NPY = {F32: ("<f4", "f"), I32: ("<i4", "i"), I64: ("<i8", "q")}
INPUT, OUTPUT, WEIGHT, ARENA, VIEW = 1, 2, 3, 4, 5
NONE = 0xFFFFFFFF


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


# --- Expressions (postfix code) ------------------------------------------------
def const(v):
    return b"\x01" + struct.pack("<q", v)


def sym(j):
    return b"\x02" + struct.pack("<I", j)


def mul(a, b):
    return a + b + b"\x11"


def expect(dtype, dims, written=False, access=None):
    """Format 1.9: what a step's code expects of one buffer (dims as
    expression code); `access` overrides the access byte."""
    access = (1 if written else 0) if access is None else access
    return (struct.pack("<BBHI", dtype, access, 0, len(dims))
            + b"".join(struct.pack("<I", len(d)) + d for d in dims))


def string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


class Plan:
    """Builds a PLAN section; every table is appended to in order."""

    def __init__(self, isa=0, target="cpu"):
        self.target, self.isa = target, isa
        self.symbols, self.exprs, self.values = [], [], []
        self.inputs, self.outputs, self.steps = [], [], []
        self.arena_size = 0

    def symbol(self, name, lo, hi):
        self.symbols.append(string(name) + struct.pack("<qq", lo, hi))
        return len(self.symbols) - 1

    def expr(self, code):
        if code not in self.exprs:
            self.exprs.append(code)
        return self.exprs.index(code)

    def value(self, dtype, storage, dims, payload):
        ids = [self.expr(d) for d in dims]
        self.values.append(struct.pack("<BBHI", dtype, storage, 0, len(ids))
                           + b"".join(struct.pack("<I", i) for i in ids) + payload)
        return len(self.values) - 1

    def input(self, name, dtype, dims):
        v = self.value(dtype, INPUT, dims, struct.pack("<I", len(self.inputs)))
        self.inputs.append((name, v))
        return v

    def output(self, name, dtype, dims):
        v = self.value(dtype, OUTPUT, dims, struct.pack("<I", len(self.outputs)))
        self.outputs.append((name, v))
        return v

    def weight(self, dtype, dims, offset, size):
        return self.value(dtype, WEIGHT, dims, struct.pack("<QQ", offset, size))

    def arena(self, dtype, dims, offset):
        return self.value(dtype, ARENA, dims, struct.pack("<Q", offset))

    def view(self, dtype, dims, base):
        return self.value(dtype, VIEW, dims, struct.pack("<I", base))

    def copy(self, src, dst):
        self.steps.append(struct.pack("<BII", 3, src, dst))

    def kernel(self, name, buffers, expected=()):
        """`expected` (format 1.9): an expect() per buffer."""
        self.steps.append(struct.pack("<B", 1) + string(name) + struct.pack("<I", len(buffers))
                          + b"".join(struct.pack("<I", b) for b in buffers) + b"".join(expected))

    def gemm(self, a, b, c, bias, m, n, k, lda, ldb, ldc, batch=const(1), strides=None,
             alpha=1.0, beta=0.0, trans_a=0, trans_b=0, flags=0, expected=()):
        """`expected` (format 1.9): an expect() for A, B, C and the bias."""
        strides = strides or [const(0)] * 3
        exprs = [self.expr(e) for e in [batch, m, n, k, lda, ldb, ldc] + strides]
        self.steps.append(struct.pack("<BIIIIBBH", 2, a, b, c, bias, trans_a, trans_b, flags)
                          + b"".join(struct.pack("<I", e) for e in exprs)
                          + struct.pack("<ff", alpha, beta) + b"".join(expected))

    def launch(self, module, grid, block, args, source, expected=()):
        """Format 1.2's step kind 5: args are ("ptr", value) or ("i64", expr code);
        `expected` (format 1.11): an expect() per "ptr" argument."""
        sizes = [self.expr(e) for e in grid + block]
        out = struct.pack("<BI", 5, module) + b"".join(struct.pack("<I", e) for e in sizes)
        out += struct.pack("<I", len(args))
        for kind, x in args:
            out += struct.pack("<BI", 1, x) if kind == "ptr" else struct.pack("<BI", 2, self.expr(x))
        self.steps.append(out + string(source) + b"".join(expected))

    def gemm_residual(self, residual, *args, expected=(), **kwargs):
        """Format 1.1's step kind 4: a gemm step, then the residual value
        (and the expectations, 1.9: A, B, C, the bias, the residual)."""
        self.gemm(*args, **kwargs)
        self.steps[-1] = (bytes([4]) + self.steps[-1][1:] + struct.pack("<I", residual)
                          + b"".join(expected))

    def encode(self):
        out = string(self.target) + struct.pack("<Q", self.isa)
        out += struct.pack("<I", len(self.symbols)) + b"".join(self.symbols)
        out += struct.pack("<I", len(self.exprs))
        out += b"".join(struct.pack("<I", len(e)) + e for e in self.exprs)
        out += struct.pack("<I", len(self.values)) + b"".join(self.values)
        out += struct.pack("<Q", self.arena_size)
        for ports in (self.inputs, self.outputs):
            out += struct.pack("<I", len(ports))
            out += b"".join(string(n) + struct.pack("<I", v) for n, v in ports)
        out += struct.pack("<I", len(self.steps)) + b"".join(self.steps)
        return out


def cuda_section(chips, modules):
    """The CUDA section: chips [(capability, min driver)], modules
    [(name, kernel, [(sass, ptx) per chip])]."""
    out = struct.pack("<I", len(chips)) + b"".join(struct.pack("<II", *c) for c in chips)
    out += struct.pack("<I", len(modules))
    for name, kernel, codes in modules:
        out += string(name) + string(kernel)
        for sass, ptx in codes:
            out += struct.pack("<Q", len(sass)) + sass + struct.pack("<Q", len(ptx)) + ptx
    return out


def fake_code(kernel, chip):
    """Stand-ins for SASS (an ELF magic and an empty ELF header, then the
    entry's name) and PTX (text)
    that test/runtime/Inputs/fake_cuda.c recognizes."""
    entry = f".entry {kernel}(".encode()
    sass = (b"\x7fELF" + b"\0" * 60 + b"fake SASS for " + chip.encode() + b" " + entry).ljust(256, b"\0")
    ptx = f".version 8.0\n.target {chip}\n.address_size 64\n.visible {entry.decode()}\n".encode()
    return sass, ptx


def cuda_scale_artifact(module=0, expected=None):
    """y[n] = 2 * x[n], n in [1, 64], as one CUDA launch of 32-thread blocks;
    `expected` (format 1.11): [(dtype, written) of x, of y], their dims [n]."""
    p = Plan(target="cuda")
    n = sym(p.symbol("n", 1, 64))
    x = p.input("x", F32, [n])
    y = p.output("y", F32, [n])
    p.launch(module, [n + const(32) + b"\x13", const(1), const(1)],
             [const(32), const(1), const(1)], [("ptr", x), ("ptr", y), ("i64", n)],
             "tsc_kernel_0_scale (/Mul)",
             [expect(dtype, [n], written) for dtype, written in expected or ()])
    return p


def cuda_scale_section():
    return cuda_section([(80, 11080), (90, 12000)],
                        [("tsc_kernel_0_scale_kernel", "scale_by_two",
                          [fake_code("scale_by_two", "sm_80"), fake_code("scale_by_two", "sm_90")])])


def as_cuda(plan, weights, minor=2):
    """The same plan for target "cuda" (GEMM and copy steps need no device
    code of their own)."""
    target, plan.target = plan.target, "cuda"
    data = container([(b"PLAN", plan.encode()), (b"WGHT", weights),
                      (b"CUDA", cuda_section([(90, 12000)], []))], minor=minor)
    plan.target = target
    return data


def align(n):
    return (n + 63) // 64 * 64


def container(sections, major=1, minor=0, producer="tsc 0.1.0"):
    """The whole file around `sections`, a list of (id, bytes)."""
    table_offset = 64
    offset = align(table_offset + 32 * len(sections))
    table, body = b"", b""
    for sid, data in sections:
        table += sid + struct.pack("<IQQII", 0, offset, len(data), crc32c(data), 0)
        pad = align(len(data)) - len(data)
        body += data + b"\0" * pad
        offset += len(data) + pad
    file_size = align(table_offset + len(table)) + len(body)
    header = MAGIC + struct.pack("<HHIQQ", major, minor, len(sections), table_offset, file_size)
    header += producer.encode().ljust(24, b"\0") + struct.pack("<I", crc32c(table))
    header += struct.pack("<I", crc32c(header))
    return header + table + b"\0" * (align(64 + len(table)) - 64 - len(table)) + body


def section_offset(artifact, sid):
    count = struct.unpack_from("<I", artifact, 12)[0]
    for i in range(count):
        entry = 64 + 32 * i
        if artifact[entry:entry + 4] == sid:
            return struct.unpack_from("<Q", artifact, entry + 8)[0]
    raise KeyError(sid)


def refresh_header_crc(artifact):
    return artifact[:60] + struct.pack("<I", crc32c(artifact[:60])) + artifact[64:]


def flip(artifact, offset):
    return artifact[:offset] + bytes([artifact[offset] ^ 0x01]) + artifact[offset + 1:]


# --- .npy -----------------------------------------------------------------------
def write_npy(path, dtype, shape, values, fortran=False, descr=None):
    descr_default, fmt = NPY[dtype]
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr or descr_default, fortran, shape_text)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("%s: not a .npy file" % path)
    if data[6] == 1:
        n, start = struct.unpack_from("<H", data, 8)[0], 10
    else:
        n, start = struct.unpack_from("<I", data, 8)[0], 12
    header = ast.literal_eval(data[start:start + n].decode("latin1"))
    fmt = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|i1": "b", "|u1": "B",
           "<i2": "h", "|b1": "?", "<f2": "e"}[header["descr"]]
    count = math.prod(header["shape"])
    values = struct.unpack_from("<%d%s" % (count, fmt), data, start + n)
    return header["descr"], tuple(header["shape"]), values


def compare(args):
    da, sa, va = read_npy(args.actual)
    de, se, ve = read_npy(args.expected)
    if (da, sa) != (de, se):
        print("MISMATCH: %s %s vs expected %s %s" % (da, sa, de, se))
        return 1
    if da[1] == "f":
        num = math.sqrt(sum((a - e) ** 2 for a, e in zip(va, ve)))
        den = math.sqrt(sum(e * e for e in ve)) or 1.0
        if not num / den <= args.tolerance:
            print("MISMATCH: relative L2 error %g" % (num / den))
            return 1
    elif va != ve:
        print("MISMATCH: values differ")
        return 1
    print("MATCH %s %s" % (da, list(sa)))
    return 0


# --- Fixtures -------------------------------------------------------------------
def copy_artifact():
    """y[batch, 4] = x[batch, 4], batch in [1, 8]."""
    p = Plan()
    batch = sym(p.symbol("batch", 1, 8))
    x = p.input("x", F32, [batch, const(4)])
    y = p.output("y", F32, [batch, const(4)])
    p.copy(x, y)
    return p


def gemm_artifact(rng, c_dims=None):
    """y = x @ w + b through an arena value and a view; ids_out = ids.

    x: f32[batch, 3], ids: i64[batch, seq], batch in [1, 4], seq in [1, 16].
    With `c_dims`, the GEMM says (format 1.9) what it expects of its operands,
    C's dims being `c_dims` (its own are [batch, 4]).
    Returns the plan, the WGHT bytes, w and b.
    """
    p = Plan()
    batch = sym(p.symbol("batch", 1, 4))
    seq = sym(p.symbol("seq", 1, 16))
    x = p.input("x", F32, [batch, const(3)])
    ids = p.input("ids", I64, [batch, seq])
    y = p.output("y", F32, [batch, const(4)])
    ids_out = p.output("ids_out", I64, [batch, seq])
    w_vals = [round(rng.uniform(-1, 1), 3) for _ in range(12)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    # w 64 bytes into WGHT: an operand only 64-byte aligned (cuBLASLt must be
    # told; test/runtime/Inputs/fake_cuda.c checks).
    weights = struct.pack("<4f", *b_vals).ljust(64, b"\0") + struct.pack("<12f", *w_vals)
    w = p.weight(F32, [const(3), const(4)], 64, 48)
    b = p.weight(F32, [const(4)], 0, 16)
    t = p.arena(F32, [batch, const(4)], 0)
    flat = p.view(F32, [mul(batch, const(4))], t)
    p.arena_size = 4 * 4 * 4
    expected = [] if c_dims is None else [
        expect(F32, [batch, const(3)]), expect(F32, [const(3), const(4)]),
        expect(F32, c_dims, written=True), expect(F32, [const(4)])]
    p.gemm(x, w, t, b, m=batch, n=const(4), k=const(3), lda=const(3), ldb=const(4),
           ldc=const(4), expected=expected)
    p.copy(flat, y)
    p.copy(ids, ids_out)
    return p, weights, w_vals, b_vals


I4 = 20
I8 = 5
F8E4M3FN = 14


def decode_e4m3(code):
    """An f8E4M3FN code's value (no NaN codes are drawn here)."""
    exponent, mantissa = (code >> 3) & 15, code & 7
    magnitude = (2.0 ** (exponent - 7) * (1 + mantissa / 8) if exponent
                 else 2.0 ** -6 * mantissa / 8)
    return -magnitude if code & 0x80 else magnitude


def fp8_gemm_artifact(rng):
    """A "cuda" plan's fp8 GEMM (format 1.20): c (f32) = a (f8E4M3FN) · bᵀ,
    b an f8E4M3FN weight [16, 16] (N × K, "TN"), a [batch, 16], batch in
    [1, 4]. Returns the plan, the WGHT bytes and b's codes."""
    p = Plan(target="cuda")
    batch = sym(p.symbol("batch", 1, 4))
    a = p.input("a", F8E4M3FN, [batch, const(16)])
    c = p.output("c", F32, [batch, const(16)])
    codes = [code for code in range(256) if code & 0x7F != 0x7F]
    b_codes = [rng.choice(codes) for _ in range(16 * 16)]
    weights = bytes(b_codes)
    b = p.weight(F8E4M3FN, [const(16), const(16)], 0, 256)
    p.gemm(a, b, c, NONE, m=batch, n=const(16), k=const(16), lda=const(16), ldb=const(16),
           ldc=const(16), trans_b=1,
           expected=[expect(F8E4M3FN, [batch, const(16)]),
                     expect(F8E4M3FN, [const(16), const(16)]),
                     expect(F32, [batch, const(16)], written=True)])
    return p, weights, b_codes


def int8_gemm_artifact(rng):
    """A "cuda" plan's int8 GEMM (format 1.19): c (s32) = a (s8) · bᵀ, b an s8
    weight [4, 8] (N × K, cuBLASLt's "TN"), a s8[batch, 8], batch in [1, 4].
    Returns the plan, the WGHT bytes and b's values."""
    p = Plan(target="cuda")
    batch = sym(p.symbol("batch", 1, 4))
    a = p.input("a", I8, [batch, const(8)])
    c = p.output("c", I32, [batch, const(4)])
    b_vals = [rng.randrange(-128, 128) for _ in range(4 * 8)]
    weights = struct.pack("<32b", *b_vals)
    b = p.weight(I8, [const(4), const(8)], 0, 32)
    p.gemm(a, b, c, NONE, m=batch, n=const(4), k=const(8), lda=const(8), ldb=const(8),
           ldc=const(4), trans_b=1,
           expected=[expect(I8, [batch, const(8)]), expect(I8, [const(4), const(8)]),
                     expect(I32, [batch, const(4)], written=True)])
    return p, weights, b_vals
KGEMM_INPUT_ZERO_POINT = 8  # GEMM flags bit 3 (format 1.17)
KGEMM_WEIGHT_ZERO_POINT = 16  # GEMM flags bit 4 (format 1.18)


def pack_i4(codes):
    """i4 codes packed two a byte, the first in the low bits."""
    return bytes((codes[i] & 0xF) | ((codes[i + 1] & 0xF) << 4) if i + 1 < len(codes)
                 else codes[i] & 0xF for i in range(0, len(codes), 2))


def weight_only_artifact(rng, group=0, b_dtype=I4, scale_count=None, zero_points=False,
                         zp_dtype=I4, zp_count=None):
    """y = x @ dequant(Wq) + b by a weight-only GEMM (format 1.15, step kind
    8): Wq i4 [3, 4] (packed, two a byte, the first in the low bits) with f32
    scales per output channel (`group` 0) or per `group` rows along K, and
    with `zero_points` i4 zero points laid out as the scales (1.18, flags
    bit 4): w = (code - zero point)·scale; x f32[batch, 3], batch in [1, 4].
    `b_dtype`, `scale_count`, `zp_dtype` and `zp_count` corrupt it.
    Returns the plan, the WGHT bytes and the dequantized w (row-major)."""
    p = Plan()
    batch = sym(p.symbol("batch", 1, 4))
    x = p.input("x", F32, [batch, const(3)])
    y = p.output("y", F32, [batch, const(4)])
    codes = [rng.randrange(-7, 8) for _ in range(12)]
    groups = -(-3 // group) if group else 1
    scales = [round(rng.uniform(0.01, 0.2), 4) for _ in range(groups * 4)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    packed = pack_i4(codes)
    weights = (struct.pack("<4f", *b_vals).ljust(64, b"\0") + packed.ljust(64, b"\0")
               + struct.pack(f"<{len(scales)}f", *scales).ljust(64, b"\0"))
    zps = [rng.randrange(-8, 8) for _ in range(len(scales))] if zero_points else None
    if zps:
        weights += pack_i4(zps) if zp_dtype == I4 else bytes(z & 0xFF for z in zps)
    b = p.weight(F32, [const(4)], 0, 16)
    w = p.weight(b_dtype, [const(3), const(4)], 64, 6 if b_dtype == I4 else 48)
    count = scale_count or len(scales)
    s = p.weight(F32, [const(count // 4), const(4)] if group else [const(count)], 128,
                 4 * count)
    if zps:
        zc = zp_count or len(zps)
        z = p.weight(zp_dtype, [const(zc // 4), const(4)] if group else [const(zc)], 192,
                     (zc + 1) // 2 if zp_dtype == I4 else zc)
    p.gemm(x, w, y, b, m=batch, n=const(4), k=const(3), lda=const(3), ldb=const(4),
           ldc=const(4), flags=KGEMM_WEIGHT_ZERO_POINT if zps else 0)
    expected = [expect(F32, [batch, const(3)]), expect(b_dtype, [const(3), const(4)]),
                expect(F32, [batch, const(4)], written=True), expect(F32, [const(4)]),
                expect(F32, [const(count // 4), const(4)] if group else [const(count)])]
    tail = struct.pack("<III", NONE, s, group)
    if zps:
        tail += struct.pack("<I", z)
        expected.append(expect(zp_dtype, [const(zc // 4), const(4)] if group else [const(zc)]))
    p.steps[-1] = bytes([8]) + p.steps[-1][1:] + tail + b"".join(expected)
    at = lambda kk, j: (kk // group) * 4 + j if group else j
    w_vals = [(codes[kk * 4 + j] - (zps[at(kk, j)] if zps else 0)) * scales[at(kk, j)]
              for kk in range(3) for j in range(4)]
    return p, weights, w_vals, b_vals


def int8_static_artifact(rng, zero_point, kind=7):
    """y = dequant(q) @ dequant(Wq) + b by a static int8 GEMM (format 1.12,
    step kind 7) whose activation has a zero point (1.17, flags bit 3):
    q = clamp(round_half_even(x / s) + zero_point, -128, 127), the product
    of (q - zero_point) by Wq s8 [8, 4] with f32 scales per output channel;
    x f32[batch, 8], batch in [1, 4]. `kind` 6 (dynamic) corrupts it.
    Returns the plan, the WGHT bytes, the dequantized w (row-major), b and
    A's scale."""
    p = Plan()
    batch = sym(p.symbol("batch", 1, 4))
    x = p.input("x", F32, [batch, const(8)])
    y = p.output("y", F32, [batch, const(4)])
    codes = [rng.randrange(-127, 128) for _ in range(32)]
    scales = [round(rng.uniform(0.001, 0.01), 5) for _ in range(4)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    weights = (struct.pack("<4f", *b_vals).ljust(64, b"\0")
               + struct.pack("<32b", *codes).ljust(64, b"\0") + struct.pack("<4f", *scales))
    b = p.weight(F32, [const(4)], 0, 16)
    w = p.weight(I8, [const(8), const(4)], 64, 32)
    s = p.weight(F32, [const(4)], 128, 16)
    p.gemm(x, w, y, b, m=batch, n=const(4), k=const(8), lda=const(8), ldb=const(4),
           ldc=const(4), flags=KGEMM_INPUT_ZERO_POINT)
    expected = [expect(F32, [batch, const(8)]), expect(I8, [const(8), const(4)]),
                expect(F32, [batch, const(4)], written=True), expect(F32, [const(4)]),
                expect(F32, [const(4)])]
    a_scale = 0.015625  # 2^-6: x / s is exact, so the rounding is the test's
    tail = struct.pack("<II", NONE, s) + (struct.pack("<fi", a_scale, zero_point)
                                          if kind == 7 else b"")
    p.steps[-1] = bytes([kind]) + p.steps[-1][1:] + tail + b"".join(expected)
    w_vals = [codes[kk * 4 + j] * scales[j] for kk in range(8) for j in range(4)]
    return p, weights, w_vals, b_vals, a_scale


def round_half(v, dtype):
    """v rounded to f16 or bf16 (nearest, ties to even), as a Python float."""
    if dtype == F16:
        return struct.unpack("<e", struct.pack("<e", v))[0]
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def pack_half(values, dtype):
    """Little-endian f16 or bf16 bytes of values (already representable)."""
    if dtype == F16:
        return struct.pack(f"<{len(values)}e", *values)
    return b"".join(struct.pack("<f", v)[2:] for v in values)


def gemm_residual_artifact(rng, dtype=F32):
    """Step kind 4 (format 1.1), both ways the runtime runs it.

    y = x @ w + b + r: the residual is an input, copied into the output first;
    z = x @ w + (x @ w + b): the second GEMM accumulates onto its own C (the
    residual is C), in place. x, r: [2, 3] and [2, 4] of `dtype` (f32; f16
    and bf16 are format 1.3's, their values rounded to it).
    Returns the plan, the WGHT bytes, w and b.
    """
    p = Plan()
    x = p.input("x", dtype, [const(2), const(3)])
    r = p.input("r", dtype, [const(2), const(4)])
    y = p.output("y", dtype, [const(2), const(4)])
    z = p.output("z", dtype, [const(2), const(4)])
    w_vals = [round(rng.uniform(-1, 1), 3) for _ in range(12)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    if dtype == F32:
        pack, size = lambda v: struct.pack(f"<{len(v)}f", *v), 4
    else:
        w_vals = [round_half(v, dtype) for v in w_vals]
        b_vals = [round_half(v, dtype) for v in b_vals]
        pack, size = lambda v: pack_half(v, dtype), 2
    weights = pack(w_vals).ljust(64, b"\0") + pack(b_vals)
    w = p.weight(dtype, [const(3), const(4)], 0, 12 * size)
    b = p.weight(dtype, [const(4)], 64, 4 * size)
    shape = dict(m=const(2), n=const(4), k=const(3), lda=const(3), ldb=const(4), ldc=const(4))
    p.gemm_residual(r, x, w, y, b, beta=1.0, **shape)
    p.gemm(x, w, z, b, **shape)
    p.gemm_residual(z, x, w, z, NONE, beta=1.0, **shape)
    return p, weights, w_vals, b_vals


GELU, GELU_TANH = 1, 2  # GEMM activations, flags bits 8-15 (format 1.8)


def gelu(v, activation):
    """The GEMM activation `activation` of v, in double precision."""
    if activation == GELU:
        return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))
    return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))


def gemm_gelu_artifact(rng, activations=(GELU, GELU_TANH, GELU)):
    """GEMMs with an activation (format 1.8), x: [2, 3] and r: [2, 4] inputs.

    y = act0(x @ w + b), z = act1(x @ w + b), u = act2(x @ w + b) + r (step
    kind 4: the activation comes before the residual). w's columns are scaled
    so that x @ w + b spans the GELU's curved part, negative and positive.
    Returns the plan (ending with the definition count, as 1.8 plans do), the
    WGHT bytes, w and b.
    """
    p = Plan()
    x = p.input("x", F32, [const(2), const(3)])
    r = p.input("r", F32, [const(2), const(4)])
    outs = [p.output(name, F32, [const(2), const(4)]) for name in ("y", "z", "u")]
    w_vals = [round(rng.uniform(-2, 2), 3) for _ in range(12)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    weights = struct.pack("<12f", *w_vals).ljust(64, b"\0") + struct.pack("<4f", *b_vals)
    w = p.weight(F32, [const(3), const(4)], 0, 48)
    b = p.weight(F32, [const(4)], 64, 16)
    shape = dict(m=const(2), n=const(4), k=const(3), lda=const(3), ldb=const(4), ldc=const(4))
    p.gemm(x, w, outs[0], b, flags=activations[0] << 8, **shape)
    p.gemm(x, w, outs[1], b, flags=activations[1] << 8, **shape)
    p.gemm_residual(r, x, w, outs[2], b, beta=1.0, flags=activations[2] << 8, **shape)
    return p, weights, w_vals, b_vals


def wide_gemm_artifact(rng, n=1024):
    """y = gelu(x @ w + b), x: f32[batch, 3] (batch in [1, 4]), w: [3, n]:
    with n = 1024 w's rows lie 4 KiB apart, which the runtime pads when it
    prepares a plain weight (host_gemm.cpp, unaliasedRows). Returns the plan
    (1.8, with its definition count), the WGHT bytes, w and b.
    """
    p = Plan()
    batch = sym(p.symbol("batch", 1, 4))
    x = p.input("x", F32, [batch, const(3)])
    y = p.output("y", F32, [batch, const(n)])
    w_vals = [round(rng.uniform(-2, 2), 3) for _ in range(3 * n)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(n)]
    weights = struct.pack(f"<{3 * n}f", *w_vals) + struct.pack(f"<{n}f", *b_vals)
    w = p.weight(F32, [const(3), const(n)], 0, 12 * n)
    b = p.weight(F32, [const(n)], 12 * n, 4 * n)
    p.gemm(x, w, y, b, m=batch, n=const(n), k=const(3), lda=const(3), ldb=const(n),
           ldc=const(n), flags=GELU << 8)
    return p, weights, w_vals, b_vals


BF16_INPUTS = 4  # GEMM flags bit 2 (format 1.16)


def bf16_inputs_artifact(rng):
    """GEMMs with bf16 inputs (format 1.16, flags bit 2): A and B f32,
    rounded to bf16, products accumulated in f32. x: [2, 8], r: [2, 4];
    y = x @ w + b, u = gelu(x @ w + b) + r (step kind 4). w holds bf16
    values (as the compiler writes it); x's values need all of f32's bits.
    Returns the plan, the WGHT bytes, w and b.
    """
    p = Plan()
    x = p.input("x", F32, [const(2), const(8)])
    r = p.input("r", F32, [const(2), const(4)])
    y = p.output("y", F32, [const(2), const(4)])
    u = p.output("u", F32, [const(2), const(4)])
    w_vals = [round_half(rng.uniform(-1, 1), BF16) for _ in range(32)]
    b_vals = [round(rng.uniform(-1, 1), 3) for _ in range(4)]
    weights = struct.pack("<32f", *w_vals).ljust(128, b"\0") + struct.pack("<4f", *b_vals)
    w = p.weight(F32, [const(8), const(4)], 0, 128)
    b = p.weight(F32, [const(4)], 128, 16)
    shape = dict(m=const(2), n=const(4), k=const(8), lda=const(8), ldb=const(4), ldc=const(4))
    operands = [expect(F32, [const(2), const(8)]), expect(F32, [const(8), const(4)]),
                expect(F32, [const(2), const(4)], written=True), expect(F32, [const(4)])]
    p.gemm(x, w, y, b, flags=BF16_INPUTS, expected=operands, **shape)
    p.gemm_residual(r, x, w, u, b, beta=1.0, flags=BF16_INPUTS | GELU << 8,
                    expected=operands + [expect(F32, [const(2), const(4)])], **shape)
    return p, weights, w_vals, b_vals


def with_definitions(plan):
    """The PLAN bytes of a 1.7-or-newer plan: the steps, then no definitions."""
    return plan.encode() + struct.pack("<I", 0)


def kernel_artifact(isa=0, function="scale_by_two", expected=None):
    """y[n] = 2 * x[n], n in [1, 64], by a host kernel. `expected` (format
    1.9): the kernel's expectations of x and y, expect()'s arguments each;
    True for the right ones."""
    p = Plan(isa=isa)
    n = sym(p.symbol("n", 1, 64))
    x = p.input("x", F32, [n])
    y = p.output("y", F32, [n])
    if expected is True:
        expected = [(F32, [n]), (F32, [n], True)]
    p.kernel(function, [x, y], [expect(*e) for e in expected or ()])
    return p


def write(outdir, name, data):
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


def make(args):
    os.makedirs(args.outdir, exist_ok=True)
    rng = random.Random(0)
    out = lambda name, data: write(args.outdir, name, data)

    copy = container([(b"PLAN", copy_artifact().encode())])
    out("copy.tscm", copy)
    x = [round(rng.uniform(-1, 1), 4) for _ in range(3 * 4)]
    write_npy(os.path.join(args.outdir, "copy_x.npy"), F32, (3, 4), x)
    write_npy(os.path.join(args.outdir, "fortran.npy"), F32, (3, 4), x, fortran=True)
    write_npy(os.path.join(args.outdir, "big-endian.npy"), F32, (3, 4), x, descr=">f4")

    # Format 1.19: a "cuda" plan's s8 · s8 -> s32 GEMM (and the same plan
    # claiming 1.18, or for the host, refused).
    int8_rng = random.Random(19)
    plan, weights, b_vals = int8_gemm_artifact(int8_rng)
    a_vals = [int8_rng.randrange(-128, 128) for _ in range(3 * 8)]
    for name, minor in (("cuda-gemm-int8.tscm", 19), ("cuda-gemm-int8-minor18.tscm", 18)):
        out(name, container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights),
                             (b"CUDA", cuda_section([(90, 12000)], []))], minor=minor))
    plan.target = "cpu"
    out("gemm-int8-cpu.tscm", container([(b"PLAN", with_definitions(plan)),
                                         (b"WGHT", weights)], minor=19))
    write_npy(os.path.join(args.outdir, "int8_a.npy"), I32, (3, 8), a_vals)
    write_npy(os.path.join(args.outdir, "int8_c_expected.npy"), I32, (3, 4),
              [sum(a_vals[r * 8 + kk] * b_vals[c * 8 + kk] for kk in range(8))
               for r in range(3) for c in range(4)])

    # Format 1.20: a "cuda" plan's f8 · f8 -> f32 GEMM (and the same plan
    # claiming 1.19, or for the host, refused). The expected sums are exact
    # in f64 and rounded once to f32 (the fake sums in double too).
    fp8_rng = random.Random(20)
    plan, weights, b_codes = fp8_gemm_artifact(fp8_rng)
    a_codes = [fp8_rng.choice([c for c in range(256) if c & 0x7F != 0x7F])
               for _ in range(3 * 16)]
    for name, minor in (("cuda-gemm-fp8.tscm", 20), ("cuda-gemm-fp8-minor19.tscm", 19)):
        out(name, container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights),
                             (b"CUDA", cuda_section([(90, 12000)], []))], minor=minor))
    plan.target = "cpu"
    out("gemm-fp8-cpu.tscm", container([(b"PLAN", with_definitions(plan)),
                                        (b"WGHT", weights)], minor=20))
    with open(os.path.join(args.outdir, "fp8_a.bin"), "wb") as f:
        f.write(bytes(a_codes))
    write_npy(os.path.join(args.outdir, "fp8_c_expected.npy"), F32, (3, 16),
              [sum(decode_e4m3(a_codes[r * 16 + kk]) * decode_e4m3(b_codes[c * 16 + kk])
                   for kk in range(16)) for r in range(3) for c in range(16)])

    gemm_state = rng.getstate()
    plan, weights, w, b = gemm_artifact(rng)
    gemm = container([(b"PLAN", plan.encode()), (b"WGHT", weights)])
    out("gemm.tscm", gemm)
    out("cuda-gemm.tscm", as_cuda(plan, weights))
    tf32 = gemm_artifact(random.Random(0))[0]
    tf32.steps[0] = tf32.steps[0][:19] + struct.pack("<H", 1) + tf32.steps[0][21:]
    out("cuda-gemm-tf32.tscm", as_cuda(tf32, weights))
    gx = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 3)]
    ids = [rng.randrange(0, 100) for _ in range(2 * 5)]
    y = [sum(gx[r * 3 + kk] * w[kk * 4 + c] for kk in range(3)) + b[c]
         for r in range(2) for c in range(4)]
    write_npy(os.path.join(args.outdir, "gemm_x.npy"), F32, (2, 3), gx)
    write_npy(os.path.join(args.outdir, "gemm_ids.npy"), I64, (2, 5), ids)
    write_npy(os.path.join(args.outdir, "gemm_y_expected.npy"), F32, (2, 4), y)

    # Format 1.15: weight-only GEMMs, their i4 weights dequantized by the
    # runtime, per channel and per group of 2 along K; then corrupt ones.
    wx = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 3)]
    write_npy(os.path.join(args.outdir, "weight_only_x.npy"), F32, (2, 3), wx)
    for name, group in (("weight-only", 0), ("weight-only-g2", 2)):
        plan, weights, w, b = weight_only_artifact(random.Random(5), group)
        out(f"{name}.tscm",
            container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=15))
        write_npy(os.path.join(args.outdir, f"{name}_y_expected.npy"), F32, (2, 4),
                  [sum(wx[r * 3 + kk] * w[kk * 4 + c] for kk in range(3)) + b[c]
                   for r in range(2) for c in range(4)])
        if group == 0:
            out("weight-only-minor14.tscm",
                container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)],
                          minor=14))
    plan, weights = weight_only_artifact(random.Random(5), b_dtype=F32)[:2]
    out("weight-only-f32-b.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=15))
    plan, weights = weight_only_artifact(random.Random(5), scale_count=3)[:2]
    out("weight-only-scale-count.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=15))

    # Format 1.18: a weight-only GEMM whose i4 weight has zero points (per
    # group of 2 along K, and per channel), against the dequantization
    # computed here; then the flag in a 1.17 file, zero points of another
    # dtype than B's, and too few of them.
    for name, group in (("weight-only-zp", 2), ("weight-only-zp-channel", 0)):
        plan, weights, w, b = weight_only_artifact(random.Random(7), group, zero_points=True)
        out(f"{name}.tscm",
            container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=18))
        write_npy(os.path.join(args.outdir, f"{name}_y_expected.npy"), F32, (2, 4),
                  [sum(wx[r * 3 + kk] * w[kk * 4 + c] for kk in range(3)) + b[c]
                   for r in range(2) for c in range(4)])
    plan, weights = weight_only_artifact(random.Random(7), 2, zero_points=True)[:2]
    out("weight-only-zp-minor17.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=17))
    plan, weights = weight_only_artifact(random.Random(7), 2, zero_points=True,
                                         zp_dtype=I8)[:2]
    out("weight-only-zp-dtype.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=18))
    plan, weights = weight_only_artifact(random.Random(7), 2, zero_points=True,
                                         zp_count=4)[:2]
    out("weight-only-zp-count.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=18))

    # Format 1.17: a static int8 GEMM whose activation has a zero point
    # (asymmetric activations), against the quantization computed here;
    # then the flag in a 1.16 file, on a dynamic int8 step, and a zero point
    # outside s8.
    plan, weights, w, b, a_scale = int8_static_artifact(random.Random(6), -37)
    out("int8-zero-point.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=17))
    # x / a_scale: half-integers (ties, to even), a value saturating at each
    # end once the zero point is added, and a NaN (-128).
    zx = [(v + 0.5) * a_scale for v in (-91, -4, 3, 10, 0, -1, 57, 163)]
    zx += [v * a_scale for v in (-95, -91, 170, 164, -3, 2, 1, 0)]
    zx[12] = float("nan")
    write_npy(os.path.join(args.outdir, "int8zp_x.npy"), F32, (2, 8), zx)

    def code(v):  # q - zero_point
        if v != v:
            return -128 + 37
        r = round(v / a_scale)  # Python rounds half to even
        return max(-128, min(127, r - 37)) + 37
    write_npy(os.path.join(args.outdir, "int8zp_y_expected.npy"), F32, (2, 4),
              [sum(code(zx[r * 8 + kk]) * a_scale * w[kk * 4 + c] for kk in range(8)) + b[c]
               for r in range(2) for c in range(4)])
    out("int8-zero-point-minor16.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=16))
    plan, weights = int8_static_artifact(random.Random(6), 200)[:2]
    out("int8-zero-point-range.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=17))
    plan, weights = int8_static_artifact(random.Random(6), -37, kind=6)[:2]
    out("int8-zero-point-dynamic.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=17))

    plan, weights, w, b = gemm_residual_artifact(rng)
    out("gemm-residual.tscm",
        container([(b"PLAN", plan.encode()), (b"WGHT", weights)], minor=1))
    out("cuda-gemm-residual.tscm", as_cuda(plan, weights))
    rx = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 3)]
    rr = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 4)]
    xw = [sum(rx[i * 3 + kk] * w[kk * 4 + c] for kk in range(3)) for i in range(2) for c in range(4)]
    write_npy(os.path.join(args.outdir, "residual_x.npy"), F32, (2, 3), rx)
    write_npy(os.path.join(args.outdir, "residual_r.npy"), F32, (2, 4), rr)
    write_npy(os.path.join(args.outdir, "residual_y_expected.npy"), F32, (2, 4),
              [xw[i] + b[i % 4] + rr[i] for i in range(8)])
    write_npy(os.path.join(args.outdir, "residual_z_expected.npy"), F32, (2, 4),
              [2 * xw[i] + b[i % 4] for i in range(8)])

    # The same GEMMs on f16 and bf16 operands (format 1.3): inputs and
    # expected outputs as f32 files of values the half type represents; the
    # expected outputs are the exact results of each GEMM's inputs (the runtime
    # rounds once per GEMM).
    for dtype, suffix in ((F16, "f16"), (BF16, "bf16")):
        plan, weights, w, b = gemm_residual_artifact(random.Random(1), dtype)
        out(f"gemm-residual-{suffix}.tscm",
            container([(b"PLAN", plan.encode()), (b"WGHT", weights)], minor=3))
        out(f"cuda-gemm-residual-{suffix}.tscm", as_cuda(plan, weights, minor=3))
        hx = [round_half(rng.uniform(-1, 1), dtype) for _ in range(2 * 3)]
        hr = [round_half(rng.uniform(-1, 1), dtype) for _ in range(2 * 4)]
        xw = [sum(hx[i * 3 + kk] * w[kk * 4 + c] for kk in range(3))
              for i in range(2) for c in range(4)]
        write_npy(os.path.join(args.outdir, f"residual_{suffix}_x.npy"), F32, (2, 3), hx)
        write_npy(os.path.join(args.outdir, f"residual_{suffix}_r.npy"), F32, (2, 4), hr)
        write_npy(os.path.join(args.outdir, f"residual_{suffix}_y_expected.npy"), F32, (2, 4),
                  [xw[i] + b[i % 4] + hr[i] for i in range(8)])
        # z is stored once before the in-place GEMM adds to it.
        z1 = [round_half(xw[i] + b[i % 4], dtype) for i in range(8)]
        write_npy(os.path.join(args.outdir, f"residual_{suffix}_z_expected.npy"), F32, (2, 4),
                  [xw[i] + z1[i] for i in range(8)])
    # GEMM activations (format 1.8): erf and tanh GELUs, the first before a
    # residual; expected outputs in double precision.
    plan, weights, w, b = gemm_gelu_artifact(random.Random(2))
    out("gemm-gelu.tscm", container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)],
                                    minor=8))
    gx = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 3)]
    gr = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 4)]
    pre = [sum(gx[i * 3 + kk] * w[kk * 4 + c] for kk in range(3)) + b[c]
           for i in range(2) for c in range(4)]
    write_npy(os.path.join(args.outdir, "gelu_x.npy"), F32, (2, 3), gx)
    write_npy(os.path.join(args.outdir, "gelu_r.npy"), F32, (2, 4), gr)
    for name, activation, residual in (("y", GELU, None), ("z", GELU_TANH, None),
                                       ("u", GELU, gr)):
        write_npy(os.path.join(args.outdir, f"gelu_{name}_expected.npy"), F32, (2, 4),
                  [gelu(v, activation) + (residual[i] if residual else 0)
                   for i, v in enumerate(pre)])
    # A weight with 4 KiB rows (prepared padded on CPUs without AVX-512),
    # for every batch up to the maximum; expected in double precision.
    plan, weights, w, b = wide_gemm_artifact(random.Random(5))
    out("gemm-wide.tscm", container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)],
                                    minor=8))
    wx = [round(rng.uniform(-1, 1), 3) for _ in range(4 * 3)]
    for rows in (1, 4):
        write_npy(os.path.join(args.outdir, f"wide_x{rows}.npy"), F32, (rows, 3), wx[:rows * 3])
        write_npy(os.path.join(args.outdir, f"wide_y{rows}_expected.npy"), F32, (rows, 1024),
                  [gelu(sum(wx[i * 3 + kk] * w[kk * 1024 + c] for kk in range(3)) + b[c], GELU)
                   for i in range(rows) for c in range(1024)])
    # GEMMs with bf16 inputs (format 1.16): against x rounded to bf16 in
    # double precision, and (which must not match) x as it is.
    plan, weights, w, b = bf16_inputs_artifact(random.Random(4))
    out("gemm-bf16-inputs.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=16))
    bx = [rng.uniform(-1, 1) for _ in range(2 * 8)]
    br = [round(rng.uniform(-1, 1), 3) for _ in range(2 * 4)]
    write_npy(os.path.join(args.outdir, "bf16in_x.npy"), F32, (2, 8), bx)
    write_npy(os.path.join(args.outdir, "bf16in_r.npy"), F32, (2, 4), br)
    for suffix, xs in (("expected", [round_half(v, BF16) for v in bx]),
                       ("unrounded", [struct.unpack("<f", struct.pack("<f", v))[0]
                                      for v in bx])):
        pre = [sum(xs[i * 8 + kk] * w[kk * 4 + c] for kk in range(8)) + b[c]
               for i in range(2) for c in range(4)]
        write_npy(os.path.join(args.outdir, f"bf16in_y_{suffix}.npy"), F32, (2, 4), pre)
        write_npy(os.path.join(args.outdir, f"bf16in_u_{suffix}.npy"), F32, (2, 4),
                  [gelu(v, GELU) + br[i] for i, v in enumerate(pre)])
    # The flag is unknown before 1.16, and belongs to "cpu" plans.
    out("gemm-bf16-inputs-minor15.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=15))
    plan.target = "cuda"
    out("gemm-bf16-inputs-cuda.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights),
                   (b"CUDA", cuda_section([(90, 12000)], []))], minor=16))
    # cuBLASLt's GELU epilogue is the tanh approximation: a CUDA plan takes
    # a tanh GELU without a residual, and refuses an exact one.
    plan, weights = gemm_gelu_artifact(random.Random(2), (GELU_TANH, GELU_TANH, 0))[:2]
    plan.target = "cuda"
    out("cuda-gemm-gelu-tanh.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights),
                   (b"CUDA", cuda_section([(90, 12000)], []))], minor=8))
    plan, weights = gemm_gelu_artifact(random.Random(2), (GELU_TANH, GELU, 0))[:2]
    plan.target = "cuda"
    out("cuda-gemm-gelu-erf.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights),
                   (b"CUDA", cuda_section([(90, 12000)], []))], minor=8))
    # An activation code nobody knows, and one in a 1.7 file (whose flags
    # have no activation bits).
    plan, weights = gemm_gelu_artifact(random.Random(2), (GELU, 7, GELU))[:2]
    out("gemm-activation.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=8))
    plan, weights = gemm_gelu_artifact(random.Random(2))[:2]
    out("gemm-activation-minor7.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=7))

    mixed, mixed_weights = gemm_residual_artifact(random.Random(1), F16)[:2]
    mixed.values[0] = struct.pack("<BBHI", F32, 1, 0, 2) + mixed.values[0][8:]
    out("gemm-mixed-dtype.tscm",
        container([(b"PLAN", mixed.encode()), (b"WGHT", mixed_weights)], minor=3))

    # Container-level damage.
    out("truncated.tscm", copy[:-10])
    out("trailing.tscm", copy + b"\0" * 64)
    out("bad-magic.tscm", b"\x7fELF" + copy[4:])
    out("text-mode.tscm", copy[:5] + b"\n" + copy[7:])
    out("major2.tscm", refresh_header_crc(copy[:8] + struct.pack("<H", 2) + copy[10:]))
    out("header-crc.tscm", flip(copy, 40))
    out("table-crc.tscm", flip(copy, 64 + 20))
    out("plan-crc.tscm", flip(copy, section_offset(copy, b"PLAN") + 3))
    out("weights-crc.tscm", flip(gemm, section_offset(gemm, b"WGHT") + 1))
    out("no-plan.tscm", container([(b"WGHT", weights)]))
    out("duplicate.tscm", container([(b"PLAN", plan.encode()), (b"PLAN", plan.encode())]))
    out("short-header.tscm", copy[:40])
    # Well-formed containers around bad plans.
    bad_expr = copy_artifact()
    bad_expr.exprs.append(b"\x7f")
    out("bad-expr.tscm", container([(b"PLAN", bad_expr.encode())]))
    underflow = copy_artifact()
    underflow.exprs.append(const(1) + b"\x10")
    out("expr-underflow.tscm", container([(b"PLAN", underflow.encode())]))
    bad_flags = gemm_artifact(random.Random(0))[0]
    bad_flags.steps[0] = bad_flags.steps[0][:19] + struct.pack("<H", 2) + bad_flags.steps[0][21:]
    out("gemm-flags.tscm", container([(b"PLAN", bad_flags.encode()), (b"WGHT", weights)], minor=2))
    # Format 1.14: a 2:4 sparse GEMM (flags bit 1) belongs to "cuda" plans.
    sparse_cpu = gemm_artifact(random.Random(0), c_dims=[sym(0), const(4)])[0]
    sparse_cpu.steps[0] = sparse_cpu.steps[0][:19] + struct.pack("<H", 2) + sparse_cpu.steps[0][21:]
    out("gemm-sparse-cpu.tscm", container([(b"PLAN", with_definitions(sparse_cpu)),
                                           (b"WGHT", weights)], minor=14))
    out("plan-truncated.tscm", container([(b"PLAN", copy_artifact().encode()[:-3])]))
    out("kernel-no-host.tscm", container([(b"PLAN", kernel_artifact().encode())]))
    # Format 1.9: kernels and GEMMs say what they expect of their buffers, and
    # the loader holds the plan's values to it (before it reads HOST).
    not_elf = b"not an ELF object"
    n = sym(0)
    for name, expected in (("dtype", [(I32, [n]), (F32, [n], True)]),
                           ("shape", [(F32, [n]), (F32, [const(5)], True)]),
                           ("writes-input", [(F32, [n], True), (F32, [n], True)]),
                           ("access", [(F32, [n], False, 2), (F32, [n], True)])):
        out(f"kernel-expect-{name}.tscm",
            container([(b"PLAN", with_definitions(kernel_artifact(expected=expected))),
                       (b"HOST", not_elf)], minor=9))
    out("kernel-expect-missing.tscm",
        container([(b"PLAN", with_definitions(kernel_artifact())), (b"HOST", not_elf)],
                  minor=9))
    # gemm.tscm's weights: gemm-expect.tscm computes the same.
    same = random.Random()
    same.setstate(gemm_state)
    plan, weights = gemm_artifact(same, c_dims=[sym(0), const(4)])[:2]
    out("gemm-expect.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=9))
    plan, weights = gemm_artifact(random.Random(0), c_dims=[sym(0), const(5)])[:2]
    out("gemm-expect-shape.tscm",
        container([(b"PLAN", with_definitions(plan)), (b"WGHT", weights)], minor=9))
    # Reserved fields and flags are 0; sections are known, but in a newer
    # version.
    reserved = copy_artifact()
    reserved.values[0] = reserved.values[0][:2] + b"\1\0" + reserved.values[0][4:]
    out("value-reserved.tscm", container([(b"PLAN", reserved.encode())]))
    flagged = bytearray(copy)
    flagged[64 + 4] = 1
    flagged[56:60] = struct.pack("<I", crc32c(bytes(flagged[64:96])))
    out("section-flags.tscm", refresh_header_crc(bytes(flagged)))
    extra = (b"XTRA", b"later")
    out("unknown-section.tscm", container([(b"PLAN", copy_artifact().encode()), extra]))
    out("unknown-section-newer.tscm",
        container([(b"PLAN", with_definitions(copy_artifact())), extra], minor=99))
    # Format 1.13: the STEP section, a layer and source nodes per step.
    def step_section(count, records):
        out = struct.pack("<I", count)
        for text in records:
            out += struct.pack("<I", len(text)) + text
        return out
    out("steps.tscm", container([(b"PLAN", with_definitions(copy_artifact())),
                                 (b"STEP", step_section(1, [b"/layers.0", b"/x/Identity"]))],
                                minor=13))
    out("steps-count.tscm", container([(b"PLAN", with_definitions(copy_artifact())),
                                       (b"STEP", step_section(2, [b"a", b"b", b"c", b"d"]))],
                                      minor=13))
    out("steps-truncated.tscm", container([(b"PLAN", with_definitions(copy_artifact())),
                                           (b"STEP", step_section(1, [b"/layers.0"]))],
                                          minor=13))
    vulkan = copy_artifact()
    vulkan.target = "vulkan"
    out("vulkan-target.tscm", container([(b"PLAN", vulkan.encode())]))
    # CUDA artifacts (format 1.2): valid ones, run against fake_cuda.c, and
    # broken ones.
    scale = cuda_scale_artifact().encode()
    out("cuda-scale.tscm", container([(b"PLAN", scale), (b"CUDA", cuda_scale_section())],
                                     minor=2))
    write_npy(os.path.join(args.outdir, "cuda_x.npy"), F32, (37,),
              [round(rng.uniform(-4, 4), 3) for _ in range(37)])
    out("cuda-no-section.tscm", container([(b"PLAN", scale)], minor=2))
    out("cuda-bad-module.tscm",
        container([(b"PLAN", cuda_scale_artifact(module=5).encode()),
                   (b"CUDA", cuda_scale_section())], minor=2))
    out("cuda-section-truncated.tscm",
        container([(b"PLAN", scale), (b"CUDA", cuda_scale_section()[:-9])], minor=2))
    launch_on_cpu = cuda_scale_artifact()
    launch_on_cpu.target = "cpu"
    out("cuda-launch-on-cpu.tscm",
        container([(b"PLAN", launch_on_cpu.encode()), (b"CUDA", cuda_scale_section())],
                  minor=2))
    out("cuda-launch-minor1.tscm",
        container([(b"PLAN", scale), (b"CUDA", cuda_scale_section())], minor=1))
    # Format 1.11: a launch says what its kernel expects of its pointer
    # arguments, held against the plan's values as kernel steps' are.
    for name, expected in (("", [(F32, False), (F32, True)]),
                           ("-dtype", [(I32, False), (F32, True)]),
                           ("-writes-input", [(F32, True), (F32, True)]),
                           ("-missing", None)):
        out(f"cuda-launch-expect{name}.tscm",
            container([(b"PLAN", with_definitions(cuda_scale_artifact(expected=expected))),
                       (b"CUDA", cuda_scale_section())], minor=11))
    unbound = copy_artifact()
    unbound.symbol("orphan", 1, 2)
    out("unbound-symbol.tscm", container([(b"PLAN", unbound.encode())]))
    small_arena, small_weights = gemm_artifact(random.Random(0))[:2]
    small_arena.arena_size = 32
    out("small-arena.tscm",
        container([(b"PLAN", small_arena.encode()), (b"WGHT", small_weights)]))

    if args.host_object:
        with open(args.host_object, "rb") as f:
            host = f.read()
        out("kernel.tscm", container([(b"PLAN", kernel_artifact().encode()), (b"HOST", host)]))
        out("kernel-expect.tscm",
            container([(b"PLAN", with_definitions(kernel_artifact(expected=True))),
                       (b"HOST", host)], minor=9))
        write_npy(os.path.join(args.outdir, "kernel_x.npy"), F32, (5,), [1, -2, 3.5, 0, 8])
        write_npy(os.path.join(args.outdir, "kernel_y_expected.npy"), F32, (5,), [2, -4, 7, 0, 16])
        out("kernel-missing.tscm",
            container([(b"PLAN", kernel_artifact(function="no_such_kernel").encode()),
                       (b"HOST", host)]))
        out("kernel-isa.tscm",
            container([(b"PLAN", kernel_artifact(isa=1 << 5).encode()), (b"HOST", host)]))
        out("kernel-avx512.tscm",
            container([(b"PLAN", kernel_artifact(isa=1 << 1).encode()), (b"HOST", host)]))
        out("kernel-amx.tscm",
            container([(b"PLAN", kernel_artifact(isa=1 << 2).encode()), (b"HOST", host)]))
        out("kernel-avx512bf16.tscm",
            container([(b"PLAN", kernel_artifact(isa=1 << 3).encode()), (b"HOST", host)]))
        out("kernel-bad-elf.tscm",
            container([(b"PLAN", kernel_artifact().encode()), (b"HOST", b"not an ELF object")]))
    if args.second_host_object:
        with open(args.second_host_object, "rb") as f:
            out("kernel-three.tscm",
                container([(b"PLAN", kernel_artifact(function="scale_by_three").encode()),
                           (b"HOST", f.read())]))
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        parser = argparse.ArgumentParser(prog="make_artifact.py compare")
        parser.add_argument("actual")
        parser.add_argument("expected")
        parser.add_argument("--tolerance", type=float, default=1e-6)
        return compare(parser.parse_args(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--host-object", help="shared object exporting scale_by_two")
    parser.add_argument("--second-host-object",
                        help="shared object exporting scale_by_three (kernel-three.tscm)")
    return make(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
