"""The notebook's one twnb session: built lazily from the settings, kept across cells.

The session (Planner, CodeInterpreter, LLM client) needs a model and a key; loading, saving, showing
and listing Rounds do not. So until the first `%%taskweaver` Round a loaded conversation waits here,
and the session that is built later takes it over. When the effective settings change (a
`%config TaskWeaverMagics.model = ...`, a `--model` flag) a new session is built around the same
conversation, so the notebook keeps one conversation whatever the model.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.config import FileTrust, secret_environment_values
from twnb.notebook.user_cell_watch import UserCellWatch

if TYPE_CHECKING:  # twnb.memory costs tens of ms to import: `%load_ext twnb` must not pay for it
    from IPython.core.interactiveshell import InteractiveShell

    from twnb.config import FolderQuarantine, Redactor, ResolvedSettings
    from twnb.memory import Conversation, Memory, Plan, Round
    from twnb.plugins import PluginCatalog
    from twnb.replay import ExportResult
    from twnb.session import PlanNotebook, Session, UndoLog, UndoOutcome

# lazy: %load_ext twnb imports this module; the session, its files and its settings load with the
# first Round or command (bench/bench_notebook.py): twnb.session (50-170 modules, ~100-250 ms),
# twnb.memory (47), twnb.replay (nbformat: ~300 modules, ~1 s), twnb.config's resolver (4 modules,
# ~15 ms) and twnb.base's ids (5 modules, ~1.5 ms)


_CELL_ONLY_SETTINGS = frozenset({"step", "strict", "plugin_only"})


class NotebookSession:
    """Holds the Session (or, before one exists, the conversation) of one notebook kernel."""

    def __init__(self, shell: InteractiveShell, workdir: str | os.PathLike[str]) -> None:
        self.shell = shell
        self.workdir = Path(workdir)
        # Once a secret, always a secret, from `%load_ext twnb` on: a value the environment held then
        # stays redacted after the user pops or renames its variable, and so does every value a
        # session's redactor learnt, when settings change and a new session (and redactor) is built.
        self._known_secrets = frozenset(secret_environment_values(os.environ))
        self.session: Session | None = None
        self._session_key: tuple[Any, ...] | None = None
        self._memory: Memory | None = None  # used until a Session exists; made on first use
        self.round_running = False  # one Round at a time: see running_round
        # The user's own cells, from the extension's load on: each Round records those since the last.
        self.user_cells = UserCellWatch(shell)
        # The notebook's plugins outlive sessions (a new model keeps the MCP servers running); they are
        # rebuilt only when the settings that describe them change. `plugin_names`: the functions
        # `%taskweaver plugins add` made plugins, in order.
        self.plugin_names: list[str] = []
        self._catalog: PluginCatalog | None = None
        self._catalog_key: tuple[Any, ...] | None = None
        # The runs that can be undone outlive sessions too (a Round with another --model builds a new
        # one): made with the first session, given each session after it.
        self.undo_log: UndoLog | None = None
        # Round id -> the display it was shown in: an undone Round's output is redrawn there, greyed.
        self.round_displays: dict[str, str] = {}
        # The files the settings and plugins are loaded from: never one a Round wrote; one the user
        # added or changed is said at the next Round (config/file_trust.py); nor one a confined kernel
        # could write and changed, until the user accepts it (config/quarantine.py).
        self._quarantine: FolderQuarantine | None = None
        self._quarantine_reviewed = False  # the first Round names what is quarantined here, once
        self.file_trust = FileTrust(written_by_code=_written_by_generated_code, quarantine=self._quarantined)
        # The magics whose traitlets are settings (set by TaskWeaverMagics): watched while code runs,
        # and how each was set (`traitlet_origins`).
        self.settings_holder: Any = None

    def _quarantined(self, path: str, what: str, digest: str) -> str | None:
        """The line refusing a file the quarantine holds (made at the first file asked about: its
        module is not loaded by `%load_ext twnb`)."""
        if self._quarantine is None:
            from twnb.config import FolderQuarantine

            self._quarantine = FolderQuarantine(self.workdir)
        return self._quarantine.line(path, what, digest)

    @contextlib.contextmanager
    def running_round(self) -> Iterator[None]:
        """While a Round runs, commands that would change its conversation or settings are refused
        (the magics check `round_running`), so memory, autosave and display never disagree."""
        self.round_running = True
        try:
            yield
        finally:
            self.round_running = False

    # --- settings and the session ----------------------------------------------------------------

    def resolve(
        self, flags: Mapping[str, Any] | None, traitlets: Mapping[str, Any] | None
    ) -> ResolvedSettings:
        from twnb.config import resolve_settings

        origins = getattr(self.settings_holder, "trait_origins", None)
        return resolve_settings(
            overrides=flags,
            traitlets=traitlets,
            workdir=self.workdir,
            file_trust=self.file_trust,
            traitlet_origins=origins() if callable(origins) else None,
        )

    def session_dir(self, resolved: ResolvedSettings) -> Path:
        path = Path(resolved.settings.session_dir).expanduser()
        return path if path.is_absolute() else self.workdir / path

    def session_for(self, resolved: ResolvedSettings) -> Session:
        """The Session for these settings (raises SettingsError with a clear message when unusable)."""
        resolved.require_model()
        catalog = self.plugin_catalog(resolved)
        # Step mode, plugin-only mode and strict are how the notebook drives a Round and what a cell does
        # when it fails, not part of the session: changing them keeps it. The plugins are (a folder
        # appearing beside the notebook makes new ones).
        settings = sorted(
            (k, repr(v)) for k, v in resolved.settings.to_dict().items() if k not in _CELL_ONLY_SETTINGS
        )
        key = (*settings, id(catalog))
        if self.session is None or key != self._session_key:
            memory = self.memory
            # Built around the notebook's conversation, so the cassette (when recording) lands in the
            # same session folder as the Rounds it recorded.
            session = self._build(resolved, memory)
            session.adopt(memory)
            self._watch_traitlets(session)
            self.session, self._session_key = session, key
        self.session.pending_notes.extend(self.file_trust.take_lines())
        if not self._quarantine_reviewed:
            self._quarantine_reviewed = True
            self.session.pending_notes.extend(self._quarantine_review())
        return self.session

    def _quarantine_review(self) -> list[str]:
        """What an earlier confined kernel's end quarantined or moved aside here and the user has not
        accepted yet, in one line (the quarantine's module loads here, at the first Round)."""
        from twnb.config import FolderQuarantine, quarantine_review

        if self._quarantine is None:
            self._quarantine = FolderQuarantine(self.workdir)
        return quarantine_review(self._quarantine)

    def _watch_traitlets(self, session: Session) -> None:
        """The settings' traitlets are settings the session watches while code runs (settings_watch.py)."""
        holder = self.settings_holder
        if holder is None:
            return
        for name in holder.trait_names(config=True):
            session.settings_watch.watch(holder, name, f"TaskWeaverMagics.{name}")

    def _build(self, resolved: ResolvedSettings, memory: Memory) -> Session:
        from twnb.session import build_live_session, undo_log_for

        self.undo_log = undo_log_for(resolved, self.shell, self.session_dir(resolved), self.undo_log)
        return build_live_session(
            resolved,
            self.shell,
            self.workdir,
            self.session_dir(resolved),
            known_secrets=self.known_secrets(),
            memory=memory,
            user_cells=self.user_cells,
            plugins=self.plugin_catalog(resolved),
            undo_log=self.undo_log,
        )

    def plugin_catalog(self, resolved: ResolvedSettings) -> PluginCatalog:
        """The notebook's plugins for these settings: the same catalog while they describe the same
        plugins; a new one (the old one closed: its names unbound, its MCP servers stopped) when they
        change. Nothing is loaded here (see PluginCatalog.refresh)."""
        from twnb.session import artifacts_folder, plugin_catalog, plugin_folders

        settings = resolved.settings
        key = (
            tuple(plugin_folders(resolved, self.workdir)),
            repr(getattr(settings, "plugin_config", None)),
            repr(getattr(settings, "mcp_servers", None)),
            getattr(settings, "mcp_timeout", None),
            artifacts_folder(resolved, self.workdir),
            self.session_dir(resolved),
        )
        if self._catalog is not None and key == self._catalog_key:
            return self._catalog
        self.close_plugins()
        namespace = getattr(self.shell, "user_ns", None)
        self._catalog = plugin_catalog(
            resolved,
            workdir=self.workdir,
            session_dir=self.session_dir(resolved),
            namespace=namespace,
            hidden=getattr(self.shell, "user_ns_hidden", None),
            notebook_names=self.plugin_names,
            session_id=lambda: self.session_id,
            file_trust=self.file_trust,
        )
        self._catalog_key = key
        return self._catalog

    def close_plugins(self) -> None:
        """Unbind the plugins and stop the MCP servers (kept until the kernel ends otherwise)."""
        catalog, self._catalog, self._catalog_key = self._catalog, None, None
        if catalog is not None:
            catalog.close()

    def known_secrets(self) -> frozenset[str]:
        """Every secret value seen since the extension loaded (see __init__)."""
        if self.session is not None and self.session.redactor is not None:
            self._known_secrets |= self.session.redactor.secret_values()
        return self._known_secrets

    def redactor(self, resolved: ResolvedSettings | None) -> Redactor:
        """The redactor a Session for these settings would have (for what the notebook shows or saves),
        knowing every secret seen so far; without settings (they failed to resolve) the environment's
        secrets and the known key shapes still are redacted."""
        from twnb.session import redactor_for

        redactor = redactor_for(resolved)
        redactor.remember(self.known_secrets())
        return redactor

    # --- the conversation, with or without a session ---------------------------------------------

    @property
    def memory(self) -> Memory:
        if self.session is not None:
            return self.session.memory
        if self._memory is None:
            self._memory = _new_memory()
        return self._memory

    @property
    def conversation(self) -> Conversation:
        return self.memory.conversation

    @property
    def session_id(self) -> str:
        return self.memory.session_id

    @property
    def plans(self) -> PlanNotebook:
        """The session's plan notebook; before a session exists, one read from the conversation (a
        recovered plan is written back into it by `recover_plan`, for the session built later)."""
        if self.session is not None:
            return self.session.plans
        from twnb.session import PlanNotebook

        plans = PlanNotebook()
        plans.load_from(self.conversation)
        return plans

    def note_held_back_cells(self, round: Round, note: str) -> None:
        """Why the cells queued below the Round did not run, autosaved with the Round by the session
        that ran it (a stand-in Round no session holds keeps it in memory only)."""
        if self.session is not None:
            self.session.note_held_back_cells(round, note)
            return
        round.extra = {**(round.extra or {}), "held_back_cells": note}

    def recover_plan(self, number: int, resolved: ResolvedSettings | None = None) -> Plan:
        """Make earlier plan `number` current again for the next Round, kept in the conversation and
        its autosave (ValueError with what to do when there is no such plan)."""
        if self.session is not None:
            return self.session.recover_plan(number)
        plans = self.plans
        plan = plans.recover(number)
        plans.save_into(self.conversation)
        rounds = self.conversation.rounds
        self._autosave(rounds[-1:], len(rounds) - 1, resolved)  # the last Round's file carries it
        return plan

    def load(self, path: str | os.PathLike[str], resolved: ResolvedSettings | None = None) -> Conversation:
        """Replace the conversation with a saved one (ids kept), the way a Session does, whether or
        not one exists yet; a bad file raises ValueError and changes nothing. `resolved` (the
        settings) says where a session-less notebook autosaves the loaded Rounds. A notebook (.ipynb)
        is read from its twnb metadata, or from its Round outputs. The loaded conversation goes on
        under the session the file names (an autosave, a notebook), else a new one: never in the
        replaced conversation's autosave folder."""
        if Path(path).suffix.lower() == ".ipynb":
            from twnb.replay import read_notebook

            imported = read_notebook(path)
            conversation, session_id = imported.conversation, imported.session_id
        else:
            from twnb.session import load_conversation_and_session

            conversation, session_id = load_conversation_and_session(path)
        if self.session is not None and self.session.cassette_path is None:
            return self.session.replace_conversation(conversation, session_id=session_id)
        if self.session is not None:  # recording: let it go, as reset does (its cassette's folder)
            self.known_secrets()
            self.session, self._session_key = None, None
        from twnb.base import create_id
        from twnb.memory import Memory

        self._memory = Memory(session_id=session_id or create_id())
        self._memory.conversation = conversation
        self._autosave(conversation.rounds, 0, resolved)  # complete, as a Session's is after a load
        return conversation

    def autosave_folder(self, resolved: ResolvedSettings | None) -> Path | None:
        """Where this conversation's Rounds are autosaved (None without settings: nowhere known)."""
        if self.session is not None:
            return self.session.autosave_dir
        return None if resolved is None else self.session_dir(resolved) / self.session_id / "rounds"

    def _autosave(self, rounds: list[Round], first: int, resolved: ResolvedSettings | None) -> None:
        """Autosave `rounds` (the conversation's from number `first`) without a session, where a
        session for `resolved` would; without settings there is nowhere to write."""
        if resolved is None:
            return
        from twnb.session import save_round

        folder = self.session_dir(resolved) / self.session_id / "rounds"
        redact = self.redactor(resolved).redact_data
        try:
            for index, round in enumerate(rounds, start=first):
                save_round(
                    folder,
                    round,
                    conversation=self.conversation,
                    session_id=self.session_id,
                    index=index,
                    redact=redact,
                )
        except OSError:
            pass  # the conversation is as it should be; the Round that runs next says what autosave hits

    def save(self, path: str | os.PathLike[str], resolved: ResolvedSettings | None = None) -> Path:
        """The conversation as TaskWeaver YAML, redacted, the way a Session saves it (see
        twnb.session.conversation_store)."""
        if self.session is not None:
            return Path(self.session.save(path))
        from twnb.session import save_conversation_file

        return save_conversation_file(self.conversation, path, redact=self.redactor(resolved).redact_data)

    def export(self, path: str | os.PathLike[str], resolved: ResolvedSettings | None = None) -> ExportResult:
        """The conversation as a notebook (redacted, artifacts copied beside it); nothing is run."""
        from twnb.replay import export_notebook

        return export_notebook(
            self.conversation,
            path,
            source_dir=self.workdir,
            session_id=self.session_id,
            redact=self.redactor(resolved).redact_data,
            artifacts_folder=artifacts_folder(resolved),
            artifact_folders=self._artifact_folders(resolved),
        )

    def _artifact_folders(self, resolved: ResolvedSettings | None) -> list[Path]:
        """The session and artifacts folders of these settings: artifacts may live there."""
        if resolved is None:
            return []
        artifacts = Path(resolved.settings.artifacts_dir).expanduser()
        artifacts = artifacts if artifacts.is_absolute() else self.workdir / artifacts
        return [self.session_dir(resolved), artifacts]

    def reset(self) -> str:
        """A new, empty conversation with a new session id; returns the id. A session that records is
        let go (the next Round builds one), so its cassette does not stay in the old session's folder."""
        if self.undo_log is not None:
            self.undo_log.clear()
        if self.session is not None and self.session.cassette_path is None:
            self.session.reset()
        else:
            self.known_secrets()  # what the session let go has seen stays known
            self.session, self._session_key, self._memory = None, None, _new_memory()
        return self.session_id

    def undo(self, ref: str | None, *, force: bool) -> UndoOutcome:
        """`%taskweaver undo`: see Session.undo."""
        if self.session is None:
            from twnb.session import UndoOutcome

            return UndoOutcome(False, "Nothing was undone: no Round has run code in this kernel yet.")
        return self.session.undo(ref, force=force)

    def find_round(self, ref: str) -> Round | None:
        """A Round by id, by its 1-based number, or `last`; None when there is no such Round."""
        from twnb.session import find_round

        return find_round(self.conversation, ref)

    def latest_autosave(self, resolved: ResolvedSettings) -> Path | None:
        """The newest autosaved Round file under the session folder (`<dir>/<session>/rounds/*.yaml`);
        loading it loads that session's whole conversation (what `load --latest` does)."""
        folder = self.session_dir(resolved)
        candidates = [p for p in folder.glob("*/rounds/*.yaml") if p.is_file()] if folder.is_dir() else []
        return max(candidates, key=lambda p: p.stat().st_mtime, default=None)


def _written_by_generated_code(path: str) -> bool:
    """Whether generated code wrote `path` in this kernel (the runtime guard's record); without a guard
    in the process no code has run, and twnb.session is not imported for the question."""
    if getattr(sys, "_twnb_runtime_guard", None) is None:
        return False
    from twnb.session import written_by_generated_code

    return written_by_generated_code(path)


def artifacts_folder(resolved: ResolvedSettings | None) -> str:
    """The visible folder beside an exported notebook for the files it links to."""
    from twnb.replay import visible_folder

    return visible_folder(resolved.settings.artifacts_dir if resolved is not None else None)


def _new_memory() -> Memory:
    from twnb.base import create_id
    from twnb.memory import Memory

    return Memory(session_id=create_id())
