import sys

from orderfsm.cli import main

sys.exit(main())
