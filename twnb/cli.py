"""The `twnb` command line: `twnb demo` runs the quickstart analysis headless; `twnb export` turns a
conversation into a notebook (and re-runs it) or a notebook back into a conversation; `twnb eval` runs
TaskWeaver's evaluation cases against models, as notebooks (twnb/evaluation/command.py); `twnb trust`
lists the files a confined kernel changed and accepts them (twnb/config/quarantine.py)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from twnb._version import __version__
from twnb.evaluation import add_eval_parser, run_eval_command

if TYPE_CHECKING:
    from twnb.config import FolderQuarantine


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="twnb", description="TaskWeaver's code-first agent inside Jupyter.")
    parser.add_argument("--version", action="version", version=f"twnb {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = commands.add_parser(
        "demo",
        help="run the quickstart analysis in a real kernel (offline, from scripted replies)",
        description=(
            "Run a demo analysis (the quickstart unless --notebook says otherwise) headless in a real "
            "kernel and write the executed notebook, "
            "the conversation YAML and the artifacts into a folder. Offline by default: the LLM "
            "replies are scripted and replayed from a bundled cassette (no key, no network)."
        ),
    )
    demo.add_argument(
        "--live",
        action="store_true",
        help="use your configured model instead of the scripted replies (never switched on by a key alone)",
    )
    demo.add_argument(
        "--no-confine",
        dest="no_confine",
        action="store_true",
        help="with --live, run the model's code in a kernel the system does not confine (it may then run "
        "programs, read your home folder's secrets and connect anywhere)",
    )
    demo.add_argument("-o", "--out", default="twnb-demo", metavar="DIR", help="output folder (./twnb-demo)")
    demo.add_argument(
        "--notebook",
        default="quickstart",
        choices=("quickstart", "bigger-than-memory"),
        help="which analysis: the coffee-sales quickstart (default), or Dask over 16 million Parquet rows",
    )
    where = demo.add_mutually_exclusive_group()
    where.add_argument(
        "--kernel",
        metavar="NAME",
        help="run in this kernelspec's kernel (`jupyter kernelspec list`); default: a kernel of this Python",
    )
    where.add_argument(
        "--existing",
        metavar="CONNECTION_FILE",
        help="run in a running kernel, attached by its connection "
        "file (kernel-*.json in `jupyter --runtime-dir`); it is left running",
    )
    demo.add_argument(
        "--timeout", type=_seconds, default=600, metavar="S", help="seconds one notebook cell may take (600)"
    )
    add_export_parser(commands)
    add_kernel_parser(commands)

    add_eval_parser(commands)
    add_trust_parser(commands)
    return parser


def add_export_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser(
        "export",
        help="a conversation as a notebook (optionally re-run and checked), or a notebook as a conversation",
        description=(
            "CONV.yaml -o OUT.ipynb writes the conversation as a notebook: per Round a "
            "`%%taskweaver show` cell with the Round, its request, plan and messages as Markdown, and the "
            "code that ran with its recorded outputs; artifacts are copied beside it. NOTEBOOK.ipynb -o "
            "CONV.yaml reads the conversation back from an exported notebook, or from the Round outputs "
            "of any notebook in which Rounds ran. NOTEBOOK.ipynb --execute (or --check) re-runs such a "
            "notebook as it is into NAME.rerun.ipynb (or -o OUT.ipynb): the code each %%taskweaver cell's "
            "Round ran runs after it, no model is called. Nothing is executed unless --execute is given; "
            "the recorded code is verified first, as generated code is (--no-verify: not)."
        ),
        epilog=(
            "Exit status: 0 done (with --check: every cell reproduced); 1 the re-run diverged (--check) "
            "or its kernel died; 2 bad input (missing or unreadable file, no twnb conversation, bad "
            "options); 130 interrupted."
        ),
    )
    export.add_argument(
        "source", metavar="SOURCE", help="a conversation (YAML or autosave folder) or a notebook"
    )
    export.add_argument(
        "-o",
        "--out",
        metavar="OUT",
        help="the .ipynb (or .yaml) to write; a notebook re-run as it is goes to NAME.rerun.ipynb without it",
    )
    export.add_argument(
        "--execute",
        action="store_true",
        help="re-run the code cells in a fresh kernel (a NOTEBOOK.ipynb source: the notebook as it is)",
    )
    export.add_argument(
        "--force",
        action="store_true",
        help="replace OUT (or NAME.rerun.ipynb) when it exists (never the input)",
    )
    export.add_argument(
        "--check", action="store_true", help="re-run (implies --execute); exit 1 when any cell differs"
    )
    export.add_argument(
        "--no-failed", dest="no_failed", action="store_true", help="leave failed attempts out"
    )
    export.add_argument(
        "--timeout",
        type=_seconds,
        default=600,
        metavar="S",
        help="seconds one cell may take when re-run (600)",
    )
    export.add_argument(
        "--cwd", metavar="DIR", help="folder the kernel runs in (default: the conversation file's folder)"
    )
    export.add_argument(
        "--strict-images",
        dest="strict_images",
        action="store_true",
        help="images must be identical to count as reproduced (default: same dimensions)",
    )
    export.add_argument(
        "--no-verify",
        dest="no_verify",
        action="store_true",
        help="re-run the recorded code without verifying it first (only for code you trust)",
    )
    export.add_argument(
        "--no-confine",
        dest="no_confine",
        action="store_true",
        help="re-run in a kernel the system does not confine: the notebook's code may then run "
        "programs, read your home folder's secrets, write anywhere you can and connect anywhere",
    )
    kernel = export.add_mutually_exclusive_group()
    kernel.add_argument(
        "--kernel", metavar="NAME", help="a Jupyter kernel by name (default: this Python's, confined)"
    )
    kernel.add_argument(
        "--existing",
        metavar="CONNECTION_FILE",
        help="re-run in a running kernel, attached by its connection file (kernel-*.json in `jupyter "
        "--runtime-dir`); it runs the cells in its own working directory and is left running",
    )


def add_kernel_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    kernel = commands.add_parser("kernel", help="install twnb's Jupyter kernels")
    actions = kernel.add_subparsers(dest="kernel_command", metavar="ACTION", required=True)
    install = actions.add_parser(
        "install",
        help="install a kernelspec",
        description=(
            '--confined installs the kernelspec twnb-confined ("Python 3 (twnb, confined)"): this '
            "Python's ipykernel confined by Landlock and seccomp; it runs no programs, writes only the "
            "notebook's folder, the artifacts folder and its own temporary folder, reads no secrets of "
            "your home folder, and reaches the model only through a proxy that holds the API key."
        ),
    )
    install.add_argument("--confined", action="store_true", required=True, help="the confined kernel")
    where = install.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="in your own Jupyter folder")
    where.add_argument("--prefix", metavar="P", help="under this prefix (e.g. a virtual environment's)")


def run_kernel_command(args: argparse.Namespace) -> int:
    # lazy: each command loads its own layer when it runs, not for another's: twnb.confine (~30 ms),
    # twnb.demo (~1.4 s, kernels and nbclient), twnb.replay (~90 ms; bench/bench_export_startup.py)
    from twnb.confine import abi_version, install_confined_kernelspec, unavailable_reason

    folder = install_confined_kernelspec(user=args.user, prefix=args.prefix)
    print(f"Installed the kernelspec twnb-confined in {folder}.")
    reason = unavailable_reason(abi_version())
    if reason is not None:
        print(f"twnb: it will refuse to start here: {reason}.", file=sys.stderr)
    return 0


def add_trust_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    trust = commands.add_parser(
        "trust",
        help="list the files a confined kernel changed (quarantined), and accept them",
        description=(
            "A file later sessions trust (twnb.yaml, AGENTS.md, TWNB.md, plugins, experience) that "
            "changed while a confined kernel could write it is quarantined: no session loads it until "
            "you accept it here, outside the confined kernel. Without ACTION: the quarantined files."
        ),
    )
    trust.add_argument("--folder", default=".", help="the notebook's folder (default: the current one)")
    actions = trust.add_subparsers(dest="trust_command", metavar="ACTION")
    accept = actions.add_parser(
        "accept", help="show how each file differs from what you trusted, and trust it as it is now"
    )
    accept.add_argument("files", nargs="+", metavar="FILE", help="relative to the folder, or absolute")
    accept.add_argument("--yes", action="store_true", help="accept without asking (for scripts)")


def run_trust_command(args: argparse.Namespace) -> int:
    # lazy: twnb.config's quarantine and confinement modules (~3 ms), for this command alone (and
    # in _elsewhere and _list_quarantined, kernel_end.py's look at other folders' records)
    from twnb.config import CONFINED_ENV, FolderQuarantine, QuarantineError

    folder = Path(args.folder)
    if not folder.is_dir():
        print(
            f"twnb trust: {folder} is not a folder; name the notebook's folder with --folder.",
            file=sys.stderr,
        )
        return 2
    quarantine = FolderQuarantine(folder)
    try:
        found = quarantine.quarantined()
    except QuarantineError as error:
        print(f"twnb trust: {error}", file=sys.stderr)
        return 1
    if args.trust_command is None:
        _list_quarantined(quarantine, found)
        return 0
    if os.environ.get(CONFINED_ENV):
        print(
            "twnb trust: this runs inside a confined kernel, which cannot write the quarantine record "
            "(that is the point); run `twnb trust accept` in a terminal outside the kernel.",
            file=sys.stderr,
        )
        return 1
    names = [quarantine.name_of(file) for file in args.files]
    unknown = [name for name in names if name not in found]
    running = quarantine.running()
    elsewhere = _elsewhere(quarantine) if unknown else {}
    for name in unknown:
        if name in elsewhere:
            holder, held = elsewhere[name]
            print(
                f"twnb trust: {name} is recorded in the record of {holder}, where the confined kernel ran: "
                f"run `twnb trust --folder {shlex.quote(holder)} accept {shlex.quote(held)}`.",
                file=sys.stderr,
            )
            continue
        later = " (a confined kernel runs in this folder: accept it once it ended)" if running else ""
        print(f"twnb trust: {name} is not quarantined; nothing to accept{later}.", file=sys.stderr)
    chosen = [
        name
        for name in names
        if name in found and _shown_and_confirmed(quarantine, found[name], name, args.yes)
    ]
    if not chosen:
        return 1 if unknown or names else 0
    try:
        quarantine.accept(chosen)
    except QuarantineError as error:
        print(f"twnb trust: not accepted: {error}", file=sys.stderr)
        return 1
    for name in chosen:
        moved = found[name].get("moved_to")
        if moved:
            print(f"Accepted {name}: moved back from {moved}.")
        else:
            print(f"Accepted {name}: later sessions load it as it is now.")
    return 0


def _elsewhere(quarantine: FolderQuarantine) -> dict[str, tuple[str, str]]:
    """Entries for places in this folder that other folders' records hold (a confined kernel started
    in a parent folder moved them aside): their name here -> (that record's folder, their name there)."""
    from twnb.config import recorded_elsewhere

    found = {}
    for holder, name, _entry in recorded_elsewhere(quarantine.folder):
        path = name if os.path.isabs(name) else os.path.join(holder, name)
        found[quarantine.name_of(path)] = (holder, name)
    return found


def _list_quarantined(quarantine: FolderQuarantine, found: dict[str, dict[str, object]]) -> None:
    from twnb.config import elsewhere_line, recorded_elsewhere

    elsewhere = recorded_elsewhere(quarantine.folder)
    if elsewhere:
        print(f"Recorded for places in {quarantine.folder} in other folders' records:")
        for holder, name, entry in elsewhere:
            print(f"  {elsewhere_line(holder, name, entry)}")
    if not found:
        if not elsewhere:
            print(f"No file of {quarantine.folder} is quarantined.")
    else:
        print(f"Quarantined in {quarantine.folder} (changed while a confined kernel could write them):")
        for name, entry in sorted(found.items()):
            if entry.get("moved_to"):  # a .git or a shadowing module (twnb/config/planted.py)
                print(
                    f"  {name}: {entry.get('what')}, moved aside to {entry['moved_to']}, {entry.get('since')}"
                )
                continue
            what = "removed" if entry.get("found") is None else "changed"
            print(f"  {name}: {what}, found {entry.get('since')}")
        print("Read each; `twnb trust accept FILE` shows the change and trusts the file as it is.")
    if quarantine.running():
        print("A confined kernel runs in this folder: files that change meanwhile are not loaded either.")


def _shown_and_confirmed(
    quarantine: FolderQuarantine, entry: dict[str, object], name: str, yes: bool
) -> bool:
    """The file's change against its trusted content (a unified diff for text, else sizes and
    digests; for one moved aside, where it is), then y/N (yes: accepted without asking)."""
    diff = None if entry.get("moved_to") else quarantine.diff(name)
    if entry.get("moved_to"):
        print(f"{name} ({entry.get('what')}) was moved aside to {entry['moved_to']}: read it there.")
    elif diff is not None:
        sys.stdout.writelines(diff)
    else:
        trusted, now = quarantine.baseline_of(name)[0], quarantine.current(name)[0]
        for label, value in (("trusted", trusted), ("now", now)):
            shown = "absent" if value is None else f"{value[1]} bytes, SHA-256 {value[0]}"
            print(f"{name} ({label}): {shown}")
    if yes:
        return True
    try:
        answer = input(f"Trust {name} as it is now? [y/N] ")
    except EOFError:
        answer = ""
    return answer.strip().lower() in {"y", "yes"}


def _seconds(text: str) -> int:
    # nbclient counts a cell's time limit in whole seconds.
    try:
        seconds = int(text)
    except ValueError:
        seconds = 0
    if seconds < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of seconds, 1 or more; got {text!r}")
    return seconds


def run_demo_command(args: argparse.Namespace) -> int:
    from twnb.demo.runner import DEMO_NOTEBOOKS, DemoError, KernelChoice, run_demo

    kernel_choice = KernelChoice(
        kernel_name=args.kernel, connection_file=args.existing, confine=args.live and not args.no_confine
    )
    try:
        result = run_demo(
            args.out,
            live=args.live,
            timeout=args.timeout,
            demo=DEMO_NOTEBOOKS[args.notebook],
            kernel_choice=kernel_choice,
        )
    except DemoError as error:
        print(f"twnb demo failed: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("twnb demo interrupted; the notebook so far is in the output folder.", file=sys.stderr)
        return 130
    if not result.ok:
        if not result.round_states:
            print(f"twnb demo: no Round ran; open {result.notebook} to see why.", file=sys.stderr)
            return 1
        print(f"twnb demo: not every Round finished (the Rounds are in {result.notebook}):", file=sys.stderr)
        for failure in result.failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


def run_export_command(args: argparse.Namespace) -> int:
    """`twnb export`: the direction follows SOURCE (a .ipynb is read back into a conversation)."""
    from twnb.replay import ExportRequest, run_export

    def say(text: str) -> None:
        print(text, file=sys.stderr)

    request = ExportRequest(
        source=args.source,
        out=args.out,
        execute=args.execute or args.check,
        include_failed=not args.no_failed,
        timeout=args.timeout,
        cwd=args.cwd,
        strict_images=args.strict_images,
        kernel_name=args.kernel,
        connection_file=args.existing,
        force=args.force,
        verify=not args.no_verify,
        confine=not args.no_confine,
    )
    try:
        outcome = run_export(request, progress=say)
    except KeyboardInterrupt:
        say("twnb export interrupted; nothing more was written.")
        return 130
    if outcome.error is not None:
        say(f"twnb export: {outcome.error}")
        return 2
    for line in outcome.lines:
        print(line)
    if outcome.rerun is not None and (outcome.rerun.stopped or (args.check and not outcome.rerun.ok)):
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        return run_demo_command(args)
    if args.command == "export":
        return run_export_command(args)
    if args.command == "kernel":
        return run_kernel_command(args)
    if args.command == "eval":
        return run_eval_command(args)
    if args.command == "trust":
        return run_trust_command(args)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
