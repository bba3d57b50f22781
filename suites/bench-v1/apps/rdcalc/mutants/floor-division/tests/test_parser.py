import pytest

from rdcalc.parser import CalcError, evaluate, format_number


@pytest.mark.parametrize("expr, want", [
    ("2+3*4", 14), ("(2+3)*4", 20), ("10-4-3", 3), ("64/4/2", 8),
    ("2^3^2", 512), ("-2^2", -4), ("-(3-5)", 2), ("2*-3", -6), ("7/2", 3),
])
def test_evaluates(expr, want):
    assert evaluate(expr) == want


@pytest.mark.parametrize("expr", ["", "2+", "(1", "1 2", "1/0", "2 $ 3", "foo"])
def test_rejects(expr):
    with pytest.raises(CalcError):
        evaluate(expr)


def test_variables_and_functions():
    assert evaluate("x^2+1", {"x": 3}) == 10
    assert evaluate("max(2,3)*sqrt(16)") == 12


def test_format_prints_integers_without_point():
    assert format_number(14.0) == "14"
    assert format_number(3.5) == "3.5"
