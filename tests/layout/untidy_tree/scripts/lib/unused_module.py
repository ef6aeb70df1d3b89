"""Imported by nothing."""
