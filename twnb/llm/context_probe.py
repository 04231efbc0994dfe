"""Asking an OpenAI-compatible server how big a model's context is, where it says.

Each server people run themselves says it somewhere else (their own documentation):

- vLLM: ``max_model_len`` of the model's entry in ``GET /v1/models``;
- llama-server (llama.cpp): ``default_generation_settings.n_ctx`` in ``GET /props`` (the context a
  request may fill: measured, with its unified cache, the whole ``-c`` however many slots it has);
- LM Studio: ``context_length`` of the model's loaded instance in ``GET /api/v1/models`` (LM Studio
  0.4; earlier, ``loaded_context_length`` in ``GET /api/v0/models/{model}``). Its ``max_context_length``
  is what the model could take, not what it was loaded with, so it is never used;
- Ollama: ``context_length`` of the loaded model in ``GET /api/ps`` (a model not loaded yet is not
  listed; its ``num_ctx`` is then what Ollama decides when it loads it).

llama-cpp-python's server says nothing (its size is learned from its first context error, or set
with the ``context_size`` setting). Every question is a GET with a short timeout; a server that does
not answer one (404, not JSON, refused) is simply asked the next.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twnb.llm.context_window import KnownContext

__all__ = ["probe_context_size"]

GetJson = Callable[[str], Any]  # GET a URL, its JSON body (raises on any failure)


def _positive(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and value > 0:
        return int(value)
    return None


def _entry(items: Any, model: str, keys: tuple[str, ...] = ("id",)) -> dict[str, Any] | None:
    """The item of a model list that is `model` (Ollama adds `:latest` to a bare name)."""
    if not isinstance(items, list):
        return None
    names = {model, f"{model}:latest"}
    for item in items:
        if isinstance(item, dict) and any(item.get(key) in names for key in keys):
            return item
    return None


def _vllm(get: GetJson, base_url: str, model: str) -> int | None:
    listing = get(f"{base_url}/models")
    entry = _entry(listing.get("data") if isinstance(listing, dict) else None, model)
    return _positive(entry.get("max_model_len")) if entry else None


def _llama_server(get: GetJson, root: str, model: str) -> int | None:
    props = get(f"{root}/props")
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    if isinstance(settings, dict):
        return _positive(settings.get("n_ctx")) or _positive((settings.get("params") or {}).get("n_ctx"))
    return _positive(props.get("n_ctx"))


def _lm_studio(get: GetJson, root: str, model: str) -> int | None:
    try:
        listing = get(f"{root}/api/v1/models")
    except Exception:  # before LM Studio 0.4
        entry = get(f"{root}/api/v0/models/{model}")
        return _positive(entry.get("loaded_context_length")) if isinstance(entry, dict) else None
    models = listing.get("models") if isinstance(listing, dict) else None
    for item in models if isinstance(models, list) else ():
        instances = item.get("loaded_instances") if isinstance(item, dict) else None
        for instance in instances if isinstance(instances, list) else ():
            if isinstance(instance, dict) and model in (item.get("key"), instance.get("id")):
                return _positive((instance.get("config") or {}).get("context_length"))
    return None


def _ollama(get: GetJson, root: str, model: str) -> int | None:
    running = get(f"{root}/api/ps")
    entry = _entry(running.get("models") if isinstance(running, dict) else None, model, ("name", "model"))
    return _positive(entry.get("context_length")) if entry else None


_PROBES: tuple[tuple[str, Callable[[GetJson, str, str], int | None], bool], ...] = (
    # (how a message names it, the probe, whether it takes the base URL (True) or the server's root)
    ("vLLM's /v1/models", _vllm, True),
    ("llama-server's /props", _llama_server, False),
    ("LM Studio's /api/v1/models", _lm_studio, False),
    ("Ollama's /api/ps", _ollama, False),
)


def probe_context_size(get_json: GetJson, base_url: str, model: str) -> KnownContext | None:
    """The context of `model` as the server at `base_url` (ending in /v1) says it; None if it does not."""
    base = base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    for source, probe, on_base in _PROBES:
        try:
            tokens = probe(get_json, base if on_base else root, model)
        except Exception:  # not this server's way of saying it
            continue
        if tokens:
            return KnownContext(tokens, source)
    return None
