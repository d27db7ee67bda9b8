"""``python -m lagdyn``: the ``lagdyn`` command line (see :mod:`lagdyn.cli`)."""

import sys

from lagdyn.cli import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
