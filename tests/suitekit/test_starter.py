"""A spec's starter files: a continue-existing spec's workspace starts with a given app.

``starter: apps/<slug>/starter`` on a spec names a folder the job copies into the workspace before
the swarm runs; its content is part of the suite hash (only when set, so older suites keep theirs).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from swarmgym.campaigns.job import run_job
from swarmgym.campaigns.plan import plan_jobs
from swarmgym.config import load_config
from swarmgym.core.errors import SuiteError
from swarmgym.suitekit.suite import load_suite, materialize

# A stand-in swarm (the command adapter): it records what the workspace held when it started,
# then adds one file, as a swarm that extends the app would.
LISTER = """import json, os, sys
seen = sorted(os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk('.') for f in fs)
open('seen-at-start.json', 'w').write(json.dumps(seen))
open('todo/extra.py', 'w').write('TAGS = True\\n')
print(json.dumps({'done': ['t1'], 'tasks': [{'task_id': 't1', 'status': 'done'}]}))
"""


def _suite(root: Path, starter: str | None = "apps/todo/starter") -> Path:
    folder = root / "starty-v1"
    app = folder / "apps" / "todo"
    (app / "starter" / "todo").mkdir(parents=True)
    (app / "starter" / "todo" / "__init__.py").write_text("")
    (app / "starter" / "todo" / "__main__.py").write_text("print('todo 1.0')\n")
    (app / "starter" / "README.md").write_text("# todo\n")
    (app / "reference" / "todo").mkdir(parents=True)
    (app / "reference" / "todo" / "__init__.py").write_text("")
    (app / "reference" / "todo" / "__main__.py").write_text("print('todo 2.0')\n")
    (app / "reference" / "todo" / "extra.py").write_text("TAGS = True\n")
    (app / "reference" / "README.md").write_text("# todo\n")
    spec = {"id": "extend", "app_slug": "todo", "prompt": "extend todo", "hard_prompt": "extend todo more",
            "checks": [{"name": "kept_readme", "kind": "file_exists", "path": "README.md"},
                       {"name": "added_extra", "kind": "file_exists", "path": "todo/extra.py"}]}
    if starter is not None:
        spec["starter"] = starter
    (folder / "suite.yaml").write_text(yaml.safe_dump({"name": "starty-v1", "specs": [spec]}))
    return folder


def test_a_job_of_a_spec_with_a_starter_sees_the_starter_files_before_the_swarm_starts(tmp_path):
    _suite(tmp_path / "suites")
    script = tmp_path / "lister.py"
    script.write_text(LISTER)
    cfg = load_config(tmp_path / "home", environ={}, overrides={
        "suites_dir": str(tmp_path / "suites"), "swarm.command": [sys.executable, str(script), "{prompt}"],
        "swarm.timeout": 60})
    suite = load_suite("starty-v1", cfg.suites_dir)
    job = plan_jobs(suite, "smoke", "mlx", swarm="command", campaign_id="c1")[0]
    res = run_job(job, cfg)
    assert res.status == "done", res.error
    ws = cfg.apps_dir / "todo" / res.session_id
    assert json.loads((ws / "seen-at-start.json").read_text()) == ["README.md", "todo/__init__.py", "todo/__main__.py"]
    assert (ws / "todo" / "__main__.py").read_text() == "print('todo 1.0')\n"  # the swarm did not touch it
    assert res.verdict.functional  # the starter's README and the swarm's extra file are both graded
    doc = json.loads((cfg.runs_dir / res.session_id / "session.json").read_text())
    assert doc["data"]["starter_files"] == 3


def test_a_spec_without_a_starter_starts_from_an_empty_workspace(tmp_path):
    _suite(tmp_path / "suites", starter=None)
    script = tmp_path / "lister.py"
    script.write_text(LISTER.replace("open('todo/extra.py', 'w').write('TAGS = True\\n')\n", ""))
    cfg = load_config(tmp_path / "home", environ={}, overrides={
        "suites_dir": str(tmp_path / "suites"), "swarm.command": [sys.executable, str(script), "{prompt}"],
        "swarm.timeout": 60})
    res = run_job(plan_jobs(load_suite("starty-v1", cfg.suites_dir), "smoke", "mlx", swarm="command")[0], cfg)
    assert json.loads((cfg.apps_dir / "todo" / res.session_id / "seen-at-start.json").read_text()) == []
    assert res.verdict.functional is False


def test_the_suite_hash_changes_when_a_starter_file_changes_is_added_or_removed(tmp_path):
    folder = _suite(tmp_path)
    before = load_suite(folder).hash
    main = folder / "apps" / "todo" / "starter" / "todo" / "__main__.py"
    main.write_text("print('todo 1.1')\n")
    changed = load_suite(folder).hash
    (folder / "apps" / "todo" / "starter" / "NOTES.md").write_text("new\n")
    added = load_suite(folder).hash
    (folder / "apps" / "todo" / "starter" / "NOTES.md").unlink()
    main.write_text("print('todo 1.0')\n")
    assert len({before, changed, added}) == 3 and load_suite(folder).hash == before
    (folder / "apps" / "todo" / "starter" / "todo" / "__pycache__").mkdir()  # caches are not content
    (folder / "apps" / "todo" / "starter" / "todo" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert load_suite(folder).hash == before


def test_a_spec_without_a_starter_hashes_as_before_the_field_existed(tmp_path):
    with_none = load_suite(_suite(tmp_path / "a", starter=None)).hash
    assert with_none != load_suite(_suite(tmp_path / "b")).hash
    text = (tmp_path / "a" / "starty-v1" / "suite.yaml").read_text()
    assert "starter" not in text
    (tmp_path / "a" / "starty-v1" / "suite.yaml").write_text(text.replace("id: extend", "id: extend\n  starter: null"))
    assert load_suite(tmp_path / "a" / "starty-v1").hash == with_none


def test_a_missing_starter_folder_is_a_one_line_load_error_naming_the_file_and_key(tmp_path):
    folder = _suite(tmp_path, starter="apps/todo/nope")
    with pytest.raises(SuiteError, match=r"suite.yaml: spec extend: starter: no such folder 'apps/todo/nope'") as e:
        load_suite(folder)
    assert "\n" not in str(e.value)


def test_materialize_still_writes_the_full_reference_not_the_starter(tmp_path):
    suite = load_suite(_suite(tmp_path))
    ws = materialize(suite, suite.spec("extend"), tmp_path / "ws")
    assert (ws / "todo" / "__main__.py").read_text() == "print('todo 2.0')\n" and (ws / "todo" / "extra.py").is_file()
