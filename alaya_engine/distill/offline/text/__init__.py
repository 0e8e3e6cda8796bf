"""Text helpers for the offline distiller: Markdown, sentences, cues, tags, word overlap, dates, titles.

Everything here is plain regular expressions plus jieba for Chinese words, so
it runs offline and gives the same answer for the same text every time. The
distiller imports from the modules directly; this namespace gathers their
main functions for callers that want one import (``from …offline import text``).
"""

from .chinese import is_chinese
from .cue_match import find_cues, has_cue
from .dates import compact_date, long_date, resolve_dates, strip_dates
from .markdown import split_blocks, strip_markdown
from .overlap import content_words, overlap
from .sentences import join_sentences, split_sentences
from .tags import identifiers, keywords
from .titles import shorten, title_width
from .words import unique

__all__ = [
    "compact_date", "content_words", "find_cues", "has_cue", "identifiers", "is_chinese", "join_sentences",
    "keywords", "long_date", "overlap", "resolve_dates", "shorten", "split_blocks", "split_sentences",
    "strip_dates", "strip_markdown", "title_width", "unique",
]
