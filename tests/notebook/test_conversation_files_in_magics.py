"""`%taskweaver save` and `load` through the one conversation store: the same files with or without a
session, and a file that fails changes nothing and says why in one line."""

from __future__ import annotations

import pytest
from nb_shell import magics
from support.nb_rounds import analysis_round

from twnb.memory import Conversation, save_conversation
from twnb.session.conversation_store import save_conversation_file

SECRET = "hunter2-is-not-a-password-9f8e7d"
ALIAS_BOMB = "rounds: []\na: &a [lol, lol]\nb: &b [*a, *a]\nc: [*b, *b]\n"


@pytest.fixture
def loaded(shell, clean_env):
    """A notebook (no session yet) with one Round loaded from `in.yaml`."""
    conversation = Conversation.init()
    conversation.add_round(analysis_round())
    save_conversation(conversation, clean_env / "in.yaml")
    shell.run_line_magic("taskweaver", "load in.yaml")
    return magics(shell).notebook


def test_a_save_without_a_session_redacts_as_a_sessions_save_does(shell, clean_env, monkeypatch, loaded):
    monkeypatch.setenv("SHOP_DB_PASSWORD", SECRET)
    loaded.conversation.rounds[0].post_list[-1].message = f"The password is {SECRET}"
    shell.run_line_magic("taskweaver", "save out.yaml")
    saved = (clean_env / "out.yaml").read_text()
    assert SECRET not in saved and "The password is [redacted]" in saved


def test_a_save_without_a_session_writes_artifact_paths_relative_to_the_files_folder(
    shell, clean_env, loaded
):
    artifact = clean_env / "out" / "plot.png"
    post = loaded.conversation.rounds[0].post_list[2]
    from twnb.memory import Attachment, AttachmentType

    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, [str(artifact)]))
    shell.run_line_magic("taskweaver", "save out/conv.yaml")
    assert "- plot.png" in (clean_env / "out" / "conv.yaml").read_text()


def test_save_without_a_session_is_the_stores_save(shell, clean_env, loaded):
    shell.run_line_magic("taskweaver", "save notebook.yaml")
    save_conversation_file(loaded.conversation, clean_env / "store.yaml", redact=lambda data: data)
    assert (clean_env / "notebook.yaml").read_text() == (clean_env / "store.yaml").read_text()


def test_a_load_without_a_session_autosaves_the_loaded_rounds(shell, clean_env, loaded):
    files = list((clean_env / ".twnb" / loaded.session_id / "rounds").glob("*.yaml"))
    assert [f.stem for f in files] == [loaded.conversation.rounds[0].id]


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (ALIAS_BOMB, "line 3, column 4: a YAML alias (*name) repeats the value anchored at line 2"),
        ("rounds: [" + "[" * 5_000 + "]" * 5_000 + "]\n", "nested deeper than 100 levels (MAX_DEPTH)"),
        ("rounds:\n  - !!set {a}\n", "line 2, column 5: a set (!!set) is not plain data"),
        ("rounds:\n  - user_query: q\n    state: finished\n    post_list: text\n", "key 'post_list' must be"),
        ("rounds: []\ntwnb_autosave: yes\n", "key 'twnb_autosave' must be a mapping"),
        ("rounds: [\n", "not valid YAML: while parsing"),
    ],
    ids=["alias-bomb", "deep", "set", "post-list-text", "bad-autosave-key", "malformed"],
)
def test_a_bad_file_keeps_the_old_conversation_and_says_why_in_one_line(
    shell, clean_env, capsys, loaded, text, reason
):
    before = loaded.conversation
    capsys.readouterr()
    (clean_env / "bad.yaml").write_text(text)
    shell.run_line_magic("taskweaver", "load bad.yaml")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("Could not load bad.yaml: ")
    assert reason in captured.err and captured.err.endswith("; nothing was changed.\n")
    assert loaded.conversation is before and len(before.rounds) == 1


def test_a_saved_file_with_a_bad_autosave_index_names_the_file(tmp_path):
    from twnb.session.conversation_store import load_conversation_file

    (tmp_path / "r.yaml").write_text("rounds: []\ntwnb_autosave: {session_id: s, index: two}\n")
    with pytest.raises(ValueError, match=r"r\.yaml: key 'twnb_autosave' must be a mapping .* got \{"):
        load_conversation_file(tmp_path / "r.yaml")


def test_an_unexpected_error_in_a_magic_is_one_line_not_a_traceback(shell, clean_env, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef0123")
    (clean_env / "not-a-folder").write_text("a file where the session folder should be")
    shell.run_line_magic("config", "TaskWeaverMagics.model = 'm'")
    shell.run_line_magic("config", "TaskWeaverMagics.record = True")
    shell.run_line_magic("config", "TaskWeaverMagics.session_dir = 'not-a-folder'")
    shell.run_cell_magic("taskweaver", "", "What is 1 + 1?")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("twnb could not do that: NotADirectoryError: ") and "not-a-folder" in err
