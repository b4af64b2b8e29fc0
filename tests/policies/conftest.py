"""Policy tests import their helpers from policy_resources (this directory); nothing global here."""
