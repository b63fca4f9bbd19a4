r"""Judging strategies: the order in which each query's documents are given to the assessors.

A strategy turns :class:`~ir_rarity.judging.candidates.Candidates` into a :class:`JudgingOrder`: per query, the
documents in the order they are judged. The pool at a budget of b judgments per query is the first b of them.

Non-adaptive strategies score every document from the runs' ranks alone, over whole arrays (no loop per
document); ties are broken by docno, ascending. Adaptive strategies choose the next document from the relevance of those
already judged (the oracle, :attr:`Candidates.doc_label`); they loop once per judgment and break ties between
runs by a permutation drawn from ``seed``, so an order is reproducible.

================  ===========================================================================================
``depth``         depth-k pooling (Spärck Jones & van Rijsbergen, 1975; TREC practice): documents by their best
                  rank over the runs, then docno ascending (``ties='runs'``: then by how many runs retrieved
                  them, then docno ascending); with ``k`` only the runs' top k: the depth-k judging pool.
``rbp``           RBP-weighted: :math:`\sum_r (1-p)\,p^{rank_r(d)-1}` (Moffat, Webber & Zobel, 2007).
``rrf``           RRF-weighted: :math:`\sum_r 1/(k + rank_r(d))` (Cormack, Clarke & Büttcher, SIGIR 2009).
``mtf``           move-to-front (Cormack, Palmer & Clarke, SIGIR 1998), adaptive; ``rule`` says whether a
                  document judged through another run counts for a run (``'cormack'``) or is skipped.
``mmns``          the non-stationary Bayesian bandit MM-NS (Losada, Parapar & Barreiro, IPM 2017), adaptive.
``rarity``        rarity-aware RBP: :math:`\sum_r (1-p)\,p^{rank_r(d)-1} / S_d^{\beta}` (this package).
================  ===========================================================================================
"""

from __future__ import annotations

import abc
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ir_rarity.errors import ParameterError
from ir_rarity.judging.candidates import Candidates

__all__ = [
    "MMNS",
    "MTF",
    "RBP",
    "RRF",
    "STRATEGIES",
    "DepthK",
    "JudgingOrder",
    "RarityRBP",
    "Strategy",
    "parse_strategy",
]


@dataclass(frozen=True, eq=False)
class JudgingOrder:
    """Per query, the documents in the order a strategy judges them.

    Attributes:
        strategy: The strategy's name (``str(strategy)``).
        candidates: What was ordered.
        doc: Documents (indices into ``candidates.doc_key``), sorted by (query, position).
        position: 0-based position of each in its query's order.

    """

    strategy: str
    candidates: Candidates
    doc: np.ndarray
    position: np.ndarray

    @property
    def query(self) -> np.ndarray:
        """Query of each ordered document."""
        return self.candidates.doc_query[self.doc]

    def lengths(self) -> np.ndarray:
        """Number of documents ordered per query (a budget beyond it judges them all)."""
        return np.bincount(self.query, minlength=self.candidates.n_queries)

    def mask(self, budget: int | np.ndarray | None) -> np.ndarray:
        """Which ordered documents are judged with ``budget`` judgments per query (int, one per query, or None)."""
        if budget is None:
            return np.ones(len(self.doc), dtype=bool)
        limit = np.broadcast_to(np.asarray(budget, dtype=np.int64), (self.candidates.n_queries,))
        return self.position < limit[self.query]

    def judged(self, budget: int | np.ndarray | None) -> np.ndarray:
        """Documents judged with ``budget`` judgments per query."""
        return self.doc[self.mask(budget)]

    def frame(self, budget: int | np.ndarray | None = None) -> pd.DataFrame:
        """The pool at ``budget``: ``query_id, doc_id, position`` (0-based, per query) and ``in_qrels``."""
        cands = self.candidates
        mask = self.mask(budget)
        docs = self.doc[mask]
        return pd.DataFrame({"query_id": cands.query_ids.to_numpy(dtype=object)[cands.doc_query[docs]],
                             "doc_id": cands.doc_ids[docs], "position": self.position[mask],
                             "in_qrels": ~cands.doc_outside_qrels()[docs]})


