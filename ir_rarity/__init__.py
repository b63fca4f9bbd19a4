"""ir_rarity: rarity ("innovation") measures and pool-aware evaluation for ir_measures and PyTerrier.

Importing the package registers its measures with ir_measures, so that after ``import ir_rarity``::

    import ir_measures
    ir_measures.parse_measure('P_rare(alpha=0.5)@100')

works, and ``ir_measures.calc_aggregate`` / ``pt.Experiment`` compute them inside ``with pool:``.
"""

from ir_rarity import campaign
from ir_rarity.campaign import judging_pool, leave_one_team_out, unique_relevant, unjudged_share
from ir_rarity.datasets import covid_round1
from ir_rarity.errors import (
    DuplicateDocumentError,
    InputError,
    NoActivePoolError,
    ParameterError,
    RarityError,
)
from ir_rarity.integrations.pyterrier import Experiment
from ir_rarity.integrations.registration import register as _register
from ir_rarity.io import read_trec_qrels, read_trec_run
from ir_rarity.measures import ASL, AP_rare, P_rare, RarityMeasure, U_novel, higher_is_better, nDCG_rare
from ir_rarity.pool import CountTable, Pool, active_pool

__version__ = "0.1.0"

_register()

__all__ = [
    "ASL",
    "AP_rare",
    "CountTable",
    "DuplicateDocumentError",
    "Experiment",
    "InputError",
    "NoActivePoolError",
    "P_rare",
    "ParameterError",
    "Pool",
    "RarityError",
    "RarityMeasure",
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
    "unique_relevant",
    "unjudged_share",
]
