"""TaskWeaver's executor contract (its ces/test_session.py), as cases both executors must meet.

(code, status, result text, stdout, error name). One documented difference: the notebook's kernel
shows a trailing expression only (`last_expr`), so a trailing assignment gives no result, where
TaskWeaver's own kernel (`last_expr_or_assign`) shows the assigned value.
"""

from __future__ import annotations

CONTRACT_CASES = [
    ("'Hello World!'", "success", "'Hello World!'", "", None),
    ("result = 'Hello World!'", "success", None, "", None),
    ("print('Hello World!')", "success", None, "Hello World!\n", None),
    ("Hello World!", "error", None, "", "SyntaxError"),
    ("[1, 2, {", "error", None, "", "SyntaxError"),
    ("Hello_World", "error", None, "", "NameError"),
]
CONTRACT_IDS = ["expression", "assignment", "print", "syntax-error", "incomplete", "name-error"]
