"""Edits a .tscm artifact's PLAN as an attacker would: one field changed and
every checksum recomputed, so that only the runtime's cross-checks stand
between the edit and the loaded code (docs/artifact-format.md).

`Plan(artifact)` walks the PLAN section of a format 1.9 host artifact and
records where its fields lie; `with_plan_bytes` writes an edited PLAN back
with the section's, the table's and the header's checksums recomputed.
Standard library only; the checksum is make_artifact.py's, the tests' one
copy of CRC-32C.
"""

import pathlib
import struct
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "runtime"))
from make_artifact import crc32c  # noqa: E402

KERNEL, GEMM, COPY, GEMM_RESIDUAL, LAUNCH = 1, 2, 3, 4, 5
WEIGHT, ARENA, VIEW = 3, 4, 5
CONST = 0x01


def _section(artifact, sid):
    """(table entry offset, section offset, size) of section `sid`."""
    count, table = struct.unpack_from("<IQ", artifact, 12)
    for i in range(count):
        entry = table + 32 * i
        if artifact[entry:entry + 4] == sid:
            offset, size = struct.unpack_from("<QQ", artifact, entry + 8)
            return entry, offset, size
    raise ValueError(f"no {sid!r} section")


class Plan:
    """Offsets (into the PLAN section) of the fields an edit targets."""

    def __init__(self, artifact):
        self.artifact = artifact
        _, offset, size = _section(artifact, b"PLAN")
        self.bytes = bytearray(artifact[offset:offset + size])
        self.minor = struct.unpack_from("<H", artifact, 10)[0]
        if self.minor < 9:
            raise ValueError(f"format 1.{self.minor}: no buffer expectations")
        self.pos = 0
        self.str()  # target
        self.take("<Q")  # isa
        self.symbols = [self.symbol() for _ in range(self.take("<I"))]
        # Per expression: (offset of its code, code bytes).
        self.exprs = []
        for _ in range(self.take("<I")):
            n = self.take("<I")
            self.exprs.append((self.pos, bytes(self.bytes[self.pos:self.pos + n])))
            self.pos += n
        # Per value: (offset of its dtype byte, [offset of each dim index]).
        self.values = [self.value() for _ in range(self.take("<I"))]
        self.take("<Q")  # arena_size
        self.inputs = [(self.str(), self.take("<I")) for _ in range(self.take("<I"))]
        self.outputs = [(self.str(), self.take("<I")) for _ in range(self.take("<I"))]
        # Kernel steps: (function name, [offset of each buffer's value index]).
        self.kernels = []
        for _ in range(self.take("<I")):
            self.step()

    def take(self, fmt):
        value = struct.unpack_from(fmt, self.bytes, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def str(self):
        n = self.take("<I")
        self.pos += n
        return self.bytes[self.pos - n:self.pos].decode()

    def symbol(self):
        name = self.str()
        self.take("<q")
        self.take("<q")
        return name

    def value(self):
        dtype_at = self.pos
        _, storage, _, rank = struct.unpack_from("<BBHI", self.bytes, self.pos)
        self.pos += 8
        dims = [self.pos + 4 * d for d in range(rank)]
        self.pos += 4 * rank
        self.pos += {WEIGHT: 16, ARENA: 8}.get(storage, 4)
        return dtype_at, dims

    def expectations(self, count):
        for _ in range(count):
            self.pos += 4  # dtype, access, reserved
            for _ in range(self.take("<I")):
                n = self.take("<I")
                self.pos += n

    def step(self):
        kind = self.take("<B")
        if kind == KERNEL:
            name = self.str()
            count = self.take("<I")
            self.kernels.append((name, [self.pos + 4 * k for k in range(count)]))
            self.pos += 4 * count
            self.expectations(count)
        elif kind in (GEMM, GEMM_RESIDUAL):
            a, b, c, bias = struct.unpack_from("<IIII", self.bytes, self.pos)
            self.pos += 16 + 4 + 40 + 8
            residual = self.take("<I") if kind == GEMM_RESIDUAL else 0xFFFFFFFF
            self.expectations(3 + (bias != 0xFFFFFFFF) + (residual != 0xFFFFFFFF))
        elif kind == COPY:
            self.pos += 8
        else:
            raise ValueError(f"step kind {kind} in a host plan")

    def dims(self, value):
        """The code of each of `value`'s dim expressions."""
        return [self.exprs[struct.unpack_from("<I", self.bytes, at)[0]][1]
                for at in self.values[value][1]]

    def buffer(self, kernel, k):
        """The value index kernel step `kernel` passes as its k-th buffer."""
        return struct.unpack_from("<I", self.bytes, self.kernels[kernel][1][k])[0]

    def set_u8(self, at, value):
        self.bytes[at] = value

    def set_u32(self, at, value):
        struct.pack_into("<I", self.bytes, at, value)

    def set_const(self, expr, value):
        """Makes constant expression `expr` push `value` instead."""
        at, code = self.exprs[expr]
        assert code[0] == CONST and len(code) == 9
        struct.pack_into("<q", self.bytes, at + 1, value)

    def artifact_bytes(self):
        """The artifact with this (edited) PLAN and valid checksums."""
        return with_plan_bytes(self.artifact, bytes(self.bytes))


def with_plan_bytes(artifact, plan):
    """`artifact` with PLAN's bytes replaced by `plan` (same size) and the
    section, table and header checksums recomputed."""
    entry, offset, size = _section(artifact, b"PLAN")
    assert len(plan) == size
    out = bytearray(artifact)
    out[offset:offset + size] = plan
    struct.pack_into("<I", out, entry + 24, crc32c(plan))
    count, table = struct.unpack_from("<IQ", out, 12)
    struct.pack_into("<I", out, 56, crc32c(bytes(out[table:table + 32 * count])))
    struct.pack_into("<I", out, 60, crc32c(bytes(out[:60])))
    return bytes(out)
