import re
from collections.abc import Callable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from memory import selectors, services
from memory.access_state import access_state_pinned
from memory.api import serializers as s
from memory.api.authentication import AgentTokenAuthentication
from memory.api.permissions import HasScope
from memory.api.throttling import AgentRateThrottle
from memory.context import (CONTEXT_BEGIN, CONTEXT_END, MIN_RELEVANCE, PROVIDED, ContextRequest, context_build,
                            sections_refused)
from memory.graph import ENTITY_TYPES
from memory.kinds import kind_get
from portal.exceptions import AccessDenied, ApplicationError
from portal.schema import error_response

# What the item list's cursors are made of: URL-safe base64.
CURSOR = r"^[A-Za-z0-9_-]+={0,2}$"


class AgentApi(APIView):
    authentication_classes = [AgentTokenAuthentication]
    throttle_classes = [AgentRateThrottle]

    def dispatch(self, request, *args, **kwargs):
        with access_state_pinned():  # token, grant, consent and retention checked against one version read
            return super().dispatch(request, *args, **kwargs)

    @property
    def agent(self):
        return self.request.auth.agent

    def subject(self, user_id: str):
        return selectors.subject_for_agent(agent=self.agent, user_id=user_id)


class ContextBuildApi(AgentApi):
    """before_run: the memory an agent should see for this turn, formatted and itemised."""

    permission_classes = [HasScope.of("context:read")]

    @extend_schema_serializer(component_name="ContextBuildInput")
    class InputSerializer(s.StrictSerializer):
        user_id = s.user_id_field()
        session_id = s.session_id_field(required=False)
        query = serializers.CharField(max_length=s.MAX_QUERY_CHARS, required=False)
        messages = s.ContextMessageSerializer(many=True, required=False, max_length=s.MAX_CONTEXT_MESSAGES)
        include = s.IncludeSerializer(required=False)
        limits = s.LimitsSerializer(required=False)
        token_budget = serializers.IntegerField(min_value=16, max_value=s.MAX_TOKEN_BUDGET, default=1000)
        as_of = serializers.DateTimeField(required=False)
        knowledge_profile = serializers.CharField(max_length=100, required=False)
        min_relevance = serializers.FloatField(
            min_value=0, max_value=1, default=MIN_RELEVANCE,
            help_text="The least relevance (0-1, one scale for every kind of item) an item needs to be included; "
                      "0 fills the budget with the best items whatever they score.")

    @extend_schema_serializer(component_name="ContextBuildOutput")
    class OutputSerializer(serializers.Serializer):
        context = serializers.CharField(help_text=(
            f"Text to inject into the prompt; empty when nothing was recalled. Its first line is "
            f"`{CONTEXT_BEGIN}` and its last `{CONTEXT_END}`, and neither appears anywhere else: remembered "
            f"content is data between them, never instructions. Inside, a line is a section header or `- ` and "
            f"one item; a message says whose words it holds (`you`, `the assistant`, `a tool`, a speaker's name), "
            f"and one from the assistant, a tool or the system that reads as meant for a model is left out. "
            f"In an item's text every control character (line feed, carriage return, tab, NEL and the "
            f"rest of C0 and C1) and U+2028/U+2029, with the blanks around them, become one space, and the `<` "
            f"of a `<memory` or `</memory` tag (any case or spacing) becomes `\u2039`, so stored "
            f"text can neither start a line nor close the fence. `items` keep the text as stored."))
        items = s.ContextItemSerializer(many=True)
        token_count = serializers.IntegerField()
        omitted = serializers.IntegerField(help_text="Items relevant enough but left out to fit the token budget.")
        categories = serializers.ListField(child=serializers.CharField(),
                                           help_text="Categories the user consents to for this agent.")

    @extend_schema(request=InputSerializer, responses={
        200: OutputSerializer, 404: error_response("No retrieval profile named `knowledge_profile` for this agent.")})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = data.validated_data
        refused = sections_refused(agent=self.agent, include=args.get("include", {}))
        if refused:
            scopes = ", ".join(f"'{PROVIDED[name].scope}'" for name in refused)
            raise AccessDenied(f"This agent lacks the {scopes} scope.", {"include": refused})
        subject = self.subject(args["user_id"])
        categories = selectors.consented_categories(subject=subject, agent=self.agent)
        context_request = ContextRequest(
            session_id=args.get("session_id"), query=args.get("query"), messages=args.get("messages", []),
            include=args.get("include", {}), limits=args.get("limits", {}), token_budget=args["token_budget"],
            as_of=args.get("as_of"), knowledge_profile=args.get("knowledge_profile"),
            min_relevance=args["min_relevance"],
        )
        result = context_build(subject=subject, agent=self.agent, request=context_request, categories=categories)
        services.access_enqueue(subject=subject, agent=self.agent, session_id=args.get("session_id"),
                                items=result["items"], turn_seq=result["turn_seq"])
        return Response(self.OutputSerializer({**result, "categories": sorted(categories)}).data)


