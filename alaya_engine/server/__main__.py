"""``python -m alaya_engine.server --home PATH``: what ``alaya serve`` and autostart run."""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import AlayaError
from ..paths import resolve_home
from .service import OwnerServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="alaya serve")
    parser.add_argument("--home")
    arguments = parser.parse_args(argv)
    try:
        return OwnerServer(resolve_home(arguments.home)).run()
    except AlayaError as error:
        logging.getLogger("alaya_engine.server").error("cannot serve: %s", error.message)
        print(f"error: {error.message}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    sys.exit(main())
