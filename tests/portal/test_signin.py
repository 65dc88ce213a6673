"""Sign-in with allauth: email login, verification by mail, TOTP available, staff-only admin."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail

pytestmark = pytest.mark.django_db


def test_signup_requires_email_verification_then_login_works(client):
    response = client.post("/accounts/signup/", {"email": "ada@example.com", "password1": "a-long-passphrase-42",
                                                 "password2": "a-long-passphrase-42"})
    assert response.status_code == 302
    assert not EmailAddress.objects.get(email="ada@example.com").verified
    assert len(mail.outbox) == 1
    [sent] = mail.outbox
    assert sent.subject.startswith("[Memory portal] ") and "gave this address to the memory portal" in sent.body
    link = re.search(r"http://testserver(/accounts/confirm-email/\S+/)", mail.outbox[0].body).group(1)

    client.logout()
    blocked = client.post("/accounts/login/", {"login": "ada@example.com", "password": "a-long-passphrase-42"})
    assert blocked.status_code == 302 and "confirm-email" in blocked.url

    client.post(link)
    assert EmailAddress.objects.get(email="ada@example.com").verified
    client.logout()
    response = client.post("/accounts/login/", {"login": "ada@example.com", "password": "a-long-passphrase-42"})
    assert response.status_code == 302 and response.url == "/me/"
    assert client.get("/").context["user"].email == "ada@example.com"


def _verified_user(email, password, **extra):
    user = get_user_model().objects.create_user(username=email.split("@")[0], email=email, password=password, **extra)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def test_wrong_password_is_refused(client):
    _verified_user("bo@example.com", "right-passphrase-1")
    response = client.post("/accounts/login/", {"login": "bo@example.com", "password": "wrong"})
    assert response.status_code == 200
    assert "not correct" in response.content.decode()
    assert not response.context["user"].is_authenticated


def test_totp_setup_is_offered(client):
    _verified_user("cy@example.com", "right-passphrase-2")
    client.post("/accounts/login/", {"login": "cy@example.com", "password": "right-passphrase-2"})
    response = client.get("/accounts/2fa/totp/activate/")
    assert response.url.startswith("/accounts/reauthenticate/")  # MFA changes need a fresh password
    client.post(response.url, {"password": "right-passphrase-2"})
    response = client.get("/accounts/2fa/totp/activate/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "data:image/svg+xml" in page and "name=\"code\"" in page  # the QR code and the code field


def test_admin_is_for_staff_only(client):
    _verified_user("dee@example.com", "right-passphrase-3")
    assert client.get("/admin/").status_code == 302
    client.post("/accounts/login/", {"login": "dee@example.com", "password": "right-passphrase-3"})
    assert client.get("/admin/", follow=True).redirect_chain[-1][0] == "/"
    staff = _verified_user("eve@example.com", "right-passphrase-4", is_staff=True)
    client.force_login(staff)
    response = client.get("/admin/")
    assert response.status_code == 200 and "Memory portal administration" in response.content.decode()
