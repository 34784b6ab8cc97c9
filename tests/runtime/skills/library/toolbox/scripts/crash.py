"""Writes to both streams, then fails with exit code 3."""

import sys

print("partial output before the crash")
print("Traceback (most recent call last): simulated failure", file=sys.stderr)
sys.exit(3)
