"""`@` in a `%%taskweaver` cell completes the notebook's variables, files, cells and Rounds through
IPython's own Completer (what every frontend's completion request reaches), in a real InteractiveShell."""

from __future__ import annotations

import pytest
from IPython.core.completer import provisionalcompleter


def completions(shell, text: str) -> list[str]:
    with provisionalcompleter():
        return [c.text for c in shell.Completer.completions(text, len(text))]


def test_at_completes_a_variable_of_the_notebook(shell):
    shell.user_ns["sales_2026"] = [1, 2]
    try:
        assert completions(shell, "%%taskweaver\nPlot @sales") == ["sales_2026"]
    finally:
        shell.user_ns.pop("sales_2026")


def test_at_completes_files_and_folders_of_the_notebooks_folder(shell, clean_env):
    (clean_env / "data").mkdir()
    (clean_env / "data" / "regions.csv").write_text("region\n")
    assert completions(shell, "%%taskweaver\nJoin @da") == ["data/"]
    assert completions(shell, "%%taskweaver\nJoin @data/re") == ["data/regions.csv"]


def test_at_cell_completes_execution_counts(shell):
    shell.run_cell("x = 1", store_history=True)
    shell.run_cell("y = 2", store_history=True)
    newest = len(shell.user_ns["In"]) - 1
    # IPython splits the token at the space: what completes is the number
    found = completions(shell, "%%taskweaver\nExplain @cell ")
    assert {str(newest), str(newest - 1)} <= set(found)
    assert all(text.isdigit() for text in found)


def ask_matcher(shell, text: str) -> list[str]:
    """twnb's matcher alone, as IPython's Completer calls it."""
    from IPython.core.completer import CompletionContext

    from twnb.notebook.mention_completer import mention_matcher

    token = text.rsplit("@", 1)[-1]
    context = CompletionContext(token, text, len(text), text.count("\n"), None)
    return [c.text for c in mention_matcher(shell, lambda: 0)(context)["completions"]]


def test_outside_a_taskweaver_cell_or_after_an_email_twnb_offers_nothing(shell):
    shell.user_ns["sales_2026"] = [1, 2]
    try:
        assert ask_matcher(shell, "%%taskweaver\nPlot @sal") == ["sales_2026"]
        assert ask_matcher(shell, "# Plot @sal") == []
        assert ask_matcher(shell, "x = 1\nPlot @sal") == []
        assert ask_matcher(shell, "%%taskweaver\nMail bob@sal") == []
    finally:
        shell.user_ns.pop("sales_2026")


def test_names_ipython_put_in_the_namespace_are_not_offered_until_the_user_rebinds_them(shell):
    assert "open" in shell.user_ns  # IPython's own, hidden from %who
    assert not {"open", "exit", "get_ipython"} & set(completions(shell, "%%taskweaver\nRead @"))
    shell.user_ns["open"] = [1, 2]  # the user's own variable of that name
    try:
        assert "open" in completions(shell, "%%taskweaver\nRead @")
    finally:
        shell.user_ns["open"] = shell.user_ns_hidden["open"]


def test_cells_are_offered_newest_first_as_numbers_not_as_text(shell):
    for n in range(11):
        shell.run_cell(f"x{n} = {n}", store_history=True)
    newest = len(shell.user_ns["In"]) - 1
    # IPython sorts completions as text unless told they are ordered: "1", "10", "11", "2"...
    assert completions(shell, "%%taskweaver\nExplain @cell ")[:3] == [
        str(n) for n in (newest, newest - 1, newest - 2)
    ]


@pytest.fixture(params=[True, False], ids=["jedi", "python-names"])
def completer_kind(shell, request):
    """IPython's two ways to complete Python: Jedi (kernels' default) and its own namespace matcher."""
    was = shell.Completer.use_jedi
    shell.Completer.use_jedi = request.param
    try:
        yield shell
    finally:
        shell.Completer.use_jedi = was


def test_after_at_a_partial_no_mention_matches_offers_nothing_not_pythons_names(completer_kind):
    """`@pri` is no variable, file, cell or Round: before, IPython offered `print` (and `@op` `open`),
    since it applies a matcher's `suppress` only when the matcher gave at least one name."""
    shell = completer_kind
    assert completions(shell, "%%taskweaver\nShow @pri") == []
    assert completions(shell, "%%taskweaver\nRead @op") == []
    assert completions(shell, "%%taskweaver\nJoin @no_such/fi") == []


def test_after_at_cell_with_no_such_cell_offers_nothing(completer_kind):
    assert completions(completer_kind, "%%taskweaver\nExplain @cell 9999") == []


def test_outside_a_mention_python_names_are_still_offered(completer_kind):
    """Only a mention is exclusive: a plain word in the request, and code in another cell, still
    complete as IPython would."""
    shell = completer_kind
    assert "print" in completions(shell, "pri")
    assert "print" in completions(shell, "%%taskweaver\nMail bob@pri")
