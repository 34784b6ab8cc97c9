"""``render.diff``: a full line diff of two texts."""

from __future__ import annotations


def diff(before: str, after: str) -> str:
    """Every line of both texts, marked `` `` (kept), ``-`` (removed) or ``+`` (added),
    under ``--- before`` / ``+++ after`` headers.

    Lines are matched with ``difflib`` (a longest-common-subsequence alignment), so an
    inserted line shows as one ``+`` rather than shifting every later line.
    """
    import difflib  # only needed here; keeps `import skillkit_core.render` light

    old, new = before.splitlines(), after.splitlines()
    lines = ["--- before", "+++ after"]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines += [f" {line}" for line in old[i1:i2]]
            continue
        lines += [f"-{line}" for line in old[i1:i2]]
        lines += [f"+{line}" for line in new[j1:j2]]
    return "\n".join(lines)
