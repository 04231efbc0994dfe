"""analysis layer: one reading of a piece of code, which the layers that judge code ask questions of.

`analyse(tree)` resolves the names of parsed code in one pass (names.py): imports and their aliases,
modules bound to names, loop and comprehension variables, parameters, the code's own functions, in
Python's scopes. `resolve_path` judges a dotted path from the module it really reaches (chains.py);
`PathReader` says what a path expression names (paths.py); `magic_body` the Python a magic runs as
text (magic_bodies.py). Verification, risk grades, plugin-only mode and undo's estimate are rules
over these answers (docs/architecture.md, "One analysis of code"). Only the standard library is
imported.
"""

from __future__ import annotations

from twnb.analysis.chains import ChainRules, Resolved, builtin_name, importer_name, resolve_path
from twnb.analysis.magic_bodies import LINE_OPTIONS, TEXT_MAGICS, MagicBody, magic_body
from twnb.analysis.names import (
    ASSIGN,
    AUGMENTED,
    CLASS,
    COMPREHENSION,
    DELETED,
    EXCEPT,
    FREE,
    FROM_IMPORT,
    FUNCTION,
    IMPORT,
    LOOP,
    MATCH,
    PARAMETER,
    UNPACKED,
    WALRUS,
    WITH,
    Binding,
    CodeFacts,
    analyse,
    parameters,
    target_names,
)
from twnb.analysis.paths import (
    ARCHIVES,
    NOT_A_PATH,
    OBJECT_MAKERS,
    OPENERS,
    PATH_TYPES,
    UNKNOWN,
    PathGuess,
    PathReader,
    leaf,
)
from twnb.analysis.sites import Position, binding_sites, end_of, start_of

__all__ = [
    "ARCHIVES",
    "ASSIGN",
    "AUGMENTED",
    "CLASS",
    "COMPREHENSION",
    "DELETED",
    "EXCEPT",
    "FREE",
    "FROM_IMPORT",
    "FUNCTION",
    "IMPORT",
    "LINE_OPTIONS",
    "LOOP",
    "MATCH",
    "NOT_A_PATH",
    "OBJECT_MAKERS",
    "OPENERS",
    "PARAMETER",
    "PATH_TYPES",
    "TEXT_MAGICS",
    "UNKNOWN",
    "UNPACKED",
    "WALRUS",
    "WITH",
    "Binding",
    "ChainRules",
    "CodeFacts",
    "MagicBody",
    "PathGuess",
    "PathReader",
    "Position",
    "Resolved",
    "analyse",
    "binding_sites",
    "builtin_name",
    "end_of",
    "importer_name",
    "leaf",
    "magic_body",
    "parameters",
    "resolve_path",
    "start_of",
    "target_names",
]
