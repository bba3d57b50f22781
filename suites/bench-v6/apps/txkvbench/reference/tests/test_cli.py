"""The prompt's acceptance examples and one error, through the command line."""
from txkvbench.cli import main


def test_acceptance(tmp_path, capsys):
    db = str(tmp_path / "k.db")
    assert main(["--db", db, "exec", "SET x 1; BEGIN; SET x 2; GET x; ROLLBACK; GET x; COUNT"]) == 0
    assert capsys.readouterr().out.split() == ["2", "1", "1"]


def test_unknown_statement_is_an_error(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "k.db"), "exec", "FROB x"]) == 1
    assert capsys.readouterr().err.startswith("ERR")
