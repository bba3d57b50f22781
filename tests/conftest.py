"""Session-wide test hygiene: goose's XDG folders point into a private temp dir, so no test reads or
writes the real user's ~/.config/goose, ~/.local/share/goose or ~/.local/state/goose (the simulator
and the reader resolve them like goose does: swarmgym.goose_paths)."""
from __future__ import annotations

import os
import tempfile

_XDG = tempfile.mkdtemp(prefix="swarmgym-tests-xdg-")
for _var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_var] = os.path.join(_XDG, _var.split("_")[1].lower())

# tests/fixtures holds apps under test (with their own tests), not swarmgym's tests
collect_ignore_glob = ["fixtures/*"]
