"""Staff as the review tests sign them in."""

# Every permission of the staff pages (review's proxy of the audit trail holds them).
ALL = ["review_merges", "review_facts", "review_traces", "view_memory_content", "manage_agents", "erase_subjects",
       "view_auditevent"]
