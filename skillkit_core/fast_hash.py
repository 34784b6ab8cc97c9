"""BLAKE2b from CPython's own C module, for digests and tags that only skillkit reads back.

``hashlib``'s import loads OpenSSL, which costs a short command more (about 3 ms here)
than all the hashing it does; ``hmac`` imports ``hashlib``. (The built skill's
``_skillkit_warm`` does the same on its own: it imports nothing of skillkit.)
"""

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a CPython built without its own hashes
    from hashlib import blake2b

try:
    from _operator import _compare_digest as compare_digest  # what hmac.compare_digest is
except ImportError:  # pragma: no cover - another Python implementation
    from hmac import compare_digest

__all__ = ["blake2b", "compare_digest"]
