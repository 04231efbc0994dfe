"""The offer to remember a steered Round, as a button in a frontend that draws widgets.

A Round the user steered (a plan or code edited, a step skipped, an edit refused, the Round undone)
ends by offering to remember it; nothing is remembered without the user's act. In a text frontend the
offer is one line (`%taskweaver remember N`); with widgets it is that line and a Remember button, shown
under its own `display_id` beside the line as `text/plain`.

A saved output that holds a widget view shows an error on reopen (the model is gone), so the widget
never outlives its use: a click remembers the Round and the display becomes the static line saying
what was remembered; otherwise, before the next cell runs, it becomes the static offer line (the
command still works). Either way every widget it made is closed.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.display import display

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

BUTTON_CLASS = "twnb-remember"  # tests and user scripts find the button by it


class RememberButton:
    """One offer: `show()` displays it; a click calls `remember()`, which returns (line, failed)."""

    def __init__(
        self, offer: str, remember: Callable[[], tuple[str, bool]], shell: InteractiveShell | None
    ) -> None:
        import ipywidgets as w  # lazy: ipywidgets (~40 modules, ~80 ms), only when offered

        self.offer = offer
        self._remember = remember
        self._shell = shell
        self.line = w.HTML(html.escape(offer))
        self.button = w.Button(description="Remember", tooltip="Keep what you taught as experience")
        self.button.add_class(BUTTON_CLASS)
        self.widget = w.HBox([self.button, self.line])
        self.outcome: str | None = None  # the line the click ended with
        self._final: str | None = None  # what the display says once clicked
        self._handle: Any = None
        self.button.on_click(self._clicked)

    def show(self) -> None:
        bundle = self.widget._repr_mimebundle_()
        bundle["text/plain"] = self.offer
        self._handle = display(bundle, raw=True, display_id=True)
        if self._shell is not None:
            self._shell.events.register("pre_run_cell", self._before_next_cell)

    def _clicked(self, _button: Any) -> None:
        if self.outcome is not None:
            return  # a second click before the display changed
        self.button.disabled = True
        try:
            line, failed = self._remember()
        except Exception as error:  # said in the cell; the offer's command still works
            line, failed = f"Nothing was remembered ({type(error).__name__}: {error}).", True
        self.outcome = line
        self._final = line if not failed else f"{line}\n{self.offer}"
        self._settle(self._final)

    def _before_next_cell(self, *_info: Any) -> None:
        # Again after a click: a client that routes a display's update only to the cell running (nbclient)
        # missed the one sent under the click's message.
        self._unhook()
        self._settle(self.offer if self._final is None else self._final)

    def _settle(self, text: str) -> None:
        """The display becomes the static `text`; the widgets are closed (again: closing is idempotent)."""
        if self._handle is not None:
            self._handle.update({"text/plain": text}, raw=True)
        for widget in (self.line, self.button, self.widget):
            for part in (widget, getattr(widget, "layout", None), getattr(widget, "style", None)):
                if part is not None:
                    part.close()

    def _unhook(self) -> None:
        if self._shell is None:
            return
        with contextlib.suppress(ValueError):  # already unregistered
            self._shell.events.unregister("pre_run_cell", self._before_next_cell)