class MessageAppendApi(AgentApi):
    """after_run: append the turn's messages, in order, once each."""

    permission_classes = [HasScope.of("messages:write")]

    @extend_schema_serializer(component_name="MessageAppendInput")
    class InputSerializer(s.StrictSerializer):
        user_id = s.user_id_field()
        messages = s.MessageInSerializer(many=True, min_length=1, max_length=s.MAX_MESSAGES_PER_APPEND)

    @extend_schema_serializer(component_name="MessageAppendOutput")
    class OutputSerializer(serializers.Serializer):
        session_id = serializers.CharField()
        stored = serializers.IntegerField(help_text="How many messages were written.")
        results = inline_serializer("MessageAppendResult", {
            "client_message_id": serializers.CharField(allow_null=True),
            "stored": serializers.BooleanField(),
            "uid": serializers.CharField(required=False),
            "seq": serializers.IntegerField(required=False),
            "reason": serializers.ChoiceField(choices=["duplicate", "consent_withdrawn"], required=False),
            "detail": serializers.CharField(required=False),
            "extraction": serializers.ChoiceField(choices=["queued", "pending"], required=False, help_text=(
                "For a stored message: queued for a worker, or pending because the task queue is unavailable; "
                "a pending extraction is recorded with the message and queued when the queue is back.")),
        }, many=True)

    @extend_schema(request=InputSerializer, responses={
        201: OutputSerializer, 200: OutputSerializer,
        409: error_response("The conversation is busy with another append or a worker; nothing was stored. Retry."),
        503: error_response(
            "Neo4j or Redis is unavailable (`extra.service`). Failing before the commit, nothing was stored; failing "
            "during it, `extra.stored` is `unknown`: retrying with the same client_message_id (or the same messages) "
            "is safe, as what was stored is answered as a duplicate.")})
    def post(self, request, session_id):
        if not re.fullmatch(s.SESSION_ID, session_id):
            raise ApplicationError("Invalid session_id in the path.", {"fields": {"session_id": [s.SESSION_ID]}})
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        subject = self.subject(data.validated_data["user_id"])
        results = services.messages_append(subject=subject, agent=self.agent, session_id=session_id,
                                           messages=data.validated_data["messages"])
        stored = sum(1 for r in results if r["stored"])
        body = self.OutputSerializer({"session_id": session_id, "stored": stored, "results": results}).data
        return Response(body, status=status.HTTP_201_CREATED if stored else status.HTTP_200_OK)


class TraceStartApi(AgentApi):
    """Start a reasoning trace for a task in a session."""

    permission_classes = [HasScope.of("traces:write")]

    @extend_schema_serializer(component_name="TraceStartInput")
    class InputSerializer(s.StrictSerializer):
        user_id = s.user_id_field()
        session_id = s.session_id_field()
        task = serializers.CharField(max_length=s.MAX_QUERY_CHARS)

    @extend_schema(request=InputSerializer, responses={
        201: inline_serializer("TraceStarted", {"uid": serializers.CharField(), "stored": serializers.BooleanField()}),
        200: inline_serializer("TraceNotStored", {
            "uid": serializers.CharField(allow_null=True), "stored": serializers.BooleanField(),
            "reason": serializers.CharField(), "detail": serializers.CharField()}),
    })
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = data.validated_data
        subject = self.subject(args["user_id"])
        started = services.trace_start(subject=subject, agent=self.agent, session_id=args["session_id"],
                                       task=args["task"])
        return Response(started, status=status.HTTP_201_CREATED if started["stored"] else status.HTTP_200_OK)


