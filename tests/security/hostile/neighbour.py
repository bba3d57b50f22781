"""A hostile swarm beside another: it tries to meet the other job, reach the broker and the LAN, call its model,
and (run as goose) loot its box for the operator's goose secrets.

    python3 neighbour.py TARGETS.json              # as a command swarm
    goose swarm run PROMPT --output-format json    # as a stand-in goose: this text with TARGETS = {…} first

Two jobs running it at once (``--parallel 2``, or two fleet hosts) meet wherever they share a namespace:
each binds a rendezvous (an abstract Unix socket, a loopback TCP port, a loopback UDP port); the second to
come finds it taken and connects — so on a shared network one of them reports ``met`` on every channel.
Each holds what it bound until both jobs are running with theirs bound: they say so at a barrier of their
model server (``…/barrier``, the one place both boxes reach), so two jobs overlap for as long as they need
to, not for a fixed wait (``wait``, seconds, only bounds it: a job whose peer never comes gives up then;
a job coming after the first two passes the barrier at once).
It never raises: ``neighbour.json`` in the workspace says what got through (``met``/``reached`` or
``alone``/``blocked: …``), when it ran, what the model endpoint answered, how many jobs had reached the
barrier when it let go (``arrived``), and ``loot.txt`` holds every
secret-looking thing it could read.
"""
import json
import os
import socket
import sys
import threading
import time
import urllib.request

FAMILY = {"abstract": (socket.AF_UNIX, socket.SOCK_STREAM), "tcp": (socket.AF_INET, socket.SOCK_STREAM),
          "udp": (socket.AF_INET, socket.SOCK_DGRAM)}


def claim(kind, addr):
    """Bind ``addr``: the bound socket, or None when the other job holds it (on a shared network)."""
    s = socket.socket(*FAMILY[kind])
    try:
        s.bind(addr)
        return s
    except OSError:
        s.close()
        return None


def hold(s, kind, stop, deadline):
    """Wait on the bound ``s`` for the other job to come, until both jobs are running (``stop``) or ``deadline``."""
    s.settimeout(0.2)
    if kind != "udp":
        s.listen(1)
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            if kind == "udp":
                _, peer = s.recvfrom(64)
                s.sendto(b"hi", peer)
            else:
                c, _ = s.accept()
                c.settimeout(5)
                c.recv(64)
                c.sendall(b"hi")
            return "met (accepted)"
        except socket.timeout:
            continue
        except OSError as e:
            return f"alone: nobody came ({type(e).__name__})"
    return "alone: nobody came"


def visit(kind, addr, wait):
    """``addr`` is taken: the other job holds it, go and meet it."""
    try:
        c = socket.socket(*FAMILY[kind])
        c.settimeout(wait)
        if kind == "udp":
            c.sendto(b"hello", addr)
            c.recvfrom(64)
        else:
            c.connect(addr)
            c.sendall(b"hello")
            c.recv(64)
        return "met (connected)"
    except OSError as e:
        return f"alone: bound elsewhere, could not connect ({type(e).__name__})"


def both_running(url, name, deadline):
    """Wait at the model server's barrier until the other job has got this far too (the model endpoint is the
    one thing both boxes reach); if it cannot answer, hold on until ``deadline``."""
    try:
        req = urllib.request.Request(url.rstrip("/") + "/v1/barrier", method="POST",
                                     data=json.dumps({"name": name, "parties": 2,
                                                      "timeout": deadline - time.monotonic()}).encode(),
                                     headers={"content-type": "application/json"})
        return json.loads(urllib.request.urlopen(req, timeout=deadline - time.monotonic() + 5).read())["arrived"]
    except (OSError, ValueError, KeyError):
        time.sleep(max(0.0, deadline - time.monotonic()))
        return None


def reach(host, port, payload=b"PING\r\n"):
    try:
        s = socket.create_connection((host, port), timeout=2)
        s.sendall(payload)
        return "reached: " + s.recv(64).decode("utf-8", "replace").strip()
    except OSError as e:
        return f"blocked: {type(e).__name__}"


def call_model(url, key_hint):
    try:
        req = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", method="POST",
                                     data=json.dumps({"model": "qwen3", "messages": [{"role": "user", "content": "hi"}]}).encode(),
                                     headers={"content-type": "application/json", **key_hint})
        return urllib.request.urlopen(req, timeout=10).read().decode()[:200]
    except OSError as e:
        return f"failed: {e}"


def loot(roots, skip):
    """Every text it can read under ``roots`` (skipping ``skip``), its environment and other processes'."""
    out = [json.dumps(dict(os.environ))]
    for pid in os.listdir("/proc"):
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{name}", "rb") as f:
                    out.append(f.read().decode("utf-8", "replace"))
            except OSError:
                continue
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skip]
            for name in files:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        out.append(f.read(1 << 20).decode("utf-8", "replace"))
                except OSError:
                    continue
    return "\n".join(out)


def pool_endpoint():
    import yaml

    path = os.path.join(os.environ.get("GOOSE_PATH_ROOT", "/nonexistent"), "config", "config.yaml")
    try:
        with open(path) as f:
            return ((yaml.safe_load(f) or {}).get("swarm") or {}).get("endpoint") or "http://localhost:1234"
    except OSError:
        return "http://localhost:1234"


def main(argv):
    as_goose = argv[:2] == ["swarm", "run"]
    if as_goose:  # only the binary itself is in goose's box
        t = globals()["TARGETS"]
    else:
        with open(argv[0]) as f:
            t = json.load(f)
    report = {"started": time.time(), "as": "goose" if as_goose else "command"}
    results = {}
    channels = {"abstract": "\0swarmgym-meet-" + t["token"], "tcp": ("127.0.0.1", t["tcp_port"]),
                "udp": ("127.0.0.1", t["udp_port"])}
    deadline = time.monotonic() + t["wait"]
    stop = threading.Event()
    held, visits = [], []
    for k, a in channels.items():  # bound before this job says it is running: the other one finds them taken
        s = claim(k, a)
        if s is None:
            visits.append(threading.Thread(target=lambda k=k, a=a: results.__setitem__(k, visit(k, a, t["wait"]))))
        else:
            held.append(threading.Thread(target=lambda k=k, s=s: results.__setitem__(k, hold(s, k, stop, deadline))))
    for th in held + visits:
        th.start()
    report["broker"] = reach("127.0.0.1", t["broker_port"])
    report["lan"] = reach(t["lan"][0], t["lan"][1], b"hello") if t.get("lan") else "blocked: no LAN address"
    model = pool_endpoint() if as_goose else t["model"]
    report["model"] = call_model(model, {})
    for th in visits:  # met the other job (or could not) before letting it go
        th.join()
    report["arrived"] = both_running(model, "neighbour-" + t["token"], deadline)
    stop.set()
    for th in held:
        th.join()
    report.update(results)
    report["ended"] = time.time()
    if t.get("loot"):  # only ever inside a box: unboxed this would read the host's whole disk
        with open("loot.txt", "w") as f:
            f.write(loot(["/"], {"/proc", "/sys", "/dev", "/usr", *t.get("skip", [])}))
    with open("neighbour.json", "w") as f:
        json.dump(report, f)
    if as_goose:  # goose's contract: a RunReport on stdout
        print(json.dumps({"done": [], "failed": [], "tasks": []}))


if __name__ == "__main__":
    main(sys.argv[1:])
