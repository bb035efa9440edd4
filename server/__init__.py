"""The authoritative Twisted server (not built yet)."""
