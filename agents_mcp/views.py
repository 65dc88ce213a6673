import json
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from mcp_types import INVALID_REQUEST
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from oauth2_provider.models import get_application_model
from oauth2_provider.views import (AuthorizationView, DynamicClientRegistrationManagementView,
                                   DynamicClientRegistrationView, RevokeTokenView, TokenView)
from oauth2_provider.www_authenticate import build_bearer_challenge
from rest_framework.exceptions import AuthenticationFailed

from agents_mcp import selectors, services
from agents_mcp.forms import ConsentForm
from agents_mcp.oauth import ACTIONS, DEFAULT, OFF_BY_DEFAULT, client_metadata_refusal, oauth_error
from agents_mcp.server import mcp_respond
from agents_mcp.tools import Caller
from memory.access_state import access_state_pinned
from memory.api.authentication import AgentTokenAuthentication
from portal.exceptions import STORE_FAILURES, store_unavailable

# What a client is told to ask for when it has no token: everything but forgetting.
ASKED = " ".join([*ACTIONS.keys() - set(OFF_BY_DEFAULT), *(s for s in DEFAULT if s not in ACTIONS)])


@csrf_exempt
def mcp_endpoint(request):
    """Streamable HTTP: one JSON-RPC message per POST, answered in JSON; no server-initiated stream (GET)."""
    with access_state_pinned():  # the token, the connection and the tool's operation read one version
        try:
            return _mcp_answer(request)
        except STORE_FAILURES as failure:  # reading the token or the connection; a tool's operation answers its own
            refused = store_unavailable(failure)
            return JsonResponse({"message": refused.message, "extra": refused.extra}, status=refused.status_code,
                                headers={"Retry-After": str(refused.retry_after)})


def _mcp_answer(request):
    if request.method != "POST":
        response = JsonResponse({"message": "Send each JSON-RPC message by POST; there is no server-initiated stream.",
                                 "extra": {}}, status=405)
        response["Allow"] = "POST"
        return response
    try:
        found = AgentTokenAuthentication().authenticate(request)
    except AuthenticationFailed as failure:
        return _unauthorized(request, str(failure.detail), error="invalid_token")
    if found is None:
        return _unauthorized(request, "Connect first: send Authorization: Bearer <token> (the OAuth flow gives one).")
    token = found[1]
    request.auth = token  # counted in the agent's usage, as an API call is
    try:
        body = request.body
    except RequestDataTooBig:
        return JsonResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": INVALID_REQUEST, "message": f"The body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 2**20} "
                                                "MiB; nothing was read."}}, status=413)
    if _id_invalid(body):
        return JsonResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": INVALID_REQUEST, "message": "The id must be a string or an integer."}}, status=400)
    caller = Caller(authorization=request.META["HTTP_AUTHORIZATION"], scopes=tuple(token.agent.scopes),
                    user_id=selectors.connection_person(agent=token.agent), host=request.get_host(),
                    secure=request.is_secure())
    return mcp_respond(request=request, body=body, caller=caller)


def _id_invalid(body: bytes) -> bool:
    """Tell whether the message names an id that is neither a string nor an integer (1e400, 1.5, null): the
    SDK would read it as a notification, answer 202 and never reply."""
    if b'"id"' not in body:
        return False
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False  # the SDK answers the parse error
    if not isinstance(message, dict) or "id" not in message:
        return False
    return isinstance(message["id"], bool) or not isinstance(message["id"], (str, int))


def _unauthorized(request, message: str, error: str | None = None) -> JsonResponse:
    """401 with the challenge that starts an MCP client's authorization flow (RFC 9728)."""
    response = JsonResponse({"message": message, "extra": {}}, status=401)
    challenge = {"error": error, "error_description": message} if error else {}
    response["WWW-Authenticate"] = build_bearer_challenge(request, {**challenge, "scope": ASKED}, resource_metadata_url=(
        request.build_absolute_uri(reverse("oauth2_provider:oauth-resource-metadata-path",
                                           kwargs={"resource_path": request.path.lstrip("/")}))))
    return response


