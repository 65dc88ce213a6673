"""The form that checks an erasure receipt someone kept."""

import json

from django import forms

from governance import receipts

# A receipt lists its checks place by place: a few kilobytes, far below this.
RECEIPT_MAX_BYTES = 1_000_000


class ReceiptVerifyForm(forms.Form):
    """A receipt, as the file it was downloaded in or pasted as its text."""

    file = forms.FileField(required=False, label="The receipt's file")
    text = forms.CharField(required=False, max_length=RECEIPT_MAX_BYTES, label="Or its text",
                           widget=forms.Textarea(attrs={"rows": 8, "cols": 60}))

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload is not None and upload.size > RECEIPT_MAX_BYTES:
            raise forms.ValidationError("That file is too large to be a receipt.")
        raw = upload.read() if upload is not None else (data.get("text") or "").encode()
        if not raw.strip():
            raise forms.ValidationError("Choose the receipt's file or paste its text.")
        try:
            data["document"] = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise forms.ValidationError("That is not a receipt: it is not the JSON file the portal gives.")
        if not isinstance(data["document"], dict) or "receipt" not in data["document"]:
            raise forms.ValidationError("That is not a receipt: it has no receipt in it.")
        return data

    def verdict(self) -> bool:
        return receipts.receipt_verify(self.cleaned_data["document"])
