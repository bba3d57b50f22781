"""What do the swarm box's own network and disk cost?  Three measurements, side by side in one run.

1. **Box start**: ``bwrap … true`` for the check policy with and without ``--unshare-net`` (what the
   network namespace adds), interleaved; and a whole swarm box run of ``true`` (its init, the forwarder
   with one endpoint, a disk per writable folder copied out at the end) for scale.
2. **A streamed completion**: a client asks the loopback model server
   (:class:`~swarmgym.testing.modelserver.ModelServer`, LM Studio's streamed chat API, in a process of its
   own) directly from the host, and from inside a swarm box through the forwarder (box listener → Unix socket → forwarder →
   server); rounds interleaved.  The client times itself (its interpreter's start is not counted): the
   first token after the request on a new connection and on a kept-alive one (p50/p90), and the
   throughput of a long stream sent as fast as the server can (tokens/s, MB/s) and of one paced like a
   fast local model (1 ms per token).
3. **A check**: ``true`` and the command checks of a bench-v1 spec against its reference app, plain
   ``bash -c`` vs ``run_sandboxed`` in the bwrap check box, interleaved.

Goals (issue #31): ≤ 5 ms added to box start by the network namespace, ≤ 1 ms p50 added to the first
token, ≥ 95 % of direct throughput, a boxed check ≤ 1.2× plain.

    python benchmarks/forwarder.py [--reps 20] [--rounds 5] [--first 40] [--tokens 20000] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from swarmgym.adapters.runner import run_process  # noqa: E402
from swarmgym.config import load_config  # noqa: E402
from swarmgym.isolation import check_policy, resolve, swarm_policy  # noqa: E402
from swarmgym.isolation.bwrap import BwrapBackend  # noqa: E402
from swarmgym.isolation.endpoints import parse_endpoint, plan_routes  # noqa: E402
from swarmgym.isolation.sandbox import Limits, run_sandboxed, scrubbed_env  # noqa: E402
from swarmgym.suitekit.suite import load_suite, materialize  # noqa: E402
from swarmgym.testing.modelserver import ModelServer  # noqa: E402

CLIENT = r'''
import http.client, json, sys, time
port, first_n, tokens, paced_tokens = (int(x) for x in sys.argv[1:5])
body = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]})

def stream(conn, want=None):
    t0 = time.perf_counter()
    conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
    resp = conn.getresponse()
    first, n, size = None, 0, 0
    for raw in iter(resp.readline, b""):
        size += len(raw)
        if raw.startswith(b"data: {"):
            if first is None:
                first = time.perf_counter() - t0
            n += 1
        elif raw.startswith(b"data: [DONE]"):
            break
    resp.read()
    return first, n, size, time.perf_counter() - t0

out = {"new": [], "kept": []}
for _ in range(first_n):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    out["new"].append(stream(c)[0])
    c.close()
c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
stream(c)
for _ in range(first_n):
    out["kept"].append(stream(c)[0])
c.close()
'''


def client_source(bulk: bool) -> str:
    """The client: first tokens only, or one long stream (its size: the server's)."""
    if not bulk:
        return CLIENT + "print(json.dumps(out))\n"
    return CLIENT.split("out = {")[0] + (
        'c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)\n'
        "first, n, size, wall = stream(c)\n"
        'print(json.dumps({"tokens": n, "bytes": size, "secs": wall}))\n')


def run_client(where: str, source: str, args: list[str], policy_for, cfg) -> dict:
    argv = [sys.executable, "-c", source, *args]
    if where == "direct":
        res = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=600)
        return json.loads(res.stdout)
    policy, ws = policy_for()
    res = run_process(argv, ws, scrubbed_env(), 600, policy=policy, backend="bwrap")
    if res.exit_code != 0:
        raise SystemExit(f"the boxed client failed: {res.stderr_tail[-2000:]}")
    return json.loads(res.stdout)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Served:
    """A :class:`ModelServer` in a process of its own (as LM Studio is): the forwarder's threads, in this
    process, never share an interpreter lock with it."""

    def __init__(self, tokens: int, interval: float = 0.0, token: str = "token ") -> None:
        code = ("import sys, time\nfrom swarmgym.testing.modelserver import ModelServer\n"
                f"s = ModelServer([{token!r}] * {tokens}, interval={interval})\nprint(s.port, flush=True)\n"
                "sys.stdin.read()\n")
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=str(Path(__file__).resolve().parent.parent))
        self.port = int((self.proc.stdout.readline() if self.proc.stdout else "0").strip())

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def per_stream(args, console: Console) -> dict:
    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-fwd-"))
    cfg = load_config(home, environ={}, overrides={"sandbox.backend": "bwrap"})
    out: dict = {}
    with Served(8, token="tok ") as quick, Served(args.tokens) as bulk, Served(args.paced, interval=0.001) as paced:
        def policy_for(server: Served):
            def make():
                ws = home / "apps" / "bench" / f"ws-{time.monotonic_ns()}"
                ws.mkdir(parents=True)
                routes = plan_routes([parse_endpoint(f"http://127.0.0.1:{server.port}")])
                return swarm_policy(cfg, ws, adapter="command", routes=routes), ws
            return make

        first: dict[str, dict[str, list[float]]] = {w: {"new": [], "kept": []} for w in ("direct", "forwarder")}
        rate: dict[str, dict[str, list[float]]] = {w: {"bulk": [], "bulk_mb": [], "paced": []}
                                                   for w in ("direct", "forwarder")}
        for _ in range(args.rounds):
            for where in ("direct", "forwarder"):
                got = run_client(where, client_source(False), [str(quick.port), str(args.first), "8", "0"],
                                 policy_for(quick), cfg)
                for k in ("new", "kept"):
                    first[where][k] += [x * 1000 for x in got[k]]
                b = run_client(where, client_source(True), [str(bulk.port), "0", "0", "0"], policy_for(bulk), cfg)
                rate[where]["bulk"].append(b["tokens"] / b["secs"])
                rate[where]["bulk_mb"].append(b["bytes"] / b["secs"] / 1e6)
                p = run_client(where, client_source(True), [str(paced.port), "0", "0", "0"], policy_for(paced), cfg)
                rate[where]["paced"].append(p["tokens"] / p["secs"])
    table = Table(title=f"a streamed completion, direct vs through the forwarder: {args.rounds} rounds, "
                        f"{args.first} first tokens per round and connection kind")
    for col in ("", "direct", "forwarder", "added / ratio"):
        table.add_column(col, justify="left" if not col else "right")
    for kind in ("new", "kept"):
        d, f = first["direct"][kind], first["forwarder"][kind]
        for q, name in ((0.5, "p50"), (0.9, "p90")):
            table.add_row(f"first token, {kind} connection, {name} ms", f"{pct(d, q):.3f}", f"{pct(f, q):.3f}",
                          f"{pct(f, q) - pct(d, q):+.3f} ms")
            out[f"first_{kind}_{name}_ms"] = {"direct": round(pct(d, q), 3), "forwarder": round(pct(f, q), 3)}
    for kind, label in (("bulk", f"{args.tokens} tokens as fast as sent, tokens/s"),
                        ("bulk_mb", "the same, MB/s"), ("paced", f"{args.paced} tokens at 1 ms each, tokens/s")):
        d, f = statistics.median(rate["direct"][kind]), statistics.median(rate["forwarder"][kind])
        table.add_row(label, f"{d:,.1f}", f"{f:,.1f}", f"{f / d:.3f}×")
        out[f"throughput_{kind}"] = {"direct": round(d, 2), "forwarder": round(f, 2), "ratio": round(f / d, 4)}
    console.print(table)
    return out


