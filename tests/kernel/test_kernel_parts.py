"""The kernel layer's small parts: file scan, secret screening, namespace summary, LLM text."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from twnb.kernel import (
    ExecutionError,
    ExecutionResult,
    VariableChange,
    execution_text_for_llm,
    summarize_namespace,
)
from twnb.kernel.capture.file_scan import ScanLimits, compare_snapshots, scan_directory
from twnb.kernel.capture.image_artifacts import save_display_image
from twnb.kernel.capture.secret_screen import looks_secret_name, redact_secrets
from twnb.kernel.namespace.variables import namespace_signatures, variable_delta


def test_scan_skips_hidden_session_and_artifact_folders(tmp_path: Path):
    for rel in (".hidden/a", "session/b", "arts/c", "kept/d"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    snapshot = scan_directory(tmp_path, skip=(tmp_path / "session", tmp_path / "arts"))
    assert set(snapshot.files) == {"kept/d"}


def test_a_taken_image_name_gets_the_next_number(tmp_path: Path):
    png = {"image/png": "iVBORw0KGgo="}
    names = [save_display_image(png, tmp_path, "round-2-plot").name for _ in range(3)]
    assert names == ["round-2-plot.png", "round-2-plot-2.png", "round-2-plot-3.png"]


def test_scan_respects_depth_limit(tmp_path: Path):
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "deep.txt").write_text("x")
    (tmp_path / "a" / "shallow.txt").write_text("x")
    snapshot = scan_directory(tmp_path, limits=ScanLimits(max_depth=2))
    assert set(snapshot.files) == {"a/shallow.txt"}


def test_scan_cut_short_does_not_invent_new_files(tmp_path: Path):
    for i in range(20):
        (tmp_path / f"f{i:02}.txt").write_text("x")
    limits = ScanLimits(max_files=10)
    before = scan_directory(tmp_path, limits=limits)
    (tmp_path / "f00.txt").unlink()  # the after-scan now reaches a file the before-scan never saw
    changes = compare_snapshots(before, scan_directory(tmp_path, limits=limits))
    assert changes.created == []
    assert "file limit of 10" in changes.notes[0]


def test_variable_delta_never_touches_contents():
    class Untouchable:
        def __eq__(self, other):
            raise AssertionError("compared by value")

        def __hash__(self):
            raise AssertionError("hashed")

    namespace = {"obj": Untouchable()}
    before = namespace_signatures(namespace)
    namespace["obj"] = Untouchable()
    assert [c.kind for c in variable_delta(before, namespace_signatures(namespace))] == ["rebound"]


def test_plain_values_are_compared_by_value_in_the_delta():
    before = namespace_signatures({"same": 10**6, "zero": 0.0, "word": "abc", "big": 10**40, "flag": True})
    after = namespace_signatures({"same": 10**6, "zero": -0.0, "word": "abd", "big": 10**40 + 1, "flag": 1})
    changes = variable_delta(before, after)
    assert [(c.name, c.kind) for c in changes] == [
        ("zero", "rebound"),
        ("word", "rebound"),
        ("big", "rebound"),
        ("flag", "rebound"),
    ]
    assert [(c.type, c.shape) for c in changes[:2]] == [("float", None), ("str", [3])]


def test_a_short_string_value_never_shows_in_its_signature():
    [signature] = namespace_signatures({"pin": "hunter2"}).values()
    assert "hunter2" not in repr(signature)


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "my_token", "db_password", "clientSecret", "apikey"])
def test_secret_names(name):
    assert looks_secret_name(name)


def test_redaction_hides_key_shaped_values_and_environment_secrets(monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "plain-words-but-secret")
    text = redact_secrets("a sk-abcdefghijklmnop b plain-words-but-secret c 0123456789abcdef0123456789abcdef")
    assert text == "a [hidden] b [hidden] c [hidden]"


def test_redaction_leaves_ordinary_text():
    text = "/home/user/Projects/Analysis2024/data_cleaning_final_v2.csv task-manager disk-usage"
    assert redact_secrets(text) == text


def test_summary_describes_frames_series_arrays_and_scalars():
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    namespace = {
        "df": pd.DataFrame({"city": ["a"], "temp": [1.5]}),
        "s": pd.Series([1, 2], name="counts"),
        "arr": np.zeros((3, 2)),
        "n": 7,
        "label": "hello",
        "np": np,
        "_private": 1,
        "In": [],
    }
    summary = summarize_namespace(namespace)
    assert "- df: DataFrame, shape (1, 2); columns: city (" in summary and "temp (float64)" in summary
    assert "- s: Series named 'counts', shape (2,), dtype int64" in summary
    assert "- arr: ndarray, shape (3, 2), dtype float64" in summary
    assert "- n: int = 7" in summary and "- label: str, len 5 = 'hello'" in summary
    assert "np" not in summary.replace("ndarray", "") and "_private" not in summary and "In" not in summary


def test_a_remembered_value_line_follows_a_new_value_and_a_new_environment_secret(monkeypatch):
    monkeypatch.delenv("BILLING_API_KEY", raising=False)
    first = summarize_namespace({"rate": 0.0, "note": "billing-value-4242"})
    changed = summarize_namespace({"rate": -0.0, "note": "billing-value-4242"})
    monkeypatch.setenv("BILLING_API_KEY", "billing-value-4242")
    secret = summarize_namespace({"rate": -0.0, "note": "billing-value-4242"})
    assert "rate: float = 0.0" in first and "billing-value-4242" in first
    assert "rate: float = -0.0" in changed
    assert "billing-value-4242" not in secret


def test_summary_never_shows_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-environment-value-123")
    namespace = {
        "OPENAI_API_KEY": "sk-canary-0123456789",
        "my_token": "canary-token",
        "harmless": "sk-canary-0123456789",
        "copied": "sk-canary-environment-value-123",
        "config": {"url": "http://x", "auth": "sk-canary-0123456789"},
    }
    summary = summarize_namespace(namespace)
    assert "canary" not in summary
    assert "- my_token: [hidden]" in summary


def test_summary_never_computes_a_lazy_frame():
    class LazyFrame:  # polars' lazy type name; touching anything but its type would be a computation
        def __getattr__(self, name):
            raise AssertionError(f"touched {name}")

        def __repr__(self):
            raise AssertionError("repr computed")

    class DaskFrame:
        def __repr__(self):
            raise AssertionError("repr computed")

    DaskFrame.__module__ = "dask.dataframe.core"
    summary = summarize_namespace({"lazy": LazyFrame(), "ddf": DaskFrame()})
    assert "- lazy: " in summary and "lazy: not computed" in summary
    assert "- ddf: dask.DaskFrame (lazy: not computed" in summary


def test_summary_gives_each_object_a_time_budget():
    class Slow:
        def __repr__(self):
            time.sleep(5)
            return "slow"

    started = time.monotonic()
    summary = summarize_namespace({"slow": Slow(), "after": 1}, per_object_budget_s=0.2)
    assert time.monotonic() - started < 2
    assert "not described: took longer than 0.2 s" in summary and "- after: int = 1" in summary


def test_summary_is_bounded():
    summary = summarize_namespace({f"v{i}": "x" * 60 for i in range(500)}, max_chars=1000)
    assert len(summary) <= 1000
    assert "older names not shown" in summary


def test_a_full_summary_keeps_the_newest_names_and_cuts_the_oldest():
    namespace = {f"v{i}": "x" * 60 for i in range(500)}
    namespace["result_of_last_step"] = 42
    summary = summarize_namespace(namespace, max_chars=1000)
    assert "result_of_last_step" in summary and "v499" in summary
    assert "- v0:" not in summary
    lines = summary.splitlines()
    assert lines.index(next(x for x in lines if x.startswith("- v499"))) < lines.index(
        next(x for x in lines if x.startswith("- result_of_last_step"))
    )  # still in namespace order


def _result(**fields) -> ExecutionResult:
    status = fields.pop("status", "success")
    return ExecutionResult(execution_id="exec-1", code="pass", status=status, **fields)


def test_llm_text_keeps_head_of_output_and_tail_of_traceback():
    trace = "\n".join(f"frame {i}" for i in range(2000)) + "\nZeroDivisionError: division by zero"
    result = _result(
        status="error",
        stdout="first line\n" + "filler\n" * 5000,
        error=ExecutionError("ZeroDivisionError", "division by zero", trace),
    )
    text = execution_text_for_llm(result, max_chars=2000)
    assert len(text) <= 2000
    assert "first line" in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")


def test_llm_text_shows_library_frames_without_their_install_prefix():
    trace = (
        "Cell In[6], line 2\n"
        "File /tmp/x/venv/lib/python3.11/site-packages/pandas/core/base.py:241, in __getitem__\n"
        'File "C:\\Py\\Lib\\site-packages\\numpy\\core.py", line 3\n'
        "KeyError: 'Column not found: sales'"
    )
    result = _result(status="error", error=ExecutionError("KeyError", "'Column not found: sales'", trace))
    text = execution_text_for_llm(result)
    assert "File pandas/core/base.py:241, in __getitem__" in text
    assert 'File "numpy\\core.py", line 3' in text
    assert "site-packages" not in text and "/tmp/x" not in text


def test_llm_text_lists_artifacts_as_markdown_links(tmp_path: Path):
    result = _result(
        artifacts=[str(tmp_path / "plots" / "fig 1.png")],
        variables=[VariableChange("df", "created", "DataFrame", [10, 2])],
    )
    text = execution_text_for_llm(result, relative_to=tmp_path)
    assert "- [fig 1.png](<plots/fig 1.png>)" in text
    assert "df (created, DataFrame (10, 2))" in text


def test_llm_text_hides_printed_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-printed-environ-999")
    result = _result(stdout="environ({'OPENAI_API_KEY': 'sk-canary-printed-environ-999'})")
    assert "canary" not in execution_text_for_llm(result)


def test_llm_text_includes_the_text_of_displayed_tables():
    display = {"mime_types": ["text/html", "text/plain"], "text": "   a  b\n0  1  2", "artifact": None}
    text = execution_text_for_llm(_result(displays=[display]))
    assert "Displayed:\n   a  b\n0  1  2" in text


def test_summary_hides_values_beside_secret_sounding_names():
    summary = summarize_namespace({"settings": {"url": "http://x", "password": "hunter2-canary"}})
    assert "canary" not in summary
    assert "- settings: dict, len 2 = [hidden]" in summary


def test_summary_hides_an_environment_key_even_when_its_repr_is_cut(monkeypatch):
    secret = "plainwords-canary-" + "x" * 100  # not key-shaped: only the environment says it is secret
    monkeypatch.setenv("SERVICE_PASSWORD", secret)
    summary = summarize_namespace({"copied": secret})
    assert "canary" not in summary and "- copied: str, len 118 = [hidden]" in summary


def test_huge_integers_break_neither_the_summary_nor_the_delta():
    namespace = {"huge": 10**5000}  # its repr raises ValueError (Python's integer digit limit)
    assert "- huge: int = <an integer of 16610 bits>" in summarize_namespace(namespace)
    before = namespace_signatures(namespace)
    namespace["huge"] += 1
    assert [(c.name, c.kind) for c in variable_delta(before, namespace_signatures(namespace))] == [
        ("huge", "rebound")
    ]


def _lazy_stand_in(module: str, type_name: str, touched: list[str]):
    """An object whose module and type look like a lazy frame; touching its data is recorded and raises."""

    def refuse(what: str):
        def method(self, *args, **kwargs):
            touched.append(what)
            raise AssertionError(f"{what} computed a lazy frame")

        return method

    namespace = {
        name: refuse(name)
        for name in (
            "__repr__",
            "__str__",
            "__len__",
            "__iter__",
            "__bool__",
            "__eq__",
            "__hash__",
            "__getitem__",
            "compute",
            "collect",
            "head",
        )
    }
    for name in ("shape", "columns", "dtypes", "dtype", "schema"):
        namespace[name] = property(refuse(name))
    namespace["__getattr__"] = refuse("__getattr__")
    namespace["__module__"] = module
    return type(type_name, (), namespace)()


@pytest.mark.parametrize(
    ("module", "type_name"),
    # Libraries twnb has no schema reader for (tests/kernel/test_lazy_frames.py has the real ones).
    [("vaex.dataframe", "DataFrameLocal"), ("ray.data.dataset", "Dataset"), ("somelib.query", "LazyTable")],
)
def test_unknown_lazy_frames_are_never_computed_by_the_delta_or_the_summary(module, type_name):
    touched: list[str] = []
    namespace = {"big": _lazy_stand_in(module, type_name, touched)}
    before = namespace_signatures(namespace)
    namespace["big"] = _lazy_stand_in(module, type_name, touched)
    changes = variable_delta(before, namespace_signatures(namespace))
    summary = summarize_namespace(namespace)
    assert touched == []
    assert [(c.name, c.kind, c.shape) for c in changes] == [("big", "rebound", None)]
    assert f"- big: {module.split('.')[0]}.{type_name} (lazy: not computed" in summary


def test_summary_survives_a_type_whose_own_attributes_raise():
    class OddMeta(type):
        @property
        def __module__(cls):  # type: ignore[override]
            raise RuntimeError("odd type")

    summary = summarize_namespace({"odd": OddMeta("Odd", (), {})(), "n": 1})
    assert "- odd: Odd (not described: RuntimeError)" in summary and "- n: int = 1" in summary


def test_a_column_changing_dtype_in_place_is_a_changed_variable():
    pd = pytest.importorskip("pandas")
    namespace = {"frame": pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})}
    before = namespace_signatures(namespace)
    namespace["frame"]["a"] = namespace["frame"]["a"].astype("float64")  # same object, same shape
    changes = variable_delta(before, namespace_signatures(namespace))
    assert [(c.name, c.kind, c.shape) for c in changes] == [("frame", "changed", [2, 2])]
    assert "float64(1)" in (changes[0].dtype or "")


def test_the_summary_hides_a_connection_url_with_a_password():
    summary = summarize_namespace({"conn": "postgres://u:Pw0rd-77@host/db"})
    assert "conn" in summary
    assert "Pw0rd-77" not in summary


def test_the_summary_hides_a_value_of_a_credential_named_environment_variable(monkeypatch):
    monkeypatch.setenv("DB_CREDENTIAL", "credential-value-99")
    summary = summarize_namespace({"copied": "credential-value-99"})
    assert "copied" in summary
    assert "credential-value-99" not in summary
