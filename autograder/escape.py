"""Make text that came from a submission safe for the place it is written to.

Everything a submission contains is data, never markup: exception class names and messages,
values, printed output, file and folder names. Each function here takes such a string and
returns a version that can be written to one kind of output without changing its meaning:

- `text`: any Python string to one that encodes as UTF-8 (a lone surrogate becomes U+FFFD);
- `plain_json`: a whole JSON document's strings made encodable, so `json.dumps` and writing
  the result never fail;
- `terminal`: one line for a progress display, with no control or ANSI escape characters;
- `escaped`: what `terminal` escapes, written another way (`hex_escape`'s `\\x1b`, for
  nbgrader's log) or with some characters kept (line breaks);
- `one_line`: `terminal`, kept to a length, for a message in a single line of a report;
- `code_span` and `code_block`: Markdown that shows the text literally (no headings, links,
  HTML or emphasis can come out of it);
- `csv_cell`: a gradebook cell no spreadsheet evaluates as a formula, and one it holds whole;
- `csv_key`: `csv_cell` for a column that names a student, where two names must never give
  one cell (a literal backslash is doubled, so `\\e` never reads like an escaped ESC);
- `code_points` and `unmistakable`: a name in plain ASCII, and a name for a message that
  shows it both ways, so that two names that look the same (an accent composed or not, a
  fullwidth letter) read apart.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import overload

REPLACEMENT = "\ufffd"
_SURROGATES = re.compile("[\ud800-\udfff]")
# The Unicode categories shown as escapes: controls (C0, C1, DEL, ANSI escapes), format
# characters (bidirectional overrides and marks, zero-width spaces and joiners, the byte-order
# mark, soft hyphens), line and paragraph separators, private use and surrogates. Each can
# make a terminal line, a report or a spreadsheet cell read differently from what it holds,
# or make two different names look the same.
SHOWN_AS_ESCAPES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs"})
# The code points Unicode calls default-ignorable (Default_Ignorable_Code_Point): drawn as
# nothing, whatever their category. Besides the format characters above: the combining
# grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation
# selectors, and the unassigned code points of their blocks. `ada` followed by one prints
# as `ada`.
DEFAULT_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
# Characters drawn as an empty cell that Unicode classes neither as white space nor as
# default-ignorable, so neither property finds them. Unicode has no property for a blank glyph:
# these are the characters its names and annotations (NamesList.txt) call blank. U+2800
# BRAILLE PATTERN BLANK is "imaged as a fixed-width blank in many fonts" but "does not act as
# a space" (`ada` followed by it prints as `ada `); U+13441 and U+13442, EGYPTIAN HIEROGLYPH
# FULL BLANK and HALF BLANK, came with Unicode 15 (unassigned, and so escaped, in a Python
# with older Unicode data). A symbol that pictures a blank (U+2422 BLANK SYMBOL) is drawn.
# Names are compared with each of them as a space (`discovery.alike_key`).
BLANK = re.compile("[\u2800\U00013441\U00013442]")
# What no one sees, whatever its category: drawn as nothing, or as a blank.
UNSEEN = re.compile(f"{DEFAULT_IGNORABLE.pattern}|{BLANK.pattern}")
# Shown as escapes too: unassigned code points (category Cn), which no font draws.
_ESCAPED_CATEGORIES = SHOWN_AS_ESCAPES | {"Cn"}
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Characters a spreadsheet or a CSV import may drop or trim before it looks for a formula:
# controls, format characters (zero-width spaces, the byte-order mark), every kind of white
# space (no-break and ideographic spaces, line separators), and the other characters no one
# sees (UNSEEN: Hangul fillers, variation selectors, the combining grapheme joiner, the
# Braille blank), which a person reading the cell passes over too.
_PASSED_OVER = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})


def text(value: object) -> str:
    """`value` as a string that encodes as UTF-8: lone surrogates become U+FFFD."""
    if not isinstance(value, str):
        value = str(value)
    if type(value) is str and value.isascii():  # no surrogates: the check reads a flag
        return value
    return _SURROGATES.sub(REPLACEMENT, value)


@overload
def plain_json(value: dict) -> dict: ...
@overload
def plain_json(value: list | tuple) -> list: ...
@overload
def plain_json(value: str) -> str: ...
@overload
def plain_json(value: object) -> object: ...
def plain_json(value: object) -> object:
    """A JSON-ready structure with every string (keys too) made encodable by `text`: a dict
    stays a dict, a list or tuple becomes a list, a string stays a string."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, dict):
        return {text(key) if isinstance(key, str) else key: plain_json(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(item) for item in value]
    return value


def _code_point(character: str) -> str:
    code = ord(character)
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _shown(character: str) -> str:
    """A character as `terminal` shows it: \\n, \\r, \\t, \\e, or its code point."""
    return _NAMED.get(character) or _code_point(character)


def hex_escape(character: str) -> str:
    """A character as a log shows it (`nbgrader_autograde.safe_text`): \\x.. below U+0100
    (\\x1b, \\x09 for a tab), its code point (\\u202e, \\U000e0080) above."""
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else _code_point(character)


def shown_as_escape(character: str) -> bool:
    """Whether `terminal` shows `character` as an escape: a character of a category of
    SHOWN_AS_ESCAPES, an unassigned one, or one that no one sees (UNSEEN: drawn as nothing,
    DEFAULT_IGNORABLE, or as a blank, BLANK)."""
    return unicodedata.category(character) in _ESCAPED_CATEGORIES \
        or UNSEEN.match(character) is not None


def terminal(value: object) -> str:
    """One line for a terminal: control and format characters (newlines, ANSI escapes,
    carriage returns, bidirectional overrides, zero-width spaces), and characters no one sees
    (a variation selector, a Hangul filler, an unassigned code point, the Braille blank) shown
    as visible escapes such as \\n, \\e, \\u200b and \\u3164 (`shown_as_escape`)."""
    return escaped(text(value))


def escaped(value: str, spell: Callable[[str], str] = _shown, kept: str = "") -> str:
    """`value` with each character that `shown_as_escape` names, but those in `kept`, written
    as `spell` writes it: as `terminal` does (\\e, \\n, \\u200b), or by `hex_escape`."""
    seen = value
    for character in kept:
        seen = seen.replace(character, "")
    if seen.isprintable() and (seen.isascii() or not UNSEEN.search(seen)):
        return value  # nothing shown as an escape: the checks run in C
    return "".join(spell(character) if character not in kept and shown_as_escape(character)
                   else character for character in value)


def one_line(value: object, limit: int = 2000) -> str:
    """`terminal(value)` shortened to `limit` characters (with "..." when cut)."""
    shown = terminal(value)
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def code_span(value: object, limit: int = 2000) -> str:
    """An inline Markdown code span showing `value` literally, on one line."""
    shown = one_line(value, limit)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def code_block(value: object) -> str:
    """A fenced Markdown code block showing `value` literally; newlines are kept, other
    control characters are shown as escapes."""
    lines = [terminal(line) for line in text(value).split("\n")]
    body = "\n".join(lines)
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


# The most characters a spreadsheet cell holds (Excel's limit; Python's csv reads up to 131,072).
CELL_CHARACTERS = 32_767


def csv_cell(value: object) -> str:
    """A text cell for the gradebook: one line, and never read as a formula (a leading
    = + - @ gets a ' in front, as spreadsheets themselves do, also after white space or
    invisible characters: a no-break space, a zero-width space, a byte-order mark). A leading '
    gets one too, so that two names never share a cell: -ada becomes '-ada, and '-ada becomes
    ''-ada. A cell longer than a spreadsheet holds (file names of control characters grow
    sixfold as escapes) is cut to CELL_CHARACTERS, and says so at its end."""
    shown = terminal(value)
    if _visible_start(text(value)).startswith((*FORMULA_STARTS, "'")):
        shown = "'" + shown
    if len(shown) > CELL_CHARACTERS:
        cut = f" ... (cut: {len(shown):,} characters, more than a spreadsheet cell holds)"
        shown = shown[:CELL_CHARACTERS - len(cut)] + cut
    return shown


def _visible_start(value: str) -> str:
    """`value` from its first character that no spreadsheet passes over (`_PASSED_OVER`)."""
    category = unicodedata.category
    for index, character in enumerate(value):
        if not (character.isspace() or category(character) in _PASSED_OVER
                or UNSEEN.match(character)):
            return value[index:]
    return ""


def csv_key(value: object) -> str:
    """`csv_cell` for a cell that tells students apart (the gradebook's student column, the
    names export and overrides look up): a literal backslash is doubled first, so every
    backslash in the cell starts an escape and different names never share a cell."""
    return csv_cell(text(value).replace("\\", "\\\\"))


def code_points(value: object) -> str:
    """`value` in printable ASCII: every other character as its code point (\\u00e9 for a
    composed `é`, `e\\u0301` for `e` and a combining accent, \\uff41 for a fullwidth `ａ`),
    and a space no one sees (at an end, or beside another space) as \\u0020, a literal
    backslash doubled, so that different names never read alike in it (`ada ` and `ada`)."""
    shown = text(value)
    if shown.isascii() and shown.isprintable() and "\\" not in shown \
            and shown.strip(" ") == shown and "  " not in shown:
        return shown
    return "".join("\\\\" if character == "\\" else character
                   if " " <= character <= "~" and not _unseen_space(shown, index)
                   else _shown(character) for index, character in enumerate(shown))


def _unseen_space(shown: str, index: int) -> bool:
    """Whether `shown[index]` is a space no one sees: at an end, or beside another space."""
    return shown[index] == " " and (index in (0, len(shown) - 1) or shown[index - 1] == " "
                                    or shown[index + 1] == " ")


def unmistakable(value: object) -> str:
    """A name for a message: `terminal(value)` quoted and, unless the name is plain ASCII
    without a backslash, its `code_points` after it (`'José' (Jose\\u0301)`), which tell
    apart names that a terminal shows alike."""
    shown, spelled = terminal(value), code_points(value)
    # Quoted as repr quotes, without its second escaping: `ada\u2800`, never `ada\\u2800`.
    quote = '"' if "'" in shown and '"' not in shown else "'"
    quoted = f"{quote}{shown}{quote}"
    return quoted if spelled == text(value) else f"{quoted} ({spelled})"
