"""Container entrypoint of the abw GitHub Action; all the work is in :mod:`abw.github`."""

import sys

from abw.github.main import main

if __name__ == "__main__":
    sys.exit(main())
