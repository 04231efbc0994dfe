"""`%taskweaver history`: the conversation's Rounds as a table (Markdown, and plain text for terminals)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.memory import format_cost
from twnb.render import autosave_note, escape_markdown_inline, plain_text, shorten, spent_tokens, state_label

if TYPE_CHECKING:
    from twnb.memory import Conversation

# A new kernel starts with an empty conversation even when the notebook shows earlier Rounds: say so,
# and how to get them back, rather than "nothing here".
NO_ROUNDS = (
    "No Rounds in this kernel's session (a new kernel starts with an empty conversation, even when "
    "Rounds show above). %taskweaver load --latest brings back the newest autosave, "
    "%taskweaver load PATH a saved conversation (YAML, or a notebook the Rounds ran in or were exported to); "
    "a %%taskweaver cell starts a new Round."
)

COLUMNS = ("#", "round", "state", "posts", "time", "tokens", "cost", "request")
_REQUEST_CHARS = 70


def history_rows(conversation: Conversation) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for number, round in enumerate(conversation.rounds, start=1):
        extra = round.extra or {}
        duration = (extra.get("timing") or {}).get("duration_s")
        spent = spent_tokens(extra.get("usage"), extra.get("ledger"))
        tokens = f"{'~' if spent.estimated else ''}{spent.tokens_in + spent.tokens_out:,}" if spent else "-"
        cost = ((extra.get("ledger") or {}).get("totals") or {}).get("cost")
        request = shorten(" ".join(plain_text(round.user_query).split()), _REQUEST_CHARS)
        rows.append(
            (
                str(number),
                round.id,
                state_label(round.state, extra.get("failure_reason"))
                + (", undone" if extra.get("undone") else "")
                + (", not autosaved" if autosave_note({"extra": extra}) else ""),
                str(len(round.post_list)),
                f"{duration:.1f} s" if isinstance(duration, (int, float)) else "-",
                tokens,
                format_cost(cost) if isinstance(cost, (int, float)) else "-",
                request,
            )
        )
    return rows


def history_bundle(conversation: Conversation) -> dict[str, str]:
    rows = history_rows(conversation)
    if not rows:
        return {"text/plain": NO_ROUNDS, "text/markdown": NO_ROUNDS}
    return table_bundle(COLUMNS, rows, code_column=1)


def table_bundle(
    columns: tuple[str, ...], rows: list[tuple[str, ...]], code_column: int | None = None
) -> dict[str, str]:
    """Rows as a plain-text table (aligned columns) and a Markdown table (cells escaped)."""
    widths = [max(len(column), *(len(row[i]) for row in rows)) for i, column in enumerate(columns)]
    plain = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in (columns, *rows)
    ]
    markdown = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        cells = [escape_markdown_inline(cell).replace("|", "&#124;") for cell in row]
        if code_column is not None:
            cells[code_column] = f"`{row[code_column]}`"
        markdown.append("| " + " | ".join(cells) + " |")
    return {"text/plain": "\n".join(plain), "text/markdown": "\n".join(markdown)}
