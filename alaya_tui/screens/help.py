"""The help overlay (``?`` or F1): every key bound where it was opened, then the screen's explanation.

The key lists are generated from the bindings active on that screen (the app's, the screen's and the focused
widget's), so the help can never miss or invent a key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Markdown, Static

GLOBAL_HELP = """\
Everything on screen comes from the engine's JSON documents (`recall`, `card`, `trace`, `status`, `schema`,
`review`, `introspect`), the same ones `alaya … --json` prints. The mouse works too: click a row, a pane, a button.
"""


@dataclass
class KeySection:
    title: str
    keys: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """(action, description) → the keys bound to it, as the footer shows them."""

    def content(self) -> Content:
        """One line per action: its keys in a column as wide as the widest (in cells), then the description.
        Built as Content, not markup, so keys such as ``[`` are shown as they are."""
        shown = {" / ".join(dict.fromkeys(keys)): description for (_action, description), keys in self.keys.items()}
        width = max(map(cell_len, shown), default=0)
        lines = [Content.assemble((keys, "bold $accent"), " " * (width - cell_len(keys) + 2), description)
                 for keys, description in shown.items()]
        return Content("\n").join(lines)


def _declared_actions(node: DOMNode) -> set[str]:
    """The actions bound in this app's own classes (not those inherited from Textual's)."""
    return {(entry.action if isinstance(entry, Binding) else entry[1])
            for cls in type(node).__mro__ if cls.__module__.startswith("alaya_tui")
            for entry in cls.__dict__.get("BINDINGS", [])}


def key_sections(screen: Screen) -> list[KeySection]:
    """The keys of ``screen`` (and its focused widget), then the keys that work everywhere; this app's own first.

    Textual's hidden widget keys (cursor movement in a list, editing in a text box) are left out; every key this
    app defines is listed, shown in the footer or not.
    """
    app = screen.app
    here, everywhere = KeySection("Keys on this screen"), KeySection("Keys everywhere")
    found = []
    for active in screen.active_bindings.values():
        binding, node = active.binding, active.node
        ours = binding.action in _declared_actions(node)
        if binding.description and not binding.system and (ours or binding.show or node in (app, screen)):
            found.append((not ours, everywhere if node is app else here, binding))
    for _inherited, section, binding in sorted(found, key=lambda item: item[0]):
        section.keys.setdefault((binding.action, binding.description), []).append(app.get_key_display(binding))
    return [section for section in (here, everywhere) if section.keys]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,f1,q", "dismiss", "Close help"),
    ]

    def __init__(self, text: str, sections: list[KeySection]):
        super().__init__()
        self.text = text
        self.sections = sections

    def compose(self) -> ComposeResult:
        title, _, explanation = self.text.partition("\n")
        with VerticalScroll(id="help-box"):
            yield Markdown(title, classes="help-title")
            for section in self.sections:
                yield Static(section.title, classes="help-section")
                yield Static(section.content(), classes="help-keys")
            yield Markdown(f"{explanation.strip()}\n\n{GLOBAL_HELP}", id="help-text")
            yield Static("Escape, ? or F1 closes this help", id="help-hint")

    def on_mount(self) -> None:
        self.query_one("#help-box").border_title = "Help"
        self.query_one("#help-box").focus()
