"""The "Copy link" button of a pending invite on /admin/users, in chromium: it puts the link on
the clipboard, and where there is no clipboard it selects the link for the person to copy."""

from playwright.sync_api import Browser, expect

from tests.helpers.browser import Site, open_page

LAPTOP = {"width": 1280, "height": 800}
# A browser without the Clipboard API (an old one, or a page the browser does not trust).
NO_CLIPBOARD = "Object.defineProperty(navigator, 'clipboard', {value: undefined});"


def test_copy_link_puts_the_pending_invites_link_on_the_clipboard(browser: Browser, site: Site) -> None:
    with open_page(browser, LAPTOP, site.cookies["ada"], site.url) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.url)
        page.goto(f"{site.url}/admin/users")
        field = page.locator("#pending-invites input[readonly]").first
        button = page.locator("#pending-invites button[data-copy]").first
        expect(button).to_have_text("Copy link")
        button.click()
        # Said to screen readers, and on the button for a moment.
        expect(page.locator("#announcer")).to_have_text("Invite link copied.")
        assert page.evaluate("navigator.clipboard.readText()") == field.input_value()
        assert field.input_value() == f"{site.url}/invite/{site.params['token']}"


def test_without_a_clipboard_copy_link_selects_the_link(browser: Browser, site: Site) -> None:
    with open_page(browser, LAPTOP, site.cookies["ada"], site.url) as page:
        page.add_init_script(NO_CLIPBOARD)
        page.goto(f"{site.url}/admin/users")
        field = page.locator("#pending-invites input[readonly]").first
        page.locator("#pending-invites").get_by_role("button", name="Copy link").first.click()
        expect(field).to_be_focused()
        selected = page.evaluate(
            "() => { const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd); }"
        )
        assert selected == field.input_value()
        expect(page.locator("#announcer")).to_contain_text("Ctrl+C")
