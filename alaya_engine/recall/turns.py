"""Windows of raw turns as recall units.

A question whose answer no card holds must still find it in L3: windows of
consecutive raw turns (:mod:`alaya_engine.raw.windows`) are searched like
cards — resident vectors plus full-text search — and compete with cards on the
same h-distance, their concept distance fused with their BM25 score as a
card's is (:mod:`.lexical`). A window is a seed (depth 0, no relation), so its
h is ``α · concept_distance``, as a card found by search has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .lexical import LexicalFusion
from .result import RecallNode

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np

    from ..raw.store import RawStore
    from ..vectors.turn_windows import TurnWindowStore
    from .index import ResidentIndex

WINDOW_KIND = "session_turns"
WINDOW_TIER = "RAW"


@dataclass
class TurnSearch:
    """What a recall needs to search the windows: their resident vectors, their store, the full-text search the
    caller started beside the query embedding (None without free text), and L3, where a merged window is read
    (it is no row of the table: see :func:`.run.take_units`)."""

    index: "ResidentIndex"
    store: "TurnWindowStore"
    full_text: "Future[dict[str, float]] | None"
    raw: "RawStore"

    def distances(self, queries: "np.ndarray", top_k: int, min_similarity: float,
                  fusion: LexicalFusion) -> dict[str, float]:
        """Concept distance of every window found by vector or full-text search."""
        import numpy as np

        hits = self.full_text.result() if self.full_text is not None else {}
        lexical = fusion.shares(hits)
        found = list(dict.fromkeys(self.index.vector_search(queries, top_k, min_similarity) + list(hits)))
        if not found or not len(queries):
            return {}
        missing = np.zeros(queries.shape[1], np.float32)  # not embedded yet: found by its words alone
        matrix = np.vstack([vector if (vector := self.index.vector_of(window_id)) is not None else missing
                            for window_id in found])
        similarities = (matrix @ np.asarray(queries, dtype=matrix.dtype).T).max(axis=1).tolist()
        return {window_id: fusion.distance(max(0.0, 1.0 - similarity), lexical.get(window_id, 0.0))
                for window_id, similarity in zip(found, similarities)}

    def nodes(self, chosen: dict[str, tuple[float, float]]) -> dict[str, RecallNode]:
        """Result nodes of the chosen windows: id → (h, concept distance). A window the table does not hold (a
        merged span) is read from L3; one L3 no longer has either (ingested again since) is left out."""
        from ..raw.windows import TurnWindow, parse_window_id, read_spans, window_heading

        rows = self.store.windows(list(chosen))
        windows = {window_id: TurnWindow(row["id"], row["session_id"], row["first"], row["last"], row["time"],
                                         row["text"]) for window_id, row in rows.items()}
        spans = [parse_window_id(window_id) for window_id in chosen if window_id not in windows]
        if spans:
            windows.update(read_spans(self.raw, spans))
        nodes = {}
        for window_id, (h, distance) in chosen.items():
            window = windows.get(window_id)
            if window is None:
                continue
            nodes[window_id] = RecallNode(
                card_id=window_id, title=window_heading(window), content=window.text, score=round(1.0 - h, 4),
                h_distance=h, matched_rel=None, rel_similarity=None, type=WINDOW_KIND, tags=[], tier=WINDOW_TIER,
                depth=0, via=None, source="session", concept_distance=distance, relation_distance=0.0,
                kind=WINDOW_KIND, session_id=window.session_id, turn_range=[window.first, window.last],
                time=window.time)
        return nodes