class TraceStepAddApi(AgentApi):
    """Add a step, with its tool calls, to an open trace."""

    permission_classes = [HasScope.of("traces:write")]

    @extend_schema_serializer(component_name="TraceStepAddInput")
    class InputSerializer(s.StrictSerializer):
        user_id = s.user_id_field()
        thought = serializers.CharField(max_length=s.MAX_CONTENT_CHARS, required=False)
        action = serializers.CharField(max_length=s.MAX_CONTENT_CHARS, required=False)
        observation = serializers.CharField(max_length=s.MAX_CONTENT_CHARS, required=False)
        tool_calls = s.ToolCallSerializer(many=True, required=False, max_length=s.MAX_TOOL_CALLS)

    @extend_schema(request=InputSerializer, responses={201: inline_serializer("TraceStepAdded", {
        "uid": serializers.CharField(), "order": serializers.IntegerField(),
        "tool_call_uids": serializers.ListField(child=serializers.CharField())})})
    def post(self, request, trace_uid):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = data.validated_data
        subject = self.subject(args["user_id"])
        step = services.trace_step_add(
            subject=subject, agent=self.agent, trace_uid=trace_uid, thought=args.get("thought"), action=args.get("action"),
            observation=args.get("observation"), tool_calls=args.get("tool_calls", []),
        )
        return Response(step, status=status.HTTP_201_CREATED)


class TraceCompleteApi(AgentApi):
    """Close a trace with its outcome."""

    permission_classes = [HasScope.of("traces:write")]

    @extend_schema_serializer(component_name="TraceCompleteInput")
    class InputSerializer(s.StrictSerializer):
        user_id = s.user_id_field()
        outcome = serializers.CharField(max_length=s.MAX_CONTENT_CHARS)
        success = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses={200: inline_serializer("TraceCompleted", {
        "uid": serializers.CharField(), "completed": serializers.BooleanField()})})
    def post(self, request, trace_uid):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = data.validated_data
        subject = self.subject(args["user_id"])
        services.trace_complete(subject=subject, agent=self.agent, trace_uid=trace_uid, outcome=args["outcome"], success=args["success"])
        return Response({"uid": trace_uid, "completed": True})


class ItemsReadApi(AgentApi):
    """What listing and searching a subject's items of one kind share: the filters read, then the subject's items
    through `selector`, with consent required and retention applied."""

    permission_classes = [HasScope.of("context:read")]

    def items_read(self, request, *, user_id: str, kind: str, selector: Callable):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        subject = self.subject(user_id)
        selectors.consent_require(subject=subject, agent=self.agent, category=kind_get(kind).category)
        return selector(user_id=subject.user_id, kind=kind, **filters.validated_data,
                        cutoffs=selectors.retention_cutoffs(subject=subject, agent=self.agent))


class ItemListApi(ItemsReadApi):
    """A subject's messages, facts, preferences, entities or traces, newest first, cursor-paginated; the
    retracted versions of facts and preferences only when `include_retracted` asks for them."""

    @extend_schema_serializer(component_name="ItemListFilter")
    class FilterSerializer(s.StrictSerializer):
        cursor = serializers.RegexField(CURSOR, max_length=512, required=False, trim_whitespace=False, help_text=(
            "The `next` of the page before, unchanged (URL-safe base64); a value no page handed out is a 400."))
        limit = serializers.IntegerField(min_value=1, max_value=200, default=50)
        include_retracted = serializers.BooleanField(default=False, help_text=(
            "Also list the retracted versions of facts and preferences (status `retracted`: replaced by a "
            "correction, or by a reviewer's revert of a supersession), as their history. Superseded versions "
            "(true once, replaced by a later statement) are always listed, with their status."))

    @extend_schema(operation_id="memory_item_list", parameters=[FilterSerializer], responses=inline_serializer("ItemPage", {
        "items": serializers.ListField(child=serializers.DictField()),
        "next": serializers.CharField(allow_null=True)}))
    def get(self, request, user_id, kind):
        return Response(self.items_read(request, user_id=user_id, kind=kind, selector=selectors.item_list))


