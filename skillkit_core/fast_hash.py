"""BLAKE2b from CPython's own C module, for digests that only skillkit reads back.

``hashlib``'s import loads OpenSSL, which costs a short command more (about 3 ms here)
than all the hashing it does. (The built skill's ``_skillkit_warm`` does the same on its
own: it imports nothing of skillkit.)
"""

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a CPython built without its own hashes
    from hashlib import blake2b

__all__ = ["blake2b"]
