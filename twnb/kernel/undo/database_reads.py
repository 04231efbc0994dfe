"""Which calls on a database connection (or cursor, engine, relation) only read, from the code.

One rule for the two that ask: undo's in-place estimate (a query does not change `db` in place) and
risky step mode's grades (a statement other than a query, or `to_sql`, changes the database: it pauses).
A call reads when it fetches (`fetchall`, `fetchdf`, ...), opens a cursor or a connection, or turns a
result into a frame (`df`, `pl`, `arrow`), or when it executes (`execute`, `sql`, `query`, ...) a
statement written in the code (a string, an f-string whose placeholders are taken for values or
names, SQLAlchemy's `text("...")`) that only reads: `SELECT`, `WITH ... SELECT`, `VALUES`, `EXPLAIN`,
`SHOW`, `DESCRIBE`, `SUMMARIZE` or a `PRAGMA` that asks. A statement the code does not spell out (a
variable, a computed string) may write: it does not read. Nor does a script holding one that writes, nor any
statement in which a word that writes appears outside its strings and comments (`WITH d AS (...)
DELETE`, `SELECT ... INTO`, `EXPLAIN ANALYZE UPDATE`, `PRAGMA journal_mode = WAL`): a query that only
uses such a word as a name pauses too, which is the safe way to be wrong.
"""

from __future__ import annotations

import ast
import re

# The modules of database connections whose calls may change a database that exists, by the first
# part of their classes' `__module__` (duckdb's connection is `_duckdb.DuckDBPyConnection`).
DATABASE_MODULES: tuple[str, ...] = (
    "sqlite3",
    "duckdb",
    "_duckdb",
    "sqlalchemy",
    "psycopg",
    "psycopg2",
    "pymysql",
    "mysql",
    "pyodbc",
)
# Methods that run the statement they are given.
QUERY_METHODS = frozenset({"execute", "executemany", "executescript", "sql", "query", "exec_driver_sql"})
# Methods that read without a statement: a result's rows, a cursor, a connection from an engine.
READING_CALLS = frozenset(
    {"cursor", "connect", "df", "pl", "arrow", "to_df", "to_arrow_table", "keys", "mappings", "scalars"}
    | {"scalar", "scalar_one", "scalar_one_or_none", "one", "one_or_none", "first", "all", "show"}
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_READING_STARTS = _words("select with values explain show describe summarize pragma")
_WRITING_WORDS = _words(
    "insert update delete merge upsert create drop alter truncate attach detach copy into vacuum "
    "analyze reindex grant revoke set reset call exec execute load install export import checkpoint "
    "begin commit rollback savepoint release lock refresh cluster notify listen do use"
)
# PRAGMAs that take a table or an index name in parentheses and only report on it.
_ASKING_PRAGMAS = _words(
    "table_info table_xinfo index_list index_info index_xinfo foreign_key_list foreign_key_check "
    "integrity_check quick_check table_list"
)
_STRINGS_AND_COMMENTS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def sql_only_reads(statement: str) -> bool:
    """Every statement of `statement` (a script of them, separated by `;`) only reads."""
    text = _STRINGS_AND_COMMENTS.sub(" ", statement)
    parts = [part for part in text.split(";") if part.strip()]
    return bool(parts) and all(_reads(part) for part in parts)


def _reads(part: str) -> bool:
    words = [word.lower() for word in _WORD.findall(part)]
    if not words or words[0] not in _READING_STARTS or any(word in _WRITING_WORDS for word in words):
        return False
    if words[0] == "pragma":
        # `PRAGMA name` asks; `PRAGMA name = value` and `PRAGMA name(value)` set, but for those that
        # take a table's name.
        return "=" not in part and ("(" not in part or (len(words) > 1 and words[-2] in _ASKING_PRAGMAS))
    return True


def statement_of(call: ast.Call) -> str | None:
    """The statement a query method's call is given, as the code spells it out, else None."""
    node: ast.AST | None = call.args[0] if call.args else None
    for keyword in call.keywords:
        if node is None and keyword.arg in ("sql", "query", "statement", "operation", "sql_script"):
            node = keyword.value
    if isinstance(node, ast.Call) and len(node.args) == 1:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == "text":  # SQLAlchemy's text("...")
            node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        # A placeholder is taken for a value or a name (`f"select * from {table}"`): a statement of
        # its own after one (`f"select 1; {more}"`) does not read. A placeholder whose value holds
        # `;` and a statement is not seen from here.
        parts = [v.value if isinstance(v, ast.Constant) else " placeholder " for v in node.values]
        return "".join(str(p) for p in parts)
    return None


def is_database_object(value: object) -> bool:
    """A connection, cursor, engine or result of one of the database libraries."""
    return (getattr(type(value), "__module__", "") or "").split(".")[0] in DATABASE_MODULES


def call_reads_database(method: str, statement: str | None) -> bool:
    """Whether calling `method` on a database object, with `statement` (None: not spelled out in the
    code, or none given), only reads."""
    if method in QUERY_METHODS:
        return statement is not None and sql_only_reads(statement)
    return method.startswith("fetch") or method in READING_CALLS
