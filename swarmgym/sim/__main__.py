"""``python -m swarmgym.sim`` = the ``swarmgym-sim`` executable."""
from swarmgym.sim.cli import main

if __name__ == "__main__":
    main()
