"""`grailwar db check|backup`: look after a server's database, while the server runs or not."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("db", help="check or back up a server's database")
    jobs = p.add_subparsers(dest="job", required=True)
    check = jobs.add_parser("check", help="SQLite's quick_check and a replay of every room; "
                            "exit code 1 if anything is damaged")
    check.add_argument("db", help="the server's SQLite file")
    check.set_defaults(run=run_check)
    backup = jobs.add_parser("backup", help="an online copy of the database (the server may "
                             "be running), checked once written")
    backup.add_argument("db", help="the server's SQLite file")
    backup.add_argument("out", help="the new file to write")
    backup.set_defaults(run=run_backup)


def run_check(args: argparse.Namespace) -> int:
    from ..server.dbtools import check
    from ..server.store import DamagedDatabase

    try:
        damaged = check(args.db)
    except DamagedDatabase as err:
        print(f"DAMAGED: {err}", file=sys.stderr)
        return 1
    for room_id, why in damaged:
        print(f"room {room_id}: its log does not replay ({why}): a server quarantines it")
    print(f"{args.db}: quick_check ok, {len(damaged)} damaged room(s)")
    return 1 if damaged else 0


def run_backup(args: argparse.Namespace) -> int:
    from ..server.dbtools import backup
    from ..server.store import DamagedDatabase

    try:
        pages = backup(args.db, args.out)
    except (DamagedDatabase, FileExistsError) as err:
        print(f"no backup: {err}", file=sys.stderr)
        return 1
    print(f"{args.db} backed up to {args.out} ({pages} pages, quick_check ok)")
    return 0