class ConsentView(AuthorizationView):
    """The authorization endpoint's page: the signed-in person sees what the client asks for, in plain words,
    narrows it, and allows or denies; allowing connects the client as an agent of theirs."""

    template_name = "agents_mcp/consent.html"
    form_class = ConsentForm

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        return {**context, "title": "Connect a client to your memory",
                "return_to": urlsplit(context["form"]["redirect_uri"].value() or "").netloc}

    def render_to_response(self, context, **kwargs):
        """The page's form may send the browser on to the client's registered redirect URI (checked by the
        authorization server before the page renders), so its policy lets a form go there and nowhere else."""
        response = super().render_to_response(context, **kwargs)
        form = context.get("form")
        target = urlsplit(form["redirect_uri"].value() or "") if form is not None else None
        if target and target.scheme:
            response._csp_update = {"form-action": [f"{target.scheme}://{target.netloc}" if target.netloc
                                                    else f"{target.scheme}:"]}
        return response

    def get(self, request, *args, **kwargs):
        # "auto" skips the page when an unexpired token covers the scopes; a client the person revoked since (its
        # tokens may still be unexpired) must ask them again.
        if request.GET.get("approval_prompt") == "auto":
            application = get_application_model().objects.filter(client_id=request.GET.get("client_id")).first()
            if application and not selectors.connection_granted(application=application, user=request.user):
                request.GET = request.GET.copy()
                request.GET["approval_prompt"] = "force"
        return super().get(request, *args, **kwargs)

    def form_valid(self, form):
        if form.cleaned_data.get("allow"):
            application = get_application_model().objects.get(client_id=form.cleaned_data["client_id"])
            services.connection_approve(application=application, user=self.request.user, scopes=form.approved())
            form.cleaned_data["scope"] = " ".join(form.approved())
        return super().form_valid(form)

    def form_invalid(self, form):
        self.oauth2_data = {"application": get_application_model().objects.filter(
            client_id=form.data.get("client_id")).first()}
        return super().form_invalid(form)


class OAuthJsonAnswers:
    """The endpoints an OAuth client reads JSON from answer what django-oauth-toolkit would not refuse itself in
    OAuth's error shape, never as a page: a value holding NUL, a method the endpoint does not answer, a store that
    does not answer (temporarily_unavailable, with Retry-After)."""

    @classmethod
    def as_view(cls, **initkwargs):
        # Called by clients, with no cookies: django-oauth-toolkit exempts its views from CSRF on the dispatch this
        # mixin overrides.
        return csrf_exempt(super().as_view(**initkwargs))

    def dispatch(self, request, *args, **kwargs):
        try:
            return super().dispatch(request, *args, **kwargs)
        except STORE_FAILURES as failure:
            refused = store_unavailable(failure)
            return oauth_error("temporarily_unavailable", refused.message, status=refused.status_code,
                               headers={"Retry-After": str(refused.retry_after)})

    @classmethod
    def nul_refusal(cls):
        return oauth_error("invalid_request", "A value holds a NUL character, which cannot be stored.")

    def http_method_not_allowed(self, request, *args, **kwargs):
        allowed = self._allowed_methods()
        response = oauth_error("invalid_request", f"Use {' or '.join(m for m in allowed if m != 'OPTIONS')} at this "
                                                  "endpoint.", status=405)
        response["Allow"] = ", ".join(allowed)
        return response


class PortalTokenView(OAuthJsonAnswers, TokenView):
    pass


class PortalRevokeTokenView(OAuthJsonAnswers, RevokeTokenView):
    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        # Revoked (or never valid, RFC 7009 says the same): 200 with nothing to read, said as JSON like every answer.
        return JsonResponse({}) if response.status_code == 200 and not response.content else response


class ClientMetadataChecked(OAuthJsonAnswers):
    """Registration (RFC 7591) and its updates (RFC 7592) refuse grant and response types the server's metadata
    does not offer, which django-oauth-toolkit would register."""

    def dispatch(self, request, *args, **kwargs):
        if request.method in ("POST", "PUT"):
            try:
                refusal = client_metadata_refusal(json.loads(request.body))
            except (ValueError, RecursionError):
                refusal = None  # django-oauth-toolkit answers the malformed body
            if refusal:
                return oauth_error("invalid_client_metadata", refusal)
        return super().dispatch(request, *args, **kwargs)


class ClientRegistrationView(ClientMetadataChecked, DynamicClientRegistrationView):
    pass


class ClientRegistrationManagementView(ClientMetadataChecked, DynamicClientRegistrationManagementView):
    pass
