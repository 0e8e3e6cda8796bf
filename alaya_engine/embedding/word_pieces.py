"""The default model's tokenizer, segmenting each distinct word once per process.

Its unigram tokenizer (pure Python) walks every character of a text through a Viterbi pass: the serial part of
embedding, the part that runs while the other core waits. But no piece of its vocabulary holds the whitespace
mark past its first character, so every piece starts within one word: a text's best segmentation is its words'
best segmentations one after another (their scores add exactly: float32 scores between 3.3 and 19 summed in
doubles), and the same words recur all the time (a window of raw turns shares two turns with its neighbour). So
a text is normalised as before, cut before each whitespace mark, and each word's pieces are remembered. The ids
are the tokenizer's own; a test compares them on real and generated text.
"""

from __future__ import annotations

WORD_MARK = "\u2581"
"""What the normaliser makes of whitespace, and what every word starts with."""
REMEMBERED_WORDS = 200_000
"""Words kept before the memory starts again."""
LONGEST_REMEMBERED = 48
"""Characters of the longest word kept: longer runs (a base64 blob, a hash, a line of Chinese without spaces in tool
output) seldom recur, and keeping them would let the memory grow with the text rather than the vocabulary of words
(200,000 short words are a few tens of MB)."""


class WordPieces:
    """``encode(text, out_type=int, add_bos=True, add_eos=True)`` as the wrapped tokenizer answers it."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self._words: dict[str, list[int]] = {}

    def encode(self, text, out_type=int, add_bos=True, add_eos=True):
        if not isinstance(text, str) or out_type is not int:
            return self.tokenizer.encode(text, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        ids = [self.tokenizer._bos_id] if add_bos else []
        ids.extend(self._pieces(text))
        if add_eos:
            ids.append(self.tokenizer._eos_id)
        return ids

    def _pieces(self, text: str) -> list[int]:
        normalized = self.tokenizer._normalizer.normalize(text)
        if not normalized:
            return [self.tokenizer._unk_id]
        words = self._words
        if len(words) > REMEMBERED_WORDS:
            words.clear()
        ids: list[int] = []
        start = 0
        while start < len(normalized):
            end = normalized.find(WORD_MARK, start + 1)
            if end < 0:
                end = len(normalized)
            word = normalized[start:end]
            pieces = words.get(word)
            if pieces is None:
                pieces = self.tokenizer._viterbi(word)
                if len(word) <= LONGEST_REMEMBERED:
                    words[word] = pieces
            ids.extend(pieces)
            start = end
        return ids
