"""The environment a served script starts with, and which caller variables it may add.

A script inherits an allow-list of the server's own variables (:data:`INHERITED`) and
then the ``env`` object of the ``skills_run_script`` call. That object comes from the
agent, so it is not trusted with anything that changes *what runs*: a shell, dynamic
loader or interpreter reads many variables before the script's first line (``BASH_ENV``
is expanded by every non-interactive ``bash``, ``PYTHONPATH`` makes ``sitecustomize``
importable, ``LD_PRELOAD`` loads a library into every program, ``NODE_OPTIONS`` can
``--require`` a file). Those names are refused with a tool error, never dropped silently,
so the caller learns why the run did not happen.

The rule, as documented in the MCP guide: a name must be a portable variable name
(``[A-Za-z_][A-Za-z0-9_]*``), and neither equal to a name in :data:`DENIED_NAMES` nor
starting with a prefix in :data:`DENIED_PREFIXES`, compared case-insensitively (some
programs read lower-case spellings, such as ``npm_config_*``). Values may be any string
without NUL.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from skillkit_core.runtime.errors import ToolArgumentsError

# Variables a script inherits from the server; everything else must come through `env`.
INHERITED = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "TERM",
)

# Exact names (upper case) a caller may not set, with the reason shown in the refusal.
DENIED_NAMES: dict[str, str] = {
    # Shells: read or run before the script's first line (bash(1) INVOCATION, dash(1)).
    "BASH_ENV": "bash runs it as a start-up file (and expands it) before the script",
    "ENV": "sh and bash in POSIX mode run it as a start-up file",
    "SHELLOPTS": "it switches bash options on before the script",
    "BASHOPTS": "it switches bash options on before the script",
    "PS4": "bash expands it (command substitution included) for every traced line",
    "PROMPT_COMMAND": "bash runs it as a command",
    "IFS": "it changes how a shell splits every word",
    "CDPATH": "it changes where a shell's cd goes",
    "GLOBIGNORE": "it changes how a shell expands patterns",
    "EXECIGNORE": "it changes which commands a shell finds",
    "ZDOTDIR": "zsh reads its start-up files from there",
    "SHELL": "programs that start a shell run the one it names",
    # Where programs and start-up files are looked up.
    "PATH": "it changes which program every command name runs",
    "HOME": "interpreters read start-up files and user packages from there",
    # The C library and loader (ld.so(8), gconv, GLIBC_TUNABLES).
    "GCONV_PATH": "glibc loads character-set modules (shared libraries) from there",
    "GLIBC_TUNABLES": "it changes how the C library starts in every program",
    "LOCPATH": "glibc loads locale data from there",
    "NLSPATH": "the C library loads message catalogues from there",
    "HOSTALIASES": "it changes how host names resolve",
    "RESOLV_HOST_CONF": "it changes how host names resolve",
    # Interpreters whose options or start-up code come from one variable.
    "CLASSPATH": "java loads classes from there",
    "JAVA_TOOL_OPTIONS": "every JVM takes options (agents included) from it",
    "_JAVA_OPTIONS": "every JVM takes options (agents included) from it",
    "JDK_JAVA_OPTIONS": "the java launcher takes options from it",
    "TCLLIBPATH": "tclsh loads packages from there",
    "PHPRC": "php reads its configuration (auto_prepend_file included) from there",
    "PHP_INI_SCAN_DIR": "php reads extra configuration from there",
    "R_PROFILE": "R runs it at start-up",
    "R_PROFILE_USER": "R runs it at start-up",
    "EDITOR": "programs that open an editor run it as a command",
    "VISUAL": "programs that open an editor run it as a command",
    "PAGER": "programs that page output run it as a command",
    "BROWSER": "programs that open a browser run it as a command",
}

# Whole families (upper-case prefixes) a caller may not set.
DENIED_PREFIXES: dict[str, str] = {
    "LD_": "the dynamic loader reads it (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT…)",
    "DYLD_": "the macOS dynamic loader reads it",
    "PYTHON": "Python reads it at start-up (PYTHONPATH, PYTHONSTARTUP, PYTHONHOME…)",
    "NODE_": "Node.js reads it at start-up (NODE_OPTIONS, NODE_PATH…)",
    "NPM_CONFIG_": "npm and node tools take their configuration from it",
    "PERL": "perl reads it at start-up (PERL5OPT can load modules, PERL5LIB…)",
    "RUBY": "ruby reads it at start-up (RUBYOPT can load libraries, RUBYLIB…)",
    "GEM_": "ruby loads gems from there",
    "BUNDLE_": "bundler takes its configuration from it",
    "LUA_": "lua runs LUA_INIT and loads modules from LUA_PATH",
    "DOTNET_": "the .NET host reads it (DOTNET_STARTUP_HOOKS loads code)",
    "BASH_FUNC_": "bash imports exported functions from it",
    "GIT_": "git runs commands it names (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_*…)",
    "OPENSSL_": "OpenSSL loads configuration and engines (shared libraries) from it",
}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def refusal_reason(name: str) -> str | None:
    """Why a caller may not set ``name``, or ``None`` when it may."""
    upper = name.upper()
    reason = DENIED_NAMES.get(upper)
    if reason is not None:
        return reason
    for prefix, reason in DENIED_PREFIXES.items():
        if upper.startswith(prefix):
            return reason
    return None


def script_environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    """The inherited part of the server's environment, overlaid with the caller's ``extra``.

    Raises :class:`ToolArgumentsError` for a name that is not a portable variable name, a
    denied name (see the module docstring) or a value that is not a string without NUL.
    """
    env = {key: os.environ[key] for key in INHERITED if key in os.environ}
    env.setdefault("PATH", os.defpath)
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not _NAME.match(key):
            raise ToolArgumentsError(
                f"environment variable name {key!r} is not valid: names are letters, digits "
                "and '_', not starting with a digit"
            )
        reason = refusal_reason(key)
        if reason is not None:
            raise ToolArgumentsError(
                f"environment variable {key} is refused: {reason}. A script's env may only "
                "hold variables that cannot change how a shell, loader or interpreter starts"
            )
        if not isinstance(value, str):
            kind = "null" if value is None else type(value).__name__
            raise ToolArgumentsError(
                f"environment variable {key} must be a string, not {kind}: write it in quotes"
            )
        if "\x00" in value:
            raise ToolArgumentsError(f"environment variable {key} holds a NUL character")
        env[key] = value
    return env
