import json

from invtrack.cli import main


def test_add_then_list_json(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    assert main(["--db", db, "item", "add", "A1", "--name", "Bolt", "--qty", "10", "--price", "2"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "item", "list", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert items == [{"sku": "A1", "name": "Bolt", "qty": 10, "price": 2.0}]


def test_unknown_sku_exits_nonzero(tmp_path):
    assert main(["--db", str(tmp_path / "t.db"), "item", "remove", "NOPE"]) == 1
