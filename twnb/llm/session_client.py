"""The ChatClient a twnb session talks to: live (optionally recorded) or replayed from a cassette.

Live, the layers are, outermost first::

    RecordingClient          (only when recording: writes each call, redacted, to the cassette)
      ResponseFormatFallback (json_schema -> json_object -> plain text as the server refuses them,
                              remembered per server and model for the process; not when the
                              response_format setting chooses one outright)
        RedactingClient      (no secret leaves the process in a prompt)
          ObservedClient     (only with an ``observer``: reports each call, see observed_client.py)
            OpenAIChatClient (HTTP, from the resolved settings; or the ``inner`` client passed in)

Replaying, a :class:`~twnb.llm.cassette.ReplayClient` stands in for all of them (observed too): it
needs no key, no model server and no network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twnb.config import Redactor, ResolvedSettings
from twnb.llm.cassette import RecordingClient, ReplayClient
from twnb.llm.chat_client import ChatClient
from twnb.llm.client import OpenAIChatClient, make_client
from twnb.llm.context_window import ContextWindows
from twnb.llm.observed_client import ObservedClient
from twnb.llm.redacting_client import RedactingClient
from twnb.llm.response_format import PROCESS_FORMATS, FormatMemory, ResponseFormatFallback
from twnb.memory import Observer

__all__ = ["context_windows", "session_chat_client"]


def session_chat_client(
    resolved: ResolvedSettings,
    *,
    redactor: Redactor | None = None,
    inner: ChatClient | None = None,
    record_to: str | Path | None = None,
    replay_from: str | Path | ReplayClient | None = None,
    observer: Observer | None = None,
    formats: FormatMemory = PROCESS_FORMATS,
    **client_options: Any,
) -> ChatClient:
    """A ChatClient for a session; ``record_to`` and ``replay_from`` are cassette paths (``replay_from``
    may also be a ReplayClient the caller keeps, to rewind it or read its drift).

    ``inner`` is the client to wrap instead of the live one the settings describe (tests and benches
    pass a client for the loopback server, or a replay): it gets the same redaction, response_format
    fallback and recording. ``redactor`` defaults to one built from ``resolved`` (the key, ``.env``
    secrets, the live environment); pass the session's own so prompts, cassettes and logs share it.
    ``client_options`` (``timeout``, ``max_retries``, ...) go to the live client. ``observer`` is told
    of every call (an EventRelay the session connects to each Round's observers). `formats` is where
    the formats each server refused are remembered (the process's own by default).

    The live client's (or ``inner``'s, when it is an `OpenAIChatClient`) `context` holds what is known
    of each model's context (`context_windows` finds it for the roles).
    """
    if record_to is not None and replay_from is not None:
        raise ValueError("Record or replay, not both: pass only one of record_to and replay_from.")
    if inner is not None and replay_from is not None:
        raise ValueError("Pass a client to wrap (inner) or a cassette to replay (replay_from), not both.")
    if inner is not None and client_options:
        raise ValueError(
            f"Client options ({', '.join(sorted(client_options))}) configure the live client; the client "
            "passed as inner is already built: set them on it."
        )
    redactor = redactor if redactor is not None else Redactor.from_settings(resolved)
    if replay_from is not None:
        replay = (
            replay_from
            if isinstance(replay_from, ReplayClient)
            else ReplayClient(replay_from, redactor=redactor)
        )
        return _observed(replay, observer, resolved) if observer is not None else replay
    client: ChatClient = (
        inner if inner is not None else make_client(resolved, redactor=redactor, **client_options)
    )
    server = str(getattr(client, "base_url", "") or "")
    if observer is not None:
        client = _observed(client, observer, resolved)
    client = RedactingClient(client, redactor)
    if resolved.settings.response_format == "auto":
        client = ResponseFormatFallback(client, server=server, memory=formats)
    if record_to is not None:
        client = RecordingClient(client, record_to, redactor=redactor)
    return client


def context_windows(client: object) -> ContextWindows | None:
    """What the live client at the heart of a session's client knows of each model's context (None for
    a replay, or a client of another kind): the wrappers are walked through by their `inner`."""
    seen = 0
    while client is not None and seen < 10:
        if isinstance(client, OpenAIChatClient):
            return client.context
        client, seen = getattr(client, "inner", None), seen + 1
    return None


def _observed(client: ChatClient, observer: Observer, resolved: ResolvedSettings) -> ObservedClient:
    """`client` reporting its calls; the server named from the client itself, else from the settings."""
    plain = resolved.settings
    azure = bool(getattr(client, "azure_endpoint", None) or plain.azure_endpoint)
    base_url = getattr(client, "base_url", None) or plain.azure_endpoint or plain.base_url
    return ObservedClient(client, observer, base_url=base_url, azure=azure)
