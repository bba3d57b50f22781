import pytest

from swarmgym.config import load_config


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path, environ={})
