"""A post's message in the live widget: Markdown in Output widgets, one per chunk of the message.

Setting one widget to the whole message at every streamed update made ipywidgets serialise and send
the whole message each time, and the frontend render all of it again. The message is cut into chunks
(`MarkdownChunks`); a closed chunk's widget gets its text once, and an update sends only the live
chunk's. A new chunk adds one model id to the box's children. Standard ipywidgets only: the frontend
renders each chunk's Markdown as it renders any cell output's, in JupyterLab, Notebook 7 or VS Code.
"""

from __future__ import annotations

from typing import Any

from twnb.notebook.streamed_markdown import MarkdownChunks, chunk_markdown


class StreamedMessage:
    """`box` shows the message; `append` and `replace` change the text, `flush` sends the change."""

    def __init__(self, w: Any, layout: Any) -> None:
        self._w = w
        self._layout = layout
        self._chunks = MarkdownChunks()
        self._outputs: list[Any] = []  # one Output per chunk shown
        self._final = 0  # how many closed chunks their Output shows in full
        self._live_shown = ""  # the live chunk's text as its Output shows it
        self.box = w.VBox(layout=layout)

    def append(self, text: str) -> None:
        self._chunks.append(text)

    def replace(self, text: str) -> None:
        """Make the message `text` (a commit, a retry's attempt): what it does not start with goes."""
        if not self._chunks.replace(text):
            self._drop_outputs()

    def clear(self) -> None:
        """No text, and no chunk shown (a retried attempt's text must not stay in view)."""
        self._chunks.clear()
        self._drop_outputs()

    def flush(self) -> None:
        """Show the text as it is now, sending only what changed: chunks closed since the last flush
        and the live chunk."""
        closed, live = self._chunks.closed, self._chunks.live
        count = len(self._outputs)
        for index in range(self._final, len(closed)):
            self._show(index, *chunk_markdown(closed[index]))
        self._final = len(closed)
        if live and (live != self._live_shown or len(self._outputs) <= len(closed)):
            self._show(len(closed), *self._chunks.live_markdown())
            self._live_shown = live
        if len(self._outputs) != count:
            self.box.children = tuple(self._outputs)

    def _show(self, index: int, markdown: str, plain: str) -> None:
        if index == len(self._outputs):
            self._outputs.append(self._w.Output(layout=self._layout))
        data = {"text/markdown": markdown, "text/plain": plain}
        self._outputs[index].outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)

    def _drop_outputs(self) -> None:
        for output in self._outputs:
            output.close()
        self._outputs, self._final, self._live_shown = [], 0, ""
        self.box.children = ()
