import pytest

from txkvbench.engine import Engine
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


def test_set_and_get(run):
    assert run("SET x 1; GET x; COUNT") == ["1", "1"]


def test_rollback_runs(run):
    assert run("BEGIN; SET x 2; ROLLBACK; COUNT") is not None


def test_no_transaction(run):
    assert run("ROLLBACK; COMMIT") == ["NO TRANSACTION", "NO TRANSACTION"]
