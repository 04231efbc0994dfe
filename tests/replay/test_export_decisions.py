"""Step mode's decisions in an exported notebook's Markdown: each decided post says the decision once,
in the line the Round's own views use, and code the user skipped is shown as not run."""

from __future__ import annotations

import nbformat
import pytest
from support.session_script import one_step

from twnb.replay import export_notebook
from twnb.session.code_request import EditedRun, Skipped


def _finish(driver, value):
    with pytest.raises(StopIteration) as stop:
        driver.send(value)
    return stop.value.value


def _markdown(session, tmp_path) -> str:
    result = export_notebook(session.memory.conversation, tmp_path / "out.ipynb", source_dir=tmp_path)
    nb = nbformat.read(result.path, as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def test_code_the_user_skipped_reads_as_skipped_once(make_session, tmp_path):
    session = make_session(one_step("never = 1"))
    driver = session.round_driver("Set it")
    next(driver)
    _finish(driver, Skipped())
    markdown = _markdown(session, tmp_path)
    assert "*You skipped this code.*" in markdown
    assert "Code that was not run:\n\n```python\nnever = 1\n```" in markdown
    assert markdown.lower().count("skipped") == 1


def test_code_the_user_edited_reads_as_edited_once_beside_its_outcome(make_session, tmp_path):
    session = make_session(one_step("x = 1"))
    driver = session.round_driver("Set x")
    result = session.execute(next(driver), "x = 2")
    _finish(driver, EditedRun("x = 2", result))
    markdown = _markdown(session, tmp_path)
    assert "*You edited this code before it ran.*" in markdown and "The code ran successfully." in markdown
    assert markdown.lower().count("edited") == 1
