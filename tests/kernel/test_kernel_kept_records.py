"""What the notebook keeps besides outputs is redacted while generated code runs, in a real ipykernel:
display metadata, widget state (comm messages, which the notebook saves), log records of any library,
and the values of secret-named variables, which stay secrets once the variable is gone."""

from __future__ import annotations

import json

import pytest

SECRET = "canary-kept-record-1618"

pytestmark = pytest.mark.slow


def _sent(shown: list, msg_type: str) -> str:
    return json.dumps([content for kind, content in shown if kind == msg_type])


def test_display_metadata_is_redacted(live_kernel):
    code = (
        "from IPython.display import HTML, display\n" + f"display(HTML('x'), metadata={{'note': {SECRET!r}}})"
    )
    record = live_kernel.run_case(code, redact_secrets=(SECRET,))
    sent = _sent(live_kernel.shown, "display_data")
    assert '"note": "[redacted]"' in sent and SECRET not in sent
    assert SECRET not in json.dumps(record["outputs"])


def test_a_widget_the_code_makes_is_sent_redacted(live_kernel):
    code = f"import ipywidgets\nsecret_box = ipywidgets.Text(value={SECRET!r})\nsecret_box"
    live_kernel.run_case(code, redact_secrets=(SECRET,))
    opened = _sent(live_kernel.shown, "comm_open")
    assert '"value": "[redacted]"' in opened and SECRET not in opened
    assert "IPY_MODEL_" in opened  # references to other widgets are kept


def test_a_widget_the_code_made_stays_redacted_when_the_users_cell_updates_it(live_kernel):
    live_kernel.run_case("import ipywidgets\nlater_box = ipywidgets.Text()", redact_secrets=(SECRET,))
    live_kernel.execute(f"later_box.value = 'now ' + {SECRET!r}")
    updates = _sent(live_kernel.shown, "comm_msg")
    assert "now [redacted]" in updates and SECRET not in updates


def test_a_widget_the_user_makes_is_left_as_it_is(live_kernel):
    live_kernel.execute(f"import ipywidgets\nown_box = ipywidgets.Text(value={SECRET!r})")
    assert SECRET in _sent(live_kernel.shown, "comm_open")


def test_a_librarys_log_record_reaches_the_users_handler_redacted(live_kernel):
    live_kernel.execute(
        "import logging\n"
        "class __Keep(logging.Handler):\n"
        "    def emit(self, record): kept_lines.append(self.format(record))\n"
        "kept_lines = []\n"
        "logging.getLogger('warehouse.driver').addHandler(__Keep())"
    )
    live_kernel.run_case(
        f"import logging\nlogging.getLogger('warehouse.driver').warning('connecting with %s', {SECRET!r})",
        redact_secrets=(SECRET,),
    )
    live_kernel.execute(f"logging.getLogger('warehouse.driver').warning('mine: %s', {SECRET!r})")
    assert live_kernel.evaluate("kept_lines") == ["connecting with [redacted]", f"mine: {SECRET}"]


def test_a_secret_named_variables_value_stays_a_secret_after_the_variable_is_gone(live_kernel):
    live_kernel.execute("from twnb.config.redaction import Redactor\nremembering = Redactor(environ={})")
    live_kernel.execute("hf_token = 'hfval-canary-remembered-2236'")
    record = live_kernel.run_case(
        "header = 'Bearer-less ' + hf_token\ndel hf_token\nprint(header)",
        redactor="remembering",
    )
    assert record["stdout"] == "Bearer-less [redacted]\n"
