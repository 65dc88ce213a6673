"""The day a sentence says something happened: absolute dates in the usual English forms, and dates
relative to the day the message was written ("last Saturday", "two weeks ago").

Each form is a pattern with a resolver; the earliest date in the sentence wins, the longest form at
one position first (a leading "in" or "since" does not count as part of the date). A form without a
year, or a relative one, needs the reference date.
"""

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from memory.extraction import english

# "May" is a month only when capitalised ("we may go" is not); "March" likewise ("we march on").
_MONTH_NAMES = sorted(english.MONTHS, key=len, reverse=True)
_CASE_SENSITIVE_MONTHS = {"may", "mar", "march", "jan", "sep", "dec", "jun", "jul", "aug", "oct", "nov", "feb", "apr"}
MONTH = "(?P<month>" + "|".join(
    [m.capitalize() for m in _MONTH_NAMES] + [m for m in _MONTH_NAMES if m not in _CASE_SENSITIVE_MONTHS]
) + r")\.?"
DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
YEAR = r"(?P<year>(?:19|20)\d{2})"
WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
UNIT = r"(?P<unit>day|week|month|year)s?"
AMOUNT = r"(?P<amount>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of)"
AMOUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2}
WEEKDAY_NUMBERS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
# Days before the reference date that a word names.
DAYS_BACK = {"today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
             "yesterday": 1, "last night": 1, "the day before yesterday": 2, "tomorrow": -1}


@dataclass(frozen=True)
class DateForm:
    pattern: re.Pattern
    resolve: Callable[[dict, date | None], date | None]


def _day(year: int, month: int, day: int) -> date | None:
    if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
        return None
    return date(year, month, day)


def _month(groups: dict) -> int:
    return english.MONTHS[groups["month"].lower()]


def _absolute(groups: dict, reference: date | None) -> date | None:
    return _day(int(groups["year"]), _month(groups), int(groups.get("day") or 1))


def _without_year(groups: dict, reference: date | None) -> date | None:
    """Resolve "3 March" to the latest such day on or before the reference date."""
    if reference is None:
        return None
    month, day = _month(groups), int(groups.get("day") or 1)
    year = reference.year if (month, day) <= (reference.month, reference.day) else reference.year - 1
    return _day(year, month, min(day, calendar.monthrange(year, month)[1]))


def _iso(groups: dict, reference: date | None) -> date | None:
    return _day(int(groups["year"]), int(groups["iso_month"]), int(groups["day"]))


def _year_only(groups: dict, reference: date | None) -> date | None:
    return date(int(groups["year"]), 1, 1)


def _shifted(reference: date, amount: int, unit: str) -> date:
    if unit == "day":
        return reference - timedelta(days=amount)
    if unit == "week":
        return reference - timedelta(weeks=amount)
    months = reference.year * 12 + reference.month - 1 - (amount * 12 if unit == "year" else amount)
    year, month = divmod(months, 12)
    return date(year, month + 1, min(reference.day, calendar.monthrange(year, month + 1)[1]))


def _ago(groups: dict, reference: date | None) -> date | None:
    amount = groups["amount"].lower()
    count = int(amount) if amount.isdigit() else AMOUNTS[amount]
    return _shifted(reference, count, groups["unit"].lower()) if reference else None


def _last_unit(groups: dict, reference: date | None) -> date | None:
    return _shifted(reference, 1, groups["unit"].lower()) if reference else None


def _next_unit(groups: dict, reference: date | None) -> date | None:
    return _shifted(reference, -1, groups["unit"].lower()) if reference else None


def _coming(groups: dict, reference: date | None) -> date | None:
    """Resolve "in two weeks" to the day that far after the reference date."""
    amount = groups["amount"].lower()
    count = int(amount) if amount.isdigit() else AMOUNTS[amount]
    return _shifted(reference, -count, groups["unit"].lower()) if reference else None


def _last_weekend(groups: dict, reference: date | None) -> date | None:
    """Resolve "last weekend" to the Saturday of the weekend before the reference date's week."""
    if reference is None:
        return None
    return reference - timedelta(days=reference.weekday() + 2)


def _last_weekday(groups: dict, reference: date | None) -> date | None:
    """Resolve "last Saturday" to the latest Saturday before the reference date."""
    if reference is None:
        return None
    back = (reference.weekday() - WEEKDAY_NUMBERS[groups["weekday"].lower()] - 1) % 7 + 1
    return reference - timedelta(days=back)


def _next_weekday(groups: dict, reference: date | None) -> date | None:
    if reference is None:
        return None
    ahead = (WEEKDAY_NUMBERS[groups["weekday"].lower()] - reference.weekday() - 1) % 7 + 1
    return reference + timedelta(days=ahead)


def _named_day(groups: dict, reference: date | None) -> date | None:
    return reference - timedelta(days=DAYS_BACK[re.sub(r"\s+", " ", groups["named"].lower())]) if reference else None


def _form(pattern: str, resolve, flags=0) -> DateForm:
    return DateForm(re.compile(pattern, flags), resolve)


NAMED_DAY = "(?P<named>" + "|".join(sorted(DAYS_BACK, key=len, reverse=True)).replace(" ", r"\s+") + ")"
# Longer, more specific forms first: at one position the first form listed that matches wins.
DATE_FORMS = [
    _form(r"\b(?P<year>\d{4})-(?P<iso_month>\d{2})-(?P<day>\d{2})\b", _iso),
    _form(rf"\b{DAY}(?:\s+of)?\s+{MONTH},?\s+{YEAR}\b", _absolute),
    _form(rf"\b{MONTH}\s+{DAY},?\s+{YEAR}\b", _absolute),
    _form(rf"\b{MONTH},?\s+{YEAR}\b", _absolute),
    _form(rf"\b{DAY}(?:\s+of)?\s+{MONTH}\b", _without_year),
    _form(rf"\b{MONTH}\s+{DAY}\b(?![:.]?\d)", _without_year),
    _form(rf"(?i:\b(?:in|since|from|until|by|early|late|mid|last)\s+){MONTH}\b", _without_year),
    _form(rf"(?i:\b(?:in|since|from|until|by)\s+){YEAR}\b", _year_only),
    _form(rf"\b{AMOUNT}\s+{UNIT}\s+ago\b", _ago, re.IGNORECASE),
    _form(rf"\blast\s+{WEEKDAY}\b", _last_weekday, re.IGNORECASE),
    _form(rf"\bnext\s+{WEEKDAY}\b", _next_weekday, re.IGNORECASE),
    _form(r"\b(?P<named_weekend>last\s+weekend)\b", _last_weekend, re.IGNORECASE),
    _form(rf"\blast\s+{UNIT}\b", _last_unit, re.IGNORECASE),
    _form(rf"\bnext\s+{UNIT}\b", _next_unit, re.IGNORECASE),
    _form(rf"\bin\s+{AMOUNT}\s+{UNIT}\b", _coming, re.IGNORECASE),
    _form(rf"\b{NAMED_DAY}\b", _named_day, re.IGNORECASE),
]


def stated_date(text: str, *, reference_date: date | None) -> date | None:
    """Return the first day `text` names, relative forms resolved against `reference_date`."""
    found = []
    for order, form in enumerate(DATE_FORMS):
        for match in form.pattern.finditer(text):
            start = min(match.start(g) for g, v in match.groupdict().items() if v is not None)
            found.append((start, start - match.end(), order, match, form))
    for *_, match, form in sorted(found, key=lambda item: item[:3]):
        day = form.resolve({k: v for k, v in match.groupdict().items() if v is not None}, reference_date)
        if day is not None:
            return day
    return None