def per_box_start(args, console: Console) -> dict:
    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-netns-"))
    cfg = load_config(home, environ={})
    ws = home / "ws"
    ws.mkdir()
    policy = check_policy(cfg, ws)
    from dataclasses import replace

    modes = {"bwrap true, own network namespace": BwrapBackend().wrap(["true"], policy),
             "bwrap true, host network": BwrapBackend().wrap(["true"], replace(policy, network=True))}
    runs: dict[str, list[float]] = {m: [] for m in modes}
    swarm: list[float] = []
    scfg = load_config(home, environ={}, overrides={"sandbox.backend": "bwrap"})
    with ModelServer() as server:
        routes = plan_routes([parse_endpoint(f"http://127.0.0.1:{server.port}")])
        for _ in range(args.reps):
            for m, argv in modes.items():
                start = time.perf_counter()
                subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
                runs[m].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            run_process(["true"], ws, scrubbed_env(), 60, policy=swarm_policy(scfg, ws, adapter="command", routes=routes),
                        backend="bwrap")
            swarm.append((time.perf_counter() - start) * 1000)
    table = Table(title=f"box start: {args.reps} runs each, interleaved")
    for col in ("what", "median ms", "mean ms"):
        table.add_column(col, justify="left" if col == "what" else "right")
    for m, v in [*runs.items(), ("whole swarm box run of true (init, forwarder, disks, copy-out)", swarm)]:
        table.add_row(m, f"{statistics.median(v):.2f}", f"{statistics.mean(v):.2f}")
    own, host = (statistics.median(v) for v in runs.values())
    paired = statistics.median(a - b for a, b in zip(*runs.values()))  # each pair ran back to back: drift cancels
    table.add_section()
    table.add_row("added by the network namespace (median of paired differences)", f"{paired:+.2f}", "")
    console.print(table)
    return {"box_start_ms": {"netns": round(own, 2), "host_network": round(host, 2), "added": round(paired, 2),
                             "swarm_box_run": round(statistics.median(swarm), 2)}}


