"""Nothing secret in a process a box could see, and no URL password in anything written."""
from __future__ import annotations

import time

import psutil

from swarmgym.isolation import guard
from swarmgym.isolation.sandbox import run_sandboxed, scrubbed_env
from swarmgym.models import SessionDoc, Turn
from swarmgym.reports.session import write_session


def test_the_orphan_guard_starts_without_any_secret_in_its_environment(monkeypatch):
    monkeypatch.setenv("FLOWER_BASIC_AUTH", "admin:flower-pw-123")
    monkeypatch.setenv("SWARMGYM_BROKER_URL", "redis://:broker-pw-456@127.0.0.1:6379/0")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-789")
    monkeypatch.setenv("UPSTREAM", "https://bob:url-pw-000@example.com/x")
    g = guard.start(psutil.Process().pid)
    assert g is not None
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            env = psutil.Process(g.pid).environ()
            if env:
                break
            time.sleep(0.05)
        blob = "\n".join(f"{k}={v}" for k, v in env.items())
        assert "PATH" in env
        for secret in ("flower-pw-123", "broker-pw-456", "tok-789", "url-pw-000"):
            assert secret not in blob
    finally:
        g.terminate()
        g.wait(5)


#: credentials whose names say neither KEY, TOKEN, SECRET nor PASSWORD (redis-cli, MySQL, a git token URL …)
QUIET_CREDENTIALS = {"REDISCLI_AUTH": "redis-pw-1", "MYSQL_PWD": "mysql-pw-2", "SWARMGYM_DB_PASS": "db-pw-3",
                     "SMTP_PASSWD": "smtp-pw-4", "GOOGLE_APPLICATION_CREDENTIALS": "/k/creds-5.json",
                     "GIT_REMOTE": "https://ghp-tok-6@github.com/org/repo", "NPM_CONFIG__AUTH": "npm-auth-7",
                     "SESSION_COOKIE": "cookie-8", "LAB_PRIVATE_PEM": "pem-9"}


def test_credentials_with_quiet_names_never_reach_a_box(monkeypatch, tmp_path):
    """A check (and the swarm: same ``scrubbed_env``) dumps its whole environment: none of the
    credentials above is there, while the folder variables and a git identity are kept."""
    for k, v in QUIET_CREDENTIALS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "kept-author")
    res = run_sandboxed("env", tmp_path, timeout=20)
    for k, v in QUIET_CREDENTIALS.items():
        assert v not in res.stdout_tail and f"{k}=" not in res.stdout_tail, k
    assert "kept-author" in res.stdout_tail and "PATH=" in res.stdout_tail
    env = scrubbed_env()
    assert "PWD" not in env or env["PWD"] == __import__("os").environ.get("PWD")  # a folder, not a secret


def test_the_password_part_of_any_url_is_redacted_in_session_turn_and_report(tmp_path):
    text = "connect redis://:hunter2-pw@10.0.0.5:6379/0 then https://ci:gh-pass-9@git.example/x"
    doc = SessionDoc(session_id="s1", spec="crud", app_slug="invtrack", variant="mlx", tier="smoke", suite="bench-v1",
                     suite_hash="x", host="h", started=0.0,
                     turns=[Turn(n=1, kind="bench", prompt=text, wall_secs=1.0)], data={"note": text})
    paths = write_session(tmp_path, doc, environ={})
    assert {p.name for p in paths} >= {"session.json", "turn-1.json", "report.html"}
    for p in paths:
        body = p.read_text()
        assert "hunter2-pw" not in body and "gh-pass-9" not in body, p.name
    assert "redis://:[redacted]@10.0.0.5" in (tmp_path / "s1" / "session.json").read_text()
