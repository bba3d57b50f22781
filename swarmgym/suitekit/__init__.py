"""The suite kit: suites as data (specs, checks, mutants, edge classes, golden tables), the scaffold of a new
suite and its coverage matrix, and a suite's references and mutants run through its checks.

The shipped suites themselves are data in ``suites/`` (``swarmgym.suites`` in the wheel), not this package.
"""
