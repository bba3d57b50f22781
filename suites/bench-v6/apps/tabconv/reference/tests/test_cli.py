"""The prompt's acceptance example and a few of its rules, through the command line."""
import json

from tabconv.cli import main
from tabconv.csvio import read_records, write_records
from tabconv.infer import to_json_value

ACCEPT = 'name,qty,price\nBolt,10,2.50\n"Nut, hex",007,\n'
OBJECTS = [{"name": "Bolt", "qty": 10, "price": 2.5}, {"name": "Nut, hex", "qty": "007", "price": None}]


def test_acceptance_round_trip(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text(ACCEPT, encoding="utf-8")
    assert main(["to-json", str(src)]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == OBJECTS
    back = tmp_path / "in.json"
    back.write_text(out, encoding="utf-8")
    assert main(["to-csv", str(back)]) == 0
    assert capsys.readouterr().out == ACCEPT.replace("2.50", "2.5")


def test_a_quoted_field_holds_the_delimiter_and_a_doubled_quote():
    assert read_records('a,"b, ""c"""\n') == [(1, ["a", 'b, "c"'])]


def test_fields_are_quoted_only_when_needed():
    assert write_records([["plain", "a,b", 'say "hi"']]) == 'plain,"a,b","say ""hi"""\n'


def test_types_follow_the_rules():
    assert [to_json_value(f) for f in ["", "true", "10", "2.50", "007"]] == [None, True, 10, 2.5, "007"]


def test_select_and_rename(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text(ACCEPT, encoding="utf-8")
    assert main(["to-json", str(src), "--select", "price,name", "--rename", "name=item"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"price": 2.5, "item": "Bolt"}, {"price": None, "item": "Nut, hex"}]


def test_stats_of_the_acceptance_file(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text(ACCEPT, encoding="utf-8")
    assert main(["stats", str(src)]) == 0
    price = json.loads(capsys.readouterr().out)[2]
    assert (price["type"], price["min"], price["max"], price["mean"]) == ("number", 2.5, 2.5, 2.5)


def test_a_record_with_too_few_fields_is_an_error(tmp_path, capsys):
    src = tmp_path / "in.csv"
    src.write_text("a,b\n1\n", encoding="utf-8")
    assert main(["to-json", str(src)]) == 1
    assert capsys.readouterr().err.startswith("error:")
