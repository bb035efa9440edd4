"""The arcade desktop client (not built yet)."""
