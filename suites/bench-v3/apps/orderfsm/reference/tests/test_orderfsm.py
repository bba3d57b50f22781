"""The lifecycle rules, the store and the command line of orderfsm."""
import json

import pytest

from orderfsm.cli import main
from orderfsm.states import TransitionError, after_ship, check_order_id, check_time, next_state


def run(db, *argv):
    return main(["--db", str(db), *argv])


def test_transition_table_allows_the_lifecycle_and_refuses_the_rest():
    assert next_state("pay", "created") == "paid"
    assert next_state("cancel", "paid") == "cancelled"
    assert next_state("refund", "delivered") == "refunded"
    for command, state in [("ship", "created"), ("pay", "paid"), ("cancel", "shipped"), ("refund", "shipped"),
                           ("deliver", "cancelled"), ("cancel", "partial")]:
        with pytest.raises(TransitionError):
            next_state(command, state)


def test_partial_shipments_count_items_and_finish_in_shipped():
    assert after_ship(3, 0, 1) == (1, "partial")
    assert after_ship(3, 1, None) == (3, "shipped")
    for qty in (0, -1, 3):
        with pytest.raises(TransitionError):
            after_ship(3, 1, qty)


@pytest.mark.parametrize("order", ["", "A 1", "É1", "x" * 21, "a'b"])
def test_bad_order_ids_are_refused(order):
    with pytest.raises(TransitionError):
        check_order_id(order)


@pytest.mark.parametrize("at", ["2026-02-29T10:00", "2026-03-01 09:00", "2026-3-01T09:00", "2026-03-01T24:00",
                                "2026-03-01T09:00:00", ""])
def test_bad_times_are_refused(at):
    with pytest.raises(TransitionError):
        check_time(at)
    assert check_time("2028-02-29T23:59") == "2028-02-29T23:59"


def test_acceptance_through_the_command_line(tmp_path, capsys):
    db = tmp_path / "o.db"
    assert run(db, "create", "A1", "--at", "2026-03-01T09:00") == 0
    assert run(db, "pay", "A1", "--at", "2026-03-01T10:00") == 0
    assert run(db, "ship", "A1", "--at", "2026-03-02T08:00") == 0
    capsys.readouterr()
    assert run(db, "show", "A1") == 0 and capsys.readouterr().out == "A1 shipped\n"
    assert run(db, "cancel", "A1", "--at", "2026-03-02T09:00") == 1
    assert capsys.readouterr().err.startswith("error:")
    assert run(db, "history", "A1") == 0
    assert capsys.readouterr().out.splitlines() == ["2026-03-01T09:00 create created", "2026-03-01T10:00 pay paid",
                                                    "2026-03-02T08:00 ship shipped"]


def test_an_invalid_transition_or_a_backwards_time_changes_nothing(tmp_path, capsys):
    db = tmp_path / "o.db"
    run(db, "create", "B", "--at", "2026-03-01T09:00")
    assert run(db, "ship", "B", "--at", "2026-03-01T10:00") == 1
    assert run(db, "pay", "B", "--at", "2026-03-01T08:59") == 1
    assert run(db, "pay", "B", "--at", "2026-03-01T09:00") == 0  # the same minute is allowed
    capsys.readouterr()
    run(db, "history", "B")
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_list_sorts_in_string_order_and_filters_by_state(tmp_path, capsys):
    db = tmp_path / "o.db"
    for order in ("a1", "A9", "B1", "A10"):
        run(db, "create", order, "--at", "2026-03-01T09:00")
    run(db, "pay", "B1", "--at", "2026-03-01T09:00")
    capsys.readouterr()
    run(db, "list")
    assert capsys.readouterr().out.split() == ["A10", "created", "A9", "created", "B1", "paid", "a1", "created"]
    run(db, "list", "--state", "paid")
    assert capsys.readouterr().out == "B1 paid\n"
    assert run(db, "list", "--state", "lost") == 1


def test_undo_restores_the_previous_state_and_shipped_count(tmp_path, capsys):
    db = tmp_path / "o.db"
    run(db, "create", "A1", "--items", "3", "--at", "2026-03-01T09:00")
    run(db, "pay", "A1", "--at", "2026-03-01T09:00")
    run(db, "ship", "A1", "--qty", "1", "--at", "2026-03-01T10:00")
    run(db, "ship", "A1", "--at", "2026-03-01T11:00")
    capsys.readouterr()
    assert run(db, "undo", "A1") == 0 and capsys.readouterr().out == "A1 partial\n"
    run(db, "show", "A1", "--json")
    assert json.loads(capsys.readouterr().out) == {"order": "A1", "state": "partial", "items": 3, "shipped": 1}
    for _ in range(2):
        assert run(db, "undo", "A1") == 0
    assert run(db, "undo", "A1") == 1  # only the create is left


def test_report_counts_every_state_in_lifecycle_order(tmp_path, capsys):
    db = tmp_path / "o.db"
    run(db, "create", "A1", "--at", "2026-03-01T09:00")
    capsys.readouterr()
    run(db, "report")
    assert capsys.readouterr().out.splitlines() == ["created 1", "paid 0", "partial 0", "shipped 0", "delivered 0",
                                                    "cancelled 0", "refunded 0"]
