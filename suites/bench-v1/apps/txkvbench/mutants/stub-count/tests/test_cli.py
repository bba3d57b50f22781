from txkvbench.cli import main


def test_exec_prints_one_line_per_output(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "k.db"), "exec", "SET x 1; GET x; GET x"]) == 0
    assert capsys.readouterr().out.split() == ["1", "1"]


def test_unknown_command_exits_nonzero(tmp_path, capsys):
    assert main(["--db", str(tmp_path / "k.db"), "exec", "FROB x"]) == 1
    assert "ERR" in capsys.readouterr().err
