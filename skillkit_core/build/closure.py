"""Which Python files a bundled skill needs.

Three sources, combined:

- a *probe*: the entry is loaded in a fresh interpreter (exactly as ``scripts/run`` will
  load it) and every module that got imported is recorded;
- a *static scan* of the skill's own modules and of skillkit's runtime modules, which
  follows imports made inside functions too (skillkit imports lazily on purpose), but not
  those under ``if TYPE_CHECKING:``;
- *distributions*: a third-party module brings its whole installed distribution, and with
  it every distribution its metadata requires on some target platform and Python.

skillkit's own package is never taken whole: only the modules reachable from the
protocol and from the skill, so that editor, linter and CLI code stay out of the bundle.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillkit_core.errors import BuildError

SKILLKIT = "skillkit_core"
RUNTIME_ROOTS = ("skillkit_core.protocol",)
"""Packages taken with every submodule: the protocol serves every subcommand."""
RUNTIME_MODULES = ("skillkit_core.pattern_cache", "skillkit_core.sealed")
"""Modules the pyz's start-up code (``skillkit_core/build/boot.py``) imports itself."""

# Seconds the probe may take beyond the module's own time limit (start and imports).
_PROBE_START = 30.0
# Files of an installed distribution's metadata folder that describe this installation
# rather than the package; they would make the bundle differ between machines.
_INSTALL_ONLY = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})

_PROBE = r"""
import json, sys
initial = set(sys.modules)
from skillkit_core.loader import load_entry
definition = load_entry(sys.argv[1])
from skillkit_core import protocol
protocol.main
owner = None
for name, module in list(sys.modules.items()):
    for attr, value in list(vars(module).items()) if module is not None else ():
        if value is definition and not attr.startswith("__") and name not in initial:
            if getattr(module, "__file__", None) and owner is None:
                owner = (name, attr)
modules = {
    name: getattr(module, "__file__", None)
    for name, module in sys.modules.items()
    if name not in initial
}
with open(sys.argv[2], "w", encoding="utf-8") as handle:
    json.dump({"owner": owner, "modules": modules}, handle)
"""


@dataclass(frozen=True)
class ModuleFile:
    """One module to bundle: its import name, its file, and whether it is a package."""

    name: str
    path: Path

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"

    @property
    def arcname(self) -> str:
        """Its path inside the bundle (relative, ``/``-separated)."""
        parts = self.name.split(".")
        if self.is_package:
            return "/".join([*parts, "__init__.py"])
        return "/".join(parts) + self.path.suffix


