"""A held-out set of sentences a user or an agent might say, with gold entities and facts, and its scorer.

Written apart from the benchmark documents (none of their sentences or names), so that a score here
says how the extractor does on text it was not written against. A fact is (subject, predicate,
object); "user" is the speaker; a sentence that negates, asks, hedges or ends something has no fact.
"""

import re
from dataclasses import dataclass, field

P, O, L, E, T = "PERSON", "ORGANIZATION", "LOCATION", "EVENT", "OBJECT"


@dataclass(frozen=True)
class Case:
    text: str
    entities: list[tuple[str, str]] = field(default_factory=list)
    facts: list[tuple[str, str, str]] = field(default_factory=list)


CASES = [
    # Employment.
    Case("Ilse joined Brightmoor as CTO in March 2024.", [("Ilse", P), ("Brightmoor", O)],
         [("Ilse", "EMPLOYED_BY", "Brightmoor")]),
    Case("Kwame Mensah works at Tidewell Insurance.", [("Kwame Mensah", P), ("Tidewell Insurance", O)],
         [("Kwame Mensah", "EMPLOYED_BY", "Tidewell Insurance")]),
    Case("Lucia Ferro was hired by Quillstone last autumn.", [("Lucia Ferro", P), ("Quillstone", O)],
         [("Lucia Ferro", "EMPLOYED_BY", "Quillstone")]),
    Case("Rohan is a data scientist at Meridale Health.", [("Rohan", P), ("Meridale Health", O)],
         [("Rohan", "EMPLOYED_BY", "Meridale Health")]),
    Case("Felix Amadi became head of sales at Corrin & Vale.", [("Felix Amadi", P), ("Corrin & Vale", O)],
         [("Felix Amadi", "EMPLOYED_BY", "Corrin & Vale")]),
    Case("Yesterday Dana Whitlock started at Pinecrest Robotics.", [("Dana Whitlock", P), ("Pinecrest Robotics", O)],
         [("Dana Whitlock", "EMPLOYED_BY", "Pinecrest Robotics")]),
    Case("My brother Teodor works for Halvorsen Shipping in Bergen.",
         [("Teodor", P), ("Halvorsen Shipping", O), ("Bergen", L)], [("Teodor", "EMPLOYED_BY", "Halvorsen Shipping")]),
    Case("Sunita Rao and Emeka Obi both work at Kelpie Systems.",
         [("Sunita Rao", P), ("Emeka Obi", P), ("Kelpie Systems", O)],
         [("Sunita Rao", "EMPLOYED_BY", "Kelpie Systems"), ("Emeka Obi", "EMPLOYED_BY", "Kelpie Systems")]),
    Case("Zainab moved to Accra and joined Cobaltline as a product manager.",
         [("Zainab", P), ("Accra", L), ("Cobaltline", O)],
         [("Zainab", "RESIDES_AT", "Accra"), ("Zainab", "EMPLOYED_BY", "Cobaltline")]),
    Case("Halima is a member of the Ashgrove Rowing Club.", [("Halima", P), ("Ashgrove Rowing Club", O)],
         [("Halima", "MEMBER_OF", "Ashgrove Rowing Club")]),
    Case("Kelpie Systems acquired Brindle Software in 2022.", [("Kelpie Systems", O), ("Brindle Software", O)],
         [("Brindle Software", "SUBSIDIARY_OF", "Kelpie Systems")]),
    # Employment that is denied or over.
    Case("Beatriz did not join Solvane.", [("Beatriz", P), ("Solvane", O)]),
    Case("Gideon never worked for Ambergate Consulting.", [("Gideon", P), ("Ambergate Consulting", O)]),
    Case("Tariq no longer works at Pellucid Labs.", [("Tariq", P), ("Pellucid Labs", O)]),
    Case("Hana Sato left Corvid Bank after ten years.", [("Hana Sato", P), ("Corvid Bank", O)]),
    Case("Why did Benedikt leave Farrowind?", [("Benedikt", P), ("Farrowind", O)]),
    Case("Perhaps Lorcan works at Tessaly Bank now.", [("Lorcan", P), ("Tessaly Bank", O)]),
    # Residence.
    Case("Amelie Dufresne lives in Lyon.", [("Amelie Dufresne", P), ("Lyon", L)],
         [("Amelie Dufresne", "RESIDES_AT", "Lyon")]),
    Case("Last spring Joaquin moved to Valparaiso.", [("Joaquin", P), ("Valparaiso", L)],
         [("Joaquin", "RESIDES_AT", "Valparaiso")]),
    Case("Svetlana relocated to Tbilisi with her family.", [("Svetlana", P), ("Tbilisi", L)],
         [("Svetlana", "RESIDES_AT", "Tbilisi")]),
    Case("Corwin moved from Leipzig to Graz in 2021.", [("Corwin", P), ("Leipzig", L), ("Graz", L)],
         [("Corwin", "RESIDES_AT", "Graz")]),
    Case("Nikhil might move to Coimbra next year.", [("Nikhil", P), ("Coimbra", L)]),
    Case("Does Marisol still live in Cuenca?", [("Marisol", P), ("Cuenca", L)]),
    Case("Wendell no longer lives in Halifax.", [("Wendell", P), ("Halifax", L)]),
    Case("Where does Jonas Berg live now?", [("Jonas Berg", P)]),
    # Where organisations and things are.
    Case("Brightmoor is headquartered in Kaunas.", [("Brightmoor", O), ("Kaunas", L)],
         [("Brightmoor", "HEADQUARTERS_AT", "Kaunas")]),
    Case("Ravenna Labs is based in Turin.", [("Ravenna Labs", O), ("Turin", L)],
         [("Ravenna Labs", "LOCATED_AT", "Turin")]),
    Case("Quillstone has an office in Nairobi.", [("Quillstone", O), ("Nairobi", L)],
         [("Quillstone", "LOCATED_AT", "Nairobi")]),
    Case("The Zephyr Data Center is located in Reykjavik.", [("Zephyr Data Center", L), ("Reykjavik", L)],
         [("Zephyr Data Center", "LOCATED_AT", "Reykjavik")]),
    # Events.
    Case("The Harborlight Jazz Festival took place in Cork.", [("Harborlight Jazz Festival", E), ("Cork", L)],
         [("Harborlight Jazz Festival", "OCCURRED_AT", "Cork")]),
    Case("The quarterly planning meeting was held at the Oakridge office.",
         [("quarterly planning meeting", E), ("Oakridge office", L)],
         [("quarterly planning meeting", "OCCURRED_AT", "Oakridge office")]),
    Case("We met Dr. Adaeze Okafor at the Nordic Ocean Summit in Bergen.",
         [("Adaeze Okafor", P), ("Nordic Ocean Summit", E), ("Bergen", L)],
         [("Nordic Ocean Summit", "OCCURRED_AT", "Bergen")]),
    Case("Lars Eriksen spoke at the Helsinki Data Week.", [("Lars Eriksen", P), ("Helsinki Data Week", E)],
         [("Lars Eriksen", "PARTICIPATED_IN", "Helsinki Data Week")]),
    Case("The Meadowbrook Book Fair opens in Leeds on Saturday.", [("Meadowbrook Book Fair", E), ("Leeds", L)],
         [("Meadowbrook Book Fair", "OCCURRED_AT", "Leeds")]),
    # Ownership.
    Case("Ledger_Sync is owned by Finance_Data_Team.", [("Ledger_Sync", T), ("Finance_Data_Team", O)],
         [("Ledger_Sync", "OWNED_BY", "Finance_Data_Team")]),
    Case("Mirela owns the Copperleaf Bakery.", [("Mirela", P), ("Copperleaf Bakery", O)],
         [("Copperleaf Bakery", "OWNED_BY", "Mirela")]),
    Case("Tallgrass Media owns the PixelHarbor app.", [("Tallgrass Media", O), ("PixelHarbor", T)],
         [("PixelHarbor", "OWNED_BY", "Tallgrass Media")]),
    Case("BillingGateway belongs to Payments_Core.", [("BillingGateway", T), ("Payments_Core", T)],
         [("BillingGateway", "OWNED_BY", "Payments_Core")]),
    Case("The owner of Dashboard_Sales is Femi Adebayo.", [("Dashboard_Sales", T), ("Femi Adebayo", P)],
         [("Dashboard_Sales", "OWNED_BY", "Femi Adebayo")]),
    # Assignment.
    Case("Coordinator_Bot assigned the search indexing task to Agent_Reviewer.",
         [("Coordinator_Bot", T), ("search indexing task", T), ("Agent_Reviewer", T)],
         [("search indexing task", "ASSIGNED_TO", "Agent_Reviewer")]),
    Case("Ticket_4521 was assigned to Oskar.", [("Ticket_4521", T), ("Oskar", P)],
         [("Ticket_4521", "ASSIGNED_TO", "Oskar")]),
    Case("Ingrid assigned BUG-3310 to Matteo.", [("Ingrid", P), ("BUG-3310", T), ("Matteo", P)],
         [("BUG-3310", "ASSIGNED_TO", "Matteo")]),
    # Dependencies and use.
    Case("Service_Invoicing depends on Service_Ledger.", [("Service_Invoicing", T), ("Service_Ledger", T)],
         [("Service_Invoicing", "DEPENDS_ON", "Service_Ledger")]),
    Case("The ReportBuilder module depends on PdfKit.", [("ReportBuilder", T), ("PdfKit", T)],
         [("ReportBuilder", "DEPENDS_ON", "PdfKit")]),
    Case("TokenVault relies on KeyStore_HSM for key storage.", [("TokenVault", T), ("KeyStore_HSM", T)],
         [("TokenVault", "DEPENDS_ON", "KeyStore_HSM")]),
    Case("Service_Search does not depend on Redis_Cache anymore.", [("Service_Search", T), ("Redis_Cache", T)]),
    Case("Project_Bluefin uses MariaDB for storage.", [("Project_Bluefin", T), ("MariaDB", T)],
         [("Project_Bluefin", "USES", "MariaDB")]),
    Case("PaymentRouter uses StripeConnector.", [("PaymentRouter", T), ("StripeConnector", T)],
         [("PaymentRouter", "USES", "StripeConnector")]),
    Case("Jiayi uses a ThinkPad X1 at work.", [("Jiayi", P), ("ThinkPad X1", T)], [("Jiayi", "USES", "ThinkPad X1")]),
    Case("Harrow_Agent used the WebSearch tool to check prices.", [("Harrow_Agent", T), ("WebSearch", T)],
         [("Harrow_Agent", "USES", "WebSearch")]),
    Case("Mateus never uses Slack.", [("Mateus", P), ("Slack", T)]),
    # Parts.
    Case("LoginForm is part of Platform_Core.", [("LoginForm", T), ("Platform_Core", T)],
         [("LoginForm", "PART_OF", "Platform_Core")]),
    Case("The CheckoutFlow component is part of StorefrontWeb.", [("CheckoutFlow", T), ("StorefrontWeb", T)],
         [("CheckoutFlow", "PART_OF", "StorefrontWeb")]),
    # Attributes.
    Case("The priority of Ticket_7702 is critical.", [("Ticket_7702", T)], [("Ticket_7702", "HAS_PRIORITY", "critical")]),
    Case("Service_Notifications's status is degraded.", [("Service_Notifications", T)],
         [("Service_Notifications", "HAS_STATUS", "degraded")]),
    Case("Release_2_4 has status blocked.", [("Release_2_4", T)], [("Release_2_4", "HAS_STATUS", "blocked")]),
    Case("Ticket_8120's priority is low.", [("Ticket_8120", T)], [("Ticket_8120", "HAS_PRIORITY", "low")]),
    Case("The deadline for Project_Wren is Friday.", [("Project_Wren", T)], [("Project_Wren", "HAS_DEADLINE", "Friday")]),
    Case("Is the status of Service_Auth still degraded?", [("Service_Auth", T)]),
    Case("Ticket_9034 might be critical.", [("Ticket_9034", T)]),
    # The speaker.
    Case("I work at Corbel Analytics.", [("Corbel Analytics", O)], [("user", "EMPLOYED_BY", "Corbel Analytics")]),
    Case("I live in Ghent with my partner.", [("Ghent", L)], [("user", "RESIDES_AT", "Ghent")]),
    Case("I just moved to Trieste.", [("Trieste", L)], [("user", "RESIDES_AT", "Trieste")]),
    Case("I'm a nurse at Lakeview General Hospital.", [("Lakeview General Hospital", O)],
         [("user", "EMPLOYED_BY", "Lakeview General Hospital")]),
    Case("I no longer work at Fennick Media.", [("Fennick Media", O)]),
    Case("I used to live in Quito.", [("Quito", L)]),
    Case("I prefer window seats on overnight trains."),
    Case("I can't stand cilantro."),
    Case("I really love Ethiopian coffee."),
    Case("My favourite editor is Neovim.", [("Neovim", T)]),
    # People without a fact.
    Case("Reuben Castellanos called about the overdue invoice.", [("Reuben Castellanos", P)]),
    Case("Ask Greta Holm to review the budget.", [("Greta Holm", P)]),
    Case("Thanks, Oliver, that fixed the build.", [("Oliver", P)]),
]

