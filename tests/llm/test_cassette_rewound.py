"""A cassette replayed again in the same kernel (rewound with what the session knows differs: the
kernel's state) says nothing of drift when only the kernel's variables differ from the recording, and
still says it when the conversation itself differs."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.llm.cassette import CassetteDriftWarning, RecordingClient, ReplayClient, cassette_path_for
from twnb.roles import without_kernel_state
from twnb.roles.namespace_delta import SNAPSHOT_HEADER

SYSTEM = {"role": "system", "content": "You are the CodeInterpreter. Write Python."}


def _request(
    variables: str, made: str, cell: int, ask: str = "Give me an overview of `sales`."
) -> list[dict]:
    first = f"{SNAPSHOT_HEADER}\nVariables in the kernel:\n{variables}\n\nFrom: User\nMessage: {ask}"
    feedback = f"The code failed.\nCell In[{cell}], line 2\n\nVariables: {made}"
    return [SYSTEM, {"role": "user", "content": first}, {"role": "user", "content": feedback}]


RECORDED = _request("- sales: DataFrame, shape (3, 2)", "overview (created, DataFrame (3, 2))", 6)
# the second pass in the same kernel: the first pass's `overview` is there, rebound, cells counted on
AGAIN = _request(
    "- sales: DataFrame, shape (3, 2)\n- overview: DataFrame, shape (3, 2)",
    "overview (rebound, DataFrame (3, 2))",
    13,
)


@pytest.fixture
def cassette(fake_llm, tmp_path: Path) -> Path:
    fake_llm.load({"CodeInterpreter": [{"content": "done"}]})
    path = cassette_path_for(tmp_path / "session.yaml")
    client = RecordingClient(
        OpenAIChatClient("test-key", fake_llm.base_url, limits=ClientLimits(timeout=5.0)), path
    )
    "".join(client.stream(RECORDED, model="m", role="CodeInterpreter"))
    return path


def test_a_pass_after_a_rewind_meeting_the_first_pass_variables_is_no_drift(cassette: Path) -> None:
    client = ReplayClient(cassette, warn_on_drift=False)
    "".join(client.stream(RECORDED, model="m", role="CodeInterpreter"))
    client.rewind(without_kernel_state)
    assert "".join(client.stream(AGAIN, model="m", role="CodeInterpreter")) == "done"
    assert client.take_drift() == []


def test_a_pass_after_a_rewind_with_another_request_still_drifts(cassette: Path) -> None:
    client = ReplayClient(cassette)
    client.rewind(without_kernel_state)
    other = _request(
        "- sales: DataFrame, shape (3, 2)", "overview (created, DataFrame (3, 2))", 6, ask="Plot it."
    )
    with pytest.warns(CassetteDriftWarning, match="Plot it"):
        "".join(client.stream(other, model="m", role="CodeInterpreter"))


def test_without_the_rewind_the_kernels_variables_are_drift(cassette: Path) -> None:
    client = ReplayClient(cassette)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        "".join(client.stream(AGAIN, model="m", role="CodeInterpreter"))
    assert any(issubclass(w.category, CassetteDriftWarning) for w in caught)
