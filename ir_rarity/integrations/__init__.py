"""Integrations with ir_measures and PyTerrier."""
