"""Autosave after every post, save/load of whole conversations, the cassette beside them."""

from __future__ import annotations

import yaml
from support.session_script import one_step

from twnb.memory import Conversation


def test_every_post_is_autosaved_into_the_rounds_file(make_session, recorder):
    session = make_session(one_step("a = 1"))
    sizes = []

    class Watch:
        def on_event(self, event):
            if type(event).__name__ == "PostCommitted":
                files = list(session.autosave_dir.glob("*.yaml"))
                sizes.append(len(Conversation.from_yaml(files[0]).rounds[0].post_list) if files else 0)

    round = session.run_round("Set a", Watch())
    assert sizes == [1, 2, 3, 4]
    assert (session.autosave_dir / f"{round.id}.yaml").is_file()


def test_autosave_path_is_session_dir_session_id_rounds(make_session, workdir):
    session = make_session()
    assert session.autosave_dir == workdir / ".twnb" / session.session_id / "rounds"


def test_an_autosaved_round_file_is_a_taskweaver_conversation(make_session):
    session = make_session(one_step("b = 2"))
    round = session.run_round("Set b")
    data = yaml.safe_load((session.autosave_dir / f"{round.id}.yaml").read_text())
    assert data["enabled"] is True and [r["id"] for r in data["rounds"]] == [round.id]
    assert data["rounds"][0]["state"] == "finished"


def test_autosaved_rounds_load_back_in_order_with_their_ids(make_session, fake_llm):
    session = make_session(one_step("c = 3"))
    first = session.run_round("Set c")
    fake_llm.load(one_step("d = 4"))
    second = session.run_round("Set d")
    fresh = make_session()
    conversation = fresh.load(session.autosave_dir)
    assert [r.id for r in conversation.rounds] == [first.id, second.id]
    assert [p.id for p in conversation.rounds[1].post_list] == [p.id for p in second.post_list]
    assert fresh.memory.conversation is conversation


def test_loading_one_autosaved_round_file_assembles_the_conversation(make_session, fake_llm):
    session = make_session(one_step("e = 5"))
    session.run_round("Set e")
    fake_llm.load(one_step("f = 6"))
    last = session.run_round("Set f")
    conversation = make_session().load(session.autosave_dir / f"{last.id}.yaml")
    assert len(conversation.rounds) == 2


def test_failed_rounds_are_autosaved_too(make_session):
    session = make_session({"Planner": [{"content": "x", "fault": "http_500", "times": 5}]})
    round = session.run_round("Fail")
    data = yaml.safe_load((session.autosave_dir / f"{round.id}.yaml").read_text())
    assert data["rounds"][0]["state"] == "failed"
    assert data["rounds"][0]["extra"]["failure_reason"].startswith("The LLM call failed")


def test_save_writes_the_whole_conversation_and_it_loads_back_identical(make_session, fake_llm, workdir):
    session = make_session(one_step("g = 7"))
    session.run_round("Set g")
    path = session.save(workdir / "out" / "conversation.yaml")
    loaded = Conversation.from_yaml(path)
    assert loaded.to_dict() == Conversation.from_yaml(path).to_dict()
    assert [r.id for r in loaded.rounds] == [r.id for r in session.memory.conversation.rounds]
    assert loaded.rounds[0].post_list[2].attachment_list[2].content == "g = 7"


def test_load_replaces_the_memory_and_later_rounds_continue_it(make_session, fake_llm, workdir):
    session = make_session(one_step("h = 8"))
    session.run_round("Set h")
    path = session.save(workdir / "conversation.yaml")
    other = make_session()
    other.load(path)
    fake_llm.load(one_step("i = 9"))
    other.run_round("Set i")
    assert len(other.memory.conversation.rounds) == 2


def test_reset_starts_a_new_conversation_with_a_new_session_id(make_session):
    session = make_session(one_step("j = 10"))
    session.run_round("Set j")
    old = session.session_id
    session.reset()
    assert session.session_id != old and session.memory.conversation.rounds == []


def test_recording_writes_a_cassette_that_save_copies_beside_the_conversation(make_session, workdir):
    session = make_session(one_step("k = 11"), record=True)
    session.run_round("Set k")
    path = session.save(workdir / "conv.yaml")
    cassette = workdir / "conv.cassette.yaml"
    assert cassette.is_file()
    from twnb.llm.cassette import load_cassette

    assert [entry.role for entry in load_cassette(cassette)] == ["Planner", "CodeInterpreter", "Planner"]
    assert path.is_file()


def test_artifact_paths_are_saved_relative_and_loaded_back_absolute(make_session, workdir):
    session = make_session(one_step("open('made.txt', 'w').write('x')"))
    session.run_round("Write a file")
    path = session.save(workdir / "conversation.yaml")
    saved = yaml.safe_load(path.read_text())["rounds"][0]["post_list"][2]["attachment_list"]
    assert next(a["content"] for a in saved if a["type"] == "artifact_paths") == ["made.txt"]
    loaded = make_session().load(path)
    code_post = loaded.rounds[0].post_list[2]
    artifacts = next(a for a in code_post.attachment_list if a.type.value == "artifact_paths")
    assert artifacts.content == [str(workdir.resolve() / "made.txt")]
