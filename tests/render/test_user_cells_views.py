"""The user's own cells that ran before a Round show folded in each view of the Round: one line naming
them by execution count and first line, opening (HTML) to their code, what raised and what they made;
the saved text/plain and text/markdown summaries keep the one line."""

from __future__ import annotations

from html import unescape
from html.parser import HTMLParser

from support.nb_markdown import rendered
from support.nb_rounds import analysis_round

from twnb.render import plan_from_round, round_bundle

LOAD = {
    "source": "import pandas as pd\nsales = pd.read_csv('coffee_sales.csv')\nsales.head()",
    "execution_count": 3,
    "error": None,
    "variables": [{"name": "pd", "kind": "created", "type": "module"}, {"name": "sales", "kind": "created"}],
}
FIX = {
    "source": "# fix the dates\nsales['day'] = <script>",
    "execution_count": 4,
    "error": "SyntaxError: bad",
}


def bundle(*cells: dict, omitted: int = 0) -> dict:
    round = analysis_round()
    if cells:
        round.extra["user_cells"] = list(cells)
    if omitted:
        round.extra["user_cells_omitted"] = omitted
    return round_bundle(round, session_id="s", plan=plan_from_round(round))


class Details(HTMLParser):
    """The text of each <summary> and of what its <details> holds besides it."""

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[str] = []
        self.bodies: list[str] = []
        self.depth = 0
        self.in_summary = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "details":
            self.depth += 1
            if self.depth == 1:
                self.bodies.append("")
        elif tag == "summary" and self.depth == 1:
            self.in_summary = True
            self.summaries.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self.depth -= 1
        elif tag == "summary":
            self.in_summary = False

    def handle_data(self, data: str) -> None:
        if self.in_summary:
            self.summaries[-1] += data
        elif self.depth >= 1:
            self.bodies[-1] += data


def folds(html: str) -> Details:
    parser = Details()
    parser.feed(html)
    return parser


def test_the_html_folds_the_cells_under_one_line_naming_them():
    parsed = folds(bundle(LOAD, FIX)["text/html"])
    title = "Your cells before this Round: [3] import pandas as pd, [4] sales['day'] = <script>"
    assert title in parsed.summaries
    body = parsed.bodies[parsed.summaries.index(title)]
    assert "sales = pd.read_csv('coffee_sales.csv')" in body
    assert "made pd, sales" in body and "raised SyntaxError: bad" in body


def test_the_users_code_is_escaped_in_the_html():
    html = bundle(FIX)["text/html"]
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_markdown_summary_names_the_cells_in_one_line_as_nbviewer_renders_it():
    page = rendered(bundle(LOAD, FIX)["text/markdown"])
    line = "<em>Your cells before this Round: [3] import pandas as pd, [4] sales['day'] = <script></em>"
    assert line in unescape(page)
    assert "<script>" not in page


def test_plain_text_has_the_one_line():
    text = bundle(LOAD)["text/plain"]
    assert "Your cells before this Round: [3] import pandas as pd" in text.splitlines()


def test_more_cells_than_the_line_names_are_counted_with_those_left_out():
    cells = [{**LOAD, "execution_count": n} for n in range(1, 6)]
    text = bundle(*cells, omitted=2)["text/plain"]
    assert "[1] import pandas as pd, [2] import pandas as pd, [3] import pandas as pd and 4 more" in text


def test_a_round_without_the_users_cells_shows_no_such_line():
    shown = bundle()
    assert all("Your cells" not in shown[mime] for mime in ("text/html", "text/markdown", "text/plain"))
