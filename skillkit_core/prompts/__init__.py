"""Prompt vocabulary: segments, fragments, and (in ``assemble``) prompt assembly.

``assemble`` is not imported here: it pulls in the primitive registry, and keeping this
package light avoids an import cycle with ``skillkit_core.primitives``.
"""

from skillkit_core.prompts.fragments import Fragment, fragment, prompt
from skillkit_core.prompts.segments import (
    ActSegment,
    PromptSegment,
    SystemSegment,
    ViewSegment,
    system,
    view,
)

__all__ = [
    "ActSegment",
    "Fragment",
    "PromptSegment",
    "SystemSegment",
    "ViewSegment",
    "fragment",
    "prompt",
    "system",
    "view",
]
