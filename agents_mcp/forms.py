from django import forms
from oauth2_provider.forms import AllowForm

from agents_mcp.oauth import ACTIONS, CATEGORIES, OFF_BY_DEFAULT


class ConsentForm(AllowForm):
    """The authorization form, with what the client asked for as choices the person may narrow."""

    actions = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple,
                                        label="It may")
    categories = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple,
                                           label="With these parts of your memory")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        asked = (self.data.get("scope") if self.is_bound else self.initial.get("scope")) or ""
        asked = asked.split()
        self.fields["actions"].choices = [(s, words) for s, words in ACTIONS.items() if s in asked]
        self.fields["categories"].choices = [(s, words) for s, words in CATEGORIES.items() if s in asked]
        self.fields["actions"].initial = [s for s in ACTIONS if s in asked and s not in OFF_BY_DEFAULT]
        self.fields["categories"].initial = [s for s in CATEGORIES if s in asked]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("allow") and not cleaned.get("actions"):
            raise forms.ValidationError("Choose at least one thing it may do, or deny the request.")
        return cleaned

    def approved(self) -> list[str]:
        return [*self.cleaned_data["actions"], *self.cleaned_data["categories"]]
