"""Prints the ISA bits a .tscm artifact's PLAN records (docs/artifact-format.md)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
count, table = struct.unpack_from("<IQ", data, 12)
for i in range(count):
    ident, _, offset, _ = struct.unpack_from("<4sIQQ", data, table + 32 * i)
    if ident == b"PLAN":
        (length,) = struct.unpack_from("<I", data, offset)
        target = data[offset + 4:offset + 4 + length].decode()
        (isa,) = struct.unpack_from("<Q", data, offset + 4 + length)
        print(f"target {target} isa {isa}")
