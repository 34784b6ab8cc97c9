"""Greets its first argument and reports where and how it ran."""

import json
import os
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "world"
print(
    json.dumps(
        {
            "lang": "python",
            "greeting": f"Hello, {name}!",
            "argv": sys.argv[1:],
            "cwd": os.getcwd(),
            "executable": sys.executable,
        }
    )
)
