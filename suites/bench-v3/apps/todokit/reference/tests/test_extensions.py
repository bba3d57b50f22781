"""The version-2 features: priorities, due dates, tags, list options, show, search, edit, stats, export."""
import csv
import json

import pytest

from todokit.cli import main


def run(path, *argv):
    return main(["--file", str(path), *argv])


@pytest.fixture
def f(tmp_path):
    path = tmp_path / "todo.json"
    run(path, "add", "Buy milk", "--tag", "shop", "--due", "2026-03-02")
    run(path, "add", "Call mom", "--priority", "high", "--tag", "family", "--tag", "Family")
    run(path, "add", "Pay rent", "--priority", "low", "--due", "2026-03-01")
    return path


def out(capsys):
    return capsys.readouterr().out


def test_new_fields_are_saved_with_defaults(f):
    tasks = json.loads(f.read_text())["tasks"]
    assert tasks[0] == {"id": 1, "text": "Buy milk", "done": False, "priority": "normal", "due": "2026-03-02",
                        "tags": ["shop"]}
    assert tasks[1]["tags"] == ["Family", "family"]


def test_list_filters_and_sorts(f, capsys):
    out(capsys)
    run(f, "list", "--sort", "priority")
    assert out(capsys) == "[ ] 2 Call mom\n[ ] 1 Buy milk\n[ ] 3 Pay rent\n"
    run(f, "list", "--sort", "due")
    assert out(capsys) == "[ ] 3 Pay rent\n[ ] 1 Buy milk\n[ ] 2 Call mom\n"
    run(f, "list", "--tag", "shop", "--priority", "high")
    assert out(capsys) == "no tasks\n"
    run(f, "list", "--due-before", "2026-03-02")
    assert out(capsys) == "[ ] 3 Pay rent\n"


def test_show_search_and_edit(f, capsys):
    out(capsys)
    run(f, "show", "2")
    assert out(capsys).splitlines() == ["id: 2", "text: Call mom", "done: no", "priority: high", "due: -",
                                        "tags: Family, family"]
    run(f, "search", "MOM")
    assert out(capsys) == "[ ] 2 Call mom\n"
    assert run(f, "search", "  ") == 1
    assert run(f, "edit", "1", "--no-due", "--untag", "shop", "--text", "Buy oat milk") == 0
    assert out(capsys) == "edited 1: Buy oat milk\n"
    run(f, "show", "1")
    assert out(capsys).splitlines()[4:] == ["due: -", "tags: -"]


@pytest.mark.parametrize("argv", [["--priority", "urgent"], ["--due", "2026-02-29"], ["--due", "2026-3-01"],
                                  ["--tag", "a,b"], ["--tag", ""], ["--tag", "café"]])
def test_bad_new_options_are_errors_that_change_nothing(f, argv):
    before = f.read_text()
    assert run(f, "add", "x", *argv) != 0
    assert f.read_text() == before


def test_a_version_1_file_still_works(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"next_id": 5, "tasks": [{"id": 4, "text": "old one", "done": False}]}))
    assert run(path, "list", "--priority", "normal") == 0
    assert out(capsys) == "[ ] 4 old one\n"
    run(path, "show", "4")
    assert out(capsys).splitlines()[3:] == ["priority: normal", "due: -", "tags: -"]
    run(path, "add", "new one")
    assert json.loads(path.read_text())["tasks"][0] == {"id": 4, "text": "old one", "done": False,
                                                        "priority": "normal", "due": None, "tags": []}


def test_stats_and_export(f, tmp_path, capsys):
    run(f, "done", "1")
    out(capsys)
    run(f, "stats")
    assert out(capsys).split() == ["total", "3", "done", "1", "pending", "2", "high", "1", "normal", "0", "low", "1"]
    run(f, "edit", "3", "--text", 'Pay "rent", now')
    run(f, "export", "--csv", str(tmp_path / "t.csv"))
    rows = list(csv.reader((tmp_path / "t.csv").open(newline="", encoding="utf-8")))
    assert rows[0] == ["id", "text", "done", "priority", "due", "tags"]
    assert rows[1] == ["1", "Buy milk", "yes", "normal", "2026-03-02", "shop"]
    assert rows[3][1] == 'Pay "rent", now'
