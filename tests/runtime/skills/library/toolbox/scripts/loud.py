"""Writes N bytes (first argument) to stdout and to stderr."""

import sys

count = int(sys.argv[1])
sys.stdout.write("o" * count)
sys.stderr.write("e" * count)
