"""The figure's message catalogs (web/i18n/<lang>.json, docs/languages.md): every language has exactly
English's messages, with the same placeholders, inline tags and plural forms, so that no word falls
back to English and no number goes missing; a new catalog file is tested here as it is added."""

import json
import re
from collections import Counter

import pytest

from conftest import ROOT

CATALOGS = ROOT / "web" / "i18n"
ENGLISH = json.loads((CATALOGS / "en.json").read_text(encoding="utf-8"))
LANGUAGES = sorted(path.stem for path in CATALOGS.glob("*.json") if path.stem != "en")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
TAG = re.compile(r"</?(?:i|em|code|b|strong|kbd|sub|sup)>")
PLURAL_FORMS = {"zero", "one", "two", "few", "many", "other"}  # Unicode CLDR's plural categories (Intl.PluralRules)


def messages(catalog):
    """The catalog's messages, without its "$" settings ($dir, $locale)."""
    return {key: value for key, value in catalog.items() if not key.startswith("$")}


def forms(message):
    """A message's forms: its one string, or a plural message's strings by CLDR category."""
    return {"": message} if isinstance(message, str) else message


def test_english_is_well_formed():
    for key, message in messages(ENGLISH).items():
        assert re.fullmatch(r"[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+", key), key
        assert isinstance(message, str) or (set(message) <= PLURAL_FORMS and "other" in message and "one" in message), key
        for text in forms(message).values():
            opened = [tag for tag in TAG.findall(text)]
            assert len([t for t in opened if t.startswith("</")]) * 2 == len(opened), (key, text)  # each tag closed


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_catalog_has_exactly_englishs_messages(lang):
    catalog = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    ours = messages(catalog)
    assert sorted(set(messages(ENGLISH)) - set(ours)) == [], "messages missing"
    assert sorted(set(ours) - set(messages(ENGLISH))) == [], "messages English does not have"
    for key, english in messages(ENGLISH).items():
        translated = ours[key]
        assert isinstance(translated, str) == isinstance(english, str), f"{key}: a plural in one and not the other"
        if isinstance(translated, dict):
            assert set(translated) <= PLURAL_FORMS and "other" in translated, key
        english_names = {name for text in forms(english).values() for name in PLACEHOLDER.findall(text)}
        for form, text in forms(translated).items():
            assert text.strip() or not "".join(forms(english).values()).strip(), f"{key} {form}: empty"  # but a separator that English has as a space
            names = set(PLACEHOLDER.findall(text))
            # every form writes the number (French's "one" is 0 and 1: never "un" for both)
            assert names == english_names, f"{key} {form}: placeholders {names} vs {english_names}"
            english_tags = Counter(TAG.findall(next(iter(forms(english).values()))))
            assert Counter(TAG.findall(text)) == english_tags, f"{key} {form}: inline tags"
    assert catalog.get("$dir", "ltr") in ("ltr", "rtl")
