"""Reference dsh-schedule plugin: a pure core plus a thin runtime."""
