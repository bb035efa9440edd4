"""Make the client's fonts: subsets of Noto Sans CJK and Noto Serif CJK, the body face filled
in from other Noto fonts and Noto Emoji (all SIL OFL 1.1).

pyglet does not fall back to another font per character, so the client ships one font family
that has kana, kanji and Hangul and loads it explicitly. This script is how the three files in
this folder were made; run it again after adding text to a catalog or a data file:

    pip install fonttools manimgx-fonts   # development tools, not dependencies (the second
                                          # ships Noto Emoji, monochrome: pyglet cannot draw
                                          # the colour bitmaps of fonts-noto-color-emoji)
    apt-get install fonts-noto-cjk fonts-noto-core   # the source fonts (Debian/Ubuntu)
    python resources/fonts/make_subset.py [--source-dir /usr/share/fonts/opentype/noto]
        [--core-dir /usr/share/fonts/truetype/noto] [--emoji PATH/NotoEmoji[wght].ttf]

- GrailSans-Regular.otf (body text, chat, names: whatever a player types): ASCII, Latin-1,
  punctuation, kana, all of JIS X 0213 (levels 1-4, so 𠮟, 﨑 and 德), the NEC and IBM extensions
  of Shift_JIS (髙, 塚 U+FA10: the cp932 codec), a few more name kanji (𠮷), every Hangul
  syllable, jamo and compatibility jamo, Latin Extended, Greek and Cyrillic (European names),
  the symbol blocks (arrows, ①…⑳, ㈱, ♪ ♡ ★ ※, box drawing, dingbats), the single-character
  emoji of Noto Emoji, and every character of the message catalogs and `resources/**/*.toml`.
  What Noto Sans CJK lacks is copied in from Noto Sans, Noto Emoji (monochrome), Noto Sans
  Symbols 1 and 2 and Noto Sans Math (≒ ⦅⦆), their TrueType outlines scaled and converted to
  CFF. Emoji sequences joined by ZWJ need shaping, which pyglet does not do: they show as their
  parts. Variation selectors map to an empty glyph, so an IVS or an emoji's VS16 draws nothing
  rather than a box.
- GrailSans-Bold.otf and GrailSerif-Bold.otf (headings, buttons, numbers): ASCII, Latin-1,
  punctuation, kana and the characters of the catalogs and data files only; the client never
  draws a player's own text (names, chat) in them.

The fonts are renamed ("Grail Sans", "Grail Serif") as the OFL asks of modified versions, and so
that they never clash with a Noto CJK installed on the system. Layout tables are dropped (pyglet
does not shape text) to keep the files small. The output keeps the source's timestamp, so the
same sources make the same bytes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fontTools import subset
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.pens.transformPen import TransformPen
from fontTools.ttLib import TTFont
from fontTools.varLib import instancer

HERE = Path(__file__).resolve().parent
RESOURCES = HERE.parent
SOURCES = {  # output file: (source collection, index of the Japanese face, family, style)
    "GrailSans-Regular.otf": ("NotoSansCJK-Regular.ttc", "Grail Sans", "Regular", "broad"),
    "GrailSans-Bold.otf": ("NotoSansCJK-Bold.ttc", "Grail Sans", "Bold", "narrow"),
    "GrailSerif-Bold.otf": ("NotoSerifCJK-Bold.ttc", "Grail Serif", "Bold", "narrow"),
}


def ranges(*spans: tuple[int, int]) -> set[str]:
    return {chr(c) for lo, hi in spans for c in range(lo, hi + 1)}


def decodable(codec: str, leads: range, trails: range, prefix: bytes = b"") -> set[str]:
    """Every character a double-byte codec decodes from lead and trail bytes."""
    out = set()
    for lead in leads:
        for trail in trails:
            with contextlib.suppress(UnicodeDecodeError):
                out |= set(bytes([*prefix, lead, trail]).decode(codec))
    return out


def japanese() -> set[str]:
    """JIS X 0213 planes 1 and 2 (EUC-JIS-2004; SS3 0x8F leads plane 2) and Shift_JIS with the
    NEC and IBM extensions (cp932): what a Japanese IME lets a player type."""
    euc = range(0xA1, 0xFF)
    return (decodable("euc_jis_2004", euc, euc) | decodable("euc_jis_2004", euc, euc, b"\x8f")
            | decodable("cp932", range(0x81, 0xFD), range(0x40, 0xFD)))


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
HANGUL = ranges((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7A3),
                (0xD7B0, 0xD7FF), (0xFFA0, 0xFFDC))
SYMBOLS = ranges((0x2000, 0x206F), (0x20A0, 0x20CF), (0x2100, 0x23FF), (0x2460, 0x27BF),
                 (0x2900, 0x2BFF), (0x3200, 0x33FF), (0xFE30, 0xFE4F))
NAME_KANJI = set("𠮷")  # common in names, outside JIS X 0213 (Adobe-Japan1 has it)
EUROPEAN = ranges((0x100, 0x24F), (0x370, 0x3FF), (0x400, 0x4FF), (0x1E00, 0x1EFF))  # names
# Where the body face finds what Noto CJK lacks, first to last (fonts-noto-core): Latin, Greek
# and Cyrillic letters (JIS X 0213 has some, European names more); then Noto Emoji; then the
# other symbols, ≒ and ⦅⦆.
LETTER_DONOR = "NotoSans-Regular.ttf"
SYMBOL_DONORS = ("NotoSansSymbols-Regular.ttf", "NotoSansSymbols2-Regular.ttf",
                 "NotoSansMath-Regular.ttf")
VARIATION_SELECTORS = [*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]


def make(source: Path, out: Path, family: str, style: str, text: set[str],
         donors: Sequence[Path] = ()) -> None:
    # 0 = the Japanese face of the collection; the source's timestamp keeps the output reproducible
    font = TTFont(str(source), fontNumber=0, recalcTimestamp=False)
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14, 16, 17]
    options.name_languages = [0x409]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(text)))
    subsetter.subset(font)
    if donors:
        fill_gaps(font, text, [TTFont(str(path)) for path in donors])
    rename(font, family, style)
    font.save(str(out))
    print(f"{out.name}: {len(font.getGlyphOrder())} glyphs, {out.stat().st_size / 1e6:.2f} MB")


def fill_gaps(font: TTFont, text: set[str], donors: list[TTFont]) -> None:
    """Copy into the CFF face the donors' glyphs for the characters of `text` it lacks (the
    first donor that has one gives it; Noto CJK's own ♪ ♡ ★ stay), and map the variation
    selectors to an empty zero-width glyph."""
    cff = font["CFF "].cff
    top = cff.topDictIndex[0]
    have = font.getBestCmap()
    fd = top.FDSelect[font.getGlyphID(have[ord("★")])]  # the symbols' private dict
    private = top.FDArray[fd].Private
    em = font["head"].unitsPerEm
    origin_y = font["VORG"].defaultVertOriginY
    order = font.getGlyphOrder()
    taken = set(order)
    free_cids = (name for name in (f"cid{n:05d}" for n in range(1, 65536)) if name not in taken)

    def append(width: int, glyph: Any = None, scale: float = 1.0, glyphs: Any = None) -> str:
        """A new CID glyph (a donor's glyph scaled, or an empty one) with its metrics."""
        pen = T2CharStringPen(width - private.nominalWidthX, glyphs)
        if glyph is not None:
            glyph.draw(TransformPen(pen, (scale, 0, 0, scale, 0, 0)))
        charstring = pen.getCharString(private=private, globalSubrs=cff.GlobalSubrs)
        cid = next(free_cids)  # a CID the subset dropped (CIDs stop at 65535)
        top.CharStrings.charStringsIndex.append(charstring)
        top.CharStrings.charStrings[cid] = len(top.CharStrings.charStringsIndex) - 1
        top.FDSelect.append(fd)
        order.append(cid)
        top.charset.append(cid)
        x_min, _y_min, _x_max, y_max = charstring.calcBounds(top.CharStrings) or (0, 0, 0, 0)
        font["hmtx"][cid] = (width, round(x_min))
        font["vmtx"][cid] = (em, round(origin_y - y_max))
        return cid

    cmap: dict[int, str] = {}
    for donor in donors:
        if "fvar" in donor:
            donor = instancer.instantiateVariableFont(donor, {"wght": 400})
        wanted = {cp: name for cp, name in donor.getBestCmap().items()
                  if chr(cp) in text and cp not in have and cp not in cmap}
        scale = em / donor["head"].unitsPerEm
        glyphs = donor.getGlyphSet()
        copied = {name: append(round(donor["hmtx"][name][0] * scale), glyphs[name], scale, glyphs)
                  for name in sorted(set(wanted.values()))}
        cmap.update({cp: copied[name] for cp, name in wanted.items()})
    empty = append(0)
    cmap.update({cp: empty for cp in VARIATION_SELECTORS})
    top.CIDCount = max(int(name[3:]) for name in order if name.startswith("cid")) + 1
    font.setGlyphOrder(order)
    for table in font["cmap"].tables:
        if table.isUnicode() and table.format in (4, 12):
            table.cmap.update({cp: name for cp, name in cmap.items()
                               if table.format == 12 or cp <= 0xFFFF})


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


def default_emoji() -> Path | None:
    """Noto Emoji as the manimgx-fonts package ships it."""
    spec = importlib.util.find_spec("manimgx_fonts")
    return Path(spec.origin).parent / "NotoEmoji[wght].ttf" if spec and spec.origin else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", type=Path,
                        default=Path("/usr/share/fonts/opentype/noto"))
    parser.add_argument("--core-dir", type=Path, default=Path("/usr/share/fonts/truetype/noto"))
    parser.add_argument("--emoji", type=Path, default=default_emoji())
    args = parser.parse_args()
    if args.emoji is None:
        parser.error("no Noto Emoji: pip install manimgx-fonts, or give --emoji")
    donors = [args.core_dir / LETTER_DONOR, args.emoji,
              *(args.core_dir / name for name in SYMBOL_DONORS)]
    absent = [str(path) for path in donors if not path.exists()]
    if absent:
        parser.error(f"missing {absent}: see the docstring")
    used = used_characters()
    emoji = {chr(cp) for cp in TTFont(str(args.emoji)).getBestCmap() if cp > 0x7F}
    broad = BASE | HANGUL | SYMBOLS | EUROPEAN | NAME_KANJI | japanese() | emoji | used
    narrow = BASE | used
    for out, (source, family, style, coverage) in SOURCES.items():
        if coverage == "broad":
            make(args.source_dir / source, HERE / out, family, style, broad, donors)
        else:
            make(args.source_dir / source, HERE / out, family, style, narrow)


if __name__ == "__main__":
    main()
