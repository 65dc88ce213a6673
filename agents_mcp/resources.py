"""The connected person's memory as MCP resources: one per kind (`memory://facts`), one per item
(`memory://facts/<uid>`), read through the same operations as the tools item_list and item_get."""

import json
import re

import mcp_types as types

from agents_mcp.tools import Caller, tool_call
from memory.kinds import KINDS

URI = re.compile(r"memory://(?P<kind>[a-z_]+)(?:/(?P<uid>[^/]+))?")
TEMPLATES = [types.ResourceTemplate(
    name="memory-item", uri_template="memory://{kind}/{uid}", mime_type="application/json",
    description="One item of the person's memory: kind is messages, facts, preferences, entities or traces.")]


def resources_for(caller: Caller) -> list[types.Resource]:
    """Return a resource per kind of memory of the person the caller is connected to (none for an agent
    that serves several people: it names the person in each tool call)."""
    if caller.user_id is None:
        return []
    return [types.Resource(name=kind.name, title=kind.title, uri=f"memory://{kind.name}",
                           mime_type="application/json",
                           description=f"{kind.title} in the person's memory, newest first (one page).")
            for kind in KINDS]


def resource_read(*, caller: Caller, uri: str) -> tuple[int, str]:
    """Read a memory resource as the tool item_list (a kind) or item_get (an item) would: its status and JSON."""
    match = URI.fullmatch(uri)
    if match is None:
        return 404, json.dumps({"message": "No such resource; resources/list and resources/templates/list name them.",
                                "extra": {"uri": uri}}, ensure_ascii=False)
    arguments = {key: value for key, value in match.groupdict().items() if value is not None}
    return tool_call(caller=caller, name="item_get" if "uid" in arguments else "item_list", arguments=arguments)
