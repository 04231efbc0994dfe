"""How an evaluation reaches its models: live, live and recorded, or replayed from earlier recordings.

The agent runs in each case's kernel and reaches its model through twnb's settings, handed to the
kernel in its environment (resolved where `twnb eval` runs, its `.env` and `twnb.yaml` included: the
kernel runs in the case's folder, which has neither). The virtual user and the evaluator run in this
process, through the same client stack a session uses (redaction, the response-format fallback).

Recording writes two cassettes per run, beside its notebook: the agent's
(`conversation.cassette.yaml`, written by `%taskweaver save`) and the virtual user's and evaluator's
(`eval.cassette.yaml`). Replaying reads them back from an earlier run's folder (`--replay DIR`), so a
recorded evaluation runs again with no model, no key and no network.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from twnb.config import Redactor, ResolvedSettings, SettingsError, resolve_settings
from twnb.llm import ChatClient, session_chat_client

__all__ = ["AGENT_CASSETTE", "CONVERSATION_FILE", "JUDGE_CASSETTE", "ModelAccess", "ModelAccessError"]

CONVERSATION_FILE = "conversation.yaml"
AGENT_CASSETTE = "conversation.cassette.yaml"  # where `%taskweaver save` puts the session's cassette
JUDGE_CASSETTE = "eval.cassette.yaml"
SESSION_DIR = "session"  # visible, unlike .twnb, so each run's autosaves are easy to find
CONFINE_READ_ENV = "TWNB_CONFINE_READ"

# Settings that change what the agent does and are set for each case, never taken from the caller.
_DROPPED = (
    "TWNB_MODEL",
    "LLM_MODEL",
    "TWNB_PLANNER_MODEL",
    "TWNB_CODE_MODEL",
    "TWNB_RECORD",
    "TWNB_REPLAY",
    "TWNB_STRICT",
    "TWNB_STEP",
    "TWNB_SESSION_DIR",
)


class ModelAccessError(RuntimeError):
    """No way to reach a model (nothing configured, a missing recording); the message says what to do."""


@dataclass
class ModelAccess:
    """`replay_root`: an earlier run's output folder to replay from (None: live). `record`: live, and
    keep cassettes beside each run's notebook."""

    resolved: ResolvedSettings
    redactor: Redactor
    replay_root: Path | None = None
    record: bool = False

    @classmethod
    def create(
        cls, *, replay_root: Path | None = None, record: bool = False, workdir: Path | None = None
    ) -> ModelAccess:
        if replay_root is not None and record:
            raise ModelAccessError(
                "Record or replay, not both: --record runs live models, --replay runs none."
            )
        if replay_root is not None and not replay_root.is_dir():
            raise ModelAccessError(f"--replay {replay_root}: no such folder (an earlier run's -o folder)")
        try:
            resolved = resolve_settings(workdir=workdir)
        except SettingsError as error:
            raise ModelAccessError(f"twnb's settings could not be read: {error}") from error
        return cls(resolved, Redactor.from_settings(resolved), replay_root, record)

    @property
    def live(self) -> bool:
        return self.replay_root is None

    @property
    def prices(self) -> dict[str, dict[str, float]] | None:
        return self.resolved.settings.prices

    def check_live(self) -> None:
        """Before any kernel starts: a live run needs a server to talk to (a key, or a local URL)."""
        if not self.live:
            return
        try:
            self.resolved.require_api_key()
        except SettingsError as error:
            raise ModelAccessError(f"a live run needs a model server: {error}") from error

    def _recording(self, relative: Path, name: str, of_whom: str) -> Path:
        """The cassette `name` of the run at `relative` in the replayed folder; it must be there."""
        assert self.replay_root is not None
        cassette = self.replay_root / relative / name
        if not cassette.is_file():
            raise ModelAccessError(
                f"no recording of {of_whom} at {cassette}: record this case first (twnb eval ... "
                "--record -o DIR), then replay that DIR"
            )
        return cassette

    def agent_environment(self, model: str, relative: Path, *, confined: bool = False) -> dict[str, str]:
        """The case kernel's environment: the model under test for both roles, the server and prices
        found here, and recording or replay. `relative` is the run's folder under the output folder.
        A `confined` kernel reads only its own folder and the system's: the replayed cassette's folder
        is added to the folders it may read (confine_read), for that kernel alone."""
        env = {name: value for name, value in os.environ.items() if name not in _DROPPED}
        env["TWNB_MODEL"] = model
        env["TWNB_SESSION_DIR"] = SESSION_DIR
        env["TWNB_STEP"] = "0"  # step mode needs a person at a widget: never in an evaluation
        if not self.live:
            cassette = self._recording(relative, AGENT_CASSETTE, "the agent").resolve()
            env["TWNB_REPLAY"] = str(cassette)
            if confined:
                env[CONFINE_READ_ENV] = os.pathsep.join(
                    p for p in (env.get(CONFINE_READ_ENV), str(cassette.parent)) if p
                )
            return env
        settings = self.resolved.settings
        handed = {
            "OPENAI_BASE_URL": settings.base_url,
            "AZURE_OPENAI_ENDPOINT": settings.azure_endpoint,
            "OPENAI_API_VERSION": settings.api_version,
            "TWNB_PRICES": json.dumps(settings.prices) if settings.prices else None,
        }
        env.update({name: value for name, value in handed.items() if value})
        if settings.has_real_api_key and settings.api_key and settings.api_key_env not in env:
            env[settings.api_key_env] = settings.api_key
        if self.record:
            env["TWNB_RECORD"] = "1"
        return env

    def judge_client(self, folder: Path, relative: Path) -> ChatClient:
        """The client the virtual user and the evaluator share for one run in `folder`."""
        if not self.live:
            cassette = self._recording(relative, JUDGE_CASSETTE, "the virtual user and evaluator")
            return session_chat_client(self.resolved, redactor=self.redactor, replay_from=cassette)
        record_to = folder / JUDGE_CASSETTE if self.record else None
        return session_chat_client(self.resolved, redactor=self.redactor, record_to=record_to)
