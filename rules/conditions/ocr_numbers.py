"""Condition numbers as OCR and typists leave them (before step 5 of rules.conditions.parser).

Other shapes of a number: "14.)", "15 .)", "(14).", "14 ." are rewritten "14." wherever a
line starts with one. Numbers damaged by OCR ("II." for 11, "l4." for 14,
"1O." for 10, "53_" for 53, "SG_" for 56) are read by their place in the sequence: a
line-start token of digit-like characters (l I | ! O o S G B Z) is a condition's number
only when, read as digits, it is the next number (or up to two further on, leaving a gap
that is warned), that number is printed nowhere else as a condition number, and the line
is a sentence, not a heading ("II. PRIOR TO OCCUPANCY" stays a roman section)."""

from __future__ import annotations

import re
from collections.abc import Sequence

_SHAPES = (
    re.compile(r"^(?P<n>\d{1,3})\s?\.\s?\)\s*(?=\S)"),  # 14.)  15 .)
    re.compile(r"^\((?P<n>\d{1,3})\)\s?\.\s*(?=\S)"),  # (14).
    re.compile(r"^(?P<n>\d{1,3})\s+\.\s+(?=[A-Z])"),  # 14 . The
)
_LOOKALIKE = str.maketrans({"l": "1", "I": "1", "|": "1", "!": "1", "O": "0", "o": "0",
                            "Q": "0", "S": "5", "G": "6", "B": "8", "Z": "2"})  # fmt: skip
_DAMAGED = re.compile(
    r"^(?P<tok>[0-9lI|!OoQSGBZ]{1,3})\s?(?P<p>\.\)|[._,:;\u2014\u2013-]|\))\s*(?=[A-Z\"(])"
)
_NUMBER = re.compile(r"(?:^|(?<=[.;:)]\s))(?P<n>\d{1,3})\.\s+(?=[A-Z(\"])")


def repair_numbers(lines: Sequence[str]) -> tuple[list[str], dict[str, tuple[str, bool]]]:
    """The lines with condition numbers in the "N." shape, and what each rewritten number
    was printed as, with True when OCR damaged it ({"14": ("l4.", True)}): a damaged
    number lowers its condition's confidence."""
    out = [_reshape(line) for line in lines]
    numbered = sum(1 for line in out if re.match(r"\d{1,3}\.\s", line))
    if numbered < 3:
        return list(lines), {}
    printed_at: dict[int, list[int]] = {}
    for i, line in enumerate(out):
        for m in _NUMBER.finditer(line):
            printed_at.setdefault(int(m.group("n")), []).append(i)
    repaired: dict[str, tuple[str, bool]] = {}
    for i, line in enumerate(out):
        if line != lines[i]:
            repaired[line.split(".", 1)[0]] = (
                lines[i][: len(lines[i]) - len(line) + 3].strip(),
                False,
            )
    line_starts = [
        (i, int(start.group(1)))
        for i, line in enumerate(out)
        if (start := re.match(r"(\d{1,3})\.\s", line))
    ]
    following = {i: n for (i, _), (_, n) in zip(line_starts, line_starts[1:], strict=False)}
    last = 0
    for i, line in enumerate(out):
        found = [int(m.group("n")) for m in _NUMBER.finditer(line)]
        misread = _misread(line, last, following.get(i), printed_at)
        if misread:
            # "4." between nothing and "2.", "43." between "12." and "14.": OCR misread
            # a digit; the place in the sequence says which number it is.
            n = last + 1
            out[i] = f"{n}{line[len(misread) :]}"
            repaired[str(n)] = (f"{misread}.", True)
            last = n
            continue
        if found:
            for n in found:
                starts = line.startswith(f"{n}.")
                if n == last + 1 or (starts and (last < n <= last + 5 or not last)):
                    last = n
            continue
        hit = _DAMAGED.match(line)
        if hit is None or _heading(line[hit.end() :]):
            continue
        token = hit.group("tok")
        if token.isdigit() and hit.group("p") in (".", ")"):
            continue  # an ordinary number: not next in sequence, so not a condition here
        read = token.translate(_LOOKALIKE)
        # The next number, or one a little further on (a lost number in between is a gap
        # the outline warns about).
        if not read.isdigit() or not last < int(read) <= last + 3:
            continue
        n = int(read)
        if any(j != i for j in printed_at.get(n, [])):
            continue  # the real one is printed elsewhere
        out[i] = f"{n}. {line[hit.end() :]}"
        repaired[str(n)] = (line[: hit.end()].strip(), True)
        last = n
    _fill_gaps(out, repaired)
    return out, repaired


