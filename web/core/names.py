"""Players' names: what counts as the same name, and what counts as a name at all.

"Alice", fullwidth "Ａｌｉｃｅ" and "Аlice" with a Cyrillic А look alike at the table,
so names are compared by a folded form: NFKC, case folding, then Unicode's
confusables table (TR39, from the ``confusable-homoglyphs`` package: its data is
Unicode's ``confusables.txt``, kept both ways) mapping each look-alike to its
prototype.  The folded form is only compared, never shown.
"""

from __future__ import annotations

import unicodedata
from functools import cache

INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
"""Letters and symbols that draw nothing: the Hangul fillers (Unicode's
Default_Ignorable_Code_Point letters), the blank Braille pattern and the Khmer
inherent vowels.  Every other invisible character is in a category refused anyway."""

VISIBLE_CATEGORIES = ("L", "N", "P", "S")


@cache
def _prototypes() -> dict[str, str]:
    """Look-alike character -> its prototype (one table, built once)."""
    from confusable_homoglyphs.confusables import confusables_data

    data: dict[str, list[dict[str, str]]] = confusables_data
    table: dict[str, str] = {}
    for char, entries in data.items():
        if len(char) != 1 or len(entries) != 1:
            continue  # a prototype with several look-alikes maps to itself
        target = entries[0]["c"]
        if len(target) != 1:
            table[char] = target  # a source whose prototype is a sequence
            continue
        back = data.get(target, [])
        if len(back) > 1:
            table[char] = target  # the prototype of several: char is one of them
        else:
            table[char] = min(char, target)  # a lone pair: both map to the same one
    return table


def fold(name: str) -> str:
    """The form names are compared by: look-alikes and case fold to one string."""
    table = _prototypes()
    text = unicodedata.normalize("NFKC", name).casefold()
    for _ in range(3):  # a prototype may fold again (an upper-case prototype, say)
        mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
        mapped = unicodedata.normalize("NFKC", mapped).casefold()
        if mapped == text:
            break
        text = mapped
    return " ".join(text.split())


def is_visible(ch: str) -> bool:
    """Whether ``ch`` draws something a person can see and read back."""
    return unicodedata.category(ch)[0] in VISIBLE_CATEGORIES and ch not in INVISIBLE_LETTERS


def has_visible(name: str) -> bool:
    """At least one visible character (not only spaces, fillers or combining marks)."""
    return any(is_visible(ch) for ch in name)
