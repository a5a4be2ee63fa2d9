"""--pack selects packs (by name or path) for practice, mock and generate alike; a pack
written from docs/packs.md alone loads and plays."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from drills.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_pack_by_name_restricts_the_plan():
    res = invoke("generate", "--pack", "ndcg-lambdarank", "--seed", "4", "--count", "6", "--json")
    assert res.exit_code == 0, res.output
    items = json.loads(res.stdout)
    assert len(items) == 6
    assert {item["topic"] for item in items} == {"lambdarank"}


def test_unknown_pack_name_lists_packs():
    res = invoke("practice", "--pack", "ndcg-nope")
    assert res.exit_code == 2
    assert "unknown pack 'ndcg-nope'" in res.output and "ndcg-lambdarank" in res.output


def _doc_pack(tmp_path: Path) -> Path:
    doc = (ROOT / "docs" / "packs.md").read_text(encoding="utf-8")
    path = tmp_path / "mine.yaml"
    path.write_text(doc.split("```yaml\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    return path


def test_documented_pack_plays_end_to_end(tmp_path):
    pack = _doc_pack(tmp_path)
    res = invoke("generate", "--pack", str(pack), "--seed", "2", "--count", "6", "--json")
    assert res.exit_code == 0, res.output
    items = json.loads(res.stdout)
    assert sorted(i["id"] for i in items) == sorted(
        ["core-gain-ratio", "core-worked-example", "core-ideal-order", "core-why-normalize",
         "core-random-ndcg", "core-ndcg1-binary"])
    lines = []
    for item in items:  # answer every question right, in the order practice asks them
        if item["kind"] == "numeric":
            lines.append(item["answer"]["exact"])
        elif item["kind"] == "choice":
            lines.append(item["correct"])
        else:
            lines += ["DCG is not comparable across queries; IDCG is the best possible DCG", "good"]
    transcript = tmp_path / "t.jsonl"
    res = invoke("practice", "--pack", str(pack), "--seed", "2", "--count", "6",
                 "--transcript", str(transcript), input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [r["id"] for r in records] == [i["id"] for i in items]
    assert [r["verdict"] for r in records] == ["correct"] * 6, res.output
