"""Few-shot examples: TaskWeaver-format conversation YAML from the package and from folders the user adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from twnb.llm.messages import to_openai_messages
from twnb.memory import Conversation
from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.planner import Planner, planner_problems
from twnb.roles.planner_prompt import Worker
from twnb.roles.prompt_library import EXAMPLES_DIR, load_examples
from twnb.roles.role_setup import RoleBrief
from twnb.roles.translator import PostTranslator

EXAMPLE = """
enabled: true
rounds:
  - user_query: USER-EXAMPLE-QUERY
    state: finished
    post_list:
      - {message: USER-EXAMPLE-QUERY, send_from: User, send_to: Planner, attachment_list: []}
      - message: USER-EXAMPLE-ANSWER
        send_from: Planner
        send_to: User
        attachment_list:
          - {type: init_plan, content: 1. Answer}
          - {type: plan, content: 1. Answer}
          - {type: current_plan_step, content: 1. Answer}
          - {type: stop, content: Completed}
"""


def planner(**options) -> Planner:
    workers = [Worker("CodeInterpreter", "- writes code")]
    return Planner(None, "m", PostTranslator(), workers=workers, brief=RoleBrief(**options))


def prefix_text(role) -> str:
    return "\n".join(m["content"] for m in to_openai_messages(role.prompt.prefix()))


def test_the_packaged_examples_are_taskweaver_conversations_each_role_loads():
    for folder in (EXAMPLES_DIR / "planner", EXAMPLES_DIR / "code_interpreter"):
        files = sorted(folder.glob("*.yaml"))
        assert files and all(Conversation.from_yaml(f).enabled for f in files)
    assert len(planner().prompt.examples) == len(list((EXAMPLES_DIR / "planner").glob("*.yaml")))
    code = CodeInterpreter(None, "m", PostTranslator())
    assert len(code.prompt.examples) == len(list((EXAMPLES_DIR / "code_interpreter").glob("*.yaml")))


def test_the_packaged_planner_examples_pass_the_planners_own_checks():
    for conversation in planner().prompt.examples:
        for round in conversation.rounds:
            for post in round.post_list:
                if post.send_from == "Planner":
                    assert planner_problems(post, ["CodeInterpreter", "User"]) == []


def test_a_folder_the_user_adds_joins_the_packaged_examples(tmp_path: Path):
    (tmp_path / "mine.yaml").write_text(EXAMPLE)
    role = planner(example_dirs=[tmp_path])
    assert len(role.prompt.examples) == len(planner().prompt.examples) + 1
    assert "USER-EXAMPLE-QUERY" in prefix_text(role) and "USER-EXAMPLE-ANSWER" in prefix_text(role)


def test_an_example_with_roles_the_session_lacks_is_left_out(tmp_path: Path):
    (tmp_path / "other.yaml").write_text(EXAMPLE.replace("send_to: Planner", "send_to: WebSearch"))
    assert load_examples([tmp_path], {"Planner", "User", "CodeInterpreter"}) == []


def test_a_disabled_example_is_left_out(tmp_path: Path):
    (tmp_path / "off.yaml").write_text(EXAMPLE.replace("enabled: true", "enabled: false"))
    assert load_examples([tmp_path], {"Planner", "User"}) == []


def test_a_missing_example_folder_is_an_error_naming_it(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        planner(example_dirs=[tmp_path / "nowhere"])