# Written after the extractor was tuned on CASES and scored without changing it: the honest generalisation number.
FRESH_CASES = [
    Case("Priyanka Desai works for Orlen Maritime.", [("Priyanka Desai", P), ("Orlen Maritime", O)],
         [("Priyanka Desai", "EMPLOYED_BY", "Orlen Maritime")]),
    Case("Bastian joined Wexford Analytics in January.", [("Bastian", P), ("Wexford Analytics", O)],
         [("Bastian", "EMPLOYED_BY", "Wexford Analytics")]),
    Case("Ottilie signed with Granary Films last week.", [("Ottilie", P), ("Granary Films", O)],
         [("Ottilie", "EMPLOYED_BY", "Granary Films")]),
    Case("Leandro is an accountant at Fairholm Partners.", [("Leandro", P), ("Fairholm Partners", O)],
         [("Leandro", "EMPLOYED_BY", "Fairholm Partners")]),
    Case("Saoirse quit Dunmore Textiles in April.", [("Saoirse", P), ("Dunmore Textiles", O)]),
    Case("Kenji Watanabe doesn't work at Hollis Freight anymore.", [("Kenji Watanabe", P), ("Hollis Freight", O)]),
    Case("Has Yusuf joined Marlow Bank yet?", [("Yusuf", P), ("Marlow Bank", O)]),
    Case("Elif lives in Izmir.", [("Elif", P), ("Izmir", L)], [("Elif", "RESIDES_AT", "Izmir")]),
    Case("My aunt Rosalind moved to Tromso in 2019.", [("Rosalind", P), ("Tromso", L)],
         [("Rosalind", "RESIDES_AT", "Tromso")]),
    Case("Dmitri is thinking about moving to Varna.", [("Dmitri", P), ("Varna", L)]),
    Case("I moved to Windhoek last month.", [("Windhoek", L)], [("user", "RESIDES_AT", "Windhoek")]),
    Case("I work for Saltmarsh Labs as a designer.", [("Saltmarsh Labs", O)], [("user", "EMPLOYED_BY", "Saltmarsh Labs")]),
    Case("I never worked at Quenby Retail.", [("Quenby Retail", O)]),
    Case("Foxglove Energy is based in Aberdeen.", [("Foxglove Energy", O), ("Aberdeen", L)],
         [("Foxglove Energy", "LOCATED_AT", "Aberdeen")]),
    Case("The Tidemark Film Festival was held in Split.", [("Tidemark Film Festival", E), ("Split", L)],
         [("Tidemark Film Festival", "OCCURRED_AT", "Split")]),
    Case("Anouk attended the Lowlands Data Summit.", [("Anouk", P), ("Lowlands Data Summit", E)],
         [("Anouk", "PARTICIPATED_IN", "Lowlands Data Summit")]),
    Case("Service_Orders depends on Queue_Dispatch.", [("Service_Orders", T), ("Queue_Dispatch", T)],
         [("Service_Orders", "DEPENDS_ON", "Queue_Dispatch")]),
    Case("InventorySync uses RabbitMQ.", [("InventorySync", T), ("RabbitMQ", T)], [("InventorySync", "USES", "RabbitMQ")]),
    Case("Ticket_5120 was assigned to Agent_Triage.", [("Ticket_5120", T), ("Agent_Triage", T)],
         [("Ticket_5120", "ASSIGNED_TO", "Agent_Triage")]),
    Case("Moana assigned Ticket_6003 to Pieter.", [("Moana", P), ("Ticket_6003", T), ("Pieter", P)],
         [("Ticket_6003", "ASSIGNED_TO", "Pieter")]),
    Case("Metrics_Store is owned by Observability_Team.", [("Metrics_Store", T), ("Observability_Team", O)],
         [("Metrics_Store", "OWNED_BY", "Observability_Team")]),
    Case("Cassius owns the Bramble Bookshop.", [("Cassius", P), ("Bramble Bookshop", O)],
         [("Bramble Bookshop", "OWNED_BY", "Cassius")]),
    Case("SearchIndexer is part of Platform_Search.", [("SearchIndexer", T), ("Platform_Search", T)],
         [("SearchIndexer", "PART_OF", "Platform_Search")]),
    Case("The status of Gateway_West is healthy.", [("Gateway_West", T)], [("Gateway_West", "HAS_STATUS", "healthy")]),
    Case("Ticket_7310's severity is high.", [("Ticket_7310", T)], [("Ticket_7310", "HAS_SEVERITY", "high")]),
    Case("Is Service_Mail still down?", [("Service_Mail", T)]),
    Case("Valentina might join Corvina Studios next spring.", [("Valentina", P), ("Corvina Studios", O)]),
    Case("Arvid is a member of the Lindholm Chess Club.", [("Arvid", P), ("Lindholm Chess Club", O)],
         [("Arvid", "MEMBER_OF", "Lindholm Chess Club")]),
    Case("Please call Bronwyn Hale tomorrow about the contract.", [("Bronwyn Hale", P)]),
    Case("I can't stand early morning meetings."),
]


