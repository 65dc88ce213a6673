"""What no route matches, and a page's own 404, never get Django's debug page, which lists every URL pattern."""

import pytest


@pytest.fixture
def debug(settings):
    settings.DEBUG = True


@pytest.mark.parametrize("path", ["/api/v1/nothing%0A", "/api/v1/context%0A", "/api/v1/users/a/b/c/d/e"])
def test_an_api_path_no_route_matches_is_the_json_404(client, db, debug, path):
    response = client.get(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json()["message"] == "No API endpoint at this path."


@pytest.mark.parametrize("path", ["/nowhere/", "/me/%0A", "/me/conversations/no-such-conversation/"])
def test_a_page_not_found_lists_no_url_patterns(client, db, debug, make_subject, path):
    client.force_login(make_subject().account)
    response = client.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert "URLconf" not in page and "Django tried these URL patterns" not in page and "api/v1/" not in page
    assert "There is nothing at this address" in page  # the portal's own page (it borrows the admin's styles)


def test_a_path_with_its_slash_missing_still_redirects(client, db):
    assert client.get("/me").status_code == 301
