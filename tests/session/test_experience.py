"""The experience folder in TaskWeaver's format: what is read (TaskWeaver's own files included),
written, retrieved for a request with BM25, and deleted; real files."""

from __future__ import annotations

import pytest
import yaml

from twnb.config import Redactor
from twnb.session.experience import ExperienceStore

SECRET = "sk-experience-abcdefghijklmnopqrstuvwxyz0123456789"
# The shape of TaskWeaver's tests/unit_tests/data/experience/exp_test-session-1.yaml (its embedding
# shortened): an older file naming `session_id` instead of `exp_id`.
TASKWEAVER_EXP = """embedding:
- 0.06303833425045013
- 0.0017130164196714759
embedding_model: all-mpnet-base-v2
experience_text: "User Query: show top 3 data in ./demo_data.csv\\n\\nBest Practice:\\
  \\ When the user provides an incorrect file path, ask the user to check the file\\
  \\ path and try again."
raw_experience_path: D:\\\\python_project\\\\TaskWeaver\\\\raw_exp_test-session-1.yaml
session_id: test-session-1
"""


def store(tmp_path) -> ExperienceStore:
    return ExperienceStore(tmp_path / "experience", Redactor([SECRET]).redact)


def test_taskweavers_own_experience_file_loads_unchanged(tmp_path):
    folder = tmp_path / "experience"
    folder.mkdir()
    (folder / "exp_test-session-1.yaml").write_text(TASKWEAVER_EXP)
    (found,) = store(tmp_path).experiences()
    assert found.exp_id == "test-session-1"
    assert found.experience_text.startswith("User Query: show top 3 data in ./demo_data.csv")
    assert found.embedding_model == "all-mpnet-base-v2"
    assert found.embedding == [0.06303833425045013, 0.0017130164196714759]
    assert not found.handcrafted


def test_remembered_text_is_a_handcrafted_file_with_taskweavers_fields_redacted(tmp_path):
    kept = store(tmp_path).remember_text(f"Dates are day-first. Key {SECRET}")
    assert kept.path is not None and kept.path.name == f"handcrafted_exp_{kept.exp_id}.yaml"
    data = yaml.safe_load(kept.path.read_text())
    assert list(data) == ["exp_id", "experience_text", "raw_experience_path", "embedding_model", "embedding"]
    assert SECRET not in kept.path.read_text()
    assert data["experience_text"].startswith("Dates are day-first.")


def test_retrieval_ranks_the_relevant_experience_first_and_leaves_out_the_unrelated(tmp_path):
    experiences = store(tmp_path)
    dates = experiences.remember_text("Parse the order dates day-first in sales files.")
    experiences.remember_text("Plot with plotly, never matplotlib.")
    experiences.remember_text("Revenue excludes returned orders.")
    found = experiences.retrieve("Load the sales file and parse its dates")
    assert found[0][0].exp_id == dates.exp_id
    assert experiences.retrieve("What is the weather in Lisbon") == []


def test_a_damaged_file_is_named_and_the_others_still_load(tmp_path):
    experiences = store(tmp_path)
    experiences.remember_text("Use plotly.")
    (tmp_path / "experience" / "exp_broken.yaml").write_text("experience_text: [unclosed")
    assert [e.experience_text for e in experiences.experiences()] == ["Use plotly."]
    assert experiences.problems and experiences.problems[0].startswith("exp_broken.yaml")


def test_deleting_removes_the_experience_and_its_raw_conversation(tmp_path):
    experiences = store(tmp_path)
    raw = experiences.save_raw({"id": "conv-1", "rounds": []}, "e1")
    experiences.save_summary("e1", "Check the file exists first.", raw)
    assert [p.name for p in experiences.delete("e1")] == ["exp_e1.yaml", "raw_exp_e1.yaml"]
    assert experiences.experiences() == []


def test_a_round_whose_code_the_user_edited_offers_to_be_remembered():
    from twnb.memory import Post, Round
    from twnb.session.experience import remember_offer

    round = Round.create("Sum revenue", state="finished")
    round.add_post(Post.create("Sum revenue", "User", "Planner"))
    assert remember_offer(round, 2) is None
    edited = Post.create("ran", "CodeInterpreter", "Planner")
    edited.extra = {"edited_by": "User", "edited_from": "df.sum()"}
    round.add_post(edited)
    skipped = Post.create("skipped", "CodeInterpreter", "Planner")
    skipped.extra = {"skipped_by": "User"}
    round.add_post(skipped)
    assert remember_offer(round, 2) == (
        "You edited code, skipped a step in Round 2. `%taskweaver remember 2` keeps what you taught as "
        "experience for later requests."
    )


def test_an_undone_round_offers_to_be_remembered_naming_the_undo_last():
    from twnb.memory import Post, Round
    from twnb.session.experience import remember_offer

    round = Round.create("Sum revenue", state="finished")
    round.add_post(Post.create("Sum revenue", "User", "Planner"))
    round.extra["undone"] = {"line": "Undone by the user: removed total."}
    assert remember_offer(round, 3) == (
        "You undid Round 3. `%taskweaver remember 3` keeps what you taught as experience for later requests."
    )
    edited = Post.create("ran", "CodeInterpreter", "Planner")
    edited.extra = {"edited_by": "User", "edited_from": "df.sum()"}
    round.add_post(edited)
    assert str(remember_offer(round, 3)).startswith("You edited code in Round 3 and undid it. ")


@pytest.mark.parametrize(
    ("sender", "extra", "said"),
    [
        ("Planner", {"edited_by": "User"}, "You edited the plan in Round 4."),
        ("CodeInterpreter", {"edited_by": "User"}, "You edited code in Round 4."),
        ("CodeInterpreter", {"skipped_by": "User"}, "You skipped a step in Round 4."),
        (
            "CodeInterpreter",
            {"refused_edit": "os.system('x')"},
            "You made an edit verification refused in Round 4.",
        ),
        ("CodeInterpreter", {"undone_by": "User"}, "You undid a step's code in Round 4."),
    ],
)
def test_each_way_of_steering_a_round_is_named_in_the_offer(sender, extra, said):
    from twnb.memory import Post, Round
    from twnb.session.experience import remember_offer

    round = Round.create("Sum revenue", state="finished")
    round.add_post(Post.create("Sum revenue", "User", "Planner"))
    steered = Post.create("the post", sender, "CodeInterpreter" if sender == "Planner" else "Planner")
    steered.extra = dict(extra)
    round.add_post(steered)
    assert str(remember_offer(round, 4)).startswith(said)
