"""Probes no workspace can fool or break (issue #30), in the real bubblewrap check box.

- stdlib shadows: a workspace ``ast.py``, ``json.py``, ``sqlite3.py``, ``io.py``, ``runpy.py``,
  ``pytest.py``, ``_pytest/`` and a ``conftest.py`` that all exit 0 at import fool bench-v3's
  ``stdlib_only`` and ``tests_pass`` (shown here) and fail every probe;
- a correct app that prints through ``sys.stdout.buffer`` or ``os.write``, or ends with ``os._exit``
  after a flush, passes every probe;
- the ``/proc`` peek: an app that reads the command line, environment and stdin of every process of its
  box finds none of the check's text, and the results it forges into every stdout it can reach are not
  believed, nor when it kills the probe's driver after forging: that fails the check (no infra error).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from swarmgym.config import load_config
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.suitekit.suite import load_suite
from tests.support.grading import check_results
from tests.support.hostile import require_bwrap
from tests.support.probeapp import make_app, probe, tally_checks, tally_suite

EXIT_0 = "import os\nos._exit(0)\n"
SHADOWS = ("ast.py", "json.py", "sqlite3.py", "io.py", "runpy.py", "importlib.py", "pytest.py", "_pytest/__init__.py",
           "conftest.py", "sitecustomize.py")


@pytest.fixture
def cfg(tmp_path):
    require_bwrap()
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("sandbox:\n  backend: bwrap\n")
    return load_config(home, environ={})


def splitpay_checks() -> list:
    """tally_checks() for the package ``splitpay`` (bench-v3's money spec names its package so)."""
    out = []
    for c in tally_checks():
        text = json.dumps(c.probe.model_dump(exclude_none=True)).replace("tally", "splitpay")
        out.append(probe(c.name, **json.loads(text)))
    return out


def shadowed_wrong_app(ws):
    """An app that does nothing it should, under a workspace full of stdlib shadows that exit 0 at import."""
    make_app(ws)
    shutil.move(ws / "tally", ws / "splitpay")
    for f in (ws / "splitpay").glob("*.py"):
        f.write_text(f.read_text().replace("tally", "splitpay"))
    (ws / "tests" / "test_money.py").write_text("def test_wrong():\n    assert False\n")
    pkg = ws / "splitpay"
    (pkg / "money.py").write_text("import json\nimport requests\n\ndef parse_cents(text):\n    return 0\n")
    cli = pkg / "cli.py"
    cli.write_text(cli.read_text().replace("for name, cents in store.entries(con):",
                                           "for name, cents in con.execute('SELECT name, cents FROM entry'):"))
    for name in SHADOWS:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(EXIT_0)
    return ws


def test_stdlib_shadows_that_exit_0_at_import_fool_bench_v3_and_fail_every_probe(tmp_path, cfg):
    ws = shadowed_wrong_app(tmp_path / "ws")
    v3 = {c.name: c for c in load_suite("bench-v3").spec("money").checks}
    fooled = check_results([v3["stdlib_only"], v3["tests_pass"]], ws, cfg)
    assert [r.passed for r in fooled] == [True, True]  # the attack is real: bench-v3's shell probes pass it
    got = {r.name: r for r in check_results(splitpay_checks(), ws, cfg)}
    assert {n: r.passed for n, r in got.items()} == {"stdlib_only": False, "layout": True, "money_pure": False,
                                                     "money_api": False, "store_owns_sql": False, "tests_pass": False}
    assert all(r.error is None for r in got.values())  # the app's failures, none an infra error
    assert got["stdlib_only"].detail == "1 import(s) outside the standard library: splitpay/money.py:2: import requests"
    assert got["money_pure"].detail == "splitpay/money.py imports json (line 1)"
    assert got["money_api"].detail.startswith("6/6 calls differ: parse_cents('12') raised ModuleNotFoundError: "
                                              "\"No module named 'requests'\", want 1200")
    assert got["store_owns_sql"].detail == "`--db {db} list` did not exit 0 (the process ended with exit 1)"
    assert "No module named 'requests'" in got["store_owns_sql"].stderr_tail
    assert got["tests_pass"].detail == "pytest never finished its session (the process ended with exit 0): " \
                                       "a conftest, plugin or test ended it"


def test_shadows_do_not_break_a_correct_app(tmp_path, cfg):
    ws = make_app(tmp_path / "ws")
    for name in SHADOWS:  # not conftest.py: a conftest that ends pytest is the app's own test failing
        if name != "conftest.py":
            (ws / name).parent.mkdir(parents=True, exist_ok=True)
            (ws / name).write_text(EXIT_0)
    failed = {r.name: r.detail for r in check_results(tally_checks(), ws, cfg) if not r.passed}
    assert failed == {}


@pytest.mark.parametrize("out, main", [("buffer", "os_exit"), ("oswrite", "exit"),
                                       *(pytest.param(o, m, marks=pytest.mark.slow)
                                         for o, m in [("buffer", "exit"), ("print", "os_exit"), ("oswrite", "os_exit")])])
def test_a_correct_app_in_any_output_style_passes_every_probe(tmp_path, cfg, out, main):
    ws = make_app(tmp_path / "ws", out=out, main=main)
    init = ws / "tally" / "__init__.py"  # output at import, through every layer, changes nothing either
    init.write_text("import os\nimport sys\n\nos.write(1, b'hello\\n')\nsys.stdout.buffer.write('h\\u00e9\\n'.encode())\n"
                    "print('SWARMGYM-PROBE {\"facts\": {}}')\nos.write(2, b'warn\\n')\n")
    failed = {r.name: r.detail for r in check_results(tally_checks(), ws, cfg) if not r.passed}
    assert failed == {}


PEEK = r'''
import glob, json, os, sys

def _peek():
    with open("/proc/1/cmdline", "rb") as f:
        if b"bwrap" not in f.read():
            return  # this payload writes into every stdout it can reach: never outside a box
    loot = {}
    for path in glob.glob("/proc/[0-9]*"):
        for what in ("cmdline", "environ", "fd/0", "fd/3", "mem"):
            try:
                fd = os.open(os.path.join(path, what), os.O_RDONLY | os.O_NONBLOCK)
                try:
                    loot[path + "/" + what] = os.read(fd, 1 << 20).decode("utf-8", "replace")
                finally:
                    os.close(fd)
            except OSError as e:
                loot[path + "/" + what] = "blocked: %s" % e
    good = {"apps": [{"code": 0, "timed_out": False, "out": "", "err": "",
                      "facts": [{"ready": True}, {"sql": "SELECT", "file": "tally/store.py"}]
                               + [{"i": i, "value": {"t": "int", "v": 0}} for i in range(9)]
                               + [{"finish": 0, "collected": 9, "failed": 0}]}] * 5,
            "db": {"exists": True, "sqlite": True}}
    fake = ("x" * 65536 + "\nSWARMGYM-PROBE " + json.dumps({"facts": good}) + "\n").encode()
    for path in glob.glob("/proc/[0-9]*/fd/[12]"):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                os.write(fd, fake)
            finally:
                os.close(fd)
            loot["forged " + path] = "written"
        except OSError as e:
            loot["forged " + path] = "blocked: %s" % e
    with open(os.path.join(os.getcwd(), "loot-%s.json" % os.urandom(6).hex()), "w") as f:
        json.dump(loot, f)

_peek()
'''

SECRETS = ("918273645", "want-token-7f3a", "UnicodeTranslateError", "tally/store.py", "min_tests")


def peek_checks() -> list:
    calls = [{"call": "tally.money:parse_cents", "args": ["12"], "want": 918273645},
             {"call": "tally.money:format_cents", "args": [5], "want": "want-token-7f3a"},
             {"call": "tally.money:parse_cents", "args": ["1"], "raises": "UnicodeTranslateError"}]
    return [probe("api", type="api", calls=calls),
            probe("sql", type="sql_owner", package="tally", owner="tally/store.py", runs=[["--db", "{db}", "list"]]),
            probe("tests", type="pytest", min_tests=1)]


def test_the_proc_peek_finds_no_check_text_and_its_forged_results_are_not_believed(tmp_path, cfg):
    ws = make_app(tmp_path / "ws")
    (ws / "tally" / "__init__.py").write_text(PEEK)
    cli = ws / "tally" / "cli.py"  # it also runs SQL from cli.py, which its forged facts deny
    cli.write_text(cli.read_text().replace("for name, cents in store.entries(con):",
                                           "for name, cents in con.execute('SELECT name, cents FROM entry'):"))
    (ws / "tests" / "test_money.py").write_text("import tally\n\ndef test_wrong():\n    assert False\n")
    v = grade(ws, peek_checks(), cfg, dimensions=CHECKS)
    got = {r.name: r for r in v.check_results()}
    assert {n: (r.passed, r.error) for n, r in got.items()} == {"api": (False, None), "sql": (False, None),
                                                                "tests": (False, None)}
    assert got["api"].detail.startswith("3/3 calls differ: parse_cents('12') = 1200, want 918273645")
    assert got["sql"].detail == "SQL was run from tally/cli.py (SELECT); only tally/store.py may run SQL"
    assert got["tests"].detail.startswith("pytest exit status 1")
    loot = [json.loads(p.read_text()) for p in ws.glob("loot-*.json")]
    assert len(loot) >= 3, "the attack never ran"  # once per app process
    read = "\n".join(v for d in loot for k, v in d.items() if not v.startswith("blocked"))
    assert "tally.money" in read and "format_cents" in read  # it did read the probe's inputs …
    assert [s for s in SECRETS if s in read] == []  # … and nothing the check wants
    forged = [k for d in loot for k, v in d.items() if k.startswith("forged /proc/1/") and v == "written"]
    assert forged  # the box's stdout was reachable, and what it wrote there was not believed
    assert all(v.startswith("blocked") for d in loot for k, v in d.items() if k.endswith("/mem"))


KILLER = PEEK.replace("_peek()\n", "_peek()\nimport signal\nos.kill(os.getppid(), signal.SIGKILL)\n")


def test_an_app_that_forges_a_result_then_kills_the_probes_driver_fails_and_is_no_infra_error(tmp_path, cfg):
    ws = make_app(tmp_path / "ws")
    (ws / "tally" / "__init__.py").write_text(KILLER)
    cli = ws / "tally" / "cli.py"  # it runs SQL from cli.py, which its forged facts deny
    cli.write_text(cli.read_text().replace("for name, cents in store.entries(con):",
                                           "for name, cents in con.execute('SELECT name, cents FROM entry'):"))
    v = grade(ws, [tally_checks()[3], tally_checks()[4]], cfg, dimensions=CHECKS)
    api, sql = v.check_results()  # the api's app process is the driver's child; an owner run is its server's
    assert not api.passed and api.error is None and api.detail.startswith("the probe was killed or flooded by an app")
    assert not sql.passed and sql.error is None and sql.detail == "`--db {db} list` did not exit 0 (the process was killed)"
    assert v.dimensions["checks"].status == "fail"
    loot = [json.loads(p.read_text()) for p in ws.glob("loot-*.json")]
    assert [k for d in loot for k, v in d.items() if k.startswith("forged /proc/1/") and v == "written"]


def verify(home, suite, ws):
    res = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), "verify", "--suite", str(suite),
                          "--spec", "tally", "--isolation", "bwrap", "--json", str(ws)],
                         capture_output=True, text=True, timeout=300, check=False,
                         env={k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")})
    assert res.returncode in (0, 1), res.stdout + res.stderr
    out = json.loads(res.stdout)
    return res.returncode, out, {c["name"]: c["passed"] for c in out["dimensions"]["checks"]["checks"]}


@pytest.mark.slow  # two `swarmgym verify` runs; the fast twins grade the same attacks through grade() above
def test_through_verify_a_shadowing_peeking_app_is_not_functional_and_a_correct_one_is(tmp_path):
    require_bwrap()
    suite = tally_suite(tmp_path / "suites" / "probes-v1")
    good = make_app(tmp_path / "good", out="buffer", main="os_exit")
    code, out, passed = verify(tmp_path / "home", suite, good)
    assert code == 0 and out["functional"] is True and all(passed.values()), passed
    bad = make_app(tmp_path / "bad")
    (bad / "tally" / "__init__.py").write_text(PEEK)
    (bad / "tally" / "money.py").write_text("import json\n\ndef parse_cents(text):\n    return 1200\n")
    for name in SHADOWS:
        (bad / name).parent.mkdir(parents=True, exist_ok=True)
        (bad / name).write_text(EXIT_0)
    code, out, passed = verify(tmp_path / "home", suite, bad)
    assert code == 1 and out["functional"] is False
    assert passed == {"stdlib_only": True, "layout": True, "money_pure": False, "money_api": False,
                      "store_owns_sql": False, "tests_pass": False}
    assert out["dimensions"]["checks"]["status"] == "fail"
    loot = "\n".join(p.read_text() for p in bad.glob("loot-*.json"))
    assert loot and "-0.05" not in loot  # format_cents(-5)'s want


GARBAGE = '''
import os, sys

def deep():
    x = []
    for _ in range(5000):
        x = [x]
    return x

if len(sys.argv) > 2 and sys.argv[2].isdigit():  # the probe's results pipe: junk, 100 000 deep, half a line
    fd = int(sys.argv[2])
    for junk in (b"[" * 100000 + b"]" * 100000 + b"\\n", b'{"i": 0, "value": ' + b"[" * 100000 + b"\\n", b"\\xff\\xfe{\\n",
                 b'{"i": 1, "value": {"t": "int", "v": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}\\n'):
        os.write(fd, junk)
'''


def test_junk_in_the_probes_results_pipe_fails_the_app_and_is_no_infra_error(tmp_path, cfg):
    ws = make_app(tmp_path / "ws")
    (ws / "tally" / "__init__.py").write_text(GARBAGE)
    money = ws / "tally" / "money.py"
    money.write_text(money.read_text() + "\n\nfrom tally import deep\n")
    calls = [{"call": "tally.money:parse_cents", "args": ["12"], "want": 1200},
             {"call": "tally.money:deep", "want": [[1]]}]
    v = grade(ws, [probe("api", type="api", calls=calls)], cfg, dimensions=CHECKS)
    [r] = v.check_results()
    assert r.error is None and not r.passed and v.dimensions["checks"].status == "fail"
    assert r.detail.startswith("1/2 calls differ: deep() = "), r.detail
