"""The synthetic stores themselves: what building one costs and what it takes on disk per 1k cards.

The stores are built here first (once per run, :class:`bench.stores.Stores`) and then read by
``recall_speed`` and ``introspect_speed``. Size on disk counts the graph and LanceDB, the two layers that grow
with cards; a synthetic store has no L3 session text, and the model's tokenizer cache (~5 MB) is the same for
every store.
"""

from __future__ import annotations

from .plan import Plan, size_label
from .report import Row

NAME = "store_size"


def run(plan: Plan) -> list[Row]:
    rows = []
    for size in plan.sizes:
        label = size_label(size)
        stats = plan.stores.built(size)[1]
        rows.extend(_rows(label, stats))
    rows.insert(0, Row(NAME, "Engine.init (empty store)", plan.stores.init_seconds, "s",
                       "folders, config, graph schema, LanceDB tables, tokenizer built and cached, core relations "
                       "embedded; every store of this run is a copy"))
    return rows


def _rows(label: str, stats: dict) -> list[Row]:
    cards, seconds, steps, sizes = stats["cards"], stats["seconds"], stats["bulk_load_seconds"], stats["bytes"]
    graph_s = sum(value for name, value in steps.items() if name.startswith("graph"))
    access = stats["access"]
    relations = sorted(((count, name) for name, count in stats["links_by_relation"].items()
                        if name != "EXTRACTED_FROM"), reverse=True)
    total = sizes["graph"] + sizes["lancedb"]
    return [
        Row(NAME, f"{label}: build synthetic store", seconds["total"], "s",
            f"generate {seconds['generate']:.1f}, embed topics {seconds['embed topics']:.1f}, bulk load "
            f"{seconds['bulk load']:.1f} (graph {graph_s:.1f}, L1 {steps['vectors']:.1f}, "
            f"FTS {steps['full-text index']:.1f}) s"),
        Row(NAME, f"{label}: on-disk size per 1k cards", total / cards * 1000 / 1e6, "MB",
            f"graph {sizes['graph'] / 1e6:.1f} MB + LanceDB {sizes['lancedb'] / 1e6:.1f} MB for {cards} cards"),
        Row(NAME, f"{label}: card-to-card edges per card", stats["card_edges"] / cards, "edges",
            ", ".join(f"{name} {count}" for count, name in relations[:6]) + f"; {stats['sessions']} sessions"),
        Row(NAME, f"{label}: cards ever recalled (power law)", access["cards_accessed"] / cards, "fraction",
            f"most recalled card {access['max']}×, top 1% of cards get {access['top_1_percent_share']:.0%} of "
            f"recalls; {stats['chinese_cards'] / cards:.0%} of cards Chinese"),
    ]
