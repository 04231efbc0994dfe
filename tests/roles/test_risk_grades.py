"""Risky step mode's grades, decided from the code before it runs: each grade that pauses, the safe
cases that run without asking, and the evasions an attacker (or a model's second try) would write.

The place is a real folder: `sales.csv` exists in it (overwriting or deleting it pauses), `out/`
exists, `artifacts/` is the artifacts folder. The namespace holds a DataFrame `df` the user made, a
list, a number, a path in a variable and `made`, a list this Round's earlier code created."""

from __future__ import annotations

import os
import pathlib
import sqlite3
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import sqlalchemy

from twnb.roles.risk_grades import GRADES, RiskPlace, grade_code
from twnb.roles.risk_readme import readme_table


@pytest.fixture
def place(tmp_path: Path) -> RiskPlace:
    db = sqlite3.connect(":memory:")
    (tmp_path / "sales.csv").write_text("a,b\n1,2\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "artifacts").mkdir()
    values = {
        "df": pd.DataFrame({"a": [1, 2]}),
        "rows": [[1], [2]],
        "count": 3,
        "pd": pd,
        "os": os,
        "pathlib": pathlib,
        "sales_path": "sales.csv",
        "made": [],
        "url": "https://example.com/data.csv",
        "new_path": "not-there-yet.csv",
        "db": db,
        "cursor": db.cursor(),
        "duck": duckdb.connect(),
        "conn": sqlalchemy.create_engine("sqlite://").connect(),
    }
    return RiskPlace(tmp_path, tmp_path / "artifacts", values, round_names={"made"})


def grades(code: str, place: RiskPlace) -> list[tuple[str, str]]:
    return [(finding.key, finding.subject) for finding in grade_code(code, place)]


SAFE = [
    "df.describe()",
    "pd.read_csv('sales.csv').head()",
    "with open('sales.csv') as f:\n    print(f.read())",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()",
    "df.to_csv()",  # returns text
    "df.to_csv('summary.csv')",  # a new file in the notebook's folder
    "df.to_csv('artifacts/sales.csv')",  # the artifacts folder
    "df.to_csv(f'new_folder/{count}.csv')",  # computed names in a folder that does not exist yet
    "import io\nbuf = io.BytesIO()\ndf.to_parquet(buf)",
    "import json\nwith open('new.json', 'w') as f:\n    json.dump({'a': 1}, f)",
    "with open('sales.csv', 'x') as f:\n    pass",  # 'x' never overwrites
    "import os\nos.remove('not-there.csv')",
    "made.append(1)",  # this Round created it
    "count += 1",  # a number: rebound, not changed in place
    "total = df['a'].sum()",
    "x = os.environ.get('HOME')",
    "print('see https://example.com')",
    "df = df.rename(columns={'a': 'b'})\nname = 'a'.replace('a', 'b')",
    "import sqlite3\nsqlite3.connect(':memory:')",
    "import os\nfd = os.open('sales.csv', os.O_RDONLY)",
    "pd.read_sql('select * from sales', db)",
    # queries through the namespace's database connections, cursors and results
    "db.execute('select 1')",
    "db.execute('select * from sales').fetchall()",
    "cursor.execute('with a as (select 1) select * from a')\nrows = cursor.fetchall()",
    "db.execute(f'select * from {count}')",  # a placeholder taken for a value or a name
    "db.execute('pragma table_info(sales)')",
    "duck.sql('select 42').df()",
    "from sqlalchemy import text\nconn.execute(text('select 1')).all()",
    "import zipfile\nzipfile.ZipFile('a.zip').extractall('unpacked')",  # a folder that does not exist yet
    "open(new_path, 'w')",  # the namespace's path, of a file that does not exist yet
    "import pickle\nwith open('model.pkl', 'wb') as f:\n    pickle.dump(df.to_dict(), f)",
]

RISKY = [
    # overwrite a file that existed before
    ("df.to_csv('sales.csv')", ("overwrite", "sales.csv")),
    ("df.to_csv(path_or_buf='sales.csv')", ("overwrite", "sales.csv")),
    ("df.to_csv(sales_path)", ("overwrite", "sales.csv")),  # a path held by a variable
    ("df.to_csv(f'out/{count}.csv')", ("overwrite", "out")),  # computed names in a folder that exists
    ("df.to_csv(some_function())", ("overwrite", "")),  # a path it cannot tell
    ("from pathlib import Path\nPath('sales.csv').write_text('x')", ("overwrite", "sales.csv")),
    ("p = pathlib.Path('.') / 'sales.csv'\np.write_bytes(b'')", ("overwrite", "sales.csv")),
    ("with open('sales.csv', 'a') as f:\n    f.write('x')", ("overwrite", "sales.csv")),
    ("with open('sales.csv', mode='r+') as f:\n    f.write('x')", ("overwrite", "sales.csv")),
    ("mode = 'w'\nopen('sales.csv', mode)", ("overwrite", "sales.csv")),
    ("import gzip\ngzip.open('sales.csv', 'wt')", ("overwrite", "sales.csv")),
    ("import numpy as np\nnp.save('sales.csv', [1])", ("overwrite", "sales.csv")),
    ("import os.path\ndf.to_csv(os.path.join('out', '..', 'sales.csv'))", ("overwrite", "sales.csv")),
    ("import shutil\nshutil.copy('x.csv', 'sales.csv')", ("overwrite", "sales.csv")),
    ("import zipfile\nzipfile.ZipFile('a.zip').extractall()", ("overwrite", ".")),  # into the folder
    ("import zipfile\nzipfile.ZipFile('a.zip').extractall('out')", ("overwrite", "out")),
    ("import shutil\nshutil.unpack_archive('a.zip', '/etc')", ("outside", "/etc")),
    # a name the namespace holds as a new file's path, rebound by the code before the write
    ("for new_path in ['sales.csv']:\n    open(new_path, 'w')", ("overwrite", "")),
    ("[open(new_path, 'w') for new_path in ['sales.csv']]", ("overwrite", "")),
    ("new_path, other = 'sales.csv', 1\nopen(new_path, 'w')", ("overwrite", "")),
    ("def save(new_path):\n    open(new_path, 'w')\nsave('sales.csv')", ("overwrite", "")),
    ("import sqlite3\nsqlite3.connect('sales.csv')", ("overwrite", "sales.csv")),
    ("import matplotlib.pyplot as plt\nplt.savefig('sales.csv')", ("overwrite", "sales.csv")),
    ("from pathlib import Path as P\nP('sales.csv').open('w')", ("overwrite", "sales.csv")),
    ("import io\nio.FileIO('sales.csv', 'w')", ("overwrite", "sales.csv")),
    ("import os\nfd = os.open('sales.csv', os.O_WRONLY | os.O_TRUNC)", ("overwrite", "sales.csv")),
    ("import os\nos.truncate('sales.csv', 0)", ("overwrite", "sales.csv")),
    ("import os\nos.symlink('/etc/passwd', 'sales.csv')", ("overwrite", "sales.csv")),
    # a database the namespace is connected to
    ("df.to_sql('sales', db)", ("overwrite", "db")),
    ("db.execute('DELETE FROM sales')", ("overwrite", "db")),
    ("db.executescript(script)", ("overwrite", "db")),
    ("db.execute(statement)", ("overwrite", "db")),  # a statement not spelled out may write
    ("db.execute('with gone as (select 1) delete from sales')", ("overwrite", "db")),
    ("db.execute(f'select 1; {more}')", ("overwrite", "db")),
    ("db.execute('pragma journal_mode = wal')", ("overwrite", "db")),
    ("cursor.execute('update sales set a = 1')", ("overwrite", "cursor")),
    ("duck.sql('create table t as select 1')", ("overwrite", "duck")),
    ("from sqlalchemy import text\nconn.execute(text('drop table sales'))", ("overwrite", "conn")),
    # delete a file that existed before
    ("import os\nos.remove('sales.csv')", ("delete", "sales.csv")),
    ("from os import unlink as gone\ngone('sales.csv')", ("delete", "sales.csv")),
    ("p = pathlib.Path('sales.csv')\np.unlink()", ("delete", "sales.csv")),
    ("import shutil as sh\nsh.move('sales.csv', 'artifacts/')", ("delete", "sales.csv")),
    ("os.rename('sales.csv', 'b.csv')", ("delete", "sales.csv")),
    # write outside the notebook's folder
    ("df.to_csv('/etc/sales.csv')", ("outside", "/etc/sales.csv")),
    ("df.to_csv('~/sales.csv')", ("outside", os.path.expanduser("~/sales.csv"))),
    # the working folder
    ("import os\nos.chdir('..')", ("working_folder", "..")),
    ("import contextlib\nwith contextlib.chdir('/tmp'):\n    pass", ("working_folder", "/tmp")),
    # the environment
    ("import os\nos.environ['X'] = '1'", ("environment", "os.environ")),
    ("del os.environ['X']", ("environment", "os.environ")),
    ("from os import environ as e\ne.update(A='1')", ("environment", "os.environ.update")),
    ("env = os.environ\nenv.pop('A')", ("environment", "os.environ.pop")),
    ("os.putenv('A', '1')", ("environment", "os.putenv")),
    ("import sys\nsys.path.insert(0, '/x')", ("environment", "sys.path.insert")),
    ("import sys\nsys.stdout = None", ("environment", "sys.stdout")),
    # the network
    ("import requests\nrequests.get('https://example.com')", ("network", "requests")),
    ("import httpx as h\nh.Client().get(u)", ("network", "httpx")),
    ("import socket\nsocket.create_connection(('example.com', 80))", ("network", "socket")),
    ("from urllib.request import urlopen\nurlopen(u)", ("network", "urllib.request")),
    ("pd.read_csv('https://example.com/a.csv')", ("network", "https://example.com/a.csv")),
    ("pd.read_sql('select 1', 'postgresql://db/x')", ("network", "postgresql://db/x")),
    ("import seaborn as sns\nsns.load_dataset('tips')", ("network", "load_dataset")),
    ("pd.read_csv(url)", ("network", "https://example.com/data.csv")),  # a URL held by a variable
    # a variable the Round did not create, changed in place
    ("df['x'] = 1", ("in_place", "df")),
    ("df.drop(columns='a', inplace=True)", ("in_place", "df")),
    ("alias = df\nalias.loc[0, 'a'] = 9", ("in_place", "df")),
    ("for row in rows:\n    row.append(0)", ("in_place", "rows")),
    ("rows += [[3]]", ("in_place", "rows")),
    # what verification cannot follow
    ("exec('df.x = 1')", ("unfollowed", "exec")),
    ("getattr(df, name)(1)", ("unfollowed", "getattr with a computed name")),
    ("vars(df)['x'] = 1", ("unfollowed", "vars")),
    (
        "import importlib\nimportlib.import_module('requests').get(u)",
        ("unfollowed", "importlib.import_module"),
    ),
    ("%time df.to_csv('sales.csv')", ("overwrite", "sales.csv")),
]


@pytest.mark.parametrize("code", SAFE)
def test_code_that_only_reads_computes_displays_or_makes_new_files_runs_without_asking(code, place):
    assert grades(code, place) == []


@pytest.mark.parametrize(("code", "expected"), RISKY, ids=[c for c, _ in RISKY])
def test_risky_code_pauses_with_its_grade(code, expected, place):
    assert expected in grades(code, place)


def test_every_pausing_grade_of_the_table_is_found_by_some_case():
    found = {expected[0] for _, expected in RISKY}
    pausing = {grade.key for grade in GRADES if grade.pauses}
    assert pausing - found == {"undo_budget"}  # that one needs a budget (tested below)


def test_the_reason_says_what_and_where_in_words(place):
    (finding,) = grade_code("x = 1\ndf.to_csv('sales.csv')", place)
    assert finding.line == 2
    assert finding.reason == "it overwrites sales.csv, which exists (line 2: df.to_csv('sales.csv'))"


def test_a_file_that_did_not_exist_when_graded_is_new(place, tmp_path):
    assert grades("df.to_csv('later.csv')", place) == []
    (tmp_path / "later.csv").write_text("")
    assert grades("df.to_csv('later.csv')", place) == [("overwrite", "later.csv")]


def test_modules_and_functions_are_not_variables_changed_in_place(place):
    assert grades("pd.options.display.max_rows = 5\ndef f():\n    pass\nf.cache = {}", place) == []


def test_over_the_undo_budget_pauses_and_names_the_size(place):
    budget = RiskPlace(
        place.folder, place.artifacts, place.values, place.round_names, undo_budget_mb=0.000001
    )
    (over,) = [f for f in grade_code("df['a'] = 0", budget) if f.key == "undo_budget"]  # a column it had
    assert over.subject == "df"
    assert "over the undo budget of 1e-06 MB: its change in place could not be undone" in over.reason


def test_within_the_undo_budget_only_the_change_in_place_pauses(place):
    budget = RiskPlace(place.folder, place.artifacts, place.values, place.round_names, undo_budget_mb=100)
    assert grades("df['x'] = 1", budget) == [("in_place", "df")]


def test_the_readme_holds_the_table_of_grades():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert readme_table() in readme, "regenerate the README's table: python -m twnb.roles.risk_readme"


def test_a_module_imported_under_a_dotted_name_is_a_module_before_it_is_loaded(place):
    code = "import not_yet_loaded_package.sub as m\nfor f in [m]:\n    f.run()"
    assert grades(code, place) == [("unfollowed", "the module not_yet_loaded_package.sub used as a value")]


def test_a_module_used_only_through_its_attributes_runs_without_asking(place):
    assert grades("import numpy as np\nimport matplotlib.pyplot as plt\nplt.plot(np.zeros(3))", place) == []