def _from_scores(name: str, cands: Candidates, keep: np.ndarray, *scores: np.ndarray) -> JudgingOrder:
    """Order the documents ``keep`` within each query by ``scores`` (first most important; higher first).

    Ties left by every score are broken by pair key (docno order).
    """
    docs = np.flatnonzero(keep)
    # np.lexsort sorts by the last key first: query, then each score descending, then the pair key.
    sort_keys = [cands.doc_key[docs], *(-s[docs] for s in reversed(scores)), cands.doc_query[docs]]
    docs = docs[np.lexsort(sort_keys)]
    return JudgingOrder(name, cands, docs, _positions(cands.doc_query[docs]))


def _positions(query: np.ndarray) -> np.ndarray:
    """0-based position of each entry within its run of equal (sorted) ``query`` values."""
    if len(query) == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    lengths = np.diff(np.r_[start, len(query)])
    return np.arange(len(query), dtype=np.int64) - np.repeat(start, lengths)


class Strategy(abc.ABC):
    """A judging strategy. ``str(strategy)`` names it with its parameters, e.g. ``rbp(p=0.8)``."""

    NAME: ClassVar[str]
    ADAPTIVE: ClassVar[bool] = False
    """Whether the strategy reads the relevance of documents already judged."""

    @abc.abstractmethod
    def params(self) -> dict[str, Any]:
        """The strategy's parameters."""

    @abc.abstractmethod
    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """The judging order of every query's candidates.

        Args:
            candidates: What to order.
            seed: Breaks ties between runs of adaptive strategies.
            limit: Only the first ``limit`` documents of each query are needed (adaptive strategies stop there;
                non-adaptive ones order everything, at no extra cost worth saving).

        """

    def __str__(self) -> str:
        params = ",".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.params().items()
                          if v is not None)
        return f"{self.NAME}({params})" if params else self.NAME

    def __repr__(self) -> str:
        return f"<strategy {self}>"


def _positive_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        return bool(int(value) == value and value >= 1)
    except (TypeError, ValueError, OverflowError):
        return False


def _choice(name: str, param: str, value: Any, allowed: tuple[str, ...]) -> str:
    text = str(value).strip().lower()
    if text not in allowed:
        raise ParameterError(f"{name}: {param} must be one of {', '.join(allowed)}, got {value!r}")
    return text


def _probability(name: str, value: float) -> float:
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ParameterError(f"{name}: p must be in (0, 1), got {value}")
    return value


