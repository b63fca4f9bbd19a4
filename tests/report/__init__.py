"""Tests of the campaign report (a package: tests/meta has a test_report.py too)."""
