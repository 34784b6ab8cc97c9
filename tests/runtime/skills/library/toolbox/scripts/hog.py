"""Allocates the number of MiB given as its first argument."""

import sys

block = bytearray(int(sys.argv[1]) * 1024 * 1024)
print(f"allocated {len(block)} bytes")
