"""The header at 1280 px: branding, navigation and user tools on one line, for a person and for staff."""

import pytest

from tests.support.stack import screenshot
from tests.support.review import ALL

pytestmark = pytest.mark.django_db(transaction=True)
# Per part of the header (branding, user tools, the page's navigation): its id or class, whether it
# overflows its box, and the (top, bottom) of each visible link, button or name in it.
HEADER_PARTS = """header => [...header.children].filter(part => part.offsetParent).map(part => ({
    name: part.id || part.className,
    overflows: part.scrollWidth > part.clientWidth,
    boxes: [part, ...part.querySelectorAll('a, button, strong')].filter(i => i.offsetParent).map(i => {
        const r = i.getBoundingClientRect(); return [r.top, r.bottom]; })}))"""


def one_line(boxes) -> bool:
    """Whether every box overlaps every other vertically: the lowest top lies above the highest bottom."""
    return max(top for top, _ in boxes) < min(bottom for _, bottom in boxes)


@pytest.mark.parametrize(("who", "fields", "paths"), [
    ("person", {}, ["/", "/me/", "/me/consent/", "/accounts/password/change/"]),
    ("staff", {"is_staff": True, "permissions": ALL}, ["/admin/", "/admin/review/", "/admin/review/merges/", "/me/"]),
])
def test_the_header_does_not_wrap_at_1280_px(live_server, browser_sign_in, who, fields, paths):
    _, page = browser_sign_in(f"{who}.member", **fields)
    for path in paths:
        page.goto(f"{live_server.url}{path}")
        assert page.locator("#header").count() == 1
        screenshot(page, f"header-{who}-{path.strip('/').replace('/', '-') or 'home'}")
        parts = {part["name"]: part for part in page.eval_on_selector("#header", HEADER_PARTS)}
        for part in parts.values():
            assert len(part["boxes"]) > 1 and one_line(part["boxes"][1:]) and not part["overflows"], (path, part)
        assert one_line([parts["branding"]["boxes"][0], parts["user-tools"]["boxes"][0]]), (path, parts)
        assert len(parts) == (3 if path.startswith(("/me/", "/admin/review/")) else 2), (path, list(parts))
