"""Entities a card mentions, read offline from its text: people, services, hosts, projects, repositories, files,
libraries, commands, places (:mod:`.read`), their kinds (:mod:`.kinds`) and the aliases a text declares
(:mod:`.aliases`). The graph writes them as ``Entity`` nodes and ``MENTIONS`` edges (``graph/entities.py``)."""
