"""splitpay: money parsing, the splitting rules, the settle-up plan and the command line (in-process)."""
import csv

import pytest

from splitpay.cli import main
from splitpay.ledger import split_equal, split_shares
from splitpay.money import format_cents, parse_cents, tip_cents
from splitpay.settle import plan


@pytest.fixture
def sp(tmp_path, capsys):
    db = str(tmp_path / "s.db")

    def run(*argv):
        code = main(["--db", db, *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.mark.parametrize("text,cents", [("12", 1200), ("12.5", 1250), ("0.07", 7), ("0.29", 29), ("4.35", 435),
                                        ("98765432109876.53", 9876543210987653)])
def test_parse_cents_is_exact(text, cents):
    assert parse_cents(text) == cents


@pytest.mark.parametrize("text", ["", "-1", "+1", "1,000", "1.234", "1e3", ".5", "1.", " 1", "١"])
def test_parse_cents_refuses_anything_but_digits_with_two_decimals(text):
    with pytest.raises(ValueError):
        parse_cents(text)


def test_format_cents():
    assert [format_cents(c) for c in (1050, -5, 0, -100, 9876543210987653)] == \
        ["10.50", "-0.05", "0.00", "-1.00", "98765432109876.53"]


def test_tip_rounds_half_up():
    assert tip_cents(1010, 1500) == 152 and tip_cents(1000, 1250) == 125 and tip_cents(1, 5000) == 1


def test_equal_split_gives_the_left_over_cents_in_name_order():
    assert split_equal(1000, ["Cy", "Bob", "Ann"]) == {"Ann": 334, "Bob": 333, "Cy": 333}
    assert split_equal(2, ["b", "B", "a"]) == {"B": 1, "a": 1, "b": 0}


def test_shares_give_the_left_over_cents_to_the_largest_remainders():
    assert split_shares(100, {"Cy": 1, "Bob": 1, "Ann": 1}) == {"Ann": 34, "Bob": 33, "Cy": 33}
    assert split_shares(100, {"Ann": 1, "Bob": 2}) == {"Ann": 33, "Bob": 67}


def test_settle_plan_pays_the_largest_creditor_first_ties_by_name():
    assert plan({"Ann": 666, "Bob": -333, "Cy": -333}) == [("Bob", "Ann", 333), ("Cy", "Ann", 333)]
    assert plan({"A": 0}) == [] and plan({}) == []
    assert plan({"a": -5, "b": 3, "c": 2}) == [("a", "b", 3), ("a", "c", 2)]


def test_acceptance(sp):
    for name in ("Ann", "Bob", "Cy"):
        assert sp("person", "add", name)[0] == 0
    assert sp("expense", "add", "--payer", "Ann", "--amount", "10", "--desc", "Lunch",
              "--equal", "Ann", "--equal", "Bob", "--equal", "Cy")[1] == "expense 1\n"
    assert sp("balances")[1] == "Ann 6.66\nBob -3.33\nCy -3.33\n"
    assert sp("settle")[1] == "Bob pays Ann 3.33\nCy pays Ann 3.33\n"
    assert sp("payment", "add", "Bob", "Ann", "3.33")[1] == "payment 1\n"
    assert sp("settle")[1] == "Cy pays Ann 3.33\n"


def test_errors_are_one_line_and_change_nothing(sp):
    sp("person", "add", "Ann")
    for argv in (["person", "add", " Ann\t"], ["person", "add", " "],
                 ["expense", "add", "--payer", "Ann", "--amount", "0", "--desc", "x", "--equal", "Ann"],
                 ["expense", "add", "--payer", "Ann", "--amount", "1", "--desc", "x", "--equal", "Ann", "--equal", "Ann"],
                 ["expense", "add", "--payer", "Ann", "--amount", "1", "--desc", "x", "--exact", "Ann=0.99"],
                 ["expense", "add", "--payer", "Zed", "--amount", "1", "--desc", "x", "--equal", "Ann"],
                 ["payment", "add", "Ann", "Ann", "1"]):
        code, _, err = sp(*argv)
        assert code == 1 and err.startswith("error:") and len(err.splitlines()) == 1, argv
    assert sp("expense", "list")[1] == "" and sp("person", "list")[1] == "Ann\n"


def test_export_quotes_names_with_commas_and_quotes(sp, tmp_path):
    sp("person", "add", 'Ann "A", Jr')
    sp("person", "add", "Bob")
    sp("expense", "add", "--payer", "Bob", "--amount", "1", "--desc", "x", "--share", 'Ann "A", Jr=1', "--share", "Bob=1")
    sp("export", "--csv", str(tmp_path / "o.csv"))
    with open(tmp_path / "o.csv", newline="", encoding="utf-8") as f:
        assert list(csv.reader(f)) == [["kind", "id", "from", "to", "amount"],
                                       ["expense", "1", "Bob", 'Ann "A", Jr', "0.50"], ["expense", "1", "Bob", "Bob", "0.50"]]
