"""``python -m dsh_reference.log_check check PATH...``."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
