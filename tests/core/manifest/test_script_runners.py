"""states_interpreter: one fixed pattern finds a script run by its interpreter exactly
where a pattern holding the script's name (compiled per name) finds it."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillkit_core.manifest import scripts
from skillkit_core.manifest.scripts import states_interpreter


def by_name_pattern(name: str, texts: list[str]) -> bool:
    """The oracle: the runner, its options and the name in one regular expression."""
    pattern = re.compile(
        rf"(?<![\w.\-/])(?:{scripts._RUNNERS})"
        r"(?:[ \t]+-{1,2}[\w\-]+(?:[= ][^\s\-][^\s;|&]*)?)*"
        rf"[ \t]+[\"']?[^\s\"'`;|&]*?(?<![\w.\-]){re.escape(name)}(?![\w.\-])"
    )
    return any(pattern.search(text) for text in texts)


RUNNERS = st.sampled_from(
    [
        "python",
        "python3.12",
        "uv run",
        "uvx",
        "node",
        "bash",
        "poetry run python",
        "cat",
        "mypython",
        "/usr/bin/python",
        "-python",
    ]
)
OPTIONS = st.lists(
    st.sampled_from(["-u", "--with=x", "-m pkg", "-X dev", "--", "-", "--a b|c"]), max_size=2
)
GAPS = st.sampled_from([" ", "\t", "  ", "\n", "", " ; "])
WORDS = st.tuples(
    st.sampled_from(["", '"', "'", "`"]),
    st.sampled_from(["", "$DIR/", "scripts/", "./", "a.b/", "é/"]),
    st.sampled_from(["x.py", "my-x.py", "x.py.bak", "x.pyc", "_x.py", "x", "run"]),
    st.sampled_from(["", '"', " in.pdf", "/y", ".", "-z", "|", "é"]),
).map("".join)


@st.composite
def commands(draw: st.DrawFn) -> str:
    """Text that runs (or nearly runs) a script: noise, runner, options, the script."""
    parts = [draw(st.sampled_from(["", "Run ", "`", "x", "(", "&&"]))]
    parts.append(draw(RUNNERS))
    for option in draw(OPTIONS):
        parts += [draw(GAPS), option]
    parts += [draw(GAPS), draw(WORDS)]
    return "".join(parts)


TEXTS = st.lists(commands(), min_size=1, max_size=3).map("\n".join)


@settings(max_examples=1500, deadline=None)
@given(TEXTS, st.sampled_from(["x.py", "x", ".py", "run"]))
@example('Run `python3 -u "$DIR/scripts/x.py" --flag`.', "x.py")
@example("uv run --with requests a/x.py", "x.py")
@example("poetry run python x.py", "x.py")
@example("python my-x.py", "x.py")
def test_agrees_with_a_pattern_holding_the_name(text: str, name: str) -> None:
    assert states_interpreter(name, [text]) == by_name_pattern(name, [text])


def test_runs_and_mentions() -> None:
    assert states_interpreter("extract.py", ["Run `python scripts/extract.py in.pdf`."])
    assert states_interpreter("server.cjs", ['node "$DIR/server.cjs"'])
    assert not states_interpreter("extract.py", ["See scripts/extract.py for details."])
    assert not states_interpreter("x.py", ["python my-x.py"])