# A line-start token OCR made of a number: digits and the characters Tesseract takes for
# them or drops into them ("9/7." for 57, "423," for 123), then a sentence.
_GARBLED = re.compile(r"^(?P<tok>[0-9lI|!OoQSGBZ/\\'`]{1,4})\s?(?P<p>[.,])(?=\s+[A-Z\"(])")


def _fill_gaps(out: list[str], repaired: dict[str, tuple[str, bool]]) -> None:
    """Numbers lost between two read ones, where exactly as many sentences start with a
    garbled number in between: "56.", "9/7.", "98.", "59." reads 57 and 58 (the real 98
    is in its own place). Only a token as long as the number it stands for counts, never
    one already passed (a list "1.", "2." inside the condition above), and only for
    numbers printed nowhere."""
    sequence: list[tuple[int, int]] = []  # (line, number) of the numbers read, in order
    for i, line in enumerate(out):
        m = re.match(r"(\d{1,3})\.\s", line)
        if m and (not sequence or sequence[-1][1] < int(m.group(1)) <= sequence[-1][1] + 5):
            sequence.append((i, int(m.group(1))))
    printed = {int(m.group(1)) for line in out if (m := re.match(r"(\d{1,3})\.\s", line))}
    for (i, a), (j, b) in zip(sequence, sequence[1:], strict=False):
        lost = list(range(a + 1, b))
        garbled = [
            (k, hit)
            for k in range(i + 1, j)
            if (hit := _GARBLED.match(out[k])) is not None and not _heading(out[k][hit.end() :])
        ]
        if not lost or len(garbled) != len(lost):
            continue
        tokens = [hit.group("tok") for _, hit in garbled]
        if any(
            n in printed or len(tok) < len(str(n)) or (tok.isdigit() and int(tok) <= a)
            for tok, n in zip(tokens, lost, strict=True)
        ):
            continue  # a list inside the condition above ("1.", "2."), not lost numbers
        for (k, hit), n in zip(garbled, lost, strict=True):
            repaired[str(n)] = (out[k][: hit.end()].strip(), True)
            out[k] = f"{n}.{out[k][hit.end() :]}"


# Digits Tesseract takes for one another in a skewed or specked scan.
_CONFUSED = {frozenset(p) for p in ("14", "17", "08", "06", "09", "38", "56", "58", "68", "89")}


def _confusable(printed: int, expected: int) -> bool:
    a, b = str(printed), str(expected)
    differing = [frozenset((x, y)) for x, y in zip(a, b, strict=False) if x != y]
    return len(a) == len(b) and 0 < len(differing) <= 2 and all(d in _CONFUSED for d in differing)


def _misread(
    line: str, last: int, following: int | None, printed_at: dict[int, list[int]]
) -> str | None:
    """The digits of a line-start number that can only be the next one misread: the next
    is printed nowhere, and either the number after this line is next but one ("4." between
    nothing and "2.") or the printed one is far out of sequence and differs from the next
    only in digits OCR confuses ("409." after "108.")."""
    m = re.match(r"(\d{1,3})\.\s+(?=[A-Z(\"])", line)
    if m is None or int(m.group(1)) == last + 1 or printed_at.get(last + 1):
        return None
    n = int(m.group(1))
    if following == last + 2:
        return m.group(1)
    out_of_sequence = n > last + 5 or n <= last
    return m.group(1) if out_of_sequence and _confusable(n, last + 1) else None


def _reshape(line: str) -> str:
    for shape in _SHAPES:
        m = shape.match(line)
        if m:
            return f"{int(m.group('n'))}. {line[m.end() :]}"
    return line


def _heading(rest: str) -> bool:
    """A roman section heading's words: short, in capitals, no closing period."""
    words = rest.split()
    letters = [ch for ch in rest if ch.isalpha()]
    return (
        len(words) <= 10
        and bool(letters)
        and sum(ch.isupper() for ch in letters) >= 0.8 * len(letters)
        and not rest.rstrip().endswith(".")
    )
