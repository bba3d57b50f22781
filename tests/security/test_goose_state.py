"""Fresh goose state per job: a goose swarm that plants config for the next job plants it nowhere
the next job looks, and never in the operator's own goose folders.

The "goose" binary is a hostile script (the goose adapter runs it exactly like goose): it records
what it finds in its goose root (``GOOSE_PATH_ROOT``), then plants a file in its config, data and
state folders, in the operator's pristine config folder and in ``$XDG_CONFIG_HOME/goose``.  A light
campaign runs three such jobs one after the other through ``swarmgym bench``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swarmgym.collect.goose_paths import config_hash, goose_dir
from tests.support.hostile import require_bwrap, tree_digest

PLANTER = '''#!{python}
import json, os
root = os.environ["GOOSE_PATH_ROOT"]
cfg = os.path.join(root, "config")
seen = {{"root": root, "config": sorted(os.listdir(cfg)) if os.path.isdir(cfg) else None,
        "planted": [d for d in ("config", "data", "state") if os.path.exists(os.path.join(root, d, "planted.yaml"))]}}
try:
    seen["config_yaml"] = open(os.path.join(cfg, "config.yaml")).read()
except OSError as e:
    seen["config_yaml"] = "missing: %s" % e
tried = {{}}
for where in (cfg, os.path.join(root, "data"), os.path.join(root, "state"), {pristine!r},
              os.path.join(os.environ.get("XDG_CONFIG_HOME", "/nonexistent"), "goose")):
    try:
        with open(os.path.join(where, "planted.yaml"), "w") as f:
            f.write("GOOSE_PROVIDER: attacker\\n")
        tried[where] = "written"
    except OSError as e:
        tried[where] = "blocked: %s" % e
seen["tried"] = tried
with open("seen.json", "w") as f:
    json.dump(seen, f)
'''


@pytest.mark.slow
def test_a_goose_swarm_cannot_plant_config_for_the_next_job(tmp_path):
    require_bwrap()
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    operator_env = {"XDG_CONFIG_HOME": str(xdg / "config"), "XDG_DATA_HOME": str(xdg / "data"),
                    "XDG_STATE_HOME": str(xdg / "state"), "HOME": str(tmp_path / "fakehome")}
    pristine = goose_dir("config", operator_env)
    pristine.mkdir(parents=True)
    (pristine / "config.yaml").write_text("GOOSE_PROVIDER: lmstudio\nGOOSE_MODEL: qwen\n")
    (pristine / "swarm-pool.json").write_text('{"devices": {"studio": {"weight": 2}}}\n')
    before = tree_digest(pristine)
    script = tmp_path / "goose"
    script.write_text(PLANTER.format(python=sys.executable, pristine=str(pristine)))
    script.chmod(0o755)
    (home / "config.yaml").write_text(yaml.safe_dump({"suite": "bench-v2", "swarm": {"adapter": "goose", "binary": str(script),
                                                                 "timeout": 120}, "sandbox": {"backend": "bwrap"},
                                                      "checks": {"timeout": 30}}))
    env = {**os.environ, **operator_env, "SWARMGYM_HOME": str(home)}
    env.pop("GOOSE_PATH_ROOT", None)
    res = subprocess.run([sys.executable, "-m", "swarmgym", "bench", "--tier", "light", "--variant", "mlx",
                          "--swarm", "goose"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900,
                         check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    seen = [json.loads(p.read_text()) for p in sorted((home / "apps").rglob("seen.json"), key=os.path.getmtime)]
    assert len(seen) == 3
    roots = {s["root"] for s in seen}
    assert len(roots) == 3  # a root of its own per job
    for s in seen:
        assert s["planted"] == [], s  # nothing an earlier job planted
        assert s["config"] == ["config.yaml", "swarm-pool.json"] and s["config_yaml"].startswith("GOOSE_PROVIDER: lmstudio")
        assert s["tried"][str(pristine)].startswith("blocked") and s["tried"][str(xdg / "config" / "goose")].startswith("blocked")
    assert tree_digest(pristine) == before and not (xdg / "data").exists()
    records = [json.loads(x) for x in (home / "ledger" / "sessions.jsonl").read_text().splitlines()]
    hashes = {r["provenance"]["goose_config_hash"] for r in records if r.get("kind") == "session"}
    assert hashes == {config_hash(operator_env)} and None not in hashes
    for root in roots:  # the config copy (goose's secrets may be in it) does not outlive its run
        assert not (Path(root) / "config").exists()
