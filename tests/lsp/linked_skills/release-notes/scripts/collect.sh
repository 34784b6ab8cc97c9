#!/bin/sh
# List merged changes (a fixture: prints a fixed line).
echo "change: fix the parser"
