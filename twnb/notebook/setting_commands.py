"""`%taskweaver config`, `trace`, `plugins` and `rules`: what the Rounds run with."""

from __future__ import annotations

import argparse

from IPython.display import display

from twnb.notebook.subcommand_context import SubcommandContext, round_running_message

# lazy: %load_ext twnb imports this module; each command loads what it needs when it runs:
# twnb.session (170 modules, ~250 ms), twnb.telemetry (49 modules, ~60 ms),
# twnb.notebook.plugins_table (73 modules) and twnb.config's Confinement (1 module, ~1 ms)


def config_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    try:
        resolved = ctx.resolve()
    except ValueError as error:
        ctx.say(str(error), error=True)
        return
    from twnb.config import Confinement

    table = resolved.format_table()
    confinement = Confinement.from_environ()
    kernel = (
        confinement.describe()
        if confinement is not None
        else "not confined (the twnb-confined kernel runs generated code confined by the system)"
    )
    text = f"twnb settings (folder {resolved.workdir}):\n{table}\nkernel: {kernel}"
    print(ctx.notebook.redactor(resolved).redact(text))


def trace_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    from twnb.telemetry import CAPTURE_VARIABLE, configure_tracing, content_capture, tracing

    usage = "Usage: %taskweaver trace on|off|console|otlp [URL]"
    if not rest:
        where = f" ({tracing.endpoint})" if tracing.endpoint else ""
        ctx.say(f"Tracing is {tracing.mode}{where}. {usage}")
        return
    mode, url = rest[0], rest[1] if len(rest) > 1 else None
    if len(rest) > 2 or (url is not None and mode.lower() != "otlp"):
        ctx.say(f"{usage} (only otlp takes a URL)", error=True)
        return
    if url is not None and not url.startswith(("http://", "https://")):
        ctx.say(f"{url!r} is not an http(s) URL, e.g. http://localhost:4318", error=True)
        return
    try:
        said = configure_tracing(mode, url)
    except (ValueError, ImportError) as error:
        ctx.say(str(error), error=True)
        return
    if tracing.tracer is not None and content_capture():
        said += f" Message contents are recorded, redacted ({CAPTURE_VARIABLE})."
    ctx.say(said)


def plugins_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    usage = "Usage: %taskweaver plugins, or %taskweaver plugins add NAME (a function in the notebook)"
    if rest and (len(rest) != 2 or rest[0] != "add"):
        ctx.say(usage, error=True)
        return
    if rest:
        _add_plugin(ctx, rest[1])
        return
    try:
        resolved = ctx.resolve()
    except ValueError as error:
        ctx.say(str(error), error=True)
        return
    if ctx.notebook.round_running:
        ctx.say(round_running_message("%taskweaver plugins"), error=True)
        return

    from twnb.notebook.plugins_table import plugins_bundle

    catalog = ctx.notebook.plugin_catalog(resolved)
    catalog.refresh()
    display(plugins_bundle(catalog.states(), ctx.notebook.redactor(resolved).redact), raw=True)


def _add_plugin(ctx: SubcommandContext, name: str) -> None:
    namespace = getattr(ctx.shell, "user_ns", {}) or {}
    if not name.isidentifier():
        ctx.say(f"{name!r} is not a Python name: give the name of a function in the notebook.", error=True)
        return
    value = namespace.get(name)
    if value is None or not callable(value) or isinstance(value, type):
        what = "nothing" if value is None else f"a {type(value).__name__}"
        ctx.say(f"{name} in the notebook is {what}, not a function: define it first.", error=True)
        return
    if name not in ctx.notebook.plugin_names:
        ctx.notebook.plugin_names.append(name)
    ctx.say(
        f"{name} is a plugin from the next Round on (its spec comes from its signature and docstring; "
        "redefining it updates the plugin)."
    )


def rules_command(ctx: SubcommandContext, args: argparse.Namespace) -> None:
    rest: list[str] = args.words
    from twnb.session import rules_in_force

    if rest:
        ctx.say(f"%taskweaver rules takes no arguments, got {' '.join(rest)!r}.", error=True)
        return
    try:
        resolved = ctx.resolve()
    except ValueError as error:
        ctx.say(str(error), error=True)
        return
    print(rules_in_force(resolved, ctx.notebook.conversation).describe())
