from __future__ import annotations

from irforge.cli import main

main()
