"""What every ir_rarity measure shares: parameter checking, pool needs and the direction of "better".

Measures here are definitions only, as in ir_measures: a name, the supported parameters and a docstring. The
computation lives in :mod:`ir_rarity.engine`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import ir_measures
from ir_measures.measures.base import _NOT_PROVIDED, Agg, ParamInfo

from ir_rarity.errors import ParameterError, RarityWarning, warn

__all__ = ["LARGE_ALPHA", "MAX_ALPHA", "ExactMeanAgg", "RarityMeasure", "RarityWeightedMeasure", "pool_param",
           "rarity_params", "rel_param", "warn_large_alpha"]


class ExactMeanAgg(Agg):
    """Mean of the per-query values with an exactly rounded sum (:func:`math.fsum`).

    Queries added in any order give the same mean, equal to the tables' (:func:`ir_rarity.engine.means.
    exact_means`). With ``skipna``, NaN values (queries without a value, e.g. ASL without relevant documents) are
    left out; the mean of nothing is NaN.
    """

    def __init__(self, skipna: bool = False) -> None:
        self.values: list[float] = []
        self.skipna = skipna

    def add(self, value: float) -> None:
        """Add one per-query value (NaN is skipped with ``skipna``)."""
        if not (self.skipna and math.isnan(value)):
            self.values.append(float(value))

    def result(self) -> float:
        """The exactly rounded sum divided by the number of values; NaN when there were none."""
        return math.fsum(self.values) / len(self.values) if self.values else float("nan")


class RarityMeasure(ir_measures.Measure):
    """Base class of ir_rarity's measures.

    Subclasses set ``NAME``, ``SUPPORTED_PARAMS`` and, for measures where lower values are better,
    ``HIGHER_IS_BETTER = False``. Parameters are checked with clear messages (never ``assert``), and integer
    values of float parameters are stored as floats so that ``alpha=1`` and ``alpha=1.0`` name the same measure.
    """

    HIGHER_IS_BETTER: ClassVar[bool] = True
    NEEDS_POOL: ClassVar[bool] = True
    """Whether the measure needs S_d or the campaign's runs (False: it scores a run on its own, as ASL)."""
    SKIPS_UNDEFINED: ClassVar[bool] = False
    """Whether the mean over queries leaves out queries without a value (NaN) instead of counting them."""
    RELEVANT_ROWS_ONLY: ClassVar[bool] = False
    """Whether the kernel reads only the relevant rows of a ranking (with ``judged_only=False``): every other row
    has gain 0, so the values are the same on the relevant rows alone (with the cells that hold a ranking)."""
    BASE_MEASURE: ClassVar[str | None] = None
    """The standard ir_measures measure the family is read against (``"P"`` for ``P_rare``): the rarity gain of a
    run is its value over this one (the report's comparison), and ``alpha=0`` gives it where the family has an
    ``alpha``. None for a family with no standard counterpart (ASL)."""
    AFFINE_IN_SD: ClassVar[bool] = False
    """Whether a value is an affine function of the counts S_d with linear rarity (the position weights of
    :mod:`ir_rarity.engine.affine`): samples of a campaign are then scored from tables of misses per pair of runs
    (subject to the parameter conditions of :func:`ir_rarity.engine.affine.is_affine`)."""
    BATCHES_SAMPLES: ClassVar[bool] = False
    """Whether the engine scores many samples of a campaign's runs in one batch (its kernel reads no row past the
    cutoff); other families are scored sample by sample."""
    ALPHA_CURVE: ClassVar[bool] = False
    """Whether the meta-evaluation traces the family against its :attr:`BASE_MEASURE` as alpha grows (Kendall's tau
    between the rankings of the runs at each alpha, Türkmen, Lease & Kutlu, ECIR 2023, section 4)."""

    def __init__(self, **params: Any) -> None:
        for name, value in list(params.items()):
            info = self.SUPPORTED_PARAMS.get(name)
            if info is not None and info.dtype is float and isinstance(value, int) and not isinstance(value, bool):
                params[name] = float(value)
        super().__init__(**params)  # type: ignore[no-untyped-call]  # ir_measures.Measure.__init__ is untyped

    def aggregator(self) -> Agg:
        """:class:`ExactMeanAgg`, skipping NaN for measures that :attr:`SKIPS_UNDEFINED`."""
        return ExactMeanAgg(skipna=self.SKIPS_UNDEFINED)

    def __getitem__(self, key: str) -> Any:
        """The value of parameter ``key``: the given one, else its default, else None."""
        value = self.params.get(key, self.SUPPORTED_PARAMS[key].default)
        return None if value is _NOT_PROVIDED else value

    def validate_params(self) -> None:
        """Check parameter names, types and ranges.

        Raises:
            ParameterError: an unknown parameter, a value of the wrong type, a missing required parameter, or a
                value out of range (see :meth:`check_ranges`).

        """
        if self.validated:
            return
        unknown = sorted(set(self.params) - set(self.SUPPORTED_PARAMS))
        if unknown:
            raise ParameterError(f"{self.NAME}: unsupported parameter(s) {unknown}; supported: "
                                 f"{sorted(self.SUPPORTED_PARAMS)}")
        for name, info in self.SUPPORTED_PARAMS.items():
            value = self.params.get(name, _NOT_PROVIDED)
            if value is _NOT_PROVIDED:
                if info.required:
                    at = f" (write {self.NAME}@k)" if name == self.AT_PARAM else ""
                    raise ParameterError(f"{self.NAME}: parameter {name!r} is required{at}")
                continue
            if value is None and info.default is None:
                continue
            if not info.validate(value):
                raise ParameterError(f"{self.NAME}: invalid {name}={value!r} ({info.desc})")
        self.check_ranges()
        self.validated = True

    def check_ranges(self) -> None:
        """Check value ranges; subclasses extend. Raises :class:`ParameterError`."""
        cutoff = self.params.get("cutoff")
        if cutoff is not None and cutoff <= 0:
            raise ParameterError(f"{self.NAME}: cutoff must be a positive integer, got {cutoff}")
        depth = self.params.get("depth")
        if depth is not None and depth <= 0:
            raise ParameterError(f"{self.NAME}: depth must be a positive integer, got {depth}")


MAX_ALPHA = 1e15
r"""The largest ``alpha`` of the measures whose values grow with it (``P_rare``, ``AP_rare``, ``nDCG_rare``).

Their gains :math:`1 + \alpha R(d)` reach :math:`1 + \alpha`, and their sums overflow to inf for alphas near
the largest float; beyond :math:`2^{53} \approx 9 \times 10^{15}` the 1 of :math:`1 + \alpha R(d)` is lost to
rounding anyway. Below this bound every value is finite (at most k times the largest label times
:math:`1 + \alpha`)."""


class RarityWeightedMeasure(RarityMeasure):
    """Base of the measures weighted by document rarity (``P_rare``, ``AP_rare``, ...): checks ``alpha``.

    ``MAX_ALPHA`` is the largest alpha accepted (:data:`MAX_ALPHA`; ``R_rare``, a ratio of weights computed
    scaled, accepts any finite alpha).
    """

    RELEVANT_ROWS_ONLY: ClassVar[bool] = True
    MAX_ALPHA: ClassVar[float] = MAX_ALPHA

    def check_ranges(self) -> None:
        """Check 0 <= alpha <= ``MAX_ALPHA`` (and <= 1 for the bounded variant), cutoff and depth > 0."""
        super().check_ranges()
        alpha = self["alpha"]
        if not alpha >= 0 or alpha == float("inf"):  # also refuses NaN
            raise ParameterError(f"{self.NAME}: alpha must be >= 0 and finite, got {alpha}")
        if alpha > self.MAX_ALPHA:
            bound = f"{self.MAX_ALPHA:.0e}".replace("e+", "e")
            raise ParameterError(f"{self.NAME}: alpha must be <= {bound} (larger values overflow or lose the 1 of "
                                 f"1 + alpha R(d) to rounding), got {alpha:g}")
        if self["bounded"] and alpha > 1:
            raise ParameterError(f"{self.NAME}: the bounded variant needs alpha in [0, 1], got {alpha}")
        if self.SUPPORTED_PARAMS.get("alpha_per_topic") is not None and self["alpha_per_topic"] \
                and "alpha" in self.params:
            raise ParameterError(f"{self.NAME}: alpha_per_topic=True sets alpha = 1/N_R per query; do not also "
                                 "give alpha")


LARGE_ALPHA = 10.0
r"""Above this ``alpha`` a rarity-weighted score is almost pure rarity: a relevant document's gain
:math:`1 + \alpha R(d)` is then mostly :math:`\alpha R(d)`, and the values (up to k times :math:`1 + \alpha`) no
longer read as the standard measure's. :func:`warn_large_alpha` says so once per measure and call."""


def warn_large_alpha(measures: Iterable[Any], labels: Mapping[Any, str] | None = None) -> None:
    """Warn once for each distinct measure whose alpha exceeds :data:`LARGE_ALPHA`, pointing to ``bounded=True``.

    One :class:`~ir_rarity.errors.RarityWarning` (one line) a measure; nothing for other measures. Called once per
    evaluation (by the front door), never per query or per run.

    Args:
        measures: The measures of one call.
        labels: The text each measure was given as (its column), to name it as the user wrote it.

    """
    for measure in dict.fromkeys(measures):
        params = getattr(measure, "params", None)
        if not isinstance(measure, RarityWeightedMeasure) or not isinstance(params, dict):
            continue
        alpha = params.get("alpha")
        if isinstance(alpha, (int, float)) and alpha > LARGE_ALPHA:
            grows = math.isfinite(measure.MAX_ALPHA)  # P_rare, AP_rare, nDCG_rare; R_rare is a ratio
            name = (labels or {}).get(measure, str(measure))
            warn(f"{name}: alpha = {alpha:g} > {LARGE_ALPHA:g} makes the score almost pure rarity (a relevant "
                 "document gains 1 + alpha R(d), mostly alpha R(d))"
                 + (", its values far above the standard measure's" if grows else "")
                 + "; for a score that still counts relevance, in [0, 1], use bounded=True (alpha in [0, 1])",
                 RarityWarning)


GAIN_CHOICES = ("binary", "graded")
"""Values of ``gain``: 1 for every relevant document, or its relevance label."""

WEIGHTING_CHOICES = ("linear", "log")
"""Values of ``weighting``: R(d) = 1 - S_d/S (eq. 2), or the IDF-like log(S/S_d)/log(S)."""


def rel_param() -> ParamInfo:
    """The ``rel`` parameter every ir_rarity measure shares: the minimum label counted as relevant."""
    return ParamInfo(dtype=int, default=1, desc="minimum relevance label counted as relevant (inclusive)")


def pool_param() -> ParamInfo:
    """The ``pool`` parameter of every measure that needs S_d or the pool's runs (rarity and novelty)."""
    return ParamInfo(dtype=str, default=None,
                     desc="runs to build the pool from when none is active (a run file, directory or glob, "
                          "e.g. pool='runs/*.gz'); the IR_RARITY_POOL environment variable does the same")


def rarity_params(cutoff_required: bool, gain_default: str = "binary") -> dict[str, ParamInfo]:
    """The parameters shared by the rarity measures (``P_rare``, ``AP_rare``, ``nDCG_rare``).

    Args:
        cutoff_required: Whether the measure needs ``@k``.
        gain_default: Default of ``gain`` (``nDCG_rare`` uses ``'graded'``, as nDCG does).

    """
    return {
        "cutoff": ParamInfo(dtype=int, required=cutoff_required, desc="ranking cutoff threshold k"),
        "alpha": ParamInfo(dtype=float, default=1.0,
                           desc="weight of rarity: 0 gives the standard measure; >= 0, and <= 1 when bounded"),
        "rel": rel_param(),
        "depth": ParamInfo(dtype=int, default=None,
                           desc="S_d counts the pool runs that retrieve d in their top `depth` (default: the "
                                "cutoff; without a cutoff, each run's full length)"),
        "bounded": ParamInfo(dtype=bool, default=False,
                             desc="use the [0, 1]-bounded variant of section 5.2 (eq. 4) with "
                                  "R'(d) = 1 - (S_d - 1)/(S - 1)"),
        "pool": pool_param(),
        "gain": ParamInfo(dtype=str, default=gain_default, choices=GAIN_CHOICES,
                          desc="'binary': a relevant document gains 1; 'graded': it gains its relevance label"),
        "weighting": ParamInfo(dtype=str, default="linear", choices=WEIGHTING_CHOICES,
                               desc="rarity function: 'linear' R(d) = 1 - S_d/S (R' when bounded), 'log' the "
                                    "IDF-like log(S/S_d)/log(S) in [0, 1]"),
        "alpha_per_topic": ParamInfo(dtype=bool, default=False,
                                     desc="use alpha = 1/N_R per query (0 when N_R = 0) instead of one alpha"),
        "judged_only": ParamInfo(dtype=bool, default=False,
                                 desc="remove unjudged documents from each ranking before scoring (as ir_measures' "
                                      "AP(judged_only=True)); S_d stays as counted in the pool"),
    }
