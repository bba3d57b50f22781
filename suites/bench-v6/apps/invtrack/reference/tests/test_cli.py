"""The prompt's acceptance example and one error, through the command line."""
import json

from invtrack.cli import main


def test_acceptance(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    assert main(["--db", db, "item", "add", "A1", "--name", "Bolt", "--qty", "10", "--price", "2"]) == 0
    assert main(["--db", db, "item", "add", "A2", "--name", "Nut", "--qty", "5", "--price", "1"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "report", "value"]) == 0
    assert "25.00" in capsys.readouterr().out
    assert main(["--db", db, "item", "list", "--json"]) == 0
    assert [i["sku"] for i in json.loads(capsys.readouterr().out)] == ["A1", "A2"]


def test_unknown_sku_is_an_error(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "t.db"), "item", "remove", "NOPE"]) == 1
    assert capsys.readouterr().err.startswith("error:")
