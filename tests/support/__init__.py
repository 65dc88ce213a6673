"""What the tests share: helpers to import, and fixtures registered once (tests/conftest.py's pytest_plugins).

Test modules and conftests import helpers from here only, never from one another.
"""