@dataclass
class Closure:
    """What to bundle: modules by name, distributions by name (with requested extras),
    the entry's module and attribute, and problems worth a warning."""

    entry_module: str
    entry_attr: str
    modules: dict[str, ModuleFile] = field(default_factory=dict)
    distributions: dict[str, set[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def probe_entry(entry: str) -> tuple[tuple[str, str], dict[str, str | None]]:
    """Load ``entry`` in a fresh interpreter; the (module, attribute) that holds the
    definition and every module the load imported (name → file)."""
    from skillkit_core.lint.load_worker import TIMEOUT_VARIABLE, timeout_from_environment
    from skillkit_core.process_tree import keeper_command, kill_tree

    # The module's own time limit, plus the interpreter's start and skillkit's imports.
    limit = timeout_from_environment() + _PROBE_START
    with tempfile.TemporaryDirectory(prefix="skillkit-probe-") as scratch:
        report = Path(scratch) / "probe.json"
        # -P: the current directory must not shadow modules, as in a real run. The keeper
        # and the session of its own: nothing the module starts outlives the probe.
        command = keeper_command([sys.executable, "-P", "-c", _PROBE, entry, str(report)])
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _, stderr = process.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            process.communicate()
            raise BuildError(
                f"loading {entry} in a fresh interpreter did not finish within {limit:g} s "
                f"(set {TIMEOUT_VARIABLE} to allow longer)"
            ) from None
        finally:
            if process.poll() is None:
                kill_tree(process.pid)
                process.wait()
        if process.returncode != 0 or not report.exists():
            detail = _last_line(stderr) or f"exit code {process.returncode}"
            raise BuildError(f"loading {entry} in a fresh interpreter failed: {detail}")
        data = json.loads(report.read_text(encoding="utf-8"))
    owner = data.get("owner")
    if not owner:
        raise BuildError(f"{entry}: the skill is not a module-level attribute of its file")
    return (owner[0], owner[1]), data["modules"]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def compute_closure(entry: str, environments: list[dict[str, str]]) -> Closure:
    """Everything the bundle of ``entry`` needs, for the given marker ``environments``
    (one per target platform and Python version)."""
    (module_name, attr), loaded = probe_entry(entry)
    closure = Closure(entry_module=module_name, entry_attr=attr)
    finder = _Finder(closure)
    for name, file in sorted(loaded.items()):
        finder.add_loaded(name, file)
    for root in RUNTIME_ROOTS:
        finder.add_package_tree(root)
    for name in RUNTIME_MODULES:
        finder.add_skillkit(name)
    finder.follow_imports()
    _add_requirements(closure, environments)
    return closure


class _Finder:
    """Classifies module names (stdlib, skillkit, the skill's own, third-party) and walks
    the imports of the modules that are bundled as files."""

    def __init__(self, closure: Closure) -> None:
        self.closure = closure
        self.skillkit_dir = Path(__import__(SKILLKIT).__file__).parent
        self.site_dirs = _site_dirs()
        self.local_roots: list[Path] = []
        self.pending: list[ModuleFile] = []
        self._top_level_dists: dict[str, list[str]] | None = None
        self.missing: set[str] = set()

    # -- classification -------------------------------------------------------------

    def add_loaded(self, name: str, file: str | None) -> None:
        top = name.partition(".")[0]
        path = Path(file) if file else None
        if _is_stdlib(top) or (path is not None and _in_stdlib(path)):
            return
        if top == SKILLKIT:
            self.add_skillkit(name)
            return
        if path is not None and path.suffix == ".py" and not self._installed(path):
            root = _root_of(path, name)
            if root is not None:
                if root not in self.local_roots:
                    self.local_roots.append(root)
                self._queue(ModuleFile(name, path))
                return
        self.add_third_party(top, importer=None)

    def add_name(self, name: str, importer: ModuleFile) -> None:
        """A name seen in an import statement of ``importer``."""
        top = name.partition(".")[0]
        if not top or _is_stdlib(top):
            return
        if top == SKILLKIT:
            self.add_skillkit(name)
            return
        local = self._local_file(name)
        if local is not None:
            self._queue(local)
            return
        if self._local_file(top) is not None:
            return  # an attribute imported from a local module, not a module
        self.add_third_party(top, importer=importer)

    def add_skillkit(self, name: str) -> None:
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):
            found = _module_file(self.skillkit_dir.parent, parts[:depth])
            if found is None:
                return  # an attribute imported from a module, not a module
            self._queue(ModuleFile(".".join(parts[:depth]), found))

    def add_package_tree(self, package: str) -> None:
        folder = _module_file(self.skillkit_dir.parent, package.split("."))
        if folder is None or folder.name != "__init__.py":
            raise BuildError(f"skillkit's runtime package {package} is missing")
        self.add_skillkit(package)
        for path in sorted(folder.parent.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            relative = path.relative_to(self.skillkit_dir.parent).with_suffix("")
            parts = list(relative.parts)
            if parts[-1] == "__init__":
                parts.pop()
            self.add_skillkit(".".join(parts))

    def add_third_party(self, top: str, importer: ModuleFile | None) -> None:
        dists = self._dists_of(top)
        if not dists:
            if top not in self.missing:
                self.missing.add(top)
                where = f" (imported by {importer.path})" if importer else ""
                self.closure.warnings.append(
                    f"module '{top}'{where} is not installed here, so it is not bundled; "
                    "the skill fails if it needs it at run time"
                )
            return
        for dist in dists:
            self.closure.distributions.setdefault(dist, set())

    # -- walking ----------------------------------------------------------------------

    def _queue(self, module: ModuleFile) -> None:
        if module.name not in self.closure.modules:
            self.closure.modules[module.name] = module
            self.pending.append(module)
            parent = module.name.rpartition(".")[0]
            if parent and parent.partition(".")[0] != SKILLKIT:
                parent_file = self._local_file(parent)
                if parent_file is not None:
                    self._queue(parent_file)

    def follow_imports(self) -> None:
        exports = _skillkit_exports()
        while self.pending:
            module = self.pending.pop()
            for name in _imported_names(module):
                self.add_name(name, module)
            for attr in _names_from_skillkit(module):
                target = exports.get(attr)
                if target:
                    self.add_skillkit(target)

    # -- lookups ------------------------------------------------------------------------

    def _local_file(self, name: str) -> ModuleFile | None:
        parts = name.split(".")
        for root in self.local_roots:
            found = _module_file(root, parts)
            if found is not None:
                return ModuleFile(name, found)
        return None

    def _installed(self, path: Path) -> bool:
        resolved = path.resolve()
        return any(resolved.is_relative_to(site) for site in self.site_dirs)

    def _dists_of(self, top: str) -> list[str]:
        if self._top_level_dists is None:
            from importlib.metadata import packages_distributions

            self._top_level_dists = packages_distributions()
        return sorted(set(self._top_level_dists.get(top, [])))


@functools.cache
def _site_dirs() -> tuple[Path, ...]:
    paths = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    try:
        import site

        paths.update(site.getsitepackages())
    except AttributeError:  # pragma: no cover - virtualenvs of old
        pass
    return tuple(Path(p).resolve() for p in paths if p)


def _is_stdlib(top: str) -> bool:
    return top in sys.stdlib_module_names or top in sys.builtin_module_names


def _in_stdlib(path: Path) -> bool:
    folders = {sysconfig.get_path("stdlib"), sysconfig.get_path("platstdlib")}
    resolved = path.resolve()
    site = _site_dirs()
    if any(resolved.is_relative_to(s) for s in site):
        return False
    return any(f and resolved.is_relative_to(Path(f).resolve()) for f in folders)


def _root_of(path: Path, name: str) -> Path | None:
    """The ``sys.path`` folder ``path`` was imported from as ``name``."""
    depth = name.count(".") + (1 if path.name == "__init__.py" else 0)
    root = path.parent
    for _ in range(depth):
        root = root.parent
    return root if _module_file(root, name.split(".")) == path else None


def _module_file(root: Path, parts: list[str]) -> Path | None:
    base = root.joinpath(*parts)
    package = base / "__init__.py"
    if package.is_file():
        return package
    module = base.with_name(base.name + ".py")
    if module.is_file():
        return module
    return None


def _skillkit_exports() -> dict[str, str]:
    """``from skillkit_core import NAME`` → the module that really defines NAME."""
    import skillkit_core

    exports = dict(getattr(skillkit_core, "_EXPORTS", {}))
    exports.update(getattr(skillkit_core, "_MODULES", {}))
    return exports


def _parse(module: ModuleFile) -> ast.Module:
    try:
        source = module.path.read_bytes()
        return ast.parse(source, filename=str(module.path))
    except (OSError, SyntaxError, ValueError) as error:
        raise BuildError(f"cannot read {module.path} to find its imports: {error}") from None


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below ``node`` except the bodies of ``if TYPE_CHECKING:`` blocks."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imported_names(module: ModuleFile) -> Iterator[str]:
    """Absolute module names imported anywhere in ``module`` (at run time)."""
    for node in _runtime_nodes(_parse(module)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node.module, node.level)
            if base is None:
                continue
            yield base
            for alias in node.names:
                if alias.name != "*":
                    yield f"{base}.{alias.name}"


def _names_from_skillkit(module: ModuleFile) -> Iterator[str]:
    for node in _runtime_nodes(_parse(module)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == SKILLKIT:
            for alias in node.names:
                yield alias.name


def _absolute(module: ModuleFile, name: str | None, level: int) -> str | None:
    if level == 0:
        return name
    package = module.name if module.is_package else module.name.rpartition(".")[0]
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if name:
        base.append(name)
    return ".".join(base) or None


# -- distributions -------------------------------------------------------------------------


def _add_requirements(closure: Closure, environments: list[dict[str, str]]) -> None:
    """Close ``closure.distributions`` over their requirements (with extras)."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    todo: list[tuple[str, set[str], Any]] = [
        (name, set(extras), None) for name, extras in closure.distributions.items()
    ]
    done: dict[str, set[str]] = {}
    while todo:
        name, extras, wanted = todo.pop()
        key = canonicalize_name(name)
        if key in done and extras <= done[key]:
            continue
        done.setdefault(key, set()).update(extras)
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            raise BuildError(_not_installed(name, wanted, environments)) from None
        for text in dist.requires or ():
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            if _needed(requirement, done[key], environments):
                todo.append((requirement.name, set(requirement.extras), (name, requirement)))
    closure.distributions = {name: extras for name, extras in sorted(done.items())}


def _not_installed(name: str, wanted: Any, environments: list[dict[str, str]]) -> str:
    """Why a distribution the bundle needs cannot be bundled: it is not installed here
    (skillkit bundles the distributions of the environment it runs in), with who needs it
    and, for one only another system needs (pywin32 for mcp on Windows), what to do."""
    if wanted is None:
        return f"distribution '{name}' is not installed"
    parent, requirement = wanted
    marker = getattr(requirement, "marker", None)
    systems = sorted(
        {
            env.get("platform_system", "")
            for env in environments or [{}]
            if marker is None or marker.evaluate({**env, "extra": ""})
        }
        - {""}
    )
    here = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}.get(sys.platform, "")
    needed = f"'{parent}' requires '{name}'" + (f" on {', '.join(systems)}" if systems else "")
    if systems and here not in systems:
        return (
            f"{needed}, which is not installed here and cannot be on this system (skillkit "
            "bundles the distributions of the environment it runs in): build for "
            f"{' and '.join(systems)} on {' or '.join(systems)}, or leave it out of --targets"
        )
    return f"{needed}, which is not installed here: install it, then build again"


def _needed(requirement: object, extras: set[str], environments: list[dict[str, str]]) -> bool:
    marker = getattr(requirement, "marker", None)
    if marker is None:
        return True
    for environment in environments or [{}]:
        for extra in ("", *sorted(extras)):
            if marker.evaluate({**environment, "extra": extra}):
                return True
    return False


def marker_environment(target_id: str, python: str) -> dict[str, str]:
    """The PEP 508 marker values of ``target_id`` running CPython ``python``."""
    os_name, _, arch = target_id.partition("-")
    machine = {
        ("linux", "x64"): "x86_64",
        ("linux", "arm64"): "aarch64",
        ("darwin", "x64"): "x86_64",
        ("darwin", "arm64"): "arm64",
        ("windows", "x64"): "AMD64",
    }.get((os_name, arch), arch)
    return {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "implementation_version": f"{python}.0",
        "sys_platform": {"windows": "win32"}.get(os_name, os_name),
        "platform_system": {"linux": "Linux", "darwin": "Darwin", "windows": "Windows"}.get(
            os_name, os_name
        ),
        "os_name": "nt" if os_name == "windows" else "posix",
        "platform_machine": machine,
        "platform_release": "",
        "platform_version": "",
    }


@dataclass(frozen=True)
class DistFiles:
    """The files of one installed distribution: ``(name in the bundle, file on disk)``."""

    name: str
    version: str
    native: bool
    files: tuple[tuple[str, Path], ...]
    editable: bool = False


def distribution_files(name: str) -> DistFiles:
    """The files to bundle for the installed distribution ``name``."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(name)
    except PackageNotFoundError:
        raise BuildError(f"distribution '{name}' is not installed") from None
    root = Path(str(dist.locate_file("")))
    listed = sorted({str(p).replace("\\", "/") for p in dist.files or ()})
    files = tuple((f, root / f) for f in listed if _bundled(f))
    wheel = dist.read_text("WHEEL") or ""
    native = "Root-Is-Purelib: false" in wheel or any(
        arcname.endswith((".so", ".pyd", ".dylib")) for arcname, _ in files
    )
    editable = _is_editable(dist)
    if editable:
        metadata = tuple((a, p) for a, p in files if a.split("/")[0].endswith(".dist-info"))
        files = metadata + tuple(_editable_files(dist))
    return DistFiles(dist.metadata["Name"], dist.version, native, files, editable)


def _bundled(relative: str) -> bool:
    parts = relative.split("/")
    if parts[0] in ("..", "") or "__pycache__" in parts or relative.endswith(".pyc"):
        return False
    if parts[0].endswith(".dist-info") and parts[-1] in _INSTALL_ONLY:
        return False
    return not parts[0].endswith(".pth")


def _is_editable(dist: object) -> bool:
    text = dist.read_text("direct_url.json")  # type: ignore[attr-defined]
    if not text:
        return False
    try:
        return bool(json.loads(text).get("dir_info", {}).get("editable"))
    except (ValueError, AttributeError):
        return False


def _editable_files(dist: object) -> Iterator[tuple[str, Path]]:
    """The modules an editable install points at, found through its top-level names."""
    import importlib.util

    top_level = (dist.read_text("top_level.txt") or "").split()  # type: ignore[attr-defined]
    for top in top_level:
        spec = importlib.util.find_spec(top)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        if not spec.submodule_search_locations:
            yield origin.name, origin
            continue
        base = origin.parent
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                yield f"{top}/{path.relative_to(base).as_posix()}", path
