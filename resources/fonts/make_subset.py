"""Make the client's fonts: subsets of Noto Sans CJK and Noto Serif CJK (SIL OFL 1.1).

pyglet does not fall back to another font per character, so the client ships one font family
that has kana, kanji and Hangul and loads it explicitly. This script is how the three files in
this folder were made; run it again after adding text to a catalog or a data file:

    pip install fonttools                 # a development tool, not a dependency
    apt-get install fonts-noto-cjk        # the source fonts (Debian/Ubuntu)
    python resources/fonts/make_subset.py [--source-dir /usr/share/fonts/opentype/noto]

- GrailSans-Regular.otf (body text, chat, names): ASCII, Latin-1, punctuation, kana, every
  Hangul syllable, the 6,355 JIS X 0208 kanji of levels 1 and 2 (they hold all the jōyō kanji
  but a handful of rare forms such as 𠮟), and every character of the message catalogs and of
  `resources/**/*.toml`.
- GrailSans-Bold.otf and GrailSerif-Bold.otf (headings, buttons, numbers): ASCII, Latin-1,
  punctuation, kana and the characters of the catalogs and data files only; the client never
  draws a player's own text (names, chat) in them.

The fonts are renamed ("Grail Sans", "Grail Serif") as the OFL asks of modified versions, and so
that they never clash with a Noto CJK installed on the system. Layout tables are dropped (pyglet
does not shape text) to keep the files small.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

HERE = Path(__file__).resolve().parent
RESOURCES = HERE.parent
SOURCES = {  # output file: (source collection, index of the Japanese face, family, style)
    "GrailSans-Regular.otf": ("NotoSansCJK-Regular.ttc", "Grail Sans", "Regular", "broad"),
    "GrailSans-Bold.otf": ("NotoSansCJK-Bold.ttc", "Grail Sans", "Bold", "narrow"),
    "GrailSerif-Bold.otf": ("NotoSerifCJK-Bold.ttc", "Grail Serif", "Bold", "narrow"),
}


def ranges(*spans: tuple[int, int]) -> set[str]:
    return {chr(c) for lo, hi in spans for c in range(lo, hi + 1)}


def jis_kanji() -> set[str]:
    """The JIS X 0208 kanji, levels 1 and 2 (rows 16-84), read from Python's EUC-JP codec."""
    out = set()
    for row in range(16, 85):
        for cell in range(1, 95):
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes([row + 0xA0, cell + 0xA0]).decode("euc_jp"))
    return out


def used_characters() -> set[str]:
    """Every character of the catalogs and the data files."""
    chars: set[str] = set()
    for path in sorted(RESOURCES.rglob("*.toml")):
        chars |= set(path.read_text(encoding="utf-8"))
    return {c for c in chars if c.isprintable()}


BASE = ranges((0x20, 0x7E), (0xA0, 0xFF), (0x2010, 0x2027), (0x2030, 0x205E), (0x2190, 0x2199),
              (0x2212, 0x2212), (0x2460, 0x2473), (0x25A0, 0x25FF), (0x2600, 0x2606),
              (0x2713, 0x2718), (0x3000, 0x303F), (0x3040, 0x30FF), (0x31F0, 0x31FF),
              (0xFF01, 0xFF9F), (0xFFE0, 0xFFE6))
HANGUL = ranges((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7A3))


def make(source: Path, out: Path, family: str, style: str, text: set[str]) -> None:
    font = TTFont(str(source), fontNumber=0)  # 0 = the Japanese face of the collection
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14, 16, 17]
    options.name_languages = [0x409]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(text)))
    subsetter.subset(font)
    rename(font, family, style)
    font.save(str(out))
    print(f"{out.name}: {len(font.getGlyphOrder())} glyphs, {out.stat().st_size / 1e6:.2f} MB")


def rename(font: TTFont, family: str, style: str) -> None:
    """A modified version gets its own name (OFL §3 asks it of reserved names; we do it for
    all), and keeps the original copyright and licence records."""
    ps = f"{family.replace(' ', '')}-{style}"
    names = {1: family, 2: style, 3: f"{ps};subset of Noto CJK", 4: f"{family} {style}",
             6: ps, 16: family, 17: style}
    table = font["name"]
    for record in list(table.names):
        if record.nameID in names:
            table.removeNames(nameID=record.nameID)
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)
    if "CFF " in font:
        cff = font["CFF "].cff
        top = cff.topDictIndex[0]
        cff.fontNames = [ps]
        top.FamilyName = family
        top.FullName = f"{family} {style}"
        if hasattr(top, "Weight"):
            top.Weight = style


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", type=Path,
                        default=Path("/usr/share/fonts/opentype/noto"))
    args = parser.parse_args()
    used = used_characters()
    broad = BASE | HANGUL | jis_kanji() | used
    narrow = BASE | used
    for out, (source, family, style, coverage) in SOURCES.items():
        make(args.source_dir / source, HERE / out, family, style,
             broad if coverage == "broad" else narrow)


if __name__ == "__main__":
    main()
