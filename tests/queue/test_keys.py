"""One home per name: every Redis key and Celery task name lives in ``swarmgym/queue/keys.py``.

The Redis key table of docs/redis-keys.md is checked against the keys that module builds (both
ways), and the task names against the tasks the Celery app registers and routes.
"""
from __future__ import annotations

import inspect
import re
from pathlib import Path

from swarmgym.config import load_config
from swarmgym.queue import keys
from swarmgym.queue.app import make_app
from swarmgym.queue.routing import ASK_QUEUE, COORDINATOR_QUEUE, route_task
from tests.support.queue import documented_patterns

REPO = Path(__file__).resolve().parents[2]


def built_patterns() -> set[str]:
    """Every key keys.py builds, as a pattern: constants as they are, builders with ``*`` for each argument."""
    out = set()
    for name, obj in vars(keys).items():
        if name.startswith("_"):
            continue
        if isinstance(obj, str) and obj.startswith(keys.PREFIX) and obj != keys.PREFIX:
            out.add(obj)
        elif inspect.isfunction(obj) and obj.__module__ == keys.__name__:
            out.add(obj(*["*"] * len(inspect.signature(obj).parameters)))
    return out


def test_every_key_keys_builds_has_a_row_in_the_docs_table_and_every_swarmgym_row_a_builder():
    built = built_patterns()
    documented = {p for p in documented_patterns() if p.startswith(keys.PREFIX)}
    assert built - documented == set(), "keys.py builds keys docs/redis-keys.md does not list"
    assert documented - built == set(), "docs/redis-keys.md lists swarmgym: keys keys.py does not build"
    assert len(built) >= 20  # the introspection found the builders, not nothing


def test_a_builder_puts_its_ids_where_the_pattern_has_its_star():
    assert keys.campaign("c1") == "swarmgym:campaign:c1"
    assert keys.campaign_jobs("c1") == "swarmgym:campaign:c1:jobs"
    assert keys.lease("j1") == "swarmgym:lease:j1"
    assert keys.draining("h1", 42) == "swarmgym:draining:h1:42"


def test_no_other_module_spells_a_redis_key_or_a_task_name():
    spelled = re.compile(r"""f?["']swarmgym:(?!\s)|\{PREFIX\}|["']swarmgym\.(run_job|record_job|finalize_campaign|"""
                         r"""reconcile|campaign_alarm|regenerate_reports|scheduled_campaign|open_campaign|mark_campaign)["']""")
    offenders = []
    for root in ("swarmgym", "workers", "benchmarks"):
        for path in sorted((REPO / root).rglob("*.py")):
            if path == REPO / "swarmgym" / "queue" / "keys.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if spelled.search(line):
                    offenders.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert offenders == []


def test_the_app_registers_exactly_the_task_names_of_keys_and_routes_each_to_its_queue(tmp_path):
    app = make_app(load_config(tmp_path))
    app.loader.import_default_modules()
    registered = {n for n in app.tasks if n.startswith("swarmgym.")}
    assert registered == set(keys.TASKS)
    for name in keys.COORDINATOR_TASKS:  # the CLI's questions have a queue of their own on the coordinator
        assert route_task(name, [], {}, {}) == {"queue": ASK_QUEUE if name == keys.ASK else COORDINATOR_QUEUE}
    assert route_task(keys.RUN_JOB, [{"variant": "mlx"}], {}, {}) == {"queue": "variant.mlx"}


def test_the_wire_table_of_architecture_md_lists_exactly_the_task_names_of_keys():
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split("## 14. On-the-wire formats", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `(swarmgym\.[a-z_]+)` \|", section, flags=re.M))
    assert listed == set(keys.TASKS)
