"""The translations read as the printed rules do: one form of address, the rules' own
terms, Italian articles that fit every card number, and counts of one.

tests/http/test_pages_static.py already checks that every language has every key of
en.json with the same placeholders; these look at the words. Each check is a function that
lists what it finds, so the last tests can show that it still catches the mistakes it was
written for (issue 34's).
"""

from __future__ import annotations

import json
import re

import pytest

from kalimambo.web.http import pages

I18N = pages.WEB_DIR / "i18n"
OTHERS = ("de", "fr", "it")
Messages = dict[str, str]
Found = list[tuple[str, str]]
"""(key, what is wrong in it)"""


def load(lang: str) -> Messages:
    data: Messages = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
    return data


def without_placeholders(text: str) -> str:
    return re.sub(r"\{\w+\}", " ", text)


def words(pattern: str, messages: Messages) -> Found:
    """Every match of ``pattern`` (case-insensitive, whole words) outside placeholders."""
    found: Found = []
    for key, text in messages.items():
        for match in re.finditer(pattern, without_placeholders(text), re.IGNORECASE):
            found.append((key, match.group(0)))
    return found


# ---- French: "tu" everywhere, the terms of Zoch's printed rules -------------------------

FR_NOT_VERBS_IN_EZ = {"chez", "assez", "nez", "rez"}


def french_vous(messages: Messages) -> Found:
    """"vous", "votre", "vos" and the verbs that go with them (Regardez, réessayez...):
    the pages speak to the player as "tu", and the host page to the host likewise."""
    found = words(r"\b(?:vous|votre|vos)\b", messages)
    found += [(key, word) for key, word in words(r"\b\w+ez\b", messages)
              if word.lower() not in FR_NOT_VERBS_IN_EZ]
    return found


FR_OLD_TERMS = {
    r"\bexplorat(?:eur|eurs|rice|rices)\b": "chercheur",
    r"\bbouses?\b": "tas de crottin",
    r"\bmanches?\b": "tour",
    r"\bcharg(?:e|é|ée|és|ées|er|ent)\b": "fonce dans / coup de corne",
    r"\bpai(?:e|ent)\b": "perd N points",
    r"\bplus (?:basse|petite)\b": "la carte la plus faible",
}
FR_RULE_TERMS = (r"\bchercheurs?\b", r"\btas de crottin\b", r"\bcoups? de corne\b",
                 r"\bfonc\w* dans\b", r"\bperd\b", r"\bla carte la plus faible\b",
                 r"\btour\b")


def french_old_terms(messages: Messages) -> Found:
    return [(key, f"{word} (the rules: {FR_OLD_TERMS[pattern]})")
            for pattern in FR_OLD_TERMS for key, word in words(pattern, messages)]


# ---- Italian: articles before numbers, the host, "Turno", gender -------------------------

NUMBER_PLACEHOLDERS = ("card", "kali", "points", "spaces", "space", "count", "done", "total",
                       "risk", "chance", "time", "s", "max", "games", "game", "round",
                       "rounds", "step", "steps", "from", "to")
IT_ARTICLE = re.compile(
    r"(?<![\w'’])(?:(?:il|lo|la|i|gli|le|un|uno|del|dello|della|al|allo|alla|nel|nello|nella"
    r"|dal|dallo|dalla|sul|sullo|sulla)\s+|(?:l|dell|all|nell|dall|sull|un)['’]\s*)"
    r"\{(?:" + "|".join(NUMBER_PLACEHOLDERS) + r")\}", re.IGNORECASE)
IT_SKIPPED = ("place.",)
"""The keys for the pieces to put back (another change's, checked there)."""


def italian_articles(messages: Messages) -> Found:
    """An article (or "al", "nel"...) right before a number: "il {card}" reads "il 8"
    where Italian says "l'8" (and "lo 0", "l'1", "l'11"): "la carta {card}" fits all."""
    return [(key, match.group(0)) for key, text in messages.items()
            if not key.startswith(IT_SKIPPED) for match in IT_ARTICLE.finditer(text)]


