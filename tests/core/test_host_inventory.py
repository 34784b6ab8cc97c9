"""The host inventory is evidence, not memory: every name it lists says where it was read."""

import re

import pytest

from skillkit_core import hosts_data
from skillkit_core.hosts import HOSTS, HOSTS_BY_ID
from skillkit_core.primitives.registry import PRIMITIVES

COMMIT = re.compile(r"[0-9a-f]{40}")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
HOST_IDS = [entry["id"] for entry in hosts_data.HOSTS]


def _well_formed(evidence) -> bool:
    if evidence.repo is not None:
        return bool(
            re.fullmatch(r"[\w.-]+/[\w.-]+", evidence.repo)
            and evidence.path
            and COMMIT.fullmatch(evidence.commit or "")
            and evidence.url is None
        )
    return bool(
        evidence.url and evidence.url.startswith("https://") and DATE.fullmatch(evidence.date or "")
    )


@pytest.mark.parametrize("host_id", HOST_IDS)
def test_every_name_a_host_lists_has_evidence(host_id):
    host = HOSTS_BY_ID[host_id]
    for name in (*host.tools, *host.renamed, *host.evidence):
        evidence = host.evidence.get(name)
        assert evidence is not None, f"{host_id}: {name} has no evidence"
        assert _well_formed(evidence), f"{host_id}: {name}: {evidence}"


@pytest.mark.parametrize("host_id", HOST_IDS)
def test_every_source_a_host_cites_is_well_formed(host_id):
    host = HOSTS_BY_ID[host_id]
    for key, evidence in host.sources.items():
        assert _well_formed(evidence), f"{host_id}: source {key}: {evidence}"
    for variable, evidence in host.detect:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", variable)
        assert _well_formed(evidence), f"{host_id}: {variable}"


@pytest.mark.parametrize("host_id", HOST_IDS)
def test_every_host_maps_every_tag_to_its_own_tools_or_to_none(host_id):
    host = HOSTS_BY_ID[host_id]
    assert set(host.tags) == {spec.tag for spec in PRIMITIVES}
    for tag, mapping in host.tags.items():
        if mapping is None:
            continue
        assert mapping.tools, f"{host_id}: {tag}"
        for tool in mapping.tools:
            assert tool in host.tools, f"{host_id}: {tag} maps to {tool}, not in its tools"


@pytest.mark.parametrize("host_id", HOST_IDS)
def test_older_names_point_at_current_tools(host_id):
    host = HOSTS_BY_ID[host_id]
    for old, new in host.renamed.items():
        assert new in host.tools, f"{host_id}: {old} -> {new}"
        assert old not in host.tools, f"{host_id}: {old} is both current and older"


@pytest.mark.parametrize("host_id", HOST_IDS)
def test_a_host_says_which_version_it_was_read_from_or_why_it_has_no_names(host_id):
    host = HOSTS_BY_ID[host_id]
    if host.tools:
        assert host.version.strip()
        assert host.no_names is None
    else:
        assert host.no_names


def test_each_tool_cites_a_source_of_its_own_host_entry():
    for host in HOSTS:
        for evidence in host.evidence.values():
            assert host.sources[evidence.key] is evidence


def test_detection_order_names_every_host_that_can_be_detected():
    detectable = {host.id for host in HOSTS if host.detect}
    assert set(hosts_data.DETECT_ORDER) == detectable
    assert hosts_data.DETECT_ORDER.index("kilo-code") < hosts_data.DETECT_ORDER.index("opencode")


def test_the_inventory_is_plain_data():
    """Literals only, so loading it on the scripts/run path costs next to nothing."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(hosts_data.__file__).read_text(encoding="utf-8"))
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert {getattr(node, "module", None) for node in imports} <= {"__future__", "typing"}
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert calls <= {"dict"}
