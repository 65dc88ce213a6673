"""load_demo_knowledge: the shipped demo graph and profile, loaded twice without change."""

import pytest
from django.core.management import call_command
from neomodel import db

from knowledge.models import RetrievalProfile
from knowledge.selectors import knowledge_search

pytestmark = pytest.mark.django_db
COUNTS = (
    "MATCH (n) WHERE n:Company OR n:Document OR n:Chunk OR n:RiskFactor OR n:Product "
    "WITH labels(n)[0] AS label, count(*) AS nodes RETURN label, nodes ORDER BY label"
)


def test_the_demo_loads_idempotently_and_answers(capsys):
    call_command("load_demo_knowledge")
    first, _ = db.cypher_query(COUNTS)
    call_command("load_demo_knowledge")
    second, _ = db.cypher_query(COUNTS)

    assert first == second == [["Chunk", 24], ["Company", 4], ["Document", 4], ["Product", 21], ["RiskFactor", 24]]
    relationships, _ = db.cypher_query("MATCH ()-[r:FROM_DOCUMENT|FILED|FACES_RISK|OFFERS]->() RETURN count(r)")
    assert relationships[0][0] == 24 + 4 + 24 + 21
    profile = RetrievalProfile.objects.get()
    top = knowledge_search(profile=profile, query="single supplier of actuators")[0]
    assert top.metadata["company"] == "Halvard Robotics Inc."
    assert "24 chunks" in capsys.readouterr().out
