"""The correction form, one for the person's pages and the reviewers' (their apps import memory, not each other)."""

from django import forms

from memory.graph import ENTITY_TYPES
from memory.kinds import ENTITIES, FACTS, PREFERENCES
from memory.wording import PERSON, entity_type_label, field_label, predicate_words


def _date(value):
    """Return the date part of a stored valid time (a date, or a moment), for a date input."""
    return value.date() if hasattr(value, "date") and callable(value.date) else value


class CorrectionForm(forms.Form):
    """The fields of one item a correction may set, filled with what is stored; `changes()` is what differs."""

    reason = forms.CharField(max_length=500, required=False, label="Why (optional)")

    def __init__(self, *args, kind: str, item: dict, person: str = "you", **kwargs):
        """`person` names whom the facts are about: "you" on the person's own page, "the person" on staff pages."""
        super().__init__(*args, **kwargs)
        self.kind, self.item = kind, item
        fields = {}
        if kind == FACTS.name:
            yours = item["subject"] == PERSON
            subject = person.capitalize() if yours else item["subject"]
            fields["object"] = forms.CharField(
                max_length=500, initial=item["object"],
                label=f"{subject} {predicate_words(item['predicate'], you=yours and person == 'you')}")
            fields["valid_from"] = forms.DateField(required=False, initial=_date(item.get("valid_from")),
                                                   label=field_label("valid_from"),
                                                   widget=forms.DateInput(attrs={"type": "date"}),
                                                   help_text="When it became true.")
            fields["valid_until"] = forms.DateField(required=False, initial=_date(item.get("valid_until")),
                                                    label=field_label("valid_until"),
                                                    widget=forms.DateInput(attrs={"type": "date"}),
                                                    help_text="When it stopped being true; empty if it still is.")
        elif kind == PREFERENCES.name:
            fields["preference"] = forms.CharField(max_length=500, initial=item["preference"])
            fields["category"] = forms.CharField(max_length=64, initial=item["category"])
        elif kind == ENTITIES.name:
            fields["name"] = forms.CharField(max_length=200, initial=item["name"])
            fields["type"] = forms.ChoiceField(choices=[(t, entity_type_label(t).capitalize()) for t in ENTITY_TYPES],
                                               initial=item["type"], label="What it is")
            fields["aliases"] = forms.CharField(max_length=2000, required=False, label=field_label("aliases"),
                                                initial=", ".join(item.get("aliases") or []),
                                                help_text="Comma-separated; all of them.")
        self.fields = {**fields, **self.fields}

    def clean_aliases(self):
        return sorted({alias.strip() for alias in self.cleaned_data["aliases"].split(",") if alias.strip()})

    def changes(self) -> dict:
        """Return the corrected fields whose value differs from the stored one."""
        stored = {**self.item, "aliases": sorted(self.item.get("aliases") or []),
                  "valid_from": _date(self.item.get("valid_from")), "valid_until": _date(self.item.get("valid_until"))}
        return {name: value for name, value in self.cleaned_data.items()
                if name != "reason" and value not in (None, "") and value != stored.get(name)}
