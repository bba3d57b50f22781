import pytest

from txkvbench.engine import CommandError, Engine
from txkvbench.script import run_script
from txkvbench.storage import Storage


@pytest.fixture
def run(tmp_path):
    db = str(tmp_path / "kv.db")

    def _run(script):
        out = []
        storage = Storage(db)
        try:
            run_script(Engine(storage), script, out.append)
        finally:
            storage.close()
        return out
    return _run


def test_rollback_undoes_only_the_inner_scope(run):
    assert run("SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT") == ["2", "1", "1"]


def test_nested_rollback_keeps_outer_changes(run):
    assert run("SET x 1; BEGIN; SET x 2; BEGIN; SET x 3; ROLLBACK; GET x; ROLLBACK; GET x") == ["2", "1"]


def test_commit_merges_into_parent_only(run):
    assert run("BEGIN; SET x 2; BEGIN; SET x 3; COMMIT; GET x; ROLLBACK; GET x") == ["3", "NULL"]


def test_committed_data_persists_and_open_transactions_do_not(run):
    run("BEGIN; SET a 5; COMMIT; BEGIN; SET b 7")
    assert run("GET a; GET b; COUNT") == ["5", "NULL", "1"]


def test_delete_in_transaction_is_undone_by_rollback(run):
    assert run("SET a 1; BEGIN; DELETE a; GET a; COUNT; ROLLBACK; GET a") == ["NULL", "0", "1"]


def test_incr_and_keys(run):
    assert run("INCR n; INCR n 5; SET b x; KEYS") == ["1", "6", "b n"]


def test_incr_of_text_is_an_error(run):
    with pytest.raises(CommandError):
        run("SET s abc; INCR s")
