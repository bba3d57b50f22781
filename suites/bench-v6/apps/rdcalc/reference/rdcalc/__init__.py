"""rdcalc: a recursive-descent calculator."""

from rdcalc.parser import CalcError, evaluate

__all__ = ["CalcError", "evaluate"]
