"""Fixtures of the confine-layer tests: a fake model server and one confined kernel per module
(tests/support/confined_kernel.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel, Places, kernel_env, make_places, unavailable_line


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def confined(
    tmp_path_factory: pytest.TempPathFactory, fake_server: FakeLLMServer
) -> Iterator[ConfinedKernel]:
    if unavailable_line() is not None:
        pytest.skip(f"no confined kernel here: {unavailable_line()}")
    places = make_places(tmp_path_factory.mktemp("confined"))
    kernel = ConfinedKernel(
        places, kernel_env(places, OPENAI_BASE_URL=fake_server.base_url, TWNB_MODEL="fake-model")
    )
    try:
        yield kernel
    finally:
        kernel.shutdown()


@pytest.fixture
def kernel_in(fake_server: FakeLLMServer) -> Iterator[type[ConfinedKernel]]:
    """`kernel_in(places)`: a confined kernel in `places` talking to the fake LLM, shut down after
    the test."""
    started: list[ConfinedKernel] = []

    class Started(ConfinedKernel):
        def __init__(self, places: Places) -> None:
            super().__init__(places, kernel_env(places, OPENAI_BASE_URL=fake_server.base_url))
            started.append(self)

    yield Started
    for kernel in started:
        kernel.shutdown()
