from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from knowledge.api.serializers import KnowledgeItemSerializer
from knowledge.selectors import knowledge_query_text, knowledge_search, retrieval_profile_get_for_agent
from memory.api import serializers as memory_serializers
from memory.api.authentication import AgentTokenAuthentication
from memory.api.permissions import HasScope
from memory.api.throttling import AgentRateThrottle
from portal.schema import error_response


class KnowledgeSearchApi(APIView):
    """Search the curated knowledge graph through a retrieval profile the agent is allowed to use."""

    authentication_classes = [AgentTokenAuthentication]
    permission_classes = [HasScope.of("knowledge:read")]
    throttle_classes = [AgentRateThrottle]

    @extend_schema_serializer(component_name="KnowledgeSearchInput")
    class InputSerializer(memory_serializers.StrictSerializer):
        exclusive = (("query", "messages"),)

        profile = serializers.SlugField(max_length=100, trim_whitespace=False)
        query = serializers.CharField(max_length=memory_serializers.MAX_QUERY_CHARS, required=False)
        messages = memory_serializers.ContextMessageSerializer(
            many=True, required=False, max_length=memory_serializers.MAX_CONTEXT_MESSAGES,
            help_text="Used when there is no query: the profile's last user/assistant messages make it.",
        )
        top_k = serializers.IntegerField(min_value=1, max_value=100, required=False)

    @extend_schema_serializer(component_name="KnowledgeSearchOutput")
    class OutputSerializer(serializers.Serializer):
        profile = serializers.CharField()
        query = serializers.CharField(help_text="The text that was searched for.")
        items = KnowledgeItemSerializer(many=True, help_text="None when the request holds no text to search for.")

    @extend_schema(request=InputSerializer, responses={
        200: OutputSerializer, 404: error_response("No retrieval profile of that name that this agent may use.")})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        args = data.validated_data
        profile = retrieval_profile_get_for_agent(agent=request.auth.agent, name=args["profile"])
        query = knowledge_query_text(query=args.get("query"), messages=args.get("messages", []),
                                     window=profile.message_window)
        items = knowledge_search(profile=profile, query=query, top_k=args.get("top_k")) if query.strip() else []
        return Response(self.OutputSerializer({"profile": profile.name, "query": query, "items": items}).data)
