from __future__ import annotations

from irforge.cli.app import main

main()
