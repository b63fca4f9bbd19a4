"""ir_rarity: rarity ("innovation") measures and pool-aware evaluation for ir_measures and PyTerrier.

The public API, by what it is for:

Evaluate (the front door)
    :func:`evaluate` scores runs and returns an :class:`Evaluation` (tables, per-query matrices, what it was
    computed against). :class:`Experiment` is PyTerrier's ``pt.Experiment`` with rarity measures.
Measures (definitions; registered with ir_measures on import)
    :class:`P_rare`, :class:`AP_rare`, :class:`nDCG_rare`, :class:`R_rare` (Türkmen, Lease & Kutlu, ECIR 2023),
    :class:`ASL` (Alex, Hall & Metzler), :class:`U_novel` (Fujii & Ishikawa, LREC 2000); :data:`FAMILIES`,
    :func:`higher_is_better`.
Campaigns (what S and S_d are counted from)
    :class:`Pool`, :class:`CountTable`, :func:`resolve_campaign`, :func:`active_pool`.
Campaign helpers
    :func:`judging_pool`, :func:`unjudged_share`, :func:`unique_relevant`, :func:`leave_one_team_out`.
Several judges
    :func:`compare_judges`: agreement overall and by rarity, each judge's leaderboards, runs' differences.
Reading and data
    :func:`read_trec_run`, :func:`read_trec_qrels`, :data:`covid_round1` (the embedded TREC-COVID round 1).
Reports
    :func:`report`: one self-contained HTML report of a campaign (``ir_rarity.report(runs, qrels)``).
    ``ir_rarity.complementarity(qrels, runs)``: run similarity, the campaign's fusion, what each team adds, and
    whether its rarity score says so (:mod:`~ir_rarity.complementarity`).
Errors and warnings
    :class:`RarityError`, :class:`InputError`, :class:`ParameterError`, ... (:mod:`ir_rarity.errors`).
Subpackages
    :mod:`~ir_rarity.compare` (campaign tables, significance), :mod:`~ir_rarity.stats` (statistics),
    :mod:`~ir_rarity.meta` (meta-evaluation), :mod:`~ir_rarity.judging` (judging strategies),
    :mod:`~ir_rarity.analysis` (where relevant documents lie).

Importing the package registers its measures with ir_measures, so that after ``import ir_rarity``,
``ir_measures.parse_measure('P_rare(alpha=0.5)@100')`` works and ``ir_measures.calc_aggregate`` / ``pt.Experiment``
compute them against the campaign a ``with pool:`` block (or the measure's ``pool=``) names.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ir_rarity.errors import (
    DegeneratePoolWarning,
    DuplicateDocumentError,
    InputError,
    MemberNotice,
    NoActivePoolError,
    ParameterError,
    RarityError,
    RarityWarning,
)
from ir_rarity.integrations.registration import register as _register
from ir_rarity.measures import (
    ASL,
    FAMILIES,
    AP_rare,
    P_rare,
    R_rare,
    RarityMeasure,
    U_novel,
    higher_is_better,
    nDCG_rare,
)

if TYPE_CHECKING:
    from ir_rarity import campaign, complementarity
    from ir_rarity.analysis.judges import compare_judges
    from ir_rarity.campaign import judging_pool, leave_one_team_out, unique_relevant, unjudged_share
    from ir_rarity.data import covid_round1
    from ir_rarity.engine.result import Evaluation
    from ir_rarity.evaluation import evaluate
    from ir_rarity.integrations.pyterrier import Experiment
    from ir_rarity.io import read_trec_qrels, read_trec_run
    from ir_rarity.pool import CountTable, Pool, active_pool, resolve_campaign

__version__ = "0.1.0"

_register()

# Everything else is imported on first use (PEP 562): registering the measures must not import numpy or pandas,
# since the start-up hook does it on every `import ir_measures`.
_LAZY = {
    "evaluate": "ir_rarity.evaluation",
    "Evaluation": "ir_rarity.engine.result",
    "campaign": "ir_rarity.campaign",
    "judging_pool": "ir_rarity.campaign",
    "leave_one_team_out": "ir_rarity.campaign",
    "unique_relevant": "ir_rarity.campaign",
    "unjudged_share": "ir_rarity.campaign",
    "compare_judges": "ir_rarity.analysis.judges",
    "covid_round1": "ir_rarity.data",
    "Experiment": "ir_rarity.integrations.pyterrier",
    "read_trec_qrels": "ir_rarity.io",
    "read_trec_run": "ir_rarity.io",
    "CountTable": "ir_rarity.pool",
    "Pool": "ir_rarity.pool",
    "active_pool": "ir_rarity.pool",
    "resolve_campaign": "ir_rarity.pool",
    "report": "ir_rarity.report",  # the package, callable as ir_rarity.report.report (see its docstring)
    "complementarity": "ir_rarity.complementarity",  # the package, callable as its complementarity function
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = import_module(_LAZY[name])
        value = module if module.__name__ == f"ir_rarity.{name}" else getattr(module, name)
    else:
        try:
            value = import_module(f"ir_rarity.{name}")  # a subpackage, e.g. ir_rarity.meta
        except ModuleNotFoundError:
            raise AttributeError(f"module 'ir_rarity' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    # measures
    "ASL",
    "FAMILIES",
    "AP_rare",
    # campaigns
    "CountTable",
    # errors and warnings
    "DegeneratePoolWarning",
    "DuplicateDocumentError",
    "Evaluation",
    "Experiment",
    "InputError",
    "MemberNotice",
    "NoActivePoolError",
    "P_rare",
    "ParameterError",
    "Pool",
    "R_rare",
    "RarityError",
    "RarityMeasure",
    "RarityWarning",
    "U_novel",
    "__version__",
    "active_pool",
    # campaign helpers
    "campaign",
    # several judges
    "compare_judges",
    # similarity, fusion and what each team adds (callable package)
    "complementarity",
    # reading and data
    "covid_round1",
    # evaluate: the front door
    "evaluate",
    "higher_is_better",
    "judging_pool",
    "leave_one_team_out",
    "nDCG_rare",
    "read_trec_qrels",
    "read_trec_run",
    # the campaign report (HTML)
    "report",
    "resolve_campaign",
    "unique_relevant",
    "unjudged_share",
]
