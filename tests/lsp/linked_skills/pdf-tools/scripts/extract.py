#!/usr/bin/env python3
"""Print the text of a PDF file (a fixture: it only echoes its argument)."""

import sys

print(f"text of {sys.argv[1]}")
