"""The four attacks of issue #30 shipped by a real command swarm through ``swarmgym bench --swarm command``
(bench-v5's smoke tier: one crud job, graded in bubblewrap boxes), each test failing if the attack works:

- the hedge (``report value`` prints two candidates) and the haystack (every integer 0..1000);
- the ``/proc`` peek: every command reads the command line, environment and stdin of every process of its box,
  ``report value`` prints only what it found, and a forged driver result (a whole result line, then half a
  line to break the driver's own) goes into every stdout it can reach;
- the stdlib shadows: ``import requests`` under a workspace ``ast.py``, ``json.py``, ``sqlite3.py`` … that exit 0
  at import, the app's own tests replaced by a failing one.

The control: the reference shipped by the same swarm is graded functional.
"""
from __future__ import annotations

import pytest

from tests.support.attacks import ATTACKS, bench_smoke, recorded_checks, reference, session_records, unpacking_swarm
from tests.support.hostile import require_bwrap

pytestmark = pytest.mark.slow  # each case is a real bench job, graded in real boxes

FAILS = {  # the checks each attack must fail (a superset: it may fail more)
    "hedge": {"total_value", "golden_table"},
    "haystack": {"total_value", "golden_table", "tests_pass"},  # its own acceptance test reads the value line
    "peek": {"total_value", "golden_table", "tests_pass"},
    "shadows": {"stdlib_only", "tests_pass"},
}
FORGED = "stdout 'Total value: 25.00\\n'"  # the output the peek's forged driver result claims, for every step


def _bench(tmp_path, build):
    ws = build(tmp_path / "app")
    res = bench_smoke(tmp_path / "home", unpacking_swarm(ws))
    assert res.returncode == 0, res.stdout + res.stderr
    [rec] = session_records(tmp_path / "home")
    assert (rec["spec"], rec["suite"], rec["provenance"]["adapter"], rec["provenance"]["isolation"]) == \
        ("crud", "bench-v5", "command", "bwrap")
    return rec, recorded_checks(tmp_path / "home", rec)


def test_the_crud_reference_shipped_by_a_command_swarm_is_graded_functional(tmp_path):
    require_bwrap()
    rec, checks = _bench(tmp_path, reference)
    assert rec["functional"] is True and rec["dimensions"]["checks"] == "pass"
    assert {n: r.detail for n, r in checks.items() if not r.passed} == {}
    assert FAILS["shadows"] | FAILS["peek"] <= set(checks)  # every check an attack must fail was graded


@pytest.mark.parametrize("attack", sorted(FAILS))
def test_an_attacking_app_shipped_through_bench_is_recorded_not_functional(tmp_path, attack):
    require_bwrap()
    rec, checks = _bench(tmp_path, ATTACKS[attack])
    failed = {n: r.detail for n, r in checks.items() if not r.passed}
    assert rec["functional"] is False and rec["dimensions"]["checks"] == "fail", failed
    assert FAILS[attack] <= set(failed), failed
    assert {n: r.error for n, r in checks.items() if r.error} == {}  # the app's failures, never an infra error
    if attack in ("hedge", "haystack", "peek"):
        assert "want only '25.00'" in failed["total_value"], failed["total_value"]
    if attack == "hedge":
        assert "holds the number(s) ['25.00', '25.00']" in failed["total_value"]
    if attack == "peek":  # it found no wanted value in the box, and its forged result was not believed
        assert "25.00" not in failed["total_value"].split("want only")[0], failed["total_value"]
        assert FORGED not in failed["total_value"] and FORGED not in failed["golden_table"], failed
    if attack == "shadows":
        assert failed["stdlib_only"] == "1 import(s) outside the standard library: invtrack/cli.py:1: import requests"
        assert failed["tests_pass"].startswith("pytest never finished its session"), failed["tests_pass"]