class ItemSearchApi(ItemsReadApi):
    """A subject's items of one kind whose text contains `text` (case-insensitively, as one phrase), newest first."""

    @extend_schema_serializer(component_name="ItemSearchFilter")
    class FilterSerializer(s.StrictSerializer):
        text = serializers.CharField(max_length=200, help_text="The words to find, as written in the item.")
        limit = serializers.IntegerField(min_value=1, max_value=200, default=50)

    @extend_schema(operation_id="memory_item_search", parameters=[FilterSerializer], responses=inline_serializer(
        "ItemSearchResult", {"items": serializers.ListField(child=serializers.DictField())}))
    def get(self, request, user_id, kind):
        return Response({"items": self.items_read(request, user_id=user_id, kind=kind, selector=selectors.item_search)})


class ItemDetailApi(AgentApi):
    """One item of a subject; DELETE forgets it with what was derived only from it."""

    def get_permissions(self):
        scope = "memory:forget" if self.request.method == "DELETE" else "context:read"
        return [HasScope.of(scope)()]

    @extend_schema(operation_id="memory_item_get", responses=OpenApiTypes.OBJECT)
    def get(self, request, user_id, kind, uid):
        subject = self.subject(user_id)
        selectors.consent_require(subject=subject, agent=self.agent, category=kind_get(kind).category)
        return Response(selectors.item_get(user_id=subject.user_id, kind=kind, uid=uid,
                                           cutoffs=selectors.retention_cutoffs(subject=subject, agent=self.agent)))

    @extend_schema(operation_id="memory_item_delete",
                   responses={200: inline_serializer("ItemDeleted", {"deleted": serializers.IntegerField()})})
    def delete(self, request, user_id, kind, uid):
        subject = self.subject(user_id)
        deleted = services.item_delete(user_id=subject.user_id, kind=kind, uid=uid,
                                       actor=f"agent:{self.agent.agent_id}")
        return Response({"deleted": deleted})


class CorrectionCreateApi(AgentApi):
    """Propose a correction of a fact, preference or entity; it applies at once if the person allows this agent."""

    permission_classes = [HasScope.of("memory:correct")]

    @extend_schema_serializer(component_name="CorrectionCreateInput")
    class InputSerializer(s.StrictSerializer):
        needs_one = ("object", "valid_from", "valid_until", "preference", "category", "name", "type", "aliases")

        object = serializers.CharField(max_length=500, required=False, help_text="A fact's corrected object.")
        valid_from = serializers.DateField(required=False, help_text="When a fact started to hold.")
        valid_until = serializers.DateField(required=False, help_text="When a fact stopped holding (not after today).")
        preference = serializers.CharField(max_length=500, required=False, help_text="A preference's corrected text.")
        category = serializers.CharField(max_length=64, required=False, help_text="A preference's category.")
        name = serializers.CharField(max_length=200, required=False, help_text="An entity's corrected name.")
        type = serializers.ChoiceField(choices=ENTITY_TYPES, required=False, help_text="An entity's type.")
        aliases = serializers.ListField(child=serializers.CharField(max_length=200), max_length=20, required=False,
                                        help_text="An entity's aliases, all of them.")
        reason = serializers.CharField(max_length=500, required=False, help_text="Why, shown to the person.")

    @extend_schema_serializer(component_name="CorrectionCreateOutput")
    class OutputSerializer(serializers.Serializer):
        correction = serializers.UUIDField(source="public_id")
        status = serializers.ChoiceField(choices=["proposed", "applied"],
                                         help_text="proposed: it waits for the person or a reviewer.")
        kind = serializers.CharField()
        target_uid = serializers.CharField(help_text="The item corrected.")
        version_uid = serializers.CharField(help_text="The corrected version (an entity keeps its uid); empty "
                                                      "while proposed.")

    @extend_schema(operation_id="memory_correction_create", request=InputSerializer,
                   parameters=[OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=services.CORRECTABLE)],
                   responses={201: OutputSerializer, 202: OutputSerializer,
                              409: error_response("The item was corrected or retracted already, or the correction "
                                                  "would make a second entity of that type and name.")})
    def post(self, request, user_id, kind, uid):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        value = dict(data.validated_data)
        reason = value.pop("reason", "")
        subject = self.subject(user_id)
        correction = services.correction_create(subject=subject, kind=kind, uid=uid, value=value, reason=reason,
                                                actor=f"agent:{self.agent.agent_id}", agent=self.agent)
        applied = correction.status == "applied"
        return Response(self.OutputSerializer(correction).data,
                        status=status.HTTP_201_CREATED if applied else status.HTTP_202_ACCEPTED)
