"""swarmgym: benchmark coding swarms by running what they built."""
__version__ = "0.1.0"
