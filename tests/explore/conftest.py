"""A swarmgym home wired to the simulator (fault-free fleet, fast clock) and the operator brain."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.suitekit.suite import load_suite

from .operator_responder import Responder

SIM_DIR = Path(__file__).resolve().parents[2] / "swarmgym" / "sim"


@pytest.fixture
def home(tmp_path):
    fleet = yaml.safe_load((SIM_DIR / "fleet.yaml").read_text())
    for v in fleet["variants"].values():  # deterministic: the app is the suite's reference, no faults
        v["faults"] = {k: 0.0 for k in v["faults"]}
        v["retry_rate"] = 0.0
        v["bad_tool_call_rate"] = 0.0
    (tmp_path / "fleet.yaml").write_text(yaml.safe_dump(fleet))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({
        "brain": {"provider": "operator", "operator_poll_secs": 0.02, "operator_timeout_secs": 60},
        "swarm": {"adapter": "sim", "timeout": 120,
                  "env": {"SWARMGYM_SIM_FLEET": str(tmp_path / "fleet.yaml"), "SWARMGYM_SIM_TIME_SCALE": "0.0005"}},
        "checks": {"timeout": 60},
    }))
    return tmp_path


@pytest.fixture
def cfg(home):
    return load_config(home, environ={})


@pytest.fixture
def rdcalc():
    suite = load_suite("bench-v1")
    return suite.spec("rdcalc")


@pytest.fixture
def responder(cfg):
    started = []

    def make(script):
        r = Responder(cfg.runs_dir / "operator", script)
        r.start()
        started.append(r)
        return r
    yield make
    for r in started:
        r.stop()
