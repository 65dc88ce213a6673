"""Entity resolution within one user's entities: pure scoring and clustering, no graph access."""

from memory.resolution.scoring import Candidate, PairScore, band_for, cluster, score_pair, score_pairs

__all__ = ["Candidate", "PairScore", "band_for", "cluster", "score_pair", "score_pairs"]
