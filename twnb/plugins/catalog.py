"""A notebook's plugins, from every source, and what each Round does with them.

Sources, in the order a name is taken (a later plugin of a name already taken is not loaded, and says
why): the TaskWeaver plugin folders (`plugin_dirs`), the MCP servers' tools (`mcp_servers`), the
notebook's own functions (`@twnb.plugin`, `%taskweaver plugins add NAME`).

Nothing is read before a Round needs it: `refresh()` (the session calls it when a Round starts) loads
the folders and starts the MCP servers the first time, and looks at the notebook's functions every
time, so a function redefined in a cell is the plugin from the next Round on. What could not be loaded
is kept with why, and `refresh` returns each such problem once, when it first appears.

In the kernel a plugin is a function of its name (`PluginFunction`). TaskWeaver plugins and MCP tools
are bound in the notebook's namespace for good (and hidden from `%who`), so a cell can call them too;
a name the user's own variable holds is never overwritten (the plugin is then unavailable, saying
so). A notebook function already is in the namespace: while generated code runs, its name holds a
recording stand-in, and the function itself again afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from twnb.config import is_credential_field, is_secret_name
from twnb.memory import PluginEntry, PluginOfferRecord
from twnb.plugins.calls import CallLog, PluginFunction, open_call_log
from twnb.plugins.decorator import plugin_options
from twnb.plugins.function_spec import entry_from_function
from twnb.plugins.loading import PluginLoadError, load_plugin, read_folder
from twnb.plugins.offer import PluginOffer
from twnb.plugins.reserved_names import ReservedNames
from twnb.plugins.selection import choose_plugins

if TYPE_CHECKING:
    from twnb.config import FileTrust

__all__ = ["PluginCatalog", "PluginState", "ToolSource"]

TASKWEAVER, NOTEBOOK, MCP = "taskweaver", "notebook", "mcp"
_OFFERS_KEPT = 8  # Rounds whose offer is remembered (the current one is what matters)


@dataclass
class PluginState:
    """One plugin as `%taskweaver plugins` lists it: where it comes from, and whether it can be used
    (`problem` says why not; a spec with `enabled: false` is `disabled`)."""

    name: str
    source: str
    where: str
    entry: PluginEntry | None = None
    function: PluginFunction | None = None
    problem: str | None = None

    @property
    def state(self) -> str:
        if self.function is not None and self.problem is None:
            return "loaded"
        if self.entry is not None and not self.entry.enabled:
            return "disabled"
        return "not loaded"

    @property
    def usable(self) -> bool:
        return self.state == "loaded"


class ToolSource(Protocol):
    """Plugins that come from elsewhere than a folder or the notebook: the MCP servers' tools."""

    def load(self) -> list[PluginState]:
        """Start what must be started and return one state per tool (or per server that failed)."""
        ...

    def close(self) -> None: ...