def per_check(args, console: Console) -> dict:
    home = Path(tempfile.mkdtemp(prefix="swarmgym-bench-check-"))
    cfg = load_config(home, environ={})
    suite = load_suite("bench-v1", cfg.suites_dir)
    spec = suite.spec(args.spec)
    commands = [("true", "true")] + [(c.name, c.run) for c in spec.checks_for(hard=True)
                                     if c.kind == "command_succeeds" and not c.name.startswith("tests_")]
    ws = materialize(suite, spec, home / "apps" / spec.app_slug / "bench")
    limits = Limits.from_config(cfg.checks)
    env = {**scrubbed_env(), **cfg.checks.env}
    runs: dict[str, list[float]] = {"plain": [], "bwrap": []}
    for _ in range(args.reps):
        for _name, command in commands:
            start = time.perf_counter()
            subprocess.run(["bash", "-c", command], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            runs["plain"].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            run_sandboxed(command, ws, timeout=cfg.checks.timeout, limits=limits, policy=check_policy(cfg, ws, limits),
                          backend="bwrap", env_extra=cfg.checks.env)
            runs["bwrap"].append((time.perf_counter() - start) * 1000)
    p, b = statistics.mean(runs["plain"]), statistics.mean(runs["bwrap"])
    table = Table(title=f"a check, plain vs its bwrap box: {args.reps} rounds of {len(commands)} commands "
                        f"(spec {spec.id}, reference app)")
    for col in ("", "plain ms", "bwrap ms", "added ms", "bwrap × plain"):
        table.add_column(col, justify="left" if not col else "right")
    table.add_row("mean per check", f"{p:.1f}", f"{b:.1f}", f"{b - p:+.1f}", f"{b / p:.2f}")
    console.print(table)
    return {"check_ms": {"plain": round(p, 2), "bwrap": round(b, 2), "ratio": round(b / p, 3)}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=20, help="box starts and check rounds")
    ap.add_argument("--rounds", type=int, default=5, help="stream rounds (direct and forwarder interleaved)")
    ap.add_argument("--first", type=int, default=40, help="first-token requests per round and connection kind")
    ap.add_argument("--tokens", type=int, default=20000, help="tokens of the unpaced stream")
    ap.add_argument("--paced", type=int, default=500, help="tokens of the 1 ms-per-token stream")
    ap.add_argument("--spec", default="compute", help="the bench-v1 spec whose checks are timed")
    ap.add_argument("--json", action="store_true", help="print the numbers as one JSON object at the end")
    args = ap.parse_args()
    console = Console()
    resolve("bwrap")  # one line if bubblewrap cannot box here
    out = {**per_box_start(args, console), **per_stream(args, console), **per_check(args, console)}
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
