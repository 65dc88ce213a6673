"""A person connects a standard MCP client to their memory as the README says, in a real browser: the official
client (configured with the README's snippet) discovers the authorization server, registers itself and opens
the portal; the person signs in on a phone-sized page, reads the consent page, narrows it and allows; the client
then uses their memory with no user id, and stops when they revoke it on /me/agents/."""

import asyncio
import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import httpx2
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client
from mcp import Client as MCPClient
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from playwright.async_api import async_playwright

from memory.models import Agent, AgentToken
from tests.support.stack import BROWSER_PASSWORD, CHROMIUM_ARGS, ROOT, SCREENSHOTS

REDIRECT = "http://127.0.0.1:33418/callback"


class MemoryStorage:
    def __init__(self):
        self.tokens = self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def readme_server_url(live_url: str) -> str:
    """Return the MCP server URL of the README's client configuration, on the live server's origin."""
    text = (ROOT / "README.md").read_text()
    snippet = re.search(r"<!-- mcp-client-config[^>]*-->\n```json\n(.*?)```", text, re.S)[1]
    url = json.loads(snippet)["mcpServers"]["memory"]["url"]
    return live_url + urlsplit(url).path


def test_a_person_connects_a_client_from_the_readme_in_a_browser(live_server, transactional_db, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the test's own ORM reads, between browser steps
    user = get_user_model().objects.create_user(username="connector", email="connector@example.com",
                                                password=BROWSER_PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    url = readme_server_url(live_server.url)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    seen, storage = {}, MemoryStorage()

    async def scenario():
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True)
            page = await browser.new_page(viewport={"width": 390, "height": 844})
            page.set_default_timeout(15_000)
            await page.route(f"{REDIRECT}**", lambda route: route.fulfill(body="Connected; you can close this tab."))
            redirected = asyncio.get_running_loop().create_future()

            async def open_browser(authorization_url: str):
                await page.goto(authorization_url)  # not signed in: the sign-in page first
                await page.fill("input[name=login]", user.email)
                await page.fill("input[name=password]", BROWSER_PASSWORD)
                await page.click("button[type=submit]")
                await page.wait_for_selector("#authorization-form")
                seen["consent"] = await page.inner_text("#consent")
                seen["overflow"] = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                seen["checked"] = await page.eval_on_selector_all(
                    "#authorization-form input[type=checkbox]", "boxes => boxes.map(b => [b.value, b.checked])")
                await page.screenshot(path=str(SCREENSHOTS / "mcp-consent-390.png"), full_page=True)
                await page.get_by_label("How it worked on your tasks", exact=True).uncheck()
                async with page.expect_request(lambda request: request.url.startswith(REDIRECT)) as request:
                    await page.get_by_role("button", name="Allow").click()
                # The client's page is shown before the flow goes on: a later goto would otherwise interrupt it.
                await page.wait_for_url(f"{REDIRECT}**")
                redirected.set_result((await request.value).url)

            async def callback() -> AuthorizationCodeResult:
                query = parse_qs(urlsplit(await redirected).query)
                return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query["iss"][0])

            started = time.monotonic()
            auth = OAuthClientProvider(
                server_url=url, storage=storage, redirect_handler=open_browser, callback_handler=callback,
                client_metadata=OAuthClientMetadata(client_name="Desk assistant", redirect_uris=[REDIRECT],
                                                    grant_types=["authorization_code", "refresh_token"],
                                                    token_endpoint_auth_method="none"))
            async with httpx2.AsyncClient(auth=auth, headers={"Connection": "close"}, timeout=30) as http:
                async with MCPClient(streamable_http_client(url, http_client=http)) as client:
                    tools = [tool.name for tool in (await client.list_tools()).tools]
                    appended = await client.call_tool("message_append", {"session_id": "desk", "messages": [
                        {"role": "user", "content": "My desk is by the window."}]})
                    context = await client.call_tool("context_build", {"session_id": "desk", "query": "Where is my desk?"})
                    seen["connected_in"] = time.monotonic() - started

                    await page.goto(f"{live_server.url}/me/agents/")
                    seen["agents"] = await page.inner_text("#agents")
                    await page.click("text=Revoke")
                    await page.click("input[value='Yes, I’m sure']")
                    refused = await client.call_tool("context_build", {"query": "Where is my desk?"})
            await browser.close()
            return tools, appended, context, refused

    tools, appended, context, refused = asyncio.run(scenario())

    consent = seen["consent"]
    assert "Desk assistant wants to use your memory" in consent and "127.0.0.1:33418" in consent
    assert "Remember your conversations with it" in consent and "Your conversations" in consent
    assert not re.search(r"\b(context:read|messages:write|long_term|memory:forget)\b", consent)  # plain words only
    assert "memory:forget" not in dict(seen["checked"]) and all(on for _, on in seen["checked"])
    assert seen["overflow"] <= 0  # no horizontal scrolling on a 390 px phone

    assert "item_delete" not in tools and {"context_build", "message_append"} <= set(tools)
    assert appended.structured_content["stored"] == 1
    assert context.structured_content["categories"] == ["history", "long_term"]  # reasoning was unchecked
    assert "My desk is by the window." in context.structured_content["context"]
    agent = Agent.objects.get(name="Desk assistant")
    assert agent.name in seen["agents"] and "active" in seen["agents"] and agent.agent_id not in seen["agents"]
    assert refused.is_error and "This agent has no access to that user's memory." in refused.content[0].text
    print(f"\nconnected a client in {seen['connected_in']:.1f} s (sign-in and consent included)")

    # Revoked, the client cannot refresh its way back in; a token it gives back is revoked with its agent token.
    client_id, tokens = storage.client_info.client_id, storage.tokens
    refreshed = Client().post("/oauth/token/", {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token,
                                                 "client_id": client_id})
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_grant"
    assert Client().post("/oauth/revoke_token/", {"token": tokens.access_token, "client_id": client_id}).status_code == 200
    assert AgentToken.objects.get(digest=AgentToken.digest_of(tokens.access_token)).revoked_at is not None
