"""Shell interface: python -m tests.env {up,down,status,emulator,faults} (see tests/env/README.md)."""
from .cli import main

raise SystemExit(main())
