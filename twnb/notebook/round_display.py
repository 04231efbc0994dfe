"""Showing one Round in the cell (docs/architecture.md, contract 6).

With a widget frontend (a Jupyter kernel) the live `RoundView` is displayed with a `display_id`
together with the Round's static bundle. When the Round ends (finished, failed or interrupted) the same
display is updated to the final static bundle alone (`application/vnd.twnb.round+json`, `text/html`,
`text/markdown`, `text/plain`) and the widget is closed: a frontend that finds a widget view in a saved
output picks it, finds no model after a reopen and shows an error instead of any view beside it.
A kernel whose client draws no widgets (nbclient, papermill: the execute request names no cell, see
`has_widget_frontend`) gets no widget, whose state nbclient would save: the static bundle is shown
under the `display_id` at once and updated when the Round ends. Without a kernel (terminal IPython, a
bare shell) milestones are printed as they happen and the final bundle is displayed once, which
prints its `text/plain`.

Code that raised leaves no traceback in the cell (the Round keeps and shows it): an `AttemptLine` says
in one quiet line which attempt raised and that it was revised, and a Round that did not finish ends
that line with its reason.

While a widget Round runs, a `Heartbeat` ticks the view about once a second (elapsed time, held-back
text); `finish` stops it before the final update. The widget's plan checklist follows the session's
plan notebook through a plan-change hook, registered only while the Round runs (`following`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.display import display

from twnb.memory import ObserverGroup, Round
from twnb.notebook.attempt_line import AttemptLine, replay_line
from twnb.notebook.heartbeat import Heartbeat
from twnb.notebook.text_progress import TextProgress
from twnb.render import MIME_TYPE, artifact_previews, round_bundle, terminal_bundle

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import DisplayHandle

    from twnb.memory import Observer, Plan
    from twnb.notebook.round_view import RoundView
    from twnb.session import PlanNotebook

CHECKLIST_HOOK = "twnb.round_view.checklist"  # the name the live widget's hook has on a plan notebook


def has_widget_frontend(shell: InteractiveShell) -> bool:
    """Whether a frontend that draws widgets sent the cell now running.

    Terminal and bare shells carry no widgets. A kernel does, but a headless client (nbclient,
    papermill, `twnb demo`) draws none, and nbclient saves the state of every widget it ever saw,
    closed or not, in the notebook's metadata (about 30 KB per Round). The frontends that draw widgets
    (JupyterLab, Notebook 7, VS Code) name the cell in the execute request's metadata (`cellId`);
    nbclient sends empty metadata. Without that name the Round shows its static bundle alone, updated
    when it ends, and makes no widget. A kernel too old to say what the request was keeps the widget.
    """
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return False
    try:
        request = kernel.get_parent("shell")
    except Exception:  # an ipykernel without get_parent (before 6): no way to tell, show the widget
        return True
    metadata = request.get("metadata") if isinstance(request, dict) else None
    return isinstance(metadata, dict) and bool(metadata.get("cellId"))


def has_kernel(shell: InteractiveShell) -> bool:
    """A kernel's client shows displays and updates them in place; a terminal prints them once."""
    return getattr(shell, "kernel", None) is not None