class DepthK(Strategy):
    """Depth-k pooling: documents by their best rank over all runs, shallow first.

    ``ties`` orders the documents of one rank: ``'docno'`` (default; TREC practice, where the depth-k pool is
    judged and within a rank no run count decides) by docno only, ascending (the strings compared code point by
    code point: ``D1 < a < d10 < d9``), ``'runs'`` by how many runs retrieved them (within the top k with ``k``),
    more first, then docno ascending. Either way the pool at a budget of b judgments per
    query is the first b documents of the order, and with ``k``, only documents in some run's top k are ordered:
    judging them all gives :func:`ir_rarity.campaign.judging_pool` at depth k (the same set for both rules).
    """

    NAME = "depth"
    TIES: ClassVar[tuple[str, ...]] = ("docno", "runs")

    def __init__(self, k: int | None = None, ties: str = "docno") -> None:
        if k is not None and not _positive_integer(k):
            raise ParameterError(f"depth: k must be a positive integer, got {k!r}")
        self.k = None if k is None else int(k)
        self.ties = _choice(self.NAME, "ties", ties, self.TIES)

    def params(self) -> dict[str, Any]:
        """``k``, and ``ties`` unless it is the default ``'docno'``."""
        return {"k": self.k, "ties": None if self.ties == "docno" else self.ties}

    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """See the class."""
        best = np.full(candidates.n_docs, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(best, candidates.doc, candidates.rank)
        keep = np.ones(candidates.n_docs, dtype=bool) if self.k is None else best < self.k
        scores = [-best.astype(np.float64)]
        if self.ties == "runs":
            rows = candidates.rank < (self.k if self.k is not None else np.iinfo(np.int64).max)
            scores.append(np.bincount(candidates.doc[rows], minlength=candidates.n_docs).astype(np.float64))
        return _from_scores(str(self), candidates, keep, *scores)


class RBP(Strategy):
    r"""RBP-weighted pooling: :math:`score(d) = \sum_r (1-p)\,p^{rank_r(d)-1}` over the runs retrieving d.

    Moffat, Webber & Zobel, "Strategic system comparisons via targeted relevance judgments", SIGIR 2007.
    """

    NAME = "rbp"

    def __init__(self, p: float = 0.8) -> None:
        self.p = _probability(self.NAME, p)

    def params(self) -> dict[str, Any]:
        """``p``."""
        return {"p": self.p}

    def weights(self, candidates: Candidates) -> np.ndarray:
        r""":math:`\sum_r (1-p) p^{rank}` per document (0-based rank)."""
        return np.bincount(candidates.doc, weights=(1 - self.p) * self.p ** candidates.rank.astype(np.float64),
                           minlength=candidates.n_docs)

    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """See the class."""
        return _from_scores(str(self), candidates, np.ones(candidates.n_docs, dtype=bool), self.weights(candidates))


class RRF(Strategy):
    r"""RRF-weighted pooling: :math:`score(d) = \sum_r 1/(k + rank_r(d))`, rank from 1.

    Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) used as a judging priority.
    """

    NAME = "rrf"

    def __init__(self, k: float = 60.0) -> None:
        if not float(k) >= 0:
            raise ParameterError(f"rrf: k must be >= 0, got {k!r}")
        self.k = float(k)

    def params(self) -> dict[str, Any]:
        """``k``."""
        return {"k": self.k}

    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """See the class."""
        score = np.bincount(candidates.doc, weights=1.0 / (self.k + candidates.rank + 1.0),
                            minlength=candidates.n_docs)
        return _from_scores(str(self), candidates, np.ones(candidates.n_docs, dtype=bool), score)


class RarityRBP(Strategy):
    r"""Rarity-aware pooling (this package): RBP weight shared among the runs that retrieved a document.

    .. math:: score(d) = \frac{1}{S_d^{\beta}} \sum_{r \ni d} (1-p)\,p^{rank_r(d)-1}

    with :math:`S_d` the number of runs retrieving d (within the candidates). ``beta = 0`` is RBP-weighted
    pooling, which favours documents many runs rank high: most relevant documents per judgment, since consensus
    predicts relevance (Türkmen, Lease & Kutlu, ECIR 2023, section 5.1: rarely retrieved documents are less
    often relevant). ``beta = 1`` scores a document by the *mean* RBP weight of the runs that retrieved it, so a
    document one run ranks first is as urgent as one every run ranks first: each system's top documents are
    judged whatever the others retrieved, which keeps the pool fair to a system that finds what others miss
    (section 5.4). Values between trade relevant documents found against that coverage.
    """

    NAME = "rarity"

    def __init__(self, beta: float = 0.5, p: float = 0.8) -> None:
        if not 0.0 <= float(beta) <= 1.0:
            raise ParameterError(f"rarity: beta must be in [0, 1], got {beta!r}")
        self.beta = float(beta)
        self.p = _probability(self.NAME, p)

    def params(self) -> dict[str, Any]:
        """``beta`` and ``p``."""
        return {"beta": self.beta, "p": self.p}

    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """See the class."""
        weight = RBP(self.p).weights(candidates)
        score = weight / candidates.retrieved_by().astype(np.float64) ** self.beta
        return _from_scores(str(self), candidates, np.ones(candidates.n_docs, dtype=bool), score)


# ---------------------------------------------------------------------------------------------- adaptive
class _Adaptive(Strategy):
    """Shared loop of the adaptive strategies: runs are arms; pulling one judges its best unjudged document."""

    ADAPTIVE = True

    def order(self, candidates: Candidates, seed: int = 0, limit: int | None = None) -> JudgingOrder:
        """Judge every query's candidates (or its first ``limit``), one judgment at a time, as the strategy picks."""
        rng = np.random.default_rng(seed)
        relevant = candidates.doc_relevant()
        # The rows by (query, run, rank): each run's ranked list for a query is one contiguous slice.
        rows = np.lexsort((candidates.rank, candidates.run, candidates.query))
        query, run, doc = candidates.query[rows], candidates.run[rows], candidates.doc[rows]
        bounds = np.searchsorted(query, np.arange(candidates.n_queries + 1))
        ordered = []
        for t in range(candidates.n_queries):
            lo, hi = bounds[t], bounds[t + 1]
            tie_rank = rng.permutation(candidates.n_runs)  # drawn for every query, so a query's order is seeded
            ordered.append(self._query(run[lo:hi], doc[lo:hi], relevant, candidates.n_runs, tie_rank, limit))
        docs = np.concatenate(ordered) if ordered else np.zeros(0, dtype=np.int64)
        return JudgingOrder(str(self), candidates, docs, _positions(candidates.doc_query[docs]))

    def _query(self, run: np.ndarray, doc: np.ndarray, relevant: np.ndarray, n_runs: int,
               tie_rank: np.ndarray, limit: int | None) -> np.ndarray:
        starts = np.searchsorted(run, np.arange(n_runs + 1))
        lists = [doc[starts[r]:starts[r + 1]].tolist() for r in range(n_runs)]
        pointer = [0] * n_runs
        judged: set[int] = set()
        n_docs = len(np.unique(doc)) if limit is None else min(int(limit), len(np.unique(doc)))
        # An arm's preference: the strategy's value, ties to the arm drawn first; exhausted arms get -inf.
        tie = -tie_rank.astype(np.float64) / (n_runs + 1.0)  # in (-1, 0]: below any gap between values
        state = self._start(n_runs)
        value = self._values(state) + tie
        value[[r for r in range(n_runs) if not lists[r]]] = -np.inf
        out: list[int] = []
        while len(out) < n_docs:
            arm = int(np.argmax(value))
            d = self._step(lists[arm], pointer, arm, judged)
            if d is None:
                value[arm] = -np.inf
                continue
            if d not in judged:  # a new judgment (otherwise a document judged before, counted for this arm)
                judged.add(d)
                out.append(d)
            value[arm] = self._update(state, arm, bool(relevant[d])) + tie[arm]
            if pointer[arm] == len(lists[arm]):
                value[arm] = -np.inf
        return np.asarray(out, dtype=np.int64)

    def _step(self, items: list[int], pointer: list[int], arm: int, judged: set[int]) -> int | None:
        """The document ``arm`` reads next (None: none left), its pointer moved past it.

        Documents judged before are passed over uncounted, unless :meth:`_counts_judged`: then the next document
        is read whether judged or not, and a judged one is counted for the arm without a new judgment.
        """
        p = pointer[arm]
        if not self._counts_judged():
            while p < len(items) and items[p] in judged:
                p += 1
        pointer[arm] = min(p + 1, len(items))
        return items[p] if p < len(items) else None

    def _counts_judged(self) -> bool:
        """Whether a document judged through another arm counts for this arm when it reaches it."""
        return False

    @abc.abstractmethod
    def _start(self, n_runs: int) -> Any:
        """The arms' initial state."""

    @abc.abstractmethod
    def _values(self, state: Any) -> np.ndarray:
        """Every arm's value in ``state``; values that differ by less than 1 count as tied."""

    @abc.abstractmethod
    def _update(self, state: Any, arm: int, relevant: bool) -> float:
        """Record the judgment of ``arm``'s document; return the arm's new value."""


class MTF(_Adaptive):
    """Move-to-front pooling (Cormack, Palmer & Clarke, SIGIR 1998).

    "Efficient construction of large test collections".

    Every run starts with the same priority. The run of highest priority reads its next document; a relevant one
    keeps the run's priority, so it is read again; a non-relevant one lowers its priority by one, which moves it
    behind every run that has failed less. Runs of equal priority are read in a seeded random order.

    ``rule`` says what a run does with a document already judged through another run:

    * ``'cormack'`` (default, as published): the document counts for the run as if the run had found it, with
      its judgment and no new one: judged relevant, the run keeps its priority and reads on; judged non-relevant,
      its priority drops by one as for any non-relevant document (counting a judged non-relevant document as the
      run's failure is this package's reading of "as if the run had found it"; a relevant one never changes a
      priority, so this is where the rules differ).
    * ``'skip'``: the document is passed over uncounted, and the run's next unjudged document is judged in the
      same turn (the run's priority only ever reflects documents judged through it).
    """

    NAME = "mtf"
    RULES: ClassVar[tuple[str, ...]] = ("cormack", "skip")

    def __init__(self, rule: str = "cormack") -> None:
        self.rule = _choice(self.NAME, "rule", rule, self.RULES)

    def params(self) -> dict[str, Any]:
        """``rule`` unless it is the default ``'cormack'``."""
        return {"rule": None if self.rule == "cormack" else self.rule}

    def _counts_judged(self) -> bool:
        return self.rule == "cormack"

    def _start(self, n_runs: int) -> np.ndarray:
        return np.zeros(n_runs, dtype=np.float64)

    def _values(self, state: np.ndarray) -> np.ndarray:
        return state.copy()

    def _update(self, state: np.ndarray, arm: int, relevant: bool) -> float:
        if not relevant:
            state[arm] -= 1.0
        return float(state[arm])


class MMNS(_Adaptive):
    r"""Non-stationary Bayesian bandit pooling, MM-NS (Losada, Parapar & Barreiro, SAC 2016; IPM 53(5), 2017).

    "Multi-armed bandits for adjudicating documents in pooling-based evaluation of information retrieval
    systems".

    Each run is an arm with a Beta posterior on the chance that its next document is relevant, starting from the
    uniform Beta(1, 1). The arm of maximum posterior mean ("MM") is pulled: its best unjudged document is judged.
    The variant implemented here makes the posterior non-stationary ("NS") by discounting: after each judgment
    of a run's document, its counts become

    .. math:: a_r \leftarrow \gamma\,a_r + rel, \qquad b_r \leftarrow \gamma\,b_r + (1 - rel),
              \qquad \text{value}_r = \frac{1 + a_r}{2 + a_r + b_r}

    so that recent judgments weigh more than early ones: a run's documents get less often relevant as it is
    followed deeper. Only the pulled run is updated (a document judged through one run and skipped by another
    teaches the other nothing). Ties between arms of equal value follow a seeded random order; ``gamma = 1``
    gives the stationary MM. Where this may depart from the published rule is set out in ``docs/pooling.md``
    (MM-NS: the update used).
    """

    NAME = "mmns"

    def __init__(self, gamma: float = 0.9) -> None:
        if not 0.0 < float(gamma) <= 1.0:
            raise ParameterError(f"mmns: gamma must be in (0, 1], got {gamma!r}")
        self.gamma = float(gamma)

    def params(self) -> dict[str, Any]:
        """``gamma``."""
        return {"gamma": self.gamma}

    def _start(self, n_runs: int) -> np.ndarray:
        return np.zeros((n_runs, 2), dtype=np.float64)

    def _values(self, state: np.ndarray) -> np.ndarray:
        # Scaled so that the tie term (in (-1, 0]) only orders arms whose posterior means differ by < 1e-9.
        return (1.0 + state[:, 0]) / (2.0 + state.sum(axis=1)) * 1e9

    def _update(self, state: np.ndarray, arm: int, relevant: bool) -> float:
        a, b = state[arm]
        a, b = self.gamma * a + relevant, self.gamma * b + (not relevant)
        state[arm] = a, b
        return (1.0 + a) / (2.0 + a + b) * 1e9


STRATEGIES: dict[str, Callable[..., Strategy]] = {
    DepthK.NAME: DepthK, RBP.NAME: RBP, RRF.NAME: RRF, MTF.NAME: MTF, MMNS.NAME: MMNS, RarityRBP.NAME: RarityRBP,
}
"""Strategy name -> class, for :func:`parse_strategy`."""

_SPEC = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*$")


def _number_or_word(value: str) -> float | str:
    try:
        return float(value)
    except ValueError:
        return value


def parse_strategy(spec: str | Strategy) -> Strategy:
    """A strategy from its name with optional parameters, e.g. ``depth(k=10,ties=runs)``, ``mtf(rule=skip)``.

    Raises:
        ParameterError: an unknown name, a malformed parameter list, or a bad value.

    """
    if isinstance(spec, Strategy):
        return spec
    match = _SPEC.match(str(spec))
    if not match or match.group(1).lower() not in STRATEGIES:
        raise ParameterError(f"unknown pooling strategy {spec!r}; known: {', '.join(STRATEGIES)} "
                             "(parameters as in rbp(p=0.8))")
    params: dict[str, Any] = {}
    for part in filter(None, (match.group(2) or "").split(",")):
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ParameterError(f"pooling strategy {spec!r}: write parameters as name=value")
        params[name.strip()] = _number_or_word(value.strip())
    cls = STRATEGIES[match.group(1).lower()]
    if cls is DepthK and isinstance(params.get("k"), float) and params["k"].is_integer():
        params["k"] = int(params["k"])
    try:
        return cls(**params)
    except ParameterError:
        raise
    except TypeError:
        raise ParameterError(f"pooling strategy {spec!r}: unknown parameter(s) {sorted(params)}") from None
    except ValueError:
        raise ParameterError(f"pooling strategy {spec!r}: a parameter that takes a number got a word") from None
