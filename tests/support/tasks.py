"""The fleet's tasks without worker processes, for the fast tier: take each task message off its Redis
queue as a worker would receive it, and run the real task on it (Celery's eager ``apply``).

- :func:`take` pops the messages waiting in a queue (oldest first) and decodes them (zlib bodies too);
- :func:`run_host` runs every ``swarmgym.run_job`` waiting in a host's queue in a *subprocess* (``python -m
  tests.support.tasks HOME QUEUE HOST``) with that host's signing key (trusted by the home's keyring):
  the host task sweeps every process below its own, which in the test process would include the
  session's redis-server;
- :func:`run_coordinator` runs the coordinator's tasks (``record_job``, ``finalize_campaign``,
  ``regenerate_reports``) in this process until its queue is empty.

The slow tier runs the same tasks in real Celery workers (``tests/queue/test_fleet.py`` and friends).
"""
from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def take(r, queue: str) -> list[tuple[str, list, dict]]:
    """Pop every task message waiting in ``queue``: ``(task name, args, kwargs)``, oldest first."""
    out = []
    while (raw := r.rpop(queue)) is not None:  # kombu LPUSHes and BRPOPs: the right end is the oldest
        msg = json.loads(raw)
        body = base64.b64decode(msg["body"])
        if msg["headers"].get("compression"):
            body = zlib.decompress(body)
        args, kwargs, _embed = json.loads(body)
        out.append((msg["headers"]["task"], args, kwargs))
    return out


def run_host(home: Path, queue: str = "variant.mlx", host: str = "h1", env: dict[str, str] | None = None,
             timeout: float = 120) -> list[dict]:
    """Run every job waiting in ``queue`` with the real host task, as host ``host``, in a subprocess;
    the task's return values (or ``{"raised": "Type: message"}``)."""
    from tests.support.queue import host_key

    full = {**os.environ, "SWARMGYM_QUEUE_HOST_KEY_FILE": str(host_key(home, host)), **(env or {}),
            "SWARMGYM_HOME": str(home), "SWARMGYM_WORKER_HOST": host}
    p = subprocess.run([sys.executable, "-m", "tests.support.tasks", str(home), queue, host], cwd=REPO, env=full,
                       capture_output=True, text=True, timeout=timeout, check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def run_coordinator(app, r, limit: int = 100) -> list[tuple[str, object]]:
    """Run the coordinator's waiting tasks (and those they send) in this process until none is left."""
    app.loader.import_default_modules()  # the task modules a worker imports at start (``include``)
    done: list[tuple[str, object]] = []
    while len(done) < limit and (batch := take(r, "coordinator")):
        for name, args, kwargs in batch:
            res = app.tasks[name].apply(args=args, kwargs=kwargs)
            done.append((name, res.result if res.successful() else f"{type(res.result).__name__}: {res.result}"))
    return done


def _host_main(home: str, queue: str, host: str) -> None:
    from swarmgym.config import load_config
    from swarmgym.queue.app import make_app
    from swarmgym.queue.redis_util import for_config

    cfg = load_config(Path(home))
    app, r = make_app(cfg), for_config(cfg)
    app.loader.import_default_modules()
    out: list[dict] = []
    for name, args, kwargs in take(r, queue):
        res = app.tasks[name].apply(args=args, kwargs=kwargs)
        out.append(res.result if res.successful() else {"raised": f"{type(res.result).__name__}: {res.result}"})
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    _host_main(*sys.argv[1:4])
