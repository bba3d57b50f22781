from rdcalc.cli import main


def test_eval_prints_result(capsys):
    assert main(["eval", "2*3*2"]) == 0
    assert capsys.readouterr().out.strip() == "12"


def test_error_exits_nonzero_with_message(capsys):
    assert main(["eval", "1/0"]) == 1
    assert "division by zero" in capsys.readouterr().err


def test_expression_may_start_with_minus(capsys):
    assert main(["eval", "-2*2"]) == 0
    assert capsys.readouterr().out.strip() == "-4"


def test_variables_on_command_line(capsys):
    assert main(["eval", "x*x+1", "--var", "x=3"]) == 0
    assert capsys.readouterr().out.strip() == "10"
