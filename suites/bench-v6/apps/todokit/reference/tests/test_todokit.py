"""todokit's commands through main(), on a file in a temporary folder."""
import json

from todokit.cli import main


def run(path, *argv):
    return main(["--file", str(path), *argv])


def test_add_list_done_remove(tmp_path, capsys):
    f = tmp_path / "todo.json"
    assert run(f, "add", "Buy milk") == 0
    assert run(f, "add", "Call mom") == 0
    assert run(f, "done", "1") == 0
    capsys.readouterr()
    assert run(f, "list") == 0
    assert capsys.readouterr().out == "[x] 1 Buy milk\n[ ] 2 Call mom\n"
    assert run(f, "remove", "1") == 0
    assert capsys.readouterr().out == "removed 1: Buy milk\n"


def test_ids_are_never_reused(tmp_path, capsys):
    f = tmp_path / "todo.json"
    run(f, "add", "a")
    run(f, "add", "b")
    run(f, "remove", "2")
    capsys.readouterr()
    run(f, "add", "c")
    assert capsys.readouterr().out == "added 3: c\n"
    assert json.loads(f.read_text())["next_id"] == 4


def test_an_empty_list_says_so_and_creates_no_file(tmp_path, capsys):
    f = tmp_path / "todo.json"
    assert run(f, "list") == 0
    assert capsys.readouterr().out == "no tasks\n" and not f.exists()


def test_errors_are_one_line_and_change_nothing(tmp_path, capsys):
    f = tmp_path / "todo.json"
    run(f, "add", "a")
    run(f, "done", "1")
    before = f.read_text()
    assert run(f, "done", "1") == 1
    assert run(f, "remove", "7") == 1
    assert run(f, "add", "   ") == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(e.startswith("error:") for e in err)
    assert f.read_text() == before
