"""The store as GraphML: a networkx ``MultiDiGraph`` that ``networkx.read_graphml`` reads back and Gephi opens.

Encoding (GraphML has no lists and no null):

- nodes are cards, sessions and entities under their own ids, with ``kind`` = ``card`` | ``session`` | ``entity``
  and ``label`` (a card's title, a session's id, an entity's name: what Gephi shows); every other field under its
  own name, except an entity's kind, which is ``entity_kind`` (``person``, ``service``, ``host``, …);
- a card's ``MENTIONS`` edge to an entity has ``relation`` and ``label`` ``MENTIONS`` and ``name`` (the name
  the card used), one per card and entity;
- edges carry ``relation`` (a custom one under its own name, ``LED_TO``), ``label`` (the same, for Gephi),
  ``weight``, ``reason`` and ``created_at``; two cards may have several relations. Edge keys (GraphML edge ids)
  are ``<source>:<RELATION>:<target>``, unique in the file: Gephi refuses a second edge with an id it has seen;
- lists (``tags``, ``source_sessions``, ``facts``) are JSON strings (``["docker", "oom"]``; a fact is
  ``{"subject", "attribute", "value", "valid_from"}``); times are ISO 8601 UTC strings; an attribute whose
  value is null is left out;
- XML 1.0 cannot carry control characters other than tab and line feed, and a parser turns a carriage
  return into a line feed: CR and CRLF are written as LF and the other control characters as U+FFFD.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .snapshot import StoreSnapshot

if TYPE_CHECKING:
    import networkx as nx

LIST_FIELDS = ("tags", "source_sessions", "facts", "aliases")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """What a string looks like after a trip through XML (see the module doc)."""
    return _NOT_XML.sub("\ufffd", text.replace("\r\n", "\n").replace("\r", "\n"))


def encode(value: Any) -> Any:
    """A field's value as GraphML stores it: lists as JSON, strings XML-safe, numbers as they are."""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, str):
        return xml_safe(value)
    return value


def build_graph(snapshot: StoreSnapshot, graph_attributes: dict[str, Any]) -> "nx.MultiDiGraph":
    import networkx as nx

    graph = nx.MultiDiGraph(**{key: encode(value) for key, value in graph_attributes.items()})
    for card in snapshot.cards:
        graph.add_node(card["id"], **_attributes({"kind": "card", "label": card["title"], **card}))
    for session in snapshot.sessions:
        graph.add_node(session["id"], **_attributes({"kind": "session", "label": session["id"], **session}))
    for entity in snapshot.entities:
        graph.add_node(entity["id"], **_attributes({"kind": "entity", "label": entity["name"], "name": entity["name"],
                                                    "entity_kind": entity["kind"], "aliases": entity["aliases"]}))
    for edge in snapshot.edges:
        graph.add_edge(edge["source"], edge["target"], key=edge_key(edge),
                       **_attributes({"relation": edge["relation"], "label": edge["relation"], "weight": edge["weight"],
                                      "reason": edge["reason"], "created_at": edge["created_at"]}))
    for mention in snapshot.mentions:
        graph.add_edge(mention["source"], mention["target"], key=edge_key({**mention, "relation": "MENTIONS"}),
                       **_attributes({"relation": "MENTIONS", "label": "MENTIONS", "name": mention["name"]}))
    return graph


def edge_key(edge: dict[str, Any]) -> str:
    return f"{edge['source']}:{edge['relation']}:{edge['target']}"


def write_graphml(graph: "nx.MultiDiGraph", path: Path) -> None:
    import networkx as nx

    nx.write_graphml(graph, path, encoding="utf-8", prettyprint=True)


def _attributes(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: encode(value) for key, value in fields.items() if value is not None and key != "id"}
