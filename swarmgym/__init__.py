"""swarmgym: benchmark coding swarms by running what they built."""
from pathlib import Path

__version__ = "0.1.0"
#: The folder that holds the package: a source checkout's root (site-packages in an installed wheel).
REPO_ROOT = Path(__file__).resolve().parent.parent
