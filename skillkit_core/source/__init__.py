"""The syntax index of a skill source file (tree-sitter; no code execution).

``index_source(text)`` returns a frozen `SourceIndex`: every ``skill()`` / ``module()`` /
``reference()`` chain, each step, every string that names a step (with its role and
exact range), each ``act.*`` call and each host tool guard. The helpers below answer the
language server's questions and compute the structural diagnostics. Importing this
package does not import tree-sitter; the first ``index_source`` call does.
"""

from skillkit_core.source.diagnostics import structural_diagnostics
from skillkit_core.source.graph import StepGraph, namespace, reachable, step_graph
from skillkit_core.source.index import MAX_INDEX_BYTES, index_source
from skillkit_core.source.model import (
    ActCall,
    Argument,
    ChainCall,
    ChainInfo,
    CursorContext,
    Declaration,
    FunctionInfo,
    NextKind,
    OptionValue,
    Owner,
    PromptKind,
    Registration,
    Role,
    SourceIndex,
    StepInfo,
    StepRef,
    StringLit,
    Symbol,
    Target,
    ToolGuard,
)
from skillkit_core.source.parse import SourceEdit, edit_between
from skillkit_core.source.query import (
    chain_at,
    chain_named,
    definition_of,
    definitions,
    name_refs,
    node_at,
    ref_at,
    step_at,
    step_named,
    symbols,
)

__all__ = [
    "MAX_INDEX_BYTES",
    "ActCall",
    "Argument",
    "ChainCall",
    "ChainInfo",
    "CursorContext",
    "Declaration",
    "FunctionInfo",
    "NextKind",
    "OptionValue",
    "Owner",
    "PromptKind",
    "Registration",
    "Role",
    "SourceEdit",
    "SourceIndex",
    "StepGraph",
    "StepInfo",
    "StepRef",
    "StringLit",
    "Symbol",
    "Target",
    "ToolGuard",
    "chain_at",
    "chain_named",
    "definition_of",
    "definitions",
    "edit_between",
    "index_source",
    "name_refs",
    "namespace",
    "node_at",
    "reachable",
    "ref_at",
    "step_at",
    "step_graph",
    "step_named",
    "structural_diagnostics",
    "symbols",
]
