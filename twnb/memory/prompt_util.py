"""TaskWeaver's `PromptUtil`: temporal delimiters that mark text only the newest round should see."""

from __future__ import annotations

import functools


class PromptUtil:
    DELIMITER_TEMPORAL: tuple[str, str] = ("{{DELIMITER_START_TEMPORAL}}", "{{DELIMITER_END_TEMPORAL}}")

    @staticmethod
    def wrap_text_with_delimiter(text: str, delimiter: tuple[str, str]) -> str:
        return f"{delimiter[0]}{text}{delimiter[1]}"

    @staticmethod
    def get_all_delimiters() -> list[tuple[str, str]]:
        """Every class attribute named `DELIMITER_*`, in name order (as TaskWeaver's `dir()` walk)."""
        return list(_delimiters())

    @staticmethod
    def remove_parts(text: str, delimiter: tuple[str, str]) -> str:
        """Cut every `start ... end` part, markers included.

        Same rule as TaskWeaver: stop at the first start marker without an end marker after it (or
        an end marker before it), leaving the rest unchanged. Kept pieces are joined once at the end
        so many parts cost linear time.
        """
        start_marker, end_marker = delimiter
        kept: list[str] = []
        rest = text
        while True:
            start = rest.find(start_marker)
            end = rest.find(end_marker)
            if start == -1 or end == -1 or end < start:
                break
            kept.append(rest[:start])
            rest = rest[end + len(end_marker) :]
        kept.append(rest)
        return "".join(kept)

    @staticmethod
    def remove_delimiter(text: str, delimiter: tuple[str, str]) -> str:
        return text.replace(delimiter[0], "").replace(delimiter[1], "")

    @staticmethod
    def remove_all_delimiters(text: str) -> str:
        for delimiter in _delimiters():
            text = PromptUtil.remove_delimiter(text, delimiter)
        return text


@functools.cache
def _delimiters() -> tuple[tuple[str, str], ...]:
    """The `dir()` walk done once: every view of every Round cleans its texts with it, and the walk cost
    more than the cleaning (an export of 500 Rounds called it some 39,000 times)."""
    return tuple(getattr(PromptUtil, name) for name in dir(PromptUtil) if name.startswith("DELIMITER_"))
