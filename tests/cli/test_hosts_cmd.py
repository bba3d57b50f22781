"""``swarmgym hosts key …``: a host's signing key and the coordinator's keyring, as an operator uses them."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

ENV = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}


def run(tmp_path, *args, **env):
    home, user = tmp_path / "home", tmp_path / "user"
    home.mkdir(exist_ok=True)
    user.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(home), *args], capture_output=True,
                          text=True, timeout=120, env={**ENV, "HOME": str(user), "XDG_CONFIG_HOME": "", **env})


def test_a_new_key_is_private_and_the_coordinator_trusts_it_by_fingerprint(tmp_path):
    r = run(tmp_path, "hosts", "key", "new", "studio")
    assert r.returncode == 0, r.stderr
    key = tmp_path / "user" / ".config" / "swarmgym" / "host.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert "swarmgym hosts key add studio FILE" in r.stdout
    fp = r.stdout.split("(")[1].split(")")[0]
    assert run(tmp_path, "hosts", "key", "add", "studio", str(key)).returncode == 0
    ring = tmp_path / "user" / ".config" / "swarmgym" / "keyring"
    assert stat.S_IMODE(ring.stat().st_mode) == 0o600
    listed = json.loads(run(tmp_path, "hosts", "key", "list", "--json").stdout)
    assert listed == {"studio": fp} and key.read_text().split()[-1] not in json.dumps(listed)
    assert run(tmp_path, "hosts", "key", "remove", "studio").returncode == 0
    assert json.loads(run(tmp_path, "hosts", "key", "list", "--json").stdout) == {}


def test_bad_key_files_are_one_line_errors(tmp_path):
    assert run(tmp_path, "hosts", "key", "new", "studio").returncode == 0
    again = run(tmp_path, "hosts", "key", "new", "studio")
    assert again.returncode == 2 and "--force" in again.stderr and "Traceback" not in again.stderr
    key = tmp_path / "user" / ".config" / "swarmgym" / "host.key"
    key.chmod(0o644)
    loose = run(tmp_path, "hosts", "key", "add", "studio", str(key))
    assert loose.returncode == 2 and "mode 0644, expected 0600" in loose.stderr and len(loose.stderr.splitlines()) == 1
    inside = run(tmp_path, "hosts", "key", "new", "x", SWARMGYM_QUEUE_HOST_KEY_FILE=str(tmp_path / "home" / "k"))
    assert inside.returncode == 2 and "may not live in the swarmgym home" in inside.stderr
    gone = run(tmp_path, "hosts", "key", "remove", "nobody")
    assert gone.returncode == 2 and "no keyring" in gone.stderr  # nothing trusted yet: one line, not a traceback


def test_a_host_worker_without_its_key_and_a_coordinator_without_a_keyring_refuse_to_start(tmp_path):
    host = run(tmp_path, "worker", "--variant", "mlx", "--host", "h1")
    assert host.returncode == 2 and "no host key" in host.stderr and "swarmgym hosts key new" in host.stderr
    coord = run(tmp_path, "worker", "--coordinator")
    assert coord.returncode == 2 and "no keyring" in coord.stderr and "Traceback" not in coord.stderr


def test_a_key_file_in_a_folder_a_box_reads_is_refused(tmp_path):
    """``/usr/local/etc`` (under ``/usr``, bound into every box), the checks' Python and
    ``sandbox.read_only`` are readable from a box running as the same user: a key there is refused,
    for ``hosts key new`` as for a worker."""
    import sys

    ro = tmp_path / "shared-data"
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / "config.yaml").write_text(f"sandbox:\n  read_only: ['{ro}']\n")
    for place in ("/usr/local/etc/swarmgym/host.key", f"{sys.prefix}/host.key", f"{ro}/host.key"):
        res = run(tmp_path, "hosts", "key", "new", "x", SWARMGYM_QUEUE_HOST_KEY_FILE=place)
        assert res.returncode == 2 and "a key file may not live in" in res.stderr, (place, res.stderr)
        assert not Path(place).exists()
    ring = run(tmp_path, "worker", "--coordinator", SWARMGYM_QUEUE_KEYRING_FILE="/usr/local/etc/swarmgym/keyring")
    assert ring.returncode == 2 and "a key file may not live in" in ring.stderr, ring.stderr
