"""The prompt's acceptance examples and one error, through the command line."""
import pytest

from rdcalc.cli import main


@pytest.mark.parametrize("expr, want", [("2+3*4", "14"), ("2^3^2", "512"), ("(2+3)*4", "20")])
def test_acceptance(expr, want, capsys):
    assert main(["eval", expr]) == 0
    assert capsys.readouterr().out.strip() == want


def test_division_by_zero_is_an_error(capsys):
    assert main(["eval", "1/0"]) == 1
    assert capsys.readouterr().err.startswith("error:")
