"""What the person's pages and the staff pages do alike with memory: decide on a correction."""

from django.contrib import messages

from memory.models import Correction
from portal.exceptions import ApplicationError, NotFound


def correction_decide(request, *, correction: Correction, decide, done: str) -> Correction:
    """Accept, reject or undo a correction as the signed-in person, saying on the next page what happened."""

    try:
        correction = decide(correction=correction, actor=request.user)
    except NotFound as exc:
        messages.error(request, f"{exc.message} It may have been forgotten since.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return correction
