from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class RetrievalProfile(models.Model):
    """How agents search the knowledge graph: which indexes, which mode, and what to walk to next.

    Whether its indexes exist and its retrieval query only reads is asked of Neo4j by
    knowledge.services.retrieval_profile_check, which the admin's form and retrieval_profile_upsert call.
    """

    class Mode(models.TextChoices):
        VECTOR = "vector"
        FULLTEXT = "fulltext"
        HYBRID = "hybrid"

    class Ranker(models.TextChoices):
        MAX = "max", "max (normalised scores, best of both)"
        LINEAR = "linear", "linear (alpha x vector + (1 - alpha) x fulltext)"
        RRF = "rrf", "reciprocal-rank fusion"

    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.VECTOR)
    vector_index = models.CharField(max_length=200, blank=True, help_text="Neo4j vector index name.")
    fulltext_index = models.CharField(max_length=200, blank=True, help_text="Neo4j fulltext index name.")
    top_k = models.PositiveSmallIntegerField(default=5, validators=[MinValueValidator(1), MaxValueValidator(100)])
    effective_search_ratio = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="The vector index is asked for top_k x this many candidates (more is slower, more exact).",
    )
    ranker = models.CharField(max_length=10, choices=Ranker.choices, default=Ranker.MAX)
    alpha = models.FloatField(
        default=0.5,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Weight of the vector score for the linear ranker.",
    )
    rrf_k = models.PositiveIntegerField(default=60, help_text="The constant k of reciprocal-rank fusion.")
    message_window = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1)],
        help_text="How many of the last user/assistant messages make the query when messages are sent.",
    )
    retrieval_query = models.TextField(
        blank=True,
        help_text="Read-only Cypher run after the search with `node` and `score` in scope; it must return "
        "`text` and `score` columns (`uid` optional); other columns become metadata.",
    )
    agents = models.ManyToManyField("memory.Agent", blank=True, related_name="retrieval_profiles")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name
