"""See a skill through the agent's eyes before any agent runs it.

- ``examples``: deterministic example data from schemas (polyfactory underneath)
- ``preview``: the preamble and every step's prompt, schema and transitions per host
- ``simulate``: whole runs on the real engine with fixture or generated responses
  (``stubs`` makes the instrumented copy it runs, ``steering`` reads ``choose``/``path``,
  ``transcript``/``report``/``coverage`` describe what happened)
- ``graph_render``: the workflow as Mermaid, DOT, SVG or PNG
- ``tiers``: what a host loads at each disclosure tier of a SKILL.md folder
- ``markdown`` / ``json_format``: the two output formats; ``commands``: the CLI's side

Nothing here is imported on the ``scripts/run`` path; import the submodules directly.
"""
