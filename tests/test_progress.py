"""The long commands' progress bar (issue 32: `tournament --games 4` said nothing for six
minutes): drawn at once, then games done and the time left from the pace so far."""

from __future__ import annotations

import io

from grailwar.cli.progress import Progress, clock


def test_the_bar_says_it_started_then_counts_games_and_the_time_left() -> None:
    out = io.StringIO()
    bar = Progress(4, True, out, now=100.0)
    assert out.getvalue() == "\r[" + "." * 30 + "] 0/4 games · estimating the time left"
    bar.tick(1, now=190.0)  # 90 s a game: three left, 4:30
    assert out.getvalue().endswith("\r[#######" + "." * 23 + "] 1/4 games · 4:30 left")
    bar.tick(4, now=460.0)
    assert out.getvalue().endswith("] 4/4 games · 0:00 left")
    bar.close()
    assert out.getvalue().endswith("\n")


def test_nothing_is_drawn_off_a_terminal() -> None:
    out = io.StringIO()
    bar = Progress(3, False, out)
    bar.tick(2)
    bar.close()
    assert out.getvalue() == ""


def test_a_long_wait_reads_in_hours() -> None:
    assert (clock(59.6), clock(65), clock(3725)) == ("1:00", "1:05", "1:02:05")
