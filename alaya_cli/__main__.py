"""``python -m alaya_cli``: the ``alaya`` command, for a Python without the ``alaya`` script on its PATH."""

from .main import main

main()
