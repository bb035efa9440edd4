"""Rules as data: servant and master sheets, tables, maps and tunable numbers (TOML)."""
