from rest_framework import serializers


class KnowledgeItemSerializer(serializers.Serializer):
    score = serializers.FloatField()
    text = serializers.CharField()
    uid = serializers.CharField(allow_null=True, help_text="The matched node's uid, when the profile returns one.")
    metadata = serializers.DictField(help_text="The retrieval query's other columns (company, risks, ...).")
