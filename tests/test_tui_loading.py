"""A widget whose loading ends shows its keys in the footer again."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer

from alaya_tui.loading import loaded


class Picture(Widget, can_focus=True):
    BINDINGS = [Binding("enter", "choose", "Move here")]


class Loading(App):
    def compose(self) -> ComposeResult:
        yield Picture()
        yield Footer()

    def on_mount(self) -> None:
        picture = self.query_one(Picture)
        picture.focus()
        picture.loading = True


def footer_keys(app: App) -> list[str]:
    return [key.description for key in app.query_one(Footer).query("FooterKey")]


async def test_the_footer_shows_the_keys_of_a_widget_whose_loading_ended():
    """Textual gives the focus back when loading ends but leaves the footer as it was (without ``loaded``, the
    footer here says only "palette")."""
    app = Loading()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "Move here" not in footer_keys(app)  # loading: the picture holds no focus, no keys
        loaded(app.query_one(Picture))
        await pilot.pause()
        assert app.focused is app.query_one(Picture)
        assert "Move here" in footer_keys(app)
