import pytest

from rdcalc.parser import CalcError, evaluate


@pytest.mark.parametrize("expr, want", [("2+3*4", 14), ("2^3^2", 512), ("7/2", 3.5), ("-2^2", -4)])
def test_evaluates(expr, want):
    assert evaluate(expr) == want


def test_division_by_zero():
    with pytest.raises(CalcError):
        evaluate("1/0")