@dataclass
class PluginCatalog:
    """The plugins of one notebook (see the module docstring).

    `namespace` and `hidden` are the kernel's user namespace and `user_ns_hidden`; `notebook_names`
    the names `%taskweaver plugins add` was given (read at each refresh, so the caller may keep
    adding); `configurations` the `plugin_config` setting; `remember_secrets` the session redactor's
    `remember` (secret-looking configuration values become secrets)."""

    folders: Sequence[Path] = ()
    artifacts_dir: Path = Path("twnb-artifacts")
    namespace: MutableMapping[str, Any] | None = None
    hidden: MutableMapping[str, Any] | None = None
    notebook_names: Iterable[str] = ()
    configurations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    session_id: Callable[[], str] = lambda: ""
    tools: ToolSource | None = None
    remember_secrets: Callable[[Iterable[str]], None] | None = None
    # The notebook's record of the files it loads: a plugin a Round wrote is never loaded (file_trust.py)
    file_trust: FileTrust | None = None

    def __post_init__(self) -> None:
        self._fixed: list[PluginState] | None = None  # folders and tools, loaded once
        self._notebook: list[PluginState] = []
        self._notebook_specs: dict[str, tuple[Any, PluginEntry]] = {}  # name -> (function, its spec)
        self._said: set[str] = set()
        self._offers: dict[str, PluginOffer] = {}
        self._merged: dict[tuple[str, int], PluginEntry] = {}  # entries with plugin_config applied
        self.used: list[str] = []  # plugins generated code called, first call first
        self._reserved = ReservedNames()  # builtins and the user's cells' names: never a plugin's

    # -- loading -------------------------------------------------------------------------------------

    def refresh(self) -> list[str]:
        """Load what is not loaded yet and look at the notebook's functions again; returns the
        problems not said before, each `NAME: why`."""
        if self._fixed is None:
            self._fixed = self._load_fixed()
        self._notebook = self._notebook_plugins()
        self._settle_names()
        self._bind()
        fresh = []
        for state in self.states():
            if state.problem is not None and state.entry is not None and not state.entry.enabled:
                continue  # disabled on purpose: listed, not a problem
            if state.problem is not None:
                line = f"{state.name}: {state.problem}"
                if line not in self._said:
                    self._said.add(line)
                    fresh.append(line)
        return fresh

    def states(self) -> list[PluginState]:
        """Every plugin known, in the order names are taken."""
        return [*(self._fixed or []), *self._notebook]

    def available(self) -> list[PluginState]:
        return [state for state in self.states() if state.usable]

    def _load_fixed(self) -> list[PluginState]:
        states: list[PluginState] = []
        for folder in self.folders:
            for spec in read_folder(Path(folder)):
                state = PluginState(
                    spec.name, TASKWEAVER, str(spec.path), entry=spec.entry, problem=spec.problem
                )
                states.append(state)
                if spec.entry is None:
                    continue
                if not spec.entry.enabled:
                    state.problem = "disabled in its spec (enabled: false)"
                    continue
                refused = self._refused(spec.path, spec.path.parent / f"{spec.entry.impl}.py")
                if refused:
                    state.problem = refused
                    continue
                self._remember_configuration(spec.entry)
                try:
                    state.function = load_plugin(
                        spec,
                        session_id=self.session_id(),
                        artifacts_dir=self.artifacts_dir,
                        configuration=self.configurations.get(spec.name),
                    )
                except PluginLoadError as error:
                    state.problem = str(error)
        if self.tools is not None:
            states.extend(self.tools.load())
        return states

    def _refused(self, *paths: Path) -> str:
        """Why the first of `paths` that may not be loaded is refused: a Round wrote it and the user
        has not changed it since, or a confined kernel could write it and changed it ("" when none)."""
        trust = self.file_trust
        if trust is None:
            return ""
        for path in paths:
            if not trust.allows(path, "a plugin"):
                return trust.refusal(path, "a plugin") or (
                    f"{path.name} was written by generated code in a Round: twnb does not load it as a "
                    "plugin; read it, and if you want it, edit and save it yourself"
                )
        return ""

    def _remember_configuration(self, entry: PluginEntry) -> None:
        if self.remember_secrets is None:
            return
        merged = {**entry.configurations, **dict(self.configurations.get(entry.name) or {})}
        self.remember_secrets(
            str(value)
            for key, value in merged.items()
            if isinstance(value, str) and (is_secret_name(str(key)) or is_credential_field(str(key)))
        )

    def _notebook_plugins(self) -> list[PluginState]:
        namespace = self.namespace if self.namespace is not None else {}
        marked = {
            name: options for name, value in list(namespace.items()) if (options := plugin_options(value))
        }
        names = list(dict.fromkeys([*marked, *self.notebook_names]))
        states = []
        for name in names:
            value = namespace.get(name)
            if isinstance(value, PluginFunction) and value.source == NOTEBOOK:
                value = value.target  # a run that ended abnormally left the stand-in
            state = PluginState(name, NOTEBOOK, "notebook")
            states.append(state)
            if value is None:
                state.problem = f"there is no {name} in the notebook (any more): define it, or run the cell"
                continue
            if not callable(value) or isinstance(value, PluginFunction):
                state.problem = f"{name} in the notebook is a {type(value).__name__}, not a function"
                continue
            options = marked.get(name) or plugin_options(value) or {}
            cached = self._notebook_specs.get(name)
            if cached is not None and cached[0] is value:
                entry = cached[1]
            else:
                try:
                    entry = entry_from_function(name, value, **options)
                except ValueError as error:
                    state.problem = str(error)
                    continue
                self._notebook_specs[name] = (value, entry)
            state.entry = entry
            state.function = PluginFunction(
                name,
                NOTEBOOK,
                value,
                description=entry.description,
                parameters=[str(p["name"]) for p in entry.parameters],
            )
        return states

    def _settle_names(self) -> None:
        """First of a name wins; a later one says where the first came from."""
        taken: dict[str, PluginState] = {}
        for state in self.states():
            first = taken.get(state.name)
            if first is None:
                if state.usable:
                    taken[state.name] = state
                continue
            if state.usable:
                state.problem = f"the name is taken by the plugin from {first.where}"

    # -- the kernel ----------------------------------------------------------------------------------

    def _bind(self) -> None:
        """TaskWeaver plugins and MCP tools as functions of their names in the namespace (never over a
        variable of the user's)."""
        if self.namespace is None:
            return
        for state in self.states():
            function = state.function
            if function is None or state.source == NOTEBOOK:
                continue
            current = self.namespace.get(state.name)
            if not state.usable:
                if current is function:
                    self._unbind(state.name, function)
                continue
            if current is not None and not isinstance(current, PluginFunction):
                state.problem = (
                    f"the notebook has a variable named {state.name} ({type(current).__name__}): rename it, "
                    "or del it and run the Round again"
                )
                continue
            reserved = self._reserved.reason(state.name, self.namespace, bound=current is function)
            if reserved is not None:
                state.problem = reserved
                if current is function:
                    self._unbind(state.name, function)
                continue
            self.namespace[state.name] = function
            if self.hidden is not None:
                self.hidden[state.name] = function

    def _unbind(self, name: str, function: Any) -> None:
        if self.namespace is not None and self.namespace.get(name) is function:
            del self.namespace[name]
        if self.hidden is not None and self.hidden.get(name) is function:
            del self.hidden[name]

    @contextlib.contextmanager
    def calls_recorded(self, artifacts_dir: Path, artifact_stem: str, execution_id: str) -> Iterator[CallLog]:
        """While generated code runs: every plugin bound (notebook functions through their recording
        stand-ins) and its calls recorded in the log yielded."""
        if self._fixed is None:
            self.refresh()
        else:
            self._bind()
        log = CallLog(Path(artifacts_dir), artifact_stem, execution_id)
        try:
            with self._notebook_functions_swapped(), open_call_log(log):
                yield log
        finally:
            for call in log.calls:
                if call["name"] not in self.used:
                    self.used.append(call["name"])

    @contextlib.contextmanager
    def bound(self) -> Iterator[list[str]]:
        """While recorded code runs again (`%taskweaver load --rerun`): every plugin bound, the
        notebook's functions through their stand-ins (so they act as the plugins they are); yields the
        problems `refresh` finds."""
        problems = self.refresh()
        with self._notebook_functions_swapped():
            yield problems

    @contextlib.contextmanager
    def _notebook_functions_swapped(self) -> Iterator[None]:
        swapped = self._swap_in_notebook_functions()
        try:
            yield
        finally:
            self._swap_back(swapped)

    def _swap_in_notebook_functions(self) -> list[tuple[str, PluginFunction]]:
        swapped: list[tuple[str, PluginFunction]] = []
        if self.namespace is None:
            return swapped
        for state in self._notebook:
            function = state.function
            if function is not None and state.usable and self.namespace.get(state.name) is function.target:
                self.namespace[state.name] = function
                swapped.append((state.name, function))
        return swapped

    def _swap_back(self, swapped: list[tuple[str, PluginFunction]]) -> None:
        if self.namespace is None:
            return
        for name, function in swapped:
            if self.namespace.get(name) is function:  # the code did not rebind the name itself
                self.namespace[name] = function.target

    # -- prompts -------------------------------------------------------------------------------------

    def offer(self, round_id: str, request: str, plugin_only: bool) -> PluginOffer:
        """The plugins the Round's prompts describe (see offer.py and selection.py); the same for every
        call of one Round. In plugin-only mode the plugins marked `plugin_only` are offered, or every
        plugin when none is marked."""
        key = f"{round_id}:{plugin_only}"
        known = self._offers.get(key)
        if known is not None:
            return known
        entries = [s.entry for s in self.available() if s.entry is not None]
        if plugin_only and any(e.plugin_only for e in entries):
            entries = [e for e in entries if e.plugin_only]
        chosen, record = choose_plugins(entries, request, used=self.used)
        offer = PluginOffer(
            stubs="\n".join(e.format_prompt() for e in chosen).strip(),
            planner_lines="\n".join(e.spec.plugin_description().rstrip() for e in chosen),
            functions=tuple(e.name for e in chosen),
            plugin_only=plugin_only,
            record=record,
        )
        self._offers[key] = offer
        while len(self._offers) > _OFFERS_KEPT:
            self._offers.pop(next(iter(self._offers)))
        return offer

    def offer_record(self, round_id: str) -> PluginOfferRecord | None:
        """What Round `round_id` was offered, if its prompts asked."""
        for key, offer in reversed(self._offers.items()):
            if key.rsplit(":", 1)[0] == round_id:
                return offer.record
        return None

    def conversation_entries(self) -> list[PluginEntry]:
        """The plugins the session has, for the conversation's `plugins:` section (TaskWeaver's schema):
        every usable one, its configurations as loaded (redact before saving). The same entry objects
        while nothing changed (a caller may skip work on identity)."""
        entries = []
        for state in self.available():
            if state.entry is None:
                continue
            configuration = self.configurations.get(state.name)
            if not configuration:
                entries.append(state.entry)
                continue
            key = (state.name, id(state.entry))
            merged = self._merged.get(key)
            if merged is None:
                merged = PluginEntry.from_yaml_content(state.entry.to_dict())
                merged.configurations.update(configuration)
                self._merged[key] = merged
            entries.append(merged)
        return entries

    def close(self) -> None:
        """Remove the plugins from the namespace and stop what was started (the MCP servers)."""
        for state in self.states():
            if state.function is not None and state.source != NOTEBOOK:
                self._unbind(state.name, state.function)
        if self.tools is not None:
            self.tools.close()
