"""From a tree-sitter tree to the parts of a `SourceIndex`.

One C-side query hands over the calls, subscripts, comparisons, ``def``s and returns;
everything else is reached from those nodes. The extractor works on byte offsets and
converts to code-point ranges when it freezes a value.

Each ``.step(...)`` call becomes a *step unit*: its `StepInfo` and every string, act call
and tool guard written inside it. A unit depends only on the step's text, on where it
starts (line and column), on its chain and step numbers and on the file's ``def``s and
reusable ``step(...)`` values; while those stay the same the unit of the previous
version is reused as it is. A keystroke inside one step therefore re-extracts that step
alone, which is what makes re-indexing on every edit cheap.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from skillkit_core.lint.diagnostic import SourceRange
from skillkit_core.source import nodes
from skillkit_core.source.model import (
    ActCall,
    ChainCall,
    ChainInfo,
    Declaration,
    FunctionInfo,
    NextKind,
    OptionValue,
    Owner,
    PromptKind,
    Registration,
    Role,
    StepInfo,
    StepRef,
    StringLit,
    Target,
    ToolGuard,
)
from skillkit_core.source.nodes import Args, unwrap
from skillkit_core.source.positions import LineTable, decode
from skillkit_core.source.scopes import Scope, ScopeTable
from skillkit_core.source.strings import RawString, leading_text, read_string
from skillkit_core.source.units import (
    Extraction,
    LazyArguments,
    RawChain,
    RawStep,
    Segment,
    Standalone,
    StepUnit,
)

CHAIN_METHODS = frozenset({"step", "extend", "register", "subskill", "topic", "build"})
BUILDERS = frozenset({"skill", "module", "reference"})
PIECES = frozenset({"system", "view", "prompt", "fragment"})
STORE_METHODS = {"get": Role.STORE_GET, "all": Role.STORE_ALL, "ran": Role.STORE_RAN}
GUARD_METHODS = frozenset({"count", "index"})
ROUTE_PREFIXES = {"subskill:": Target.SUBSKILL, "topic:": Target.TOPIC}
PARENT_SENTINEL = "__parent__"
_NO_TARGETS = frozenset(
    {
        Role.DEFINITION,
        Role.ENTRY,
        Role.STORE_SUBSCRIPT,
        Role.STORE_GET,
        Role.STORE_ALL,
        Role.STORE_RAN,
    }
)
_VALUE_KEYS = (b'"value"', b"'value'")
# A half-typed file can lose a chain's structure; step names still read like this.
_RECOVER_STEP = re.compile(rb"""\.(step|extend)\(\s*(?:name\s*=\s*)?(["'])([^"'\\\r\n]*)\2""")


class Extractor:
    """Collects the index of one tree; `run` returns an `Extraction`."""

    def __init__(
        self,
        data: bytes,
        lines: LineTable,
        captured: dict[str, list[Any]],
        previous_units: dict[tuple[Any, ...], StepUnit] | None = None,
    ) -> None:
        self.data = data
        self.lines = lines
        self.captured = {name: nodes.document_order(found) for name, found in captured.items()}
        self.previous_units = previous_units or {}
        self.errors = [(node.start_byte, node.end_byte) for node in self.captured.get("error", [])]
        self.defs: dict[str, Any] = {}
        self.chains: list[RawChain] = []
        self.steps: list[RawStep] = []
        self.standalones: list[Standalone] = []
        self.items: list[tuple[str, Any, Any]] = []  # (kind, node, detail) found outside chains
        self.scopes = ScopeTable([])
        self.standalone_owners: dict[int, dict[str, tuple[Owner, ...]]] = {}
        self.extend_bases: dict[str, int] = {}
        self.def_owners: dict[str, set[Owner]] = {}
        self.next_defs: dict[str, list[Owner]] = {}
        self.returns_known_cache: dict[str, bool] = {}
        self.refs: list[StepRef] = []
        self.acts: list[ActCall] = []
        self.guards: list[ToolGuard] = []
        self._strings: dict[int, RawString | None] = {}
        self._args: dict[int, Args] = {}
        self.guard_root: Any = None  # a near ancestor to find guarded code from (see _guard)

    # ---- small helpers -------------------------------------------------------------

    def text(self, node: Any) -> str:
        return nodes.text(node, self.data)

    def range(self, start: int, end: int) -> SourceRange:
        return self.lines.range(start, end)

    def node_range(self, node: Any) -> SourceRange:
        return self.lines.range(node.start_byte, node.end_byte)

    def string(self, node: Any) -> RawString | None:
        """The string literal ``node`` is, or None (decoded once per node)."""
        if node is None or node.type != "string":
            return None
        key = node.id
        if key not in self._strings:
            self._strings[key] = read_string(node, self.data)
        return self._strings[key]

    def literal(self, raw: RawString) -> StringLit:
        return StringLit(
            value=raw.value,
            range=self.range(raw.start, raw.end),
            inner=self.range(raw.inner_start, raw.inner_end),
            prefix=raw.prefix,
            terminated=raw.terminated,
        )

    def args(self, call: Any) -> Args:
        """The arguments of ``call`` (read once per node)."""
        found = self._args.get(call.id)
        if found is None:
            found = self._args[call.id] = nodes.read_args(call, self.data)
        return found

    def lazy_args(self, args: Args) -> LazyArguments:
        items = tuple(
            (
                name,
                (argument.start_byte, argument.end_byte),
                (value.start_byte, value.end_byte),
                self.string(value) if value.type == "string" else None,
            )
            for name, argument, value in args.items
        )
        return LazyArguments(items, self.lines)

    # ---- the pipeline --------------------------------------------------------------

    def run(self) -> Extraction:
        for node in self.captured.get("def", []):
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                self.defs[self.text(name_node)] = node
        self.classify_calls()
        self.chain_members()
        self.match_units()
        self.build_scopes()
        buckets = self.bucket_items()
        self.find_standalone_users()
        for step in self.steps:
            if step.unit is None:
                step.unit = self.extract_unit(step, buckets.get(step.index, []))
        self.resolve_def_owners(buckets.get(-1, []))
        self.extract_outside_steps(buckets.get(-1, []))
        functions = self.freeze_functions()
        chain_refs = self.chain_refs()
        for step in self.steps:
            assert step.unit is not None
            if step.unit.info is None:
                step.unit.info = self.step_info(step)
        self.recover_steps()
        return self.assemble(functions, chain_refs)

    # ---- chains ------------------------------------------------------------------

    def classify_calls(self) -> None:
        claimed: set[int] = set()
        segments: list[Segment] = []
        for call in self.captured.get("call", []):
            if call.id in claimed:
                continue
            function = call.child_by_field_name("function")
            if function is None:
                continue
            if (
                function.type == "attribute"
                and nodes.method_name(function, self.data) in CHAIN_METHODS
            ):
                segments.append(self._segment(call, claimed))
            elif self._builder_kind(call):
                claimed.add(call.id)
                segments.append(Segment(top=call, root=call, methods=[]))
            else:
                self._classify_plain_call(call, function)
        for segment in segments:
            if self._builder_kind(segment.root):
                self._new_chain(segment)
        for segment in segments:
            if segment.root is not None and segment.root.type == "identifier":
                self._continue_chain(segment)

    def _classify_plain_call(self, call: Any, function: Any) -> None:
        data = self.data
        if function.type == "identifier":
            name = self.text(function)
            if name == "branch":
                self.items.append(("branch", call, None))
            elif name == "step":
                var, _ = nodes.binding(call, data)
                self.standalones.append(Standalone(var, call, self.args(call)))
            if name in self.defs:
                self.items.append(("use", call, name))
            return
        if function.type != "attribute":
            return
        method = nodes.method_name(function, data)
        target = unwrap(function.child_by_field_name("object"))
        if target is None:
            return
        if nodes.is_act(target, data):
            self.items.append(("act", call, None))
        elif method in STORE_METHODS and nodes.is_steps_accessor(target, data):
            self.items.append(("store", call, STORE_METHODS[method]))
        elif method in GUARD_METHODS and nodes.is_tools_available(target, data):
            self.items.append(("guard-call", call, method))

    def _segment(self, call: Any, claimed: set[int]) -> Segment:
        methods: list[tuple[str, Any, Any]] = []
        current = call
        root: Any = None
        while True:
            function = current.child_by_field_name("function")
            method = nodes.method_name(function, self.data)
            if function is None or method not in CHAIN_METHODS:
                root = current
                break
            claimed.add(current.id)
            methods.append((method, current, function))
            target = unwrap(function.child_by_field_name("object"))
            if target is None or target.type != "call":
                root = target
                break
            current = target
        if self._builder_kind(root):
            claimed.add(root.id)
        methods.reverse()
        return Segment(top=call, root=root, methods=methods)

    def _builder_kind(self, node: Any) -> str | None:
        if node is None or node.type != "call":
            return None
        function = node.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier":
            name = self.text(function)
        elif function.type == "attribute":
            name = nodes.method_name(function, self.data) or ""
        else:
            return None
        return name if name in BUILDERS else None

    def _new_chain(self, segment: Segment) -> None:
        var, statement = nodes.binding(segment.top, self.data)
        self.chains.append(
            RawChain(
                kind=self._builder_kind(segment.root) or "skill",
                root=segment.root,
                args=self.args(segment.root),
                var=var,
                names=[var] if var else [],
                statement=statement,
                spans=[statement],
                methods=list(segment.methods),
            )
        )

    def _continue_chain(self, segment: Segment) -> None:
        target = self._chain_bound_to(self.text(segment.root), segment.top.start_byte)
        if target is None:
            return
        chain = self.chains[target]
        chain.methods.extend(segment.methods)
        var, statement = nodes.binding(segment.top, self.data)
        chain.spans.append(statement)
        if var and var not in chain.names:
            chain.names.append(var)

    def _chain_bound_to(self, name: str, offset: int) -> int | None:
        # The latest chain bound to ``name`` before ``offset``; else any chain bound to it.
        best: int | None = None
        fallback: int | None = None
        for position, chain in enumerate(self.chains):
            if name not in chain.names:
                continue
            fallback = position if fallback is None else fallback
            if chain.statement[0] < offset:
                best = position
        return best if best is not None else fallback

    def chain_members(self) -> None:
        for chain_index, chain in enumerate(self.chains):
            chain.methods.sort(key=lambda item: item[1].end_byte)
            for method, call, attribute in chain.methods:
                if method in ("step", "extend"):
                    step = RawStep(
                        len(self.steps),
                        chain_index,
                        method,
                        call,
                        attribute,
                        nodes.dot_start(attribute),
                    )
                    self.steps.append(step)
                    chain.steps.append(step.index)
                elif method in ("subskill", "topic"):
                    chain.declarations.append(
                        self._declaration(chain_index, method, call, attribute)
                    )
                elif method == "register":
                    chain.registrations.append((call, self.args(call), attribute))
                elif method == "build":
                    chain.built = True

    def _declaration(self, chain_index: int, method: str, call: Any, attribute: Any) -> Declaration:
        args = self.args(call)
        name = self.string(unwrap(args.first("name")))
        return Declaration(
            kind="subskill" if method == "subskill" else "topic",
            name=name.value if name is not None else None,
            name_string=self.literal(name) if name is not None else None,
            chain=chain_index,
            range=self.range(nodes.dot_start(attribute), call.end_byte),
            _arguments=self.lazy_args(args),
        )

    # ---- reuse ---------------------------------------------------------------------

    def match_units(self) -> None:
        """Key every step and pick up the previous version's unit where the key is equal."""
        context = hashlib.blake2b(digest_size=16)
        for name, node in sorted(self.defs.items()):
            context.update(
                name.encode() + b"\0" + self.data[node.start_byte : node.end_byte] + b"\0"
            )
        for standalone in self.standalones:
            context.update(
                b"step\0" + self.data[standalone.call.start_byte : standalone.call.end_byte]
            )
        digest = context.digest()
        data = self.data
        for step in self.steps:
            end = step.call.end_byte
            step.key = (
                step.chain,
                step.index,
                self.lines.position(step.start),
                data[step.start : end + 1],  # one byte more: "\r" + "\n" is one line break
                digest,
            )
            step.unit = self.previous_units.get(step.key)

    # ---- scopes and owners ---------------------------------------------------------

    def build_scopes(self) -> None:
        scopes: list[Scope] = []
        for index, chain in enumerate(self.chains):
            if chain.args.span is not None:
                scopes.append(_scope("chain", chain.args, index))
            for _, args, _ in chain.registrations:
                if args.span is not None:
                    scopes.append(_scope("chain", args, index, default="register"))
            for method, call, _ in chain.methods:
                if method in ("subskill", "topic"):
                    args = self.args(call)
                    if args.span is not None:
                        scopes.append(_scope("chain", args, index, default=method))
        for step in self.steps:
            arguments = step.call.child_by_field_name("arguments")
            if arguments is None:
                continue
            if step.unit is None:
                step.args = self.args(step.call)
                scopes.append(_scope("step", step.args, step.index, default="name"))
            else:
                scopes.append(
                    Scope("step", arguments.start_byte, arguments.end_byte, step.index, [], "name")
                )
        for position, standalone in enumerate(self.standalones):
            if standalone.args.span is not None:
                scopes.append(_scope("standalone", standalone.args, position))
        for name, node in self.defs.items():
            scopes.append(Scope("def", node.start_byte, node.end_byte, name, [], "body"))
        self.scopes = ScopeTable(scopes)

    def bucket_items(self) -> dict[int, list[tuple[Scope | None, str, Any, Any]]]:
        """Items by the step they are written in (-1: outside every step)."""
        found: list[tuple[str, Any, Any]] = list(self.items)
        found += [("subscript", node, None) for node in self.captured.get("subscript", [])]
        found += [("comparison", node, None) for node in self.captured.get("comparison", [])]
        buckets: dict[int, list[tuple[Scope | None, str, Any, Any]]] = {}
        reused = {step.index for step in self.steps if step.unit is not None}
        for kind, node, detail in found:
            scope = self.scopes.innermost(node.start_byte)
            if scope is not None and scope.kind == "step":
                if int(scope.key) in reused:
                    continue
                buckets.setdefault(int(scope.key), []).append((scope, kind, node, detail))
            else:
                buckets.setdefault(-1, []).append((scope, kind, node, detail))
        return buckets

    def find_standalone_users(self) -> None:
        self.extend_bases = {
            standalone.var: position
            for position, standalone in enumerate(self.standalones)
            if standalone.var
        }
        collected: dict[int, dict[str, list[Owner]]] = {}
        for step in self.steps:
            if step.method != "extend":
                continue
            base, keywords = self._extend_facts(step)
            position = self.extend_bases.get(base) if base is not None else None
            if position is None:
                continue
            slots = collected.setdefault(position, {})
            for name in self.standalones[position].args.keywords:
                if name not in keywords:
                    slots.setdefault(name, []).append(Owner(step.chain, step.index, name))
        self.standalone_owners = {
            position: {slot: tuple(owners) for slot, owners in slots.items()}
            for position, slots in collected.items()
        }

    def _extend_facts(self, step: RawStep) -> tuple[str | None, frozenset[str]]:
        if step.unit is not None:
            return step.unit.base, step.unit.keywords
        assert step.args is not None
        base = unwrap(step.args.second("base_step"))
        return (self.text(base) if base is not None else None), frozenset(step.args.keywords)

    def owners_outside(
        self, scope: Scope | None, offset: int
    ) -> tuple[tuple[Owner, ...], int | None, str | None]:
        """(owners, lexical chain, enclosing def) of code that no step holds."""
        if scope is None:
            return (), None, None
        slot = scope.slot_at(offset)
        if scope.kind == "chain":
            return (Owner(int(scope.key), None, slot),), int(scope.key), None
        if scope.kind == "standalone":
            return self.standalone_owners.get(int(scope.key), {}).get(slot, ()), None, None
        name = str(scope.key)
        return tuple(sorted(self.def_owners.get(name, ()), key=_owner_key)), None, name

    def resolve_def_owners(self, outside: list[tuple[Scope | None, str, Any, Any]]) -> None:
        direct: dict[str, set[Owner]] = {}
        calls_from: dict[str, set[str]] = {}
        for step in self.steps:
            assert step.unit is not None
            for callee, slot in step.unit.def_uses:
                direct.setdefault(callee, set()).add(Owner(step.chain, step.index, slot))
            if step.unit.next_def is not None:
                self.next_defs.setdefault(step.unit.next_def, []).append(
                    Owner(step.chain, step.index, "next")
                )
        for position, standalone in enumerate(self.standalones):
            value = standalone.args.keywords.get("next")
            if value is not None and value.type == "identifier" and self.text(value) in self.defs:
                owners = self.standalone_owners.get(position, {}).get("next", ())
                self.next_defs.setdefault(self.text(value), []).extend(owners)
        for scope, kind, node, callee in outside:
            if kind != "use" or scope is None:
                continue
            if scope.kind == "def":
                if scope.key != callee:
                    calls_from.setdefault(str(scope.key), set()).add(callee)
                continue
            owners, _, _ = self.owners_outside(scope, node.start_byte)
            direct.setdefault(callee, set()).update(owners)
        resolved = {name: set(owners) for name, owners in direct.items()}
        for _ in range(len(self.defs) + 1):
            changed = False
            for caller, callees in calls_from.items():
                caller_owners = resolved.get(caller)
                if not caller_owners:
                    continue
                for callee in callees:
                    known = resolved.setdefault(callee, set())
                    if not caller_owners <= known:
                        known |= caller_owners
                        changed = True
            if not changed:
                break
        self.def_owners = resolved

    # ---- references ----------------------------------------------------------------

    def make_ref(
        self,
        raw: RawString,
        role: Role,
        owners: tuple[Owner, ...],
        chain: int | None,
        function: str | None = None,
    ) -> StepRef | None:
        """A `StepRef` for a literal, or None when it is not a plain string."""
        if raw.value is None:
            return None
        name, target, skip = raw.value, Target.STEP, 0
        if role not in _NO_TARGETS:
            if raw.value == "self":
                target = Target.SELF
            elif raw.value == PARENT_SENTINEL:
                target = Target.PARENT
            else:
                for prefix, kind in ROUTE_PREFIXES.items():
                    if raw.value.startswith(prefix) and raw.raw.startswith(prefix):
                        name, target, skip = raw.value[len(prefix) :], kind, len(prefix)
                        break
        inner = self.range(raw.inner_start, raw.inner_end)
        return StepRef(
            name=name,
            role=role,
            target=target,
            range=self.range(raw.start, raw.end),
            inner=inner,
            name_range=self.range(raw.inner_start + skip, raw.inner_end) if skip else inner,
            chain=chain,
            owners=owners,
            function=function,
        )

    def _add(self, into: list[StepRef], ref: StepRef | None) -> None:
        if ref is not None:
            into.append(ref)

    def item_refs(
        self,
        kind: str,
        node: Any,
        detail: Any,
        owners: tuple[Owner, ...],
        chain: int | None,
        function: str | None,
        into: tuple[list[StepRef], list[ActCall], list[ToolGuard]],
    ) -> None:
        """What one call, subscript or comparison contributes, given who owns it."""
        refs, acts, guards = into
        if kind == "branch":
            raw = self.string(unwrap(self.args(node).first("to")))
            if raw is not None:
                self._add(refs, self.make_ref(raw, Role.BRANCH, owners, chain, function))
        elif kind == "store":
            args = self.args(node)
            raw = self.string(unwrap(args.positional[0])) if args.positional else None
            if raw is not None:
                self._add(refs, self.make_ref(raw, detail, owners, chain, function))
        elif kind == "subscript":
            value = unwrap(node.child_by_field_name("value"))
            raw = self.string(unwrap(node.child_by_field_name("subscript")))
            if raw is not None and nodes.is_steps_accessor(value, self.data):
                self._add(refs, self.make_ref(raw, Role.STORE_SUBSCRIPT, owners, chain, function))
        elif kind == "act":
            act = self.act_call(node, owners, function)
            if act is not None:
                acts.append(act)
        elif kind == "comparison":
            guard = self._comparison_guard(node, owners, function)
            if guard is not None:
                guards.append(guard)
        elif kind == "guard-call":
            args = self.args(node)
            raw = self.string(unwrap(args.positional[0])) if args.positional else None
            if raw is not None:
                guards.append(
                    self._guard(
                        raw, "count" if detail == "count" else "index", node, owners, function
                    )
                )

    def extract_unit(
        self, step: RawStep, items: list[tuple[Scope | None, str, Any, Any]]
    ) -> StepUnit:
        """Extract one step afresh: its strings, act calls, guards and uses of defs."""
        args = step.args if step.args is not None else self.args(step.call)
        step.args = args
        refs: list[StepRef] = []
        acts: list[ActCall] = []
        guards: list[ToolGuard] = []
        name = self.string(unwrap(args.first("name")))
        if name is not None:
            self._add(
                refs,
                self.make_ref(
                    name, Role.DEFINITION, (Owner(step.chain, step.index, "name"),), step.chain
                ),
            )
        self.guard_root = step.call.child_by_field_name("arguments")
        for scope, kind, node, detail in items:
            slot = scope.slot_at(node.start_byte) if scope is not None else "name"
            self.item_refs(
                kind,
                node,
                detail,
                (Owner(step.chain, step.index, slot),),
                step.chain,
                None,
                (refs, acts, guards),
            )
        self.guard_root = None
        def_uses = [
            (callee, scope.slot_at(node.start_byte))
            for scope, kind, node, callee in items
            if kind == "use" and scope is not None
        ]
        next_def = None
        for keyword, _, value in args.items:
            if keyword is not None and value.type == "identifier" and self.text(value) in self.defs:
                def_uses.append((self.text(value), keyword))
                if keyword == "next":
                    next_def = self.text(value)
        on_max = self.string(unwrap(args.keywords.get("on_max_visits")))
        if on_max is not None:
            self._add(
                refs,
                self.make_ref(
                    on_max,
                    Role.ON_MAX_VISITS,
                    (Owner(step.chain, step.index, "on_max_visits"),),
                    step.chain,
                ),
            )
        if "next" in args.keywords:
            self.record_next(
                unwrap(args.keywords["next"]),
                (Owner(step.chain, step.index, "next"),),
                step.chain,
                refs,
            )
        base = unwrap(args.second("base_step")) if step.method == "extend" else None
        call = ChainCall(
            method=step.method,
            range=self.range(step.start, step.call.end_byte),
            method_range=self.node_range(
                step.attribute.child_by_field_name("attribute") or step.attribute
            ),
            _arguments=self.lazy_args(args),
        )
        refs.sort(key=_ref_key)
        return StepUnit(
            info=None,
            call=call,
            refs=refs,
            acts=acts,
            guards=guards,
            def_uses=def_uses,
            keywords=frozenset(args.keywords),
            base=self.text(base) if base is not None else None,
            next_def=next_def,
        )

    def record_next(
        self, value: Any, owners: tuple[Owner, ...], chain: int | None, into: list[StepRef]
    ) -> None:
        """Record the literal targets of a ``next`` value (a string, a lambda's returns)."""
        if value is None:
            return
        if value.type == "lambda":
            leaves, _ = nodes.literal_leaves(value.child_by_field_name("body"))
            role = Role.NEXT_RETURN
        elif value.type in ("string", "conditional_expression"):
            leaves, _ = nodes.literal_leaves(value)
            role = Role.NEXT
        else:
            return
        for leaf in leaves:
            raw = self.string(leaf)
            if raw is not None:
                self._add(into, self.make_ref(raw, role, owners, chain))

    def next_shape(self, value: Any) -> tuple[NextKind, bool]:
        """Kind of a ``next`` value and whether all its targets are literals."""
        if value is None:
            return NextKind.MISSING, True
        kind = value.type
        if kind in ("string", "conditional_expression", "lambda"):
            leaves, known = nodes.literal_leaves(
                value.child_by_field_name("body") if kind == "lambda" else value
            )
            known = known and all(self._route_known(leaf) for leaf in leaves)
            return (NextKind.CALLABLE if kind == "lambda" else NextKind.STRING), known
        if kind == "list":
            elements = [element for element in value.named_children if element.type != "comment"]
            return NextKind.BRANCHES, all(self._is_literal_branch(element) for element in elements)
        if kind in ("identifier", "attribute"):
            last = nodes.last_name(value, self.data)
            if last == "terminal":
                return NextKind.TERMINAL, True
            if last == "PARENT":
                return NextKind.PARENT, True
            name = self.text(value)
            if kind == "identifier" and name in self.defs:
                return NextKind.CALLABLE, self.returns_known(name)
        return NextKind.EXPRESSION, False

    def _route_known(self, leaf: Any) -> bool:
        raw = self.string(leaf)
        if raw is None:
            return False
        if raw.value is not None:
            return True
        # f"subskill:{x}" leaves the dispatcher: no edge inside the step graph is unknown.
        lead = leading_text(leaf, self.data) or ""
        return any(lead.startswith(prefix) for prefix in ROUTE_PREFIXES)

    def _is_literal_branch(self, element: Any) -> bool:
        element = unwrap(element)
        if element is None or element.type != "call":
            return False
        function = element.child_by_field_name("function")
        if function is None or nodes.last_name(function, self.data) != "branch":
            return False
        target = unwrap(self.args(element).first("to"))
        return target is not None and self._route_known(target)

    def _returns_of(self, name: str) -> list[Any]:
        node = self.defs[name]
        return [
            statement
            for statement in self.captured.get("return", [])
            if node.start_byte <= statement.start_byte < node.end_byte
            and nodes.enclosing_def(statement) == node.id
        ]

    def _return_value(self, statement: Any) -> Any:
        return next((child for child in statement.named_children if child.type != "comment"), None)

    def returns_known(self, name: str) -> bool:
        """Whether every ``return`` of def ``name`` gives a literal (there is one at least)."""
        if name not in self.returns_known_cache:
            statements = self._returns_of(name)
            known = bool(statements)
            for statement in statements:
                leaves, leaves_known = nodes.literal_leaves(self._return_value(statement))
                known = known and leaves_known and all(self._route_known(leaf) for leaf in leaves)
            self.returns_known_cache[name] = known
        return self.returns_known_cache[name]

    # ---- what lies outside steps ---------------------------------------------------

    def extract_outside_steps(self, outside: list[tuple[Scope | None, str, Any, Any]]) -> None:
        for scope, kind, node, detail in outside:
            owners, chain, function = self.owners_outside(scope, node.start_byte)
            self.item_refs(
                kind, node, detail, owners, chain, function, (self.refs, self.acts, self.guards)
            )
        for position, standalone in enumerate(self.standalones):
            owners = self.standalone_owners.get(position, {})
            self.record_next(
                unwrap(standalone.args.keywords.get("next")),
                owners.get("next", ()),
                None,
                self.refs,
            )
            on_max = self.string(unwrap(standalone.args.keywords.get("on_max_visits")))
            if on_max is not None:
                self._add(
                    self.refs,
                    self.make_ref(
                        on_max, Role.ON_MAX_VISITS, owners.get("on_max_visits", ()), None
                    ),
                )

    def def_return_refs(self, name: str) -> list[StepRef]:
        owners = tuple(sorted(set(self.next_defs.get(name, [])), key=_owner_key))
        found: list[StepRef] = []
        for statement in self._returns_of(name):
            leaves, _ = nodes.literal_leaves(self._return_value(statement))
            for leaf in leaves:
                raw = self.string(leaf)
                if raw is not None:
                    self._add(found, self.make_ref(raw, Role.NEXT_RETURN, owners, None, name))
        return found

    def freeze_functions(self) -> list[FunctionInfo]:
        frozen: list[FunctionInfo] = []
        for name, node in self.defs.items():
            used_as_next = name in self.next_defs
            owners = tuple(sorted(self.def_owners.get(name, ()), key=_owner_key))
            if not used_as_next and not owners:
                continue
            returns = self.def_return_refs(name) if used_as_next else []
            self.refs.extend(returns)
            name_node = node.child_by_field_name("name")
            frozen.append(
                FunctionInfo(
                    name=name,
                    range=self.node_range(node),
                    name_range=self.node_range(name_node if name_node is not None else node),
                    returns=tuple(returns),
                    returns_known=used_as_next and self.returns_known(name),
                    used_as_next=used_as_next,
                    owners=owners,
                )
            )
        frozen.sort(key=lambda info: (info.range.line, info.range.column))
        return frozen

    def chain_refs(self) -> dict[int, tuple[StepRef | None, list[Registration]]]:
        found: dict[int, tuple[StepRef | None, list[Registration]]] = {}
        for index, chain in enumerate(self.chains):
            raw = self.string(unwrap(chain.args.keywords.get("entry")))
            entry = (
                self.make_ref(raw, Role.ENTRY, (Owner(index, None, "entry"),), index)
                if raw is not None
                else None
            )
            self._add(self.refs, entry)
            registrations = [
                self._registration(index, call, args, attribute)
                for call, args, attribute in chain.registrations
            ]
            found[index] = (entry, registrations)
        return found

    def _registration(self, index: int, call: Any, args: Args, attribute: Any) -> Registration:
        module = unwrap(args.first("module_def"))
        module_text = self.text(module) if module is not None else ""
        module_chain = None
        if module is not None and module.type == "identifier":
            bound = self._chain_bound_to(module_text, call.start_byte)
            if bound is not None and self.chains[bound].kind == "module":
                module_chain = bound
        elif module is not None and module.type == "call":
            for position, chain in enumerate(self.chains):
                if (
                    module.start_byte <= chain.statement[0] < module.end_byte
                    and chain.kind == "module"
                ):
                    module_chain = position
        raw = self.string(unwrap(args.keywords.get("next")))
        ref = (
            self.make_ref(raw, Role.NEXT, (Owner(index, None, "register"),), index)
            if raw is not None
            else None
        )
        self._add(self.refs, ref)
        return Registration(
            module=module_text,
            module_chain=module_chain,
            next=ref,
            range=self.range(nodes.dot_start(attribute), call.end_byte),
        )

    # ---- act calls and guards ------------------------------------------------------

    def act_call(
        self, call: Any, owners: tuple[Owner, ...], function: str | None
    ) -> ActCall | None:
        attribute = call.child_by_field_name("function")
        name_node = attribute.child_by_field_name("attribute") if attribute is not None else None
        if name_node is None:
            return None
        primitive = self.text(name_node)
        args = self.args(call)
        options = self._options(args.keywords.get("options")) if primitive == "ask_user" else []
        return ActCall(
            primitive=primitive,
            range=self.node_range(call),
            name_range=self.node_range(name_node),
            options=tuple(options),
            owners=owners,
            function=function,
            _arguments=self.lazy_args(args),
        )

    def _options(self, value: Any) -> list[OptionValue]:
        value = unwrap(value)
        if value is None or value.type not in ("list", "tuple"):
            return []
        found: list[OptionValue] = []
        for element in value.named_children:
            if element.type != "dictionary":
                continue
            for pair in element.named_children:
                key = pair.child_by_field_name("key") if pair.type == "pair" else None
                if key is None or self.data[key.start_byte : key.end_byte] not in _VALUE_KEYS:
                    continue
                raw = self.string(unwrap(pair.child_by_field_name("value")))
                if raw is not None:
                    found.append(
                        OptionValue(
                            value=raw.value,
                            range=self.range(raw.start, raw.end),
                            inner=self.range(raw.inner_start, raw.inner_end),
                        )
                    )
        return found

    def _comparison_guard(
        self, node: Any, owners: tuple[Owner, ...], function: str | None
    ) -> ToolGuard | None:
        operands = [child for child in node.children if child.is_named and child.type != "comment"]
        operators = [child.type for child in node.children if not child.is_named]
        if len(operands) != 2 or len(operators) != 1 or operators[0] not in ("in", "not in"):
            return None
        raw = self.string(unwrap(operands[0]))
        if raw is None or not nodes.is_tools_available(unwrap(operands[1]), self.data):
            return None
        return self._guard(raw, "in" if operators[0] == "in" else "not in", node, owners, function)

    def _guard(
        self,
        raw: RawString,
        form: Any,
        expression: Any,
        owners: tuple[Owner, ...],
        function: str | None,
    ) -> ToolGuard:
        scope = None
        if form != "not in":
            root = self.guard_root
            path = nodes.ancestors(root, expression) if root is not None else None
            scope = nodes.guarded_code(expression, path or None)
        return ToolGuard(
            tool=raw.value,
            form=form,
            range=self.range(raw.start, raw.end),
            inner=self.range(raw.inner_start, raw.inner_end),
            expression_range=self.node_range(expression),
            scope=self.node_range(scope) if scope is not None else None,
            owners=owners,
            function=function,
        )

    # ---- steps ---------------------------------------------------------------------

    def step_info(self, step: RawStep) -> StepInfo:
        unit = step.unit
        assert unit is not None
        args = step.args if step.args is not None else Args()
        base = self._extend_base(step)
        next_value = unwrap(args.keywords.get("next"))
        if next_value is None and step.method == "extend" and base is not None:
            next_value = unwrap(base.args.keywords.get("next"))
        if next_value is None and step.method == "extend" and base is None:
            next_kind, next_known = NextKind.MISSING, False
        else:
            next_kind, next_known = self.next_shape(next_value)
        name = self.string(unwrap(args.first("name")))
        definition = next((ref for ref in unit.refs if ref.role == Role.DEFINITION), None)
        name_string = None
        if definition is not None and name is not None:
            name_string = StringLit(
                name.value, definition.range, definition.inner, name.prefix, name.terminated
            )
        elif name is not None:
            name_string = self.literal(name)
        response = args.keywords.get("response")
        max_visits = args.keywords.get("max_visits")
        on_max = next((ref for ref in unit.refs if ref.role == Role.ON_MAX_VISITS), None)
        return StepInfo(
            index=step.index,
            name=name.value if name is not None else None,
            name_string=name_string,
            chain=step.chain,
            method="extend" if step.method == "extend" else "step",
            range=unit.call.range,
            method_range=unit.call.method_range,
            prompt=self.prompt_kind(args, base),
            primitives=self._primitives(step, unit),
            response=self.text(response) if response is not None else None,
            next=next_kind,
            next_known=next_known,
            max_visits=self.text(max_visits) if max_visits is not None else None,
            on_max_visits=on_max,
            base=unit.base,
            _arguments=unit.call._arguments,
        )

    def _primitives(self, step: RawStep, unit: StepUnit) -> tuple[str, ...]:
        # Act calls in the prompt, and in the defs the prompt uses.
        owner = Owner(step.chain, step.index, "prompt")
        found = [act for act in unit.acts if owner in act.owners]
        found += [act for act in self.acts if owner in act.owners]
        found.sort(key=lambda act: (act.range.line, act.range.column))
        return tuple(act.primitive for act in found)

    def _extend_base(self, step: RawStep) -> Standalone | None:
        if step.method != "extend" or step.unit is None or step.unit.base is None:
            return None
        position = self.extend_bases.get(step.unit.base)
        return self.standalones[position] if position is not None else None

    def prompt_kind(self, args: Args, base: Standalone | None) -> PromptKind:
        value = unwrap(args.keywords.get("prompt"))
        if value is None and base is not None:
            value = unwrap(base.args.keywords.get("prompt"))
        if value is None:
            return PromptKind.MISSING
        kind = value.type
        if kind in ("string", "concatenated_string"):
            return PromptKind.STRING
        if kind == "lambda":
            return PromptKind.CALLABLE
        if kind in ("list", "tuple"):
            return PromptKind.LIST
        if kind == "identifier":
            return PromptKind.CALLABLE if self.text(value) in self.defs else PromptKind.EXPRESSION
        if kind == "call":
            function = unwrap(value.child_by_field_name("function"))
            if function is not None and function.type == "attribute":
                target = unwrap(function.child_by_field_name("object"))
                if target is not None and nodes.is_act(target, self.data):
                    return PromptKind.ACT
            if function is not None and nodes.last_name(function, self.data) in PIECES:
                return PromptKind.PIECE
        return PromptKind.EXPRESSION

    def recover_steps(self) -> None:
        """Steps a syntax error hid from the tree, found by their ``.step("name"`` text."""
        if not self.errors or not self.chains:
            return
        known = {
            ref.range
            for step in self.steps
            if step.unit
            for ref in step.unit.refs
            if ref.role == Role.DEFINITION
        }
        starts = sorted((chain.statement[0], index) for index, chain in enumerate(self.chains))
        for match in _RECOVER_STEP.finditer(self.data):
            chain_index = None
            for start, index in starts:
                if start <= match.start():
                    chain_index = index
            if chain_index is None or self.range(match.start(2), match.end()) in known:
                continue
            raw = RawString(
                start=match.start(2),
                end=match.end(),
                inner_start=match.start(3),
                inner_end=match.end(3),
                value=decode(match.group(3)),
                raw=decode(match.group(3)),
                prefix="",
                terminated=True,
            )
            index = len(self.steps)
            method = "extend" if match.group(1) == b"extend" else "step"
            ref = self.make_ref(
                raw, Role.DEFINITION, (Owner(chain_index, index, "name"),), chain_index
            )
            method_range = self.range(match.start() + 1, match.start() + 1 + len(method))
            info = StepInfo(
                index=index,
                name=raw.value,
                name_string=self.literal(raw),
                chain=chain_index,
                method=method,
                range=self.range(match.start(), match.end()),
                method_range=method_range,
                prompt=PromptKind.MISSING,
                primitives=(),
                response=None,
                next=NextKind.MISSING,
                next_known=False,
                max_visits=None,
                on_max_visits=None,
                base=None,
                recovered=True,
            )
            unit = StepUnit(
                info,
                ChainCall(method, info.range, method_range),
                [ref] if ref else [],
                [],
                [],
                [],
                frozenset(),
                None,
                None,
            )
            self.steps.append(
                RawStep(index, chain_index, method, None, None, match.start(), unit=unit)
            )
            self.chains[chain_index].steps.append(index)

    # ---- assembling ----------------------------------------------------------------

    def assemble(
        self,
        functions: list[FunctionInfo],
        chain_refs: dict[int, tuple[StepRef | None, list[Registration]]],
    ) -> Extraction:
        steps: list[StepInfo] = []
        refs = list(self.refs)
        acts = list(self.acts)
        guards = list(self.guards)
        units: dict[tuple[Any, ...], StepUnit] = {}
        for step in self.steps:
            unit = step.unit
            assert unit is not None and unit.info is not None
            steps.append(unit.info)
            refs += unit.refs
            acts += unit.acts
            guards += unit.guards
            if step.key:
                units[step.key] = unit
        calls = {
            step.call.id: step.unit.call
            for step in self.steps
            if step.call is not None and step.unit
        }
        chains = [
            self._freeze_chain(index, chain, steps, chain_refs[index], calls)
            for index, chain in enumerate(self.chains)
        ]
        refs.sort(key=_ref_key)
        acts.sort(key=lambda act: (act.range.line, act.range.column))
        guards.sort(key=lambda guard: (guard.range.line, guard.range.column))
        return Extraction(chains, steps, refs, acts, guards, functions, units)

    def _freeze_chain(
        self,
        index: int,
        chain: RawChain,
        steps: list[StepInfo],
        refs: tuple[StepRef | None, list[Registration]],
        step_calls: dict[int, ChainCall],
    ) -> ChainInfo:
        entry, registrations = refs
        name = self.string(unwrap(chain.args.keywords.get("name")))
        calls: list[ChainCall] = []
        for method, call, attribute in chain.methods:
            known = step_calls.get(call.id)
            if known is not None:
                calls.append(known)
                continue
            calls.append(
                ChainCall(
                    method=method,
                    range=self.range(nodes.dot_start(attribute), call.end_byte),
                    method_range=self.node_range(
                        attribute.child_by_field_name("attribute") or attribute
                    ),
                    _arguments=self.lazy_args(self.args(call)),
                )
            )
        complete = all(steps[p].name is not None for p in chain.steps) and all(
            registration.module_chain is not None for registration in registrations
        )
        has_errors = any(
            start <= span_end and span_start <= end
            for start, end in self.errors
            for span_start, span_end in chain.spans
        )
        return ChainInfo(
            index=index,
            kind=chain.kind,  # type: ignore[arg-type]
            var=chain.var,
            names=tuple(chain.names),
            name=self.literal(name) if name is not None else None,
            entry=entry,
            range=self.node_range(chain.root),
            statement_range=self.range(*chain.statement),
            extent=self.range(
                min(start for start, _ in chain.spans), max(end for _, end in chain.spans)
            ),
            calls=tuple(calls),
            steps=tuple(
                sorted(chain.steps, key=lambda p: (steps[p].range.line, steps[p].range.column))
            ),
            subskills=tuple(d for d in chain.declarations if d.kind == "subskill"),
            topics=tuple(d for d in chain.declarations if d.kind == "topic"),
            registrations=tuple(registrations),
            built=chain.built,
            complete=complete,
            has_errors=has_errors,
            _arguments=self.lazy_args(chain.args),
        )


def _scope(kind: Any, args: Args, key: int, default: str = "") -> Scope:
    assert args.span is not None
    slots = [
        (name, value.start_byte, value.end_byte)
        for name, _, value in args.items
        if name is not None
    ]
    return Scope(kind, args.span[0], args.span[1], key, slots, default)


def _owner_key(owner: Owner) -> tuple[int, int, str]:
    return (
        owner.chain if owner.chain is not None else -1,
        owner.step if owner.step is not None else -1,
        owner.slot,
    )


def _ref_key(ref: StepRef) -> tuple[int, int]:
    # Two step-naming strings never start at the same place.
    return (ref.range.line, ref.range.column)
