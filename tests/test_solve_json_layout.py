"""``drills solve --json``'s layout (drills.cli.solve.jsonout): the same JSON value as
``json.dumps(indent=2)``, each table row on one line, each list of grades on one line."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from drills.cli import cli
from drills.cli.solve.jsonout import dumps

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)), max_leaves=20)


@given(values)
def test_dumps_is_the_same_json_value(value):
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))


def test_rows_and_grades_are_one_line_each():
    res = CliRunner().invoke(cli, ["solve", "2,1,3,0", "--json"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert '  "relevance": [2, 1, 3, 0],' in lines
    rows = [line for line in lines if line.lstrip().startswith('{"rank": ')]
    assert len(rows) == 8  # 4 ranked rows, 4 ideal ones
    assert all(json.loads(line.strip().rstrip(",")) for line in rows)
    data = json.loads(res.output)
    assert [r["rank"] for r in data["rows"]] == [1, 2, 3, 4]


def test_a_metric_table_is_one_row_per_line():
    res = CliRunner().invoke(cli, ["solve", "3,2,3,0,1", "--metric", "err", "--json"])
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if line.lstrip().startswith('{"rank": ')]
    assert len(rows) == 15  # the NDCG solution's 5 + 5 ideal rows, then ERR's 5
    assert json.loads(res.output)["err"]["rows"][0]["rank"] == 1
