"""The end of a widget's loading, said to the footer too."""

from __future__ import annotations

from textual.widget import Widget


def loaded(widget: Widget) -> None:
    """Stop ``widget``'s loading indicator. Textual gives the focus back to a widget whose loading ends but does not
    tell the footer, which then lacks that widget's keys ("⏎ Move here", "⏎ Open") until the focus next moves."""
    widget.loading = False
    widget.screen.refresh_bindings()
