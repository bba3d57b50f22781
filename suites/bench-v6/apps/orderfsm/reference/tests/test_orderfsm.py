"""The transition table and the prompt's acceptance runs, through main()."""
from orderfsm.cli import main
from orderfsm.states import next_state


def run(db, *argv):
    return main(["--db", str(db), *argv])


def test_transition_table_follows_the_lifecycle():
    assert next_state("pay", "created") == "paid"
    assert next_state("ship", "paid") == "shipped"
    assert next_state("deliver", "shipped") == "delivered"
    assert next_state("refund", "delivered") == "refunded"
    assert next_state("cancel", "created") == "cancelled"


def test_acceptance(tmp_path):
    db = tmp_path / "o.db"
    assert run(db, "create", "A1", "--at", "2026-03-01T09:00") == 0
    assert run(db, "pay", "A1", "--at", "2026-03-01T10:00") == 0
    assert run(db, "ship", "A1", "--at", "2026-03-02T08:00") == 0
    assert run(db, "show", "A1") == 0
    assert run(db, "cancel", "A1", "--at", "2026-03-02T09:00") != 0
    assert run(db, "history", "A1") == 0


def test_hard_acceptance(tmp_path):
    db = tmp_path / "o.db"
    assert run(db, "create", "A1", "--at", "2026-03-01T09:00", "--items", "3") == 0
    assert run(db, "pay", "A1", "--at", "2026-03-01T10:00") == 0
    assert run(db, "ship", "A1", "--at", "2026-03-02T08:00", "--qty", "1") == 0
    assert run(db, "ship", "A1", "--at", "2026-03-02T09:00") == 0
    assert run(db, "undo", "A1") == 0
    assert run(db, "show", "A1", "--json") == 0
    assert run(db, "report") == 0
