"""Reference dsh-time-context plugin: a pure core plus a thin runtime.

Two plugin factories: :data:`TIME_CONTEXT_PLUGIN` (``time-context``) and the
invariant companion :data:`TIME_CONTEXT_INVARIANT_PLUGIN`
(``time-context-invariant``).
"""

from __future__ import annotations

from .plugin import TIME_CONTEXT_INVARIANT_PLUGIN, TIME_CONTEXT_PLUGIN

__all__ = ["TIME_CONTEXT_INVARIANT_PLUGIN", "TIME_CONTEXT_PLUGIN"]
