"""The swarm's box reaches its model endpoints through the forwarder — streamed token by token, the key added
on the host — and nothing else: not another service, not the LAN, not an abstract socket of the host.

The model server (:class:`~swarmgym.testing.modelserver.ModelServer`, ``gated``) sends each token only
after the client acknowledged the one before: a forwarder that held the stream back would stall it.
"""
from __future__ import annotations

import json
import subprocess
import sys

from swarmgym.isolation.endpoints import parse_endpoint
from swarmgym.testing.modelserver import ModelServer
from tests.support.boxrun import run_swarm_script
from tests.support.hostile import require_bwrap
from tests.support.hostnet import HostServices, lan_address

OPENAI_CLIENT = '''import http.client, json, os
conn = http.client.HTTPConnection("127.0.0.1", {port}, timeout=30)
conn.request("POST", "/v1/chat/completions", body=json.dumps({{"model": "qwen3", "stream": True,
             "messages": [{{"role": "user", "content": "plan"}}]}}), headers={{"content-type": "application/json"}})
resp = conn.getresponse()
tokens = []
for raw in iter(resp.readline, b""):
    line = raw.strip()
    if line.startswith(b"data:") and line != b"data: [DONE]":
        delta = json.loads(line[5:])["choices"][0]["delta"]
        if delta.get("content"):
            tokens.append(delta["content"])
            ack = http.client.HTTPConnection("127.0.0.1", {port}, timeout=30)
            ack.request("POST", "/ack", body=b"{{}}")
            ack.getresponse().read()
json.dump({{"tokens": tokens, "keys": sorted(k for k in os.environ if "KEY" in k)}}, open("stream.json", "w"))
'''

ANTHROPIC_CLIENT = '''import json, os, anthropic, httpx
client = anthropic.Anthropic(api_key="not-the-key", base_url="http://127.0.0.1:{port}", max_retries=0)
tokens = []
with client.messages.stream(model="claude-sonnet-5-5", max_tokens=64,
                            messages=[{{"role": "user", "content": "hi"}}]) as stream:
    for text in stream.text_stream:
        tokens.append(text)
        httpx.post("http://127.0.0.1:{port}/ack")
json.dump({{"tokens": tokens, "keys": sorted(k for k in os.environ if "KEY" in k)}}, open("stream.json", "w"))
'''


def test_an_openai_style_stream_flows_token_by_token_and_the_key_is_added_on_the_host(tmp_path):
    require_bwrap()
    with ModelServer(gated=True) as server:
        ep = parse_endpoint({"url": server.url, "key_env": "LMSTUDIO_API_KEY"})
        res, ws = run_swarm_script(tmp_path, OPENAI_CLIENT.format(port=server.port), endpoints=[ep],
                                   keys={"LMSTUDIO_API_KEY": "lm-host-secret"})
        assert res.exit_code == 0, res.stderr_tail
        assert not server.stalled
        got = json.loads((ws / "stream.json").read_text())
        assert got["tokens"] == server.tokens and got["keys"] == []
        [chat] = [r for r in server.requests if r["path"].endswith("/chat/completions")]
        assert chat["headers"]["authorization"] == "Bearer lm-host-secret"
        assert res.traffic is not None and res.traffic.received > 500 and res.traffic.connections == 1 + len(server.tokens)


def test_the_anthropic_sdk_streams_through_the_forwarder_which_swaps_in_the_hosts_key(tmp_path):
    require_bwrap()
    with ModelServer(gated=True) as server:
        ep = parse_endpoint({"url": server.url, "key_env": "ANTHROPIC_API_KEY", "header": "x-api-key"})
        res, ws = run_swarm_script(tmp_path, ANTHROPIC_CLIENT.format(port=server.port), endpoints=[ep],
                                   keys={"ANTHROPIC_API_KEY": "sk-ant-host-only"})
        assert res.exit_code == 0, res.stderr_tail
        assert not server.stalled
        assert json.loads((ws / "stream.json").read_text())["tokens"] == server.tokens
        [msg] = [r for r in server.requests if r["path"].endswith("/messages")]
        assert msg["headers"]["x-api-key"] == "sk-ant-host-only"


PROBE = '''import json, socket
def attempt(kind, target):
    try:
        if kind == "udp":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(2)
            s.sendto(b"ping", target)
            return "reached: " + s.recv(64).decode()
        if kind == "abstract":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(2)
            s.connect(target)
        else:
            s = socket.create_connection(target, timeout=2)
        return "reached: " + s.recv(64).decode()
    except OSError as e:
        return "blocked: " + type(e).__name__
out = {{"tcp": attempt("tcp", ("127.0.0.1", {tcp})), "udp": attempt("udp", ("127.0.0.1", {udp})),
       "abstract": attempt("abstract", "\\0{abstract}"), "lan": attempt("tcp", ("{lan}", {tcp})),
       "dns": attempt("tcp", ("example.com", 80))}}
import urllib.request
out["model"] = urllib.request.urlopen("http://localhost:{model}/v1/chat/completions",
                                      data=b'{{"model": "m"}}', timeout=10).read().decode()[:60]
json.dump(out, open("probe.json", "w"))
'''


def test_the_box_reaches_its_model_endpoint_and_nothing_else_of_the_host_or_the_lan(tmp_path):
    require_bwrap()
    services = HostServices()
    lan = lan_address() or "192.0.2.1"
    try:
        with ModelServer() as server:
            script = PROBE.format(tcp=services.tcp_port, udp=services.udp_port,
                                  abstract=services.abstract_name, lan=lan, model=server.port)
            res, ws = run_swarm_script(tmp_path, script, endpoints=[parse_endpoint(f"http://localhost:{server.port}")])
            (tmp_path / "host").mkdir()  # the same probe unboxed reaches them all: they are there to be reached
            subprocess.run([sys.executable, "-c", script], cwd=tmp_path / "host", check=True, timeout=60)
        assert res.exit_code == 0, res.stderr_tail
        got = json.loads((ws / "probe.json").read_text())
        assert got.pop("model").startswith('{"id": "chatcmpl-loop"')  # the one endpoint it may reach
        assert all(v.startswith("blocked") for v in got.values()), got
        unboxed = json.loads((tmp_path / "host" / "probe.json").read_text())
        assert [unboxed[k].split(":")[0] for k in ("tcp", "udp", "abstract")] == ["reached"] * 3
        assert unboxed["lan"].startswith("reached") or lan_address() is None
    finally:
        services.close()
