"""Validating a release: one checker module per concern."""
