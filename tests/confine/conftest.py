"""Fixtures of the confine-layer tests: a fake model server and one confined kernel per module
(tests/support/confined_kernel.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel, kernel_env, make_places, unavailable_line


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
