"""The `grailwar` command: the outermost layer, wiring engine, server and client."""
