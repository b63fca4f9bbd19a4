"""Analyses beyond per-run scores: per-document atomized search length (Alex, Hall & Metzler) and its plots."""

from ir_rarity.analysis.asl import (
    asl_differences,
    asl_distribution,
    difference_buckets,
    effective_fraction,
    per_document_asl,
    relative_error_reduction,
)

__all__ = [
    "asl_differences",
    "asl_distribution",
    "difference_buckets",
    "effective_fraction",
    "per_document_asl",
    "relative_error_reduction",
]