def italian_words(messages: Messages) -> Found:
    return (words(r"\bospit[ei]\b", messages)  # also "guest": the host is il conduttore
            + words(r"\bround\b", messages)  # the rest says Turno
            # a participle or adjective agrees with the player's or the figure's gender
            # ("Anna resta fermo"): "{figure} non si muove", "non hai fatto un passo"
            + words(r"\b(?:resta|resti|rimane|rimani)\s+ferm[oa]\b"
                    r"|\b(?:sei|è)\s+(?:rimast|cors)[oa]\b", messages))


# ---- the host: one word for the host in each language ------------------------------------

HOST_WORD = {"de": r"Gastgeber", "fr": r"hôte", "it": r"conduttor[ei]"}


def host_word(lang: str, english: Messages, messages: Messages) -> Found:
    """Where English says "host", the language's one word for the host."""
    return [(key, messages[key]) for key, text in english.items()
            if re.search(r"\bhost\b", text, re.IGNORECASE)
            and not re.search(HOST_WORD[lang], messages[key], re.IGNORECASE)]


# ---- counts: ".one" forms, and no plural noun after a count that may be 1 ----------------

SINGULAR = {"de": {"Feld", "Punkt", "Minuspunkt"}, "fr": {"case", "point"},
            "it": {"casella", "punto"}}
PLURAL = {"de": {"Felder", "Punkte", "Minuspunkte"}, "fr": {"cases", "points"},
          "it": {"caselle", "punti"}}
COUNT_KEYS = {"board.waiting": "count", "host.lobby_status": "count", "board.picking": "done",
              "over.place": "points", "lb.best_game": "points", "lb.t_rammed": "points",
              "lb.t_kali": "points", "lb.t_dung": "points", "hint.avoid_kali": "points",
              "replay.why.dung": "count"}
"""Counts that can be 1 (or, in French, 0) in keys without a ".one" form: i18n.js picks a
".one" form only for ``spaces`` (web/static/common/i18n.js), so these must read right for
any number."""
PLURAL_NOUNS = {"de": {"Plätze", "Punkte", "Minuspunkte", "Minuspunkten", "Felder", "Forscher"},
                "fr": {"places", "points", "joueurs", "chercheurs", "cases", "prises"},
                "it": {"posti", "punti", "giocatori", "caselle", "volte", "occupati"}}
PLURAL_VERBS = {"de": {"haben", "sind"}, "fr": {"ont", "sont"}, "it": {"hanno", "sono"}}


def one_forms(lang: str, english: Messages, messages: Messages) -> Found:
    """Every ".one" form of English is there, singular after its count; the plain form
    is plural."""
    found: Found = []
    for key in english:
        if not key.endswith(".one"):
            continue
        base = key.removesuffix(".one")
        if key not in messages:
            found.append((key, "missing"))
            continue
        for name, text, wrong in ((key, messages[key], PLURAL[lang]),
                                  (base, messages[base], SINGULAR[lang])):
            for word in re.findall(r"(?:\{spaces\}|(?<!\d)1) (\w+)", text):
                if word in wrong:
                    found.append((name, word))
    return found


def counts_of_one(lang: str, messages: Messages) -> Found:
    """A count that may be 1 followed by a plural noun ("1 places", "1 posti") or, after
    "of N", by a plural verb ("1 sur 4 ont choisi")."""
    found: Found = []
    for key, name in COUNT_KEYS.items():
        text = messages[key]
        for word in re.findall(r"\{" + name + r"\}\s+(\w+)", text):
            if word in PLURAL_NOUNS[lang]:
                found.append((key, word))
        for word in re.findall(r"\{" + name + r"\}\s+(?:sur|su|di|von)\s+\S+\s+(\w+)", text):
            if word in PLURAL_VERBS[lang]:
                found.append((key, word))
    return found


CONN_LOST_STIFF = {"de": r"\bVerbinde\b", "fr": r"^Table perdue", "it": r"^Tavolo perso"}
"""A command where a statement belongs ("Verbinde neu"), word for word translations."""


# ---- the checks on today's files ----------------------------------------------------------

def test_french_says_tu_everywhere() -> None:
    assert french_vous(load("fr")) == []


def test_french_uses_the_terms_of_the_printed_rules() -> None:
    french = load("fr")
    assert french_old_terms(french) == []
    text = " ".join(french.values())
    assert [term for term in FR_RULE_TERMS if not re.search(term, text, re.IGNORECASE)] == []


