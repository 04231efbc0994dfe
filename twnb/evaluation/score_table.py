"""The results of many runs summed up: one line per case and model, and a total per model.

Repeats of a run (`--repeat N`) are one cell: the mean normalized score and its spread (the lowest
and highest, and the standard deviation). Skipped runs and runs that could not finish count apart, so
a model is never scored on cases it did not run.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from twnb.evaluation.case_result import CaseResult
from twnb.evaluation.model_calls import Spend

__all__ = ["Cell", "ModelTotals", "ScoreTable", "format_cost", "format_seconds", "format_tokens"]


@dataclass
class Cell:
    """One case against one model, over its runs."""

    results: list[CaseResult] = field(default_factory=list)

    @property
    def scores(self) -> list[float]:
        return [r.normalized_score for r in self.results if r.normalized_score is not None]

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.scores) if self.scores else None

    @property
    def spread(self) -> tuple[float, float, float] | None:
        """(lowest, highest, standard deviation) over two or more scored runs."""
        scores = self.scores
        if len(scores) < 2:
            return None
        return min(scores), max(scores), statistics.stdev(scores)

    @property
    def status(self) -> str:
        """scored (at least one run scored), skipped, error, or running."""
        statuses = {r.status for r in self.results}
        for status in ("scored", "error", "running", "invalid", "skipped"):
            if status in statuses:
                return status
        return "error"

    def text(self) -> str:
        """How the cell reads in a table: `0.67`, `0.67 (0.33-1.00, sd 0.33, 3 runs)`, `skipped`."""
        mean = self.mean
        if mean is None:
            return self.status
        spread = self.spread
        errors = sum(1 for r in self.results if r.status == "error")
        text = f"{mean:.2f}"
        if spread is not None:
            low, high, sd = spread
            text += f" ({low:.2f}-{high:.2f}, sd {sd:.2f}, {len(self.scores)} runs)"
        if errors:
            text += f" +{errors} error{'s' if errors > 1 else ''}"
        return text


@dataclass
class ModelTotals:
    model: str
    scored: int = 0
    skipped: int = 0
    errors: int = 0
    invalid: int = 0
    mean: float | None = None
    spend: Spend = field(default_factory=Spend)
    seconds: float = 0.0


@dataclass
class ScoreTable:
    models: list[str]
    cases: list[str]
    cells: dict[tuple[str, str], Cell]

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> ScoreTable:
        results = list(results)
        models = list(dict.fromkeys(r.model for r in results))
        cases = list(dict.fromkeys(r.case for r in sorted(results, key=lambda r: r.case)))
        cells: dict[tuple[str, str], Cell] = {}
        for result in sorted(results, key=lambda r: r.run):
            cells.setdefault((result.case, result.model), Cell()).results.append(result)
        return cls(models, cases, cells)

    def cell(self, case: str, model: str) -> Cell | None:
        return self.cells.get((case, model))

    def totals(self, model: str) -> ModelTotals:
        """The model's mean over the cases it scored (each case's mean over its runs), and its spend."""
        totals = ModelTotals(model)
        means = []
        results: list[CaseResult] = []
        for case in self.cases:
            cell = self.cell(case, model)
            if cell is None:
                continue
            results.extend(cell.results)
            if cell.mean is not None:
                means.append(cell.mean)
        totals.scored = len(means)
        totals.skipped = sum(1 for r in results if r.status == "skipped")
        totals.errors = sum(1 for r in results if r.status == "error")
        totals.invalid = sum(1 for r in results if r.status == "invalid")
        totals.mean = statistics.fmean(means) if means else None
        totals.spend = Spend.total(r.spend for r in results)
        totals.seconds = sum(r.seconds for r in results)
        return totals

    def rows(self) -> list[list[str]]:
        """The comparison as text: a header, a row per case, then the totals rows."""
        header = ["case", *self.models]
        rows = [header]
        for case in self.cases:
            row = [case]
            for model in self.models:
                cell = self.cell(case, model)
                row.append(cell.text() if cell is not None else "-")
            rows.append(row)
        totals = [self.totals(model) for model in self.models]
        rows.append(["mean score", *(_mean_text(t) for t in totals)])
        rows.append(["tokens in / out", *(_tokens_text(t.spend) for t in totals)])
        rows.append(["cost", *(format_cost(t.spend) for t in totals)])
        rows.append(["time", *(format_seconds(t.seconds) for t in totals)])
        return rows

    def terminal(self) -> str:
        return _aligned(self.rows())


def _mean_text(totals: ModelTotals) -> str:
    """The mean and what it covers: every case counted, so none is left out unseen."""
    extra = [f"{totals.scored} scored"]
    if totals.skipped:
        extra.append(f"{totals.skipped} skipped")
    if totals.errors:
        extra.append(f"{totals.errors} errors")
    if totals.invalid:
        extra.append(f"{totals.invalid} invalid")
    mean = "-" if totals.mean is None else f"{totals.mean:.2f}"
    return f"{mean} ({', '.join(extra)})"


def format_cost(spend: Spend) -> str:
    """The cost in the prices' unit; `-` without prices, and a note when some calls had none."""
    if spend.calls == 0:
        return "0"
    if spend.cost is None:
        return (
            "- (no prices)"
            if spend.unpriced >= spend.calls
            else f"- ({spend.unpriced} calls without a price)"
        )
    return f"{spend.cost:.4f}" if spend.cost < 1 else f"{spend.cost:,.2f}"


def _tokens_text(spend: Spend) -> str:
    return f"{format_tokens(spend.input_tokens, spend)} / {format_tokens(spend.output_tokens, spend)}"


def format_tokens(count: int, spend: Spend, *, grouped: bool = True) -> str:
    """A token count, `~` in front when some of the calls behind it were estimated (the server sent no
    counts), so an estimate never reads as a measurement."""
    text = f"{count:,}" if grouped else str(count)
    return f"~{text}" if spend.estimated else text


def format_seconds(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s"


def _aligned(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for number, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if number == 0 or number == len(rows) - 5:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)
