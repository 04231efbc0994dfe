"""`twnb eval` on the command line: its arguments, and what it prints and exits with."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["EXAMPLES", "add_eval_parser", "run_eval_command"]

EXAMPLES = Path(__file__).parent / "examples"
EXAMPLE_CASES = EXAMPLES / "cases"
EXAMPLE_RECORDINGS = EXAMPLES / "recorded"  # MODEL/CASE/{conversation,eval}.cassette.yaml
SCRIPTED_REPLIES = EXAMPLES / "scripted_replies.yaml"  # what the recordings are made from
EXAMPLE_MODEL = "twnb-scripted-demo"  # the name the scripted replies are recorded under


def _count(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number, 1 or more; got {text!r}")
    return number


def add_eval_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = commands.add_parser(
        "eval",
        help="run TaskWeaver's evaluation cases against models, each as a notebook, and score them",
        description=(
            "Run TaskWeaver evaluation cases (auto_eval's YAML: task_description, data_files, "
            "dependencies, config_var, scoring_points with weight and optional eval_code) against one "
            "or more models. Each case runs in a fresh kernel: a virtual user (an LLM given the task "
            "description) sends requests as %%taskweaver cells and answers the agent's questions; then "
            "each scoring point is judged by the evaluator (an LLM) or by its eval_code. Each run's "
            "notebook, conversation and result.yaml go into DIR/MODEL/CASE/; DIR holds results.csv "
            "(TaskWeaver's columns first), report.md and report.html."
        ),
        epilog=(
            "Offline: --record keeps each run's LLM calls as cassettes beside its notebook; --replay DIR "
            "runs them again from that earlier -o DIR without any model. --examples runs the shipped "
            "example cases from their recordings. Exit status: 0 every run finished (scored or "
            "skipped); 1 a run could not finish or a case file is invalid; 2 bad input; 130 interrupted."
        ),
    )
    evaluate.add_argument(
        "paths",
        nargs="*",
        metavar="CASE_OR_FOLDER",
        help="a case YAML, a folder of them, or a folder of case folders",
    )
    evaluate.add_argument(
        "-o", "--out", default="twnb-eval", metavar="DIR", help="output folder (./twnb-eval)"
    )
    evaluate.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="M",
        help="the agent's model; repeat to compare models in one table (default: your configured model)",
    )
    evaluate.add_argument("--user-model", metavar="M", help="the virtual user's model (default: the agent's)")
    evaluate.add_argument(
        "--evaluator-model", metavar="M", help="the evaluator's model (default: the agent's)"
    )
    evaluate.add_argument("--repeat", type=_count, default=1, metavar="N", help="runs per case and model (1)")
    evaluate.add_argument(
        "-j",
        "--jobs",
        type=_count,
        default=1,
        metavar="N",
        help="cases run at once (1); a server that serves one request at a time is noticed and gets one",
    )
    evaluate.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs DIR already holds scored or skipped; run the rest",
    )
    evaluate.add_argument(
        "--timeout", type=_count, default=600, metavar="S", help="seconds one Round may take (600)"
    )
    evaluate.add_argument(
        "--max-rounds",
        type=_count,
        default=5,
        metavar="N",
        help="Rounds the virtual user may ask for in one case (5; a case's max_rounds wins)",
    )
    offline = evaluate.add_mutually_exclusive_group()
    offline.add_argument("--record", action="store_true", help="keep every LLM call as cassettes in DIR")
    offline.add_argument(
        "--replay", metavar="RUN_DIR", help="replay the cassettes an earlier --record run wrote, offline"
    )
    evaluate.add_argument(
        "--examples",
        action="store_true",
        help="run the example cases shipped with twnb, offline from their recordings (--live: your model)",
    )
    evaluate.add_argument(
        "--live", action="store_true", help="with --examples: ask your model instead of the recordings"
    )
    evaluate.add_argument(
        "--no-confine",
        dest="confine",
        action="store_false",
        help="run each case's kernel unconfined (default: confined by Landlock and seccomp where the "
        "system can, said once where it cannot)",
    )


def run_eval_command(args: argparse.Namespace) -> int:
    # lazy: twnb.evaluation.batch (~1.3 s, 550 modules: kernels, nbclient) once the arguments parse
    from twnb.evaluation.batch import EvalError, EvalOptions, run_evaluation

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    paths = [Path(p) for p in args.paths]
    replay = Path(args.replay) if args.replay else None
    models = list(args.model)
    if args.examples:
        paths.append(EXAMPLE_CASES)
        if not args.live and not args.record:
            replay = EXAMPLE_RECORDINGS
    elif args.live:
        say("twnb eval: --live goes with --examples (other cases always run live unless --replay)")
        return 2
    if not paths:
        say("twnb eval: which cases? Give CASE_OR_FOLDER (a case YAML or a folder), or --examples")
        return 2
    options = EvalOptions(
        paths=paths,
        out_dir=Path(args.out),
        models=models,
        user_model=args.user_model,
        evaluator_model=args.evaluator_model,
        repeat=args.repeat,
        jobs=args.jobs,
        resume=args.resume,
        timeout=args.timeout,
        max_rounds=args.max_rounds,
        record=args.record,
        replay=replay,
        confine=args.confine,
    )
    try:
        outcome = run_evaluation(options, progress=say)
    except EvalError as error:
        say(f"twnb eval: {error}")
        return 2
    except KeyboardInterrupt:
        say("twnb eval interrupted; finished runs are in the output folder (--resume keeps them).")
        return 130
    print(outcome.table.terminal())
    print()
    print(f"twnb eval: {outcome.summary()}")
    print(f"Results: {outcome.csv}")
    print(f"Report:  {outcome.report_md} (and {outcome.report_html.name})")
    if outcome.errors or outcome.invalid:
        if outcome.errors:
            say(f"twnb eval: {len(outcome.errors)} run(s) could not finish; the report says why.")
        if outcome.invalid:
            say(
                f"twnb eval: {len(outcome.invalid)} case file(s) are invalid; fix them (the report says how)."
            )
        return 1
    return 0