def test_italian_puts_no_article_before_a_number() -> None:
    assert italian_articles(load("it")) == []


def test_italian_has_the_host_as_conduttore_turno_and_no_gender() -> None:
    assert italian_words(load("it")) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_each_language_calls_the_host_one_way(lang: str) -> None:
    assert host_word(lang, load("en"), load(lang)) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_one_forms_are_there_and_singular(lang: str) -> None:
    assert one_forms(lang, load("en"), load(lang)) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_a_count_of_one_reads_right(lang: str) -> None:
    assert counts_of_one(lang, load(lang)) == []


@pytest.mark.parametrize("lang", OTHERS)
def test_a_lost_connection_is_said_plainly(lang: str) -> None:
    text = load(lang)["conn.lost"]
    assert not re.search(CONN_LOST_STIFF[lang], text), text


# ---- the checks find what they were written for -------------------------------------------

def test_the_checks_catch_the_strings_of_issue_34() -> None:
    assert french_vous({"phone.watch": "Regardez le plateau.",
                        "host.watch_step": "le plateau attend votre « Étape suivante »."}) \
        == [("host.watch_step", "votre"), ("phone.watch", "Regardez")]
    old = french_old_terms({"a": "7 explorateurs au plus.", "b": "dans la bouse",
                            "c": "Fin de la manche {round}.", "d": "et t'a chargé",
                            "e": "{payers} paie {points}", "f": "carte la plus basse"})
    assert [key for key, _ in old] == ["a", "b", "c", "d", "e", "f"]
    assert [word for _, word in italian_articles({
        "pick.confirm": "Gioca il {card}", "hint.only_card": "ti resta solo lo {card}",
        "hint.safe_now": "nel {chance}% delle prove", "x": "fino all'{risk}%",
        "ok": "Gioca la carta {card} nel turno {round}",
        "place.back": "dalla casella {from} alla {to}"})] \
        == ["il {card}", "lo {card}", "nel {chance}", "all'{risk}"]
    assert [word for _, word in italian_words({
        "host.title": "Ospite Kalimambo", "table.undone": "Round {round} annullato",
        "ev.stay_zero": "{figure} gioca lo 0 e resta fermo.",
        "story.stay_zero": "Hai giocato lo 0 e sei rimasto fermo.",
        "replay.stop": "Ferma la replica"})] \
        == ["Ospite", "Round", "resta fermo", "sei rimasto"]
    english = {"host.pin": "Host PIN or key", "err.host_only": "Only the host can do that."}
    assert host_word("it", english, {"host.pin": "PIN del conduttore",
                                     "err.host_only": "Solo chi conduce può farlo."}) \
        == [("err.host_only", "Solo chi conduce può farlo.")]
    english = {"ev.move": "runs {spaces} spaces", "ev.move.one": "runs {spaces} space",
               "story.moved": "You ran {spaces} spaces", "story.moved.one": "ran 1 space"}
    assert one_forms("fr", english, {"ev.move": "avance de {spaces} case",
                                     "ev.move.one": "avance de {spaces} cases",
                                     "story.moved": "avancé de {spaces} cases"}) \
        == [("ev.move.one", "cases"), ("ev.move", "case"), ("story.moved.one", "missing")]
    french = dict.fromkeys(COUNT_KEYS, "")
    french["board.waiting"] = "En attente des joueurs : {count} places sur 7 prises."
    french["board.picking"] = "{done} sur {total} ont choisi."
    assert counts_of_one("fr", french) == [("board.waiting", "places"),
                                           ("board.picking", "ont")]
    italian = dict.fromkeys(COUNT_KEYS, "")
    italian["host.lobby_status"] = "In attesa dei giocatori: {count} posti su 7 occupati."
    assert counts_of_one("it", italian) == [("host.lobby_status", "posti")]
    for lang, text in (("de", "Verbindung zum Tisch verloren. Verbinde neu …"),
                       ("fr", "Table perdue. Reconnexion…"),
                       ("it", "Tavolo perso. Riconnessione…")):
        assert re.search(CONN_LOST_STIFF[lang], text)
