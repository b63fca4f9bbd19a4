"""ir_rarity: rarity ("innovation") measures and pool-aware evaluation for ir_measures and PyTerrier.

Importing the package registers its measures with ir_measures, so that after ``import ir_rarity``::

    import ir_measures
    ir_measures.parse_measure('P_rare(alpha=0.5)@100')

works, and ``ir_measures.calc_aggregate`` / ``pt.Experiment`` compute them inside ``with pool:``.
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
    from ir_rarity import campaign
    from ir_rarity.campaign import judging_pool, leave_one_team_out, unique_relevant, unjudged_share
    from ir_rarity.datasets import covid_round1
    from ir_rarity.integrations.pyterrier import Experiment
    from ir_rarity.io import read_trec_qrels, read_trec_run
    from ir_rarity.pool import CountTable, Pool, active_pool, resolve_campaign

__version__ = "0.1.0"

_register()

# Everything else is imported on first use (PEP 562): registering the measures must not import numpy or pandas,
# since the start-up hook does it on every `import ir_measures`.
_LAZY = {
    "campaign": "ir_rarity.campaign",
    "judging_pool": "ir_rarity.campaign",
    "leave_one_team_out": "ir_rarity.campaign",
    "unique_relevant": "ir_rarity.campaign",
    "unjudged_share": "ir_rarity.campaign",
    "covid_round1": "ir_rarity.datasets",
    "Experiment": "ir_rarity.integrations.pyterrier",
    "read_trec_qrels": "ir_rarity.io",
    "read_trec_run": "ir_rarity.io",
    "CountTable": "ir_rarity.pool",
    "Pool": "ir_rarity.pool",
    "active_pool": "ir_rarity.pool",
    "resolve_campaign": "ir_rarity.pool",
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
    "ASL",
    "FAMILIES",
    "AP_rare",
    "CountTable",
    "DegeneratePoolWarning",
    "DuplicateDocumentError",
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
    "campaign",
    "covid_round1",
    "higher_is_better",
    "judging_pool",
    "leave_one_team_out",
    "nDCG_rare",
    "read_trec_qrels",
    "read_trec_run",
    "resolve_campaign",
    "unique_relevant",
    "unjudged_share",
]
