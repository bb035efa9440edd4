"""`grailwar db check|backup|migrate`: look after a server's database (check and backup while
the server runs or not), or move it into PostgreSQL."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="check, back up or migrate a server's database")
    jobs = p.add_subparsers(dest="job", required=True)
    check = jobs.add_parser("check", help="SQLite's quick_check and a replay of every room; "
                            "exit code 1 if anything is damaged")
    check.add_argument("db", help="the server's SQLite file (or its PostgreSQL URL)")
    check.set_defaults(run=run_check)
    backup = jobs.add_parser("backup", help="an online copy of the database (the server may "
                             "be running), checked once written")
    backup.add_argument("db", help="the server's SQLite file")
    backup.add_argument("out", help="the new file to write")
    backup.set_defaults(run=run_backup)
    migrate = jobs.add_parser("migrate", help="move a SQLite server's rooms, bans and message "
                              "of the day into PostgreSQL (stop the server first)")
    migrate.add_argument("db", help="the server's SQLite file")
    migrate.add_argument("url", help="the PostgreSQL database, postgresql://user@host/db")
    migrate.set_defaults(run=run_migrate)


def run_check(args: argparse.Namespace) -> int:
    from ..server.dbtools import check
    from ..server.store import DamagedDatabase

    try:
        replayed, damaged = check(args.db)
    except DamagedDatabase as err:
        print(f"DAMAGED: {err}", file=sys.stderr)
        return 1
    for room_id, why in damaged:
        print(f"room {room_id}: its log does not replay ({why}): a server quarantines it")
    from ..server.roomstore import is_postgresql

    checked = "" if is_postgresql(args.db) else "quick_check ok, "
    print(f"{args.db}: {checked}{replayed} open room(s) replayed, {len(damaged)} damaged "
          "room(s)")
    return 1 if damaged else 0


def run_backup(args: argparse.Namespace) -> int:
    from ..server.dbtools import backup
    from ..server.roomstore import is_postgresql
    from ..server.store import DamagedDatabase

    if is_postgresql(args.db):
        print("no backup: a PostgreSQL database is backed up with its own tools (pg_dump, "
              "continuous archiving): docs/deploy.md", file=sys.stderr)
        return 1
    try:
        pages = backup(args.db, args.out)
    except (DamagedDatabase, FileExistsError) as err:
        print(f"no backup: {err}", file=sys.stderr)
        return 1
    print(f"{args.db} backed up to {args.out} ({pages} pages, quick_check ok)")
    return 0


def run_migrate(args: argparse.Namespace) -> int:
    import time

    from ..server.dbtools import migrate
    from ..server.pgstore import redact
    from ..server.store import DamagedDatabase

    try:
        rooms = migrate(args.db, args.url, time.time())
    except (DamagedDatabase, ValueError) as err:
        print(f"nothing migrated: {err}", file=sys.stderr)
        return 1
    print(f"{args.db}: {rooms} room(s) moved into {redact(args.url)}; start the servers with "
          f"--store {redact(args.url)}")
    return 0
