"""libloan: the fine rule, the loan rules and the command line (in-process, on a temp data file)."""
import datetime
import json

import pytest

from libloan.cli import main
from libloan.fines import fine_cents
from libloan.loans import due_date


@pytest.fixture
def lib(tmp_path, capsys):
    path = str(tmp_path / "lib.json")

    def run(*argv):
        code = main(["--data", path, *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    run.path = path
    return run


@pytest.mark.parametrize("price,days,fine", [(100, 1, 3), (1299, 3, 97), (100, 50, 100), (100, 40, 100),
                                             (100, 0, 0), (100, -3, 0), (0, 9, 0), (999999999980, 1, 25000000000)])
def test_fine_is_two_and_a_half_percent_a_day_half_up_capped_at_the_price(price, days, fine):
    assert fine_cents(price, days) == fine


def test_due_date_is_fourteen_days_later_across_month_and_year_ends():
    assert due_date(datetime.date(2026, 3, 1)) == datetime.date(2026, 3, 15)
    assert due_date(datetime.date(2026, 12, 25)) == datetime.date(2027, 1, 8)
    assert due_date(datetime.date(2028, 2, 20)) == datetime.date(2028, 3, 5)


def test_acceptance(lib):
    assert lib("member", "add", "M1", "--name", "Ada")[0] == 0
    assert lib("book", "add", "B1", "--title", "Dune", "--price", "12.99")[0] == 0
    assert lib("loan", "out", "M1", "B1", "--on", "2026-03-01")[1] == "due 2026-03-15\n"
    assert lib("loan", "return", "M1", "B1", "--on", "2026-03-18")[1] == "fine 0.97\n"
    assert lib("report", "fines")[1] == "M1 Ada 0.97\ntotal 0.97\n"
    assert json.load(open(lib.path, encoding="utf-8"))


def test_a_member_holds_at_most_three_loans(lib):
    lib("member", "add", "M1", "--name", "Ada")
    for b in ("B1", "B2", "B3", "B4"):
        lib("book", "add", b, "--title", "T", "--price", "1")
    assert [lib("loan", "out", "M1", b, "--on", "2026-01-01")[0] for b in ("B1", "B2", "B3", "B4")] == [0, 0, 0, 1]
    assert lib("member", "list")[1] == "M1 Ada: 3 on loan, owes 0.00\n"


def test_owing_five_dollars_blocks_borrowing_but_four_ninety_nine_does_not(lib):
    lib("member", "add", "M1", "--name", "Ada")
    lib("book", "add", "B1", "--title", "T", "--price", "20")
    lib("loan", "out", "M1", "B1", "--on", "2026-01-01")
    assert lib("loan", "return", "M1", "B1", "--on", "2026-01-25")[1] == "fine 5.00\n"
    code, _, err = lib("loan", "out", "M1", "B1", "--on", "2026-02-01")
    assert code == 1 and err.startswith("error:")
    assert lib("fine", "pay", "M1", "0.01")[1] == "owes 4.99\n"
    assert lib("loan", "out", "M1", "B1", "--on", "2026-02-01")[0] == 0


def test_errors_are_one_line_and_change_nothing(lib):
    lib("member", "add", "M1", "--name", "Ada")
    for argv in (["member", "add", "M1", "--name", "Bo"], ["member", "add", "M 2", "--name", "Bo"],
                 ["member", "add", "M2", "--name", " \t"], ["book", "add", "B1", "--title", "T", "--price", "1.999"],
                 ["book", "add", "B1", "--title", "T", "--price", "1", "--copies", "0"],
                 ["loan", "out", "M1", "B9", "--on", "2026-02-30"], ["fine", "pay", "M1", "0.01"]):
        code, _, err = lib(*argv)
        assert code == 1 and err.startswith("error:") and len(err.splitlines()) == 1, argv
    assert lib("member", "list")[1] == "M1 Ada: 0 on loan, owes 0.00\n"
    assert lib("book", "list")[1] == ""


def test_holds_let_only_the_head_of_the_queue_borrow(lib):
    for m in ("M1", "M2", "M3"):
        lib("member", "add", m, "--name", m.lower())
    lib("book", "add", "B1", "--title", "T", "--price", "1", "--copies", "2")
    assert lib("hold", "place", "M2", "B1")[1] == "position 1\n"
    assert lib("loan", "out", "M3", "B1", "--on", "2026-01-01")[0] == 1
    assert lib("loan", "out", "M2", "B1", "--on", "2026-01-01")[0] == 0
    assert lib("hold", "list", "B1")[1] == ""
    assert lib("loan", "renew", "M2", "B1", "--on", "2026-01-15")[1] == "due 2026-01-29\n"
    assert lib("loan", "renew", "M2", "B1", "--on", "2026-01-30")[0] == 1


def test_the_overdue_csv_quotes_commas_and_quotes(lib, tmp_path):
    lib("member", "add", "M1", "--name", 'Ada "A", L')
    lib("book", "add", "B1", "--title", "Dune, I", "--price", "1")
    lib("loan", "out", "M1", "B1", "--on", "2026-01-01")
    assert lib("report", "overdue", "--on", "2026-01-16")[1] == "M1 B1 due 2026-01-15, 1 days late, fine 0.03\n"
    lib("report", "overdue", "--on", "2026-01-16", "--csv", str(tmp_path / "o.csv"))
    assert (tmp_path / "o.csv").read_text(encoding="utf-8").splitlines()[1] == \
        'M1,"Ada ""A"", L",B1,"Dune, I",2026-01-15,1,0.03'
