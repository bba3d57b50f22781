"""Package layout that pyproject.toml alone cannot express (metadata and data globs live there).

``workers/`` and ``suites/`` keep their top-level folders in the repo but install as ``swarmgym.workers``
and ``swarmgym.suites``, so a wheel carries the suites and puts no top-level ``workers`` module into
site-packages.  New ``swarmgym.*`` subpackages are found automatically.
"""
from setuptools import find_packages, setup

MAPPED = {"swarmgym.workers": "workers", "swarmgym.suites": "suites"}

setup(packages=find_packages(include=["swarmgym", "swarmgym.*"]) + list(MAPPED), package_dir=MAPPED)
