"""A correction followed by later statements: each statement of a corrected node is written to the version that
corrects it too."""

from memory import cypher
from memory.ingest.keys import statement_key_restated
from portal import graphdb

def corrections_follow(*, label: str, user_id: str, message_uid: str, rows: list[dict]) -> None:
    """Write each statement of a corrected node to the newest version correcting it.

    The wrong node keeps the statement too (it stays retracted), so undoing the correction needs no
    extraction. A version with a corrected valid_from takes it for every statement it is given.
    """
    heads = {head["wrong"]: head for head in graphdb.rows(
        cypher.CORRECTION_HEADS[label], {"user_id": user_id, "uids": [row["uid"] for row in rows]}, as_stored=True)}
    redirected = [
        {"version_uid": heads[row["uid"]]["version_uid"],
         "statement_key": statement_key_restated(key=row["statement_key"], valid_from=heads[row["uid"]]["stated_from"]),
         "valid_from": heads[row["uid"]]["stated_from"] or row["valid_from"]}
        for row in rows if row["uid"] in heads
    ]
    if redirected:
        graphdb.run(cypher.CORRECTED_STATEMENTS_MERGE[label],
                    {"user_id": user_id, "message_uid": message_uid, "rows": redirected})
