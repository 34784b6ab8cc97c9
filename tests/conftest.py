"""Session-wide set-up of the test suite.

Built skills called by the tests leave warm processes behind (see
``skillkit_core.build.warm``): their sockets go to a folder of this session
(``SKILLKIT_WARM_DIR``, inherited by every subprocess), and they end with the session
instead of idling for ten minutes after it.

skillkit's per-user cache (``SKILLKIT_CACHE_DIR``: ``skillkit check``'s results and
compiled patterns, skills' unpacked bundles) is a folder of the session too, so the
tests write nothing into the user's own cache. Builds keep their shared cache of
bytecode and wheels (``tests/build/conftest.py``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from tests.process_support import end_warm_processes


@pytest.fixture(scope="session", autouse=True)
def warm_process_folder() -> Iterator[str]:
    # Under /tmp itself: a socket's path must stay short (about 100 bytes).
    folder = tempfile.mkdtemp(prefix="skw-", dir="/tmp" if os.path.isdir("/tmp") else None)
    os.environ["SKILLKIT_WARM_DIR"] = folder
    yield folder
    end_warm_processes(folder)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def session_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = str(tmp_path_factory.mktemp("skillkit-cache"))
    os.environ["SKILLKIT_CACHE_DIR"] = folder
    return folder
