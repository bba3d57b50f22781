"""The version-2 features (priority, due date, tags, list options, show, search, edit, stats, export)."""
import json

from todokit.cli import main


def run(path, *argv):
    return main(["--file", str(path), *argv])


def test_add_with_priority_due_and_tags_saves_the_new_keys(tmp_path):
    f = tmp_path / "todo.json"
    assert run(f, "add", "Call mom", "--priority", "high", "--due", "2026-03-01", "--tag", "family") == 0
    task = json.loads(f.read_text())["tasks"][0]
    assert {"priority", "due", "tags"} <= set(task)


def test_acceptance(tmp_path):
    f = tmp_path / "todo.json"
    assert run(f, "add", "Buy milk", "--tag", "shop") == 0
    assert run(f, "add", "Call mom", "--priority", "high", "--due", "2026-03-01") == 0
    assert run(f, "add", "Pay rent", "--priority", "low") == 0
    for argv in (["list"], ["list", "--sort", "priority"], ["list", "--tag", "shop"], ["show", "2"], ["search", "MOM"],
                 ["done", "1"], ["stats"], ["export", "--csv", str(tmp_path / "out.csv")]):
        assert run(f, *argv) == 0, argv


def test_bad_values_are_errors(tmp_path):
    f = tmp_path / "todo.json"
    assert run(f, "add", "x", "--priority", "urgent") != 0
    assert run(f, "add", "x", "--due", "2026-02-30") != 0
    assert run(f, "show", "9") != 0
    assert not f.exists()
