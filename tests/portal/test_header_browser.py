"""The header at 1280 px: branding, navigation and user tools on one line, for a person and for staff."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from tests.conftest import SCREENSHOTS

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "a-long-passphrase-8"
# Per part of the header (branding, user tools, the page's navigation): its id or class, whether it
# overflows its box, and the (top, bottom) of each visible link, button or name in it.
HEADER_PARTS = """header => [...header.children].filter(part => part.offsetParent).map(part => ({
    name: part.id || part.className,
    overflows: part.scrollWidth > part.clientWidth,
    boxes: [part, ...part.querySelectorAll('a, button, strong')].filter(i => i.offsetParent).map(i => {
        const r = i.getBoundingClientRect(); return [r.top, r.bottom]; })}))"""


def signed_in_page(browser, live_server, email, **fields):
    user = get_user_model().objects.create_user(username=email.split("@")[0], email=email, password=PASSWORD,
                                                **fields)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    if fields.get("is_staff"):
        user.user_permissions.set(Permission.objects.filter(content_type__app_label="review"))
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return page


def one_line(boxes) -> bool:
    """Whether every box overlaps every other vertically: the lowest top lies above the highest bottom."""
    return max(top for top, _ in boxes) < min(bottom for _, bottom in boxes)


@pytest.mark.parametrize(("who", "fields", "paths"), [
    ("person", {}, ["/", "/me/", "/me/consent/", "/accounts/password/change/"]),
    ("staff", {"is_staff": True}, ["/admin/", "/admin/review/", "/admin/review/merges/", "/me/"]),
])
def test_the_header_does_not_wrap_at_1280_px(chromium, live_server, who, fields, paths):
    _, browser = chromium
    page = signed_in_page(browser, live_server, f"{who}.member@example.org", **fields)
    for path in paths:
        page.goto(f"{live_server.url}{path}")
        assert page.locator("#header").count() == 1
        page.screenshot(path=str(SCREENSHOTS / f"header-{who}-{path.strip('/').replace('/', '-') or 'home'}.png"))
        parts = {part["name"]: part for part in page.eval_on_selector("#header", HEADER_PARTS)}
        for part in parts.values():
            assert len(part["boxes"]) > 1 and one_line(part["boxes"][1:]) and not part["overflows"], (path, part)
        assert one_line([parts["branding"]["boxes"][0], parts["user-tools"]["boxes"][0]]), (path, parts)
        assert len(parts) == (3 if path.startswith("/me/") else 2), (path, list(parts))
