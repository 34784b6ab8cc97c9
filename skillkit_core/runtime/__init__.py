"""The Agent Skills runtime: let any MCP-capable agent use a folder of skills.

Modules, in the order data flows through them:

- :mod:`~skillkit_core.runtime.records`: ``SkillRecord`` values and the ``Registry``
  holding them (pure data; a registry re-reads with the reader it is given).
- :mod:`~skillkit_core.runtime.registry`: discover skill folders under roots, parse each
  SKILL.md with :mod:`skillkit_core.manifest`, keep valid ones as ``SkillRecord`` values.
- :mod:`~skillkit_core.runtime.prompt`: ``<available_skills>`` (escaped, ``--no-location``,
  a character budget), ``<active_skills>`` and the server instructions.
- :mod:`~skillkit_core.runtime.session`: one connection's ``active_skills`` (most recent
  last), load/unload and the cap.
- :mod:`~skillkit_core.runtime.paths`, :mod:`~skillkit_core.runtime.reading`,
  :mod:`~skillkit_core.runtime.scripts`: contained reads and script runs with limits.
- :mod:`~skillkit_core.runtime.tools`: the four tools, independent of MCP.
- :mod:`~skillkit_core.runtime.mcp_server`: the MCP face (``skillkit serve``).

Tool names: the runtime seed's ``skills.load``, ``skills.unload``, ``skills.read`` and
``skills.run_script`` are served as ``skills_load``, ``skills_unload``, ``skills_read`` and
``skills_run_script``, because some MCP hosts reject dots in tool names.

Import the submodules you need. A built skill's ``scripts/run mcp`` serves its own
folder with the light ones alone (``records``, ``skills_extension``, ``reading``, ``paths``,
``errors``), so none of them may import the manifest parser or the linter, not even inside
a function: the bundle follows every import (``tests/build/test_closure.py`` checks).
"""
