import pytest

from swarmgym.config import load_config


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path / "home", environ={})


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "ws"
    (d / "pkg").mkdir(parents=True)
    (d / "pkg" / "core.py").write_text("import sqlite3\n\ndef total(items):\n    return sum(items)\n")
    (d / "README.md").write_text("Run `report value` to see the total.\n")
    return d
