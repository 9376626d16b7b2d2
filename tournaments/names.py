"""When two names are one: the normal form user and bot names are compared in, so that ``аdmin`` (a Cyrillic
а), ``ADMIN`` and ``admin.`` all collide with ``admin``."""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (a character, or a sequence: ``m`` is ``rn``).

    The package's table holds each line of confusables.txt both ways: a source character lists only its
    prototype, a prototype lists all its sources. A character listing one look-alike is therefore a source; when
    the two list only each other (a prototype with one source), either may be the prototype: the ASCII one, else
    the smaller, is taken, which keeps the two names equal all the same.
    """
    table = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    alikes = {_clean(key): [_clean(entry["c"]) for entry in entries] for key, entries in table.items()}
    prototypes = {}
    for char, listed in alikes.items():
        if len(char) != 1 or len(listed) != 1:
            continue  # a sequence, or a prototype of several sources: left as it is
        prototype = listed[0]
        if alikes.get(prototype) == [char]:
            prototype = min(char, prototype, key=lambda text: (not text.isascii(), text))
        if prototype != char:
            prototypes[char] = prototype
    return prototypes


def _clean(text: str) -> str:
    """The table wraps right-to-left characters in direction marks; they are not part of the character."""
    return text.replace("\u200e", "").replace("\u200f", "") or text


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character by its prototype, NFD again."""
    prototypes = _prototypes()
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text)))


def name_key(name: str) -> str:
    """The form two names are compared in (the module's docstring)."""
    folded = skeleton(unicodedata.normalize("NFKC", name).casefold())
    return "".join(c for c in unicodedata.normalize("NFKC", folded).casefold()
                   if unicodedata.category(c)[0] in "LN")
