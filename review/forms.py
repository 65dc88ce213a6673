from django import forms

from memory.graph import ENTITY_TYPES
from memory.models import SCOPES, Agent
from memory.wording import SCOPE_LABELS
from review.selectors import AGES, SCORE_BANDS


class MergeFilterForm(forms.Form):
    user = forms.CharField(required=False, label="User (id or email)", max_length=254)
    type = forms.ChoiceField(required=False, choices=[("", "any type"), *[(t, t) for t in ENTITY_TYPES]])
    band = forms.ChoiceField(required=False, label="Score band",
                             choices=[("", "any score"), *[(b, f"{b} ({lo or 0}–{hi or 1})")
                                                           for b, (lo, hi) in SCORE_BANDS.items()]])
    age = forms.ChoiceField(required=False, choices=[("", "any age"), *[(a, a.replace("-", " ")) for a in AGES]])


class TraceFilterForm(forms.Form):
    user = forms.CharField(required=False, label="User (id or email)", max_length=254)
    agent = forms.CharField(required=False, max_length=64)
    session = forms.CharField(required=False, max_length=128)
    outcome = forms.ChoiceField(required=False, choices=[("", "any outcome"), ("success", "success"),
                                                         ("failure", "failure"), ("open", "not completed")])
    since = forms.DateTimeField(required=False)
    until = forms.DateTimeField(required=False)


class AuditFilterForm(forms.Form):
    action = forms.CharField(required=False, max_length=100, help_text="Prefix, e.g. merge. or token.revoke")
    actor = forms.CharField(required=False, max_length=254)
    user = forms.CharField(required=False, label="User (id or email)", max_length=254)
    since = forms.DateTimeField(required=False)
    until = forms.DateTimeField(required=False)


class AsOfForm(forms.Form):
    as_of = forms.DateTimeField(label="As of", help_text="YYYY-MM-DD HH:MM, in UTC")


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000)


class AgentForm(forms.ModelForm):
    """An agent as staff edit it: what it may do ticked in words, not typed as a list of keys."""

    scopes = forms.MultipleChoiceField(label="It may", required=False, widget=forms.CheckboxSelectMultiple,
                                       choices=[(scope, SCOPE_LABELS[scope]) for scope in SCOPES])

    class Meta:
        model = Agent
        fields = ("agent_id", "name", "scopes", "rate_limit_per_minute", "untrusted_writes", "is_active")
        labels = {"rate_limit_per_minute": "Calls a minute, at most", "untrusted_writes": "What its tools may add",
                  "is_active": "Active"}


class TokenIssueForm(forms.Form):
    name = forms.CharField(required=False, max_length=120)
    expires_at = forms.DateTimeField(required=False, help_text="Empty: never expires")
