# Two commands: `make run` (the portal with its services and a demo) and `make test` (the suite).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# The Neo4j line the launcher runs: 5.26 (the LTS, on Java 17+) or 2026 (Java 21+; in-index filtered
# vector search), e.g. `make test NEO4J_LINE=2026`. Each line has its own test store and port.
NEO4J_LINE ?= 5.26
export NEO4J_LINE
TEST_PORT := $(if $(filter 2026,$(NEO4J_LINE)),7689,7688)
# The app's and the broker's Redis databases: each line its own, so the suite can run on both lines at once (CI).
TEST_REDIS := $(if $(filter 2026,$(NEO4J_LINE)),13 12,15 14)
# The suite gets its own empty Neo4j (refused when populated) and its own Redis databases.
TEST_ENV := NEO4J_HOME=$(CURDIR)/var/neo4j-test$(if $(filter 2026,$(NEO4J_LINE)),-2026) NEO4J_BOLT_PORT=$(TEST_PORT) \
	NEO4J_PAGECACHE=512m
TEST_URLS := NEO4J_URL=bolt://neo4j:neo4j@127.0.0.1:$(TEST_PORT) \
	REDIS_URL=redis://127.0.0.1:6379/$(word 1,$(TEST_REDIS)) CELERY_BROKER_URL=redis://127.0.0.1:6379/$(word 2,$(TEST_REDIS))
# The portal's port for `make run` (its services' are their own variables: NEO4J_BOLT_PORT and NEO4J_URL, REDIS_URL).
WEB_PORT ?= 8000

.PHONY: run test test-tools test-neo4j setup services stop status

# axe-core, which the browser tests inject into every page (package.json; node_modules/ is not committed).
node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null || tools/apt-install.sh npm
	npm ci --no-audit --no-fund --loglevel=error

$(VENV)/.installed: requirements.txt
	@python="$$(tools/python.sh)" && { [ -x $(PY) ] || "$$python" -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-deps -r requirements.txt
	touch $@

setup: $(VENV)/.installed

services: setup
	tools/neo4j/neo4j.sh start
	tools/redis.sh start

run: services
	$(PY) manage.py migrate --noinput
	$(PY) manage.py install_labels
	$(PY) manage.py load_demo_knowledge
	$(PY) manage.py load_demo
	tools/worker.sh start
	@echo
	@echo "Portal: http://127.0.0.1:$(WEB_PORT)  (sign in as demo@example.com / demo-password; reviewer: reviewer@example.com / reviewer-password; staff: admin@example.com / admin-password)"
	@echo "Health: http://127.0.0.1:$(WEB_PORT)/healthz   API docs: http://127.0.0.1:$(WEB_PORT)/api/docs/"
	@echo
	$(PY) manage.py runserver 127.0.0.1:$(WEB_PORT)

# What the suite runs with, installed once (CI installs it before running both lines' suites side by side).
test-tools: setup node_modules/.package-lock.json
	@# Debian's Chromium drives the browser tests; Playwright never downloads a browser of its own.
	@command -v chromium >/dev/null || tools/apt-install.sh chromium

# The suite's Neo4j alone (CI starts it while the .venv installs).
test-neo4j:
	$(TEST_ENV) tools/neo4j/neo4j.sh start

test: test-tools test-neo4j
	tools/redis.sh start
	$(TEST_URLS) $(PY) -m pytest $(PYTEST_ARGS)

stop:
	-tools/worker.sh stop
	-tools/neo4j/neo4j.sh stop
	-$(TEST_ENV) tools/neo4j/neo4j.sh stop
	-tools/redis.sh stop

status:
	-tools/neo4j/neo4j.sh status
	-tools/redis.sh status
	-tools/worker.sh status