class RoundDisplay:
    """One Round's output: `observer` watches it, `start()` before and `finish(round)` after (always)."""

    def __init__(
        self,
        request: str,
        *,
        session_id: str,
        widgets: bool,
        in_place: bool = False,
        base_dir: str | Path | None = None,
        redact: Callable[[Any], Any] | None = None,
        conversation_id: str | None = None,
    ) -> None:
        self.request = request
        self.session_id = session_id
        self.conversation_id = conversation_id
        self.widgets = widgets
        # A kernel's client without widgets (nbclient): the static bundle shown at once, updated at the end.
        self.in_place = widgets or in_place
        self.base_dir = base_dir
        self._redact = redact
        self._handle: DisplayHandle | None = None
        self.heartbeat: Heartbeat | None = None
        self.attempt_line: AttemptLine | None = None
        self.round_view: RoundView | None = None  # the live widget, when there are widgets
        self.view: RoundView | AttemptLine | TextProgress
        self.observer: Observer
        if widgets:
            # lazy: ipywidgets (~80 ms) with the live view, for widget front ends only
            from twnb.notebook.round_view import RoundView

            self.view = self.round_view = RoundView(request, base_dir=base_dir)
            self.heartbeat = Heartbeat(self.round_view.tick)
            self.attempt_line = AttemptLine()
            self.observer = ObserverGroup([self.round_view, self.attempt_line])
        elif self.in_place:
            self.attempt_line = AttemptLine()  # nobody watches: no progress printed, one line per attempt
            self.view = self.observer = self.attempt_line
        else:
            self.view = TextProgress()  # prints each attempt and the failure as it happens
            self.observer = self.view

    def start(self) -> None:
        if not self.in_place:
            return

        placeholder = Round.create(user_query=self.request)
        bundle = self._bundle(placeholder, plan=None, previews=[])
        if self.round_view is not None:
            bundle.update(self.round_view.mime_bundle())  # only the live display carries the widget
        self._handle = display(bundle, raw=True, display_id=True)
        if self.heartbeat is not None:
            self.heartbeat.start()

    @contextlib.contextmanager
    def following(self, plans: PlanNotebook) -> Iterator[None]:
        """While the Round runs inside, the widget's checklist hears of each change of the plan notebook
        `plans` (the session's); its hook is removed when the Round ends, however it ends."""
        if self.round_view is None:
            yield  # the text view prints no plan
            return
        plans.register_plan_change_hook(CHECKLIST_HOOK, self.round_view.on_plan_change)
        try:
            yield
        finally:
            plans.remove_plan_change_hook(CHECKLIST_HOOK)

    def finish(self, round: Round, plan: Plan | None = None) -> None:
        """Show the final Round; called from a `finally`, so a failed or interrupted Round is saved too.

        The update carries no widget view, and the widget is closed whatever happens while writing it."""
        if self.heartbeat is not None:
            self.heartbeat.stop()  # no widget update from its thread after this
        try:
            previews = artifact_previews(round, self.base_dir)
            # A kernel's client keeps the cell's outputs, the images the code displayed among them: the
            # bundle refers to those (saved once); a terminal printed none, so the bundle carries them.
            bundle = self._bundle(round, plan=plan, previews=previews, in_cell=self.in_place)
            if self.round_view is not None:
                self.round_view.finish(round, bundle[MIME_TYPE])
            if self._handle is not None:  # the widget's display, shown by start()
                self._handle.update(bundle, raw=True)
            else:  # a terminal: it prints the whole Round as text, once
                display(terminal_bundle(bundle), raw=True)
            if self.attempt_line is not None:
                self.attempt_line.finish(round)
            else:
                replayed = replay_line(round)
                if replayed:
                    print(f"[twnb] {replayed[0].upper() + replayed[1:]}.")
        finally:
            if self.round_view is not None:
                self.round_view.close()

    @property
    def display_id(self) -> str | None:
        """The id of the display the Round was shown in (None: printed, not updatable)."""
        return getattr(self._handle, "display_id", None) if self._handle is not None else None

    def withdraw(self, message: str) -> None:
        """Nothing ran (step mode refused): the display becomes the one line saying why, widget closed."""
        if self.heartbeat is not None:
            self.heartbeat.stop()
        if self._handle is not None:
            self._handle.update({"text/plain": message}, raw=True)
        if self.round_view is not None:
            self.round_view.close()

    @property
    def live_view(self) -> RoundView:
        """The live widget (step mode's panel goes into it); only a display made with widgets has one."""
        if self.round_view is None:
            raise RuntimeError("this Round's display has no widget")
        return self.round_view

    def _bundle(
        self, round: Round, *, plan: Plan | None, previews: list[dict[str, Any]], in_cell: bool = False
    ) -> dict[str, Any]:
        # The session's Rounds are redacted already; `redact` is for Rounds from elsewhere. Redact the
        # Round's data, not the bundle: base64 previews must not be rewritten by key patterns.

        clean = round
        if self._redact is not None:
            clean = Round.from_dict(self._redact(round.to_dict()), keep_ids=True)
        return round_bundle(
            clean,
            session_id=self.session_id,
            plan=plan,
            previews=previews,
            base_dir=self.base_dir,
            conversation_id=self.conversation_id,
            in_cell=in_cell,
        )