def normalise(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip(" .,;:'\"").casefold()


def prf(matched: int, predicted: int, gold: int) -> dict:
    p = matched / predicted if predicted else 0.0
    r = matched / gold if gold else 0.0
    return {"precision": round(p, 3), "recall": round(r, 3), "f1": round(2 * p * r / (p + r) if p + r else 0.0, 3)}


def score(extractor, cases=CASES) -> dict:
    """Return micro P/R/F1 of typed and untyped entities and of facts, matching names by any surface form."""
    counts = {"typed": 0, "untyped": 0, "entities": 0, "gold_entities": 0, "facts": 0, "predicted_facts": 0, "gold_facts": 0}
    misses = []
    for case in cases:
        result = extractor.extract(text=case.text)
        forms = {e.name: {normalise(f) for f in e.surface_forms} for e in result.entities}
        for typed in (True, False):
            used = set()
            for name, type_ in case.entities:
                hit = next((i for i, e in enumerate(result.entities) if i not in used and (not typed or e.type == type_)
                            and normalise(name) in forms[e.name]), None)
                if hit is not None:
                    used.add(hit)
            counts["typed" if typed else "untyped"] += len(used)
        counts["entities"] += len(result.entities)
        counts["gold_entities"] += len(case.entities)

        found = {(s, p, o) for s, p, o in ((f.subject, f.predicate, f.object) for f in result.facts)}
        used = set()
        for subject, predicate, obj in found:
            hit = next((g for g in case.facts if g not in used and g[1] == predicate
                        and normalise(g[0]) in forms.get(subject, {normalise(subject)})
                        and normalise(g[2]) in forms.get(obj, {normalise(obj)})), None)
            if hit is not None:
                used.add(hit)
        counts["facts"] += len(used)
        counts["predicted_facts"] += len(found)
        counts["gold_facts"] += len(case.facts)
        if len(used) != len(found) or len(used) != len(case.facts):
            misses.append((case.text, sorted(found)))
    return {
        "entities": {"typed": prf(counts["typed"], counts["entities"], counts["gold_entities"]),
                     "untyped": prf(counts["untyped"], counts["entities"], counts["gold_entities"])},
        "facts": prf(counts["facts"], counts["predicted_facts"], counts["gold_facts"]),
        "fact_misses": misses,
    }
