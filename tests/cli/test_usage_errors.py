"""A new user's typos, as the CLI answers them: one short error that says what was meant."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

ENV = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}


def swarmgym(home, *args):
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=60, env=ENV)


@pytest.mark.parametrize("args,meant", [
    (["benh"], "'bench'"),                                  # a command
    (["hosts", "kye", "list"], "'key'"),                    # a nested one
    (["bench", "--tiers", "light"], "'--tier'"),            # an option
])
def test_a_mistyped_command_or_option_says_did_you_mean(tmp_path, args, meant):
    r = swarmgym(tmp_path, *args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("Error: No such ") and "Did you mean" in err and meant in err, r.stderr


@pytest.mark.parametrize("args", [["bench", "--suite", "bench-v9"], ["suite", "hash", "--suite", "bench-v9"]])
def test_an_unknown_suite_lists_the_known_ones(tmp_path, args):
    r = swarmgym(tmp_path, *args)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert "no such suite file (suite 'bench-v9'); known suites in " in line
    assert ": bench-v1, bench-v2, bench-v3" in line
