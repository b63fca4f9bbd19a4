"""The report's charts: Plotly figures from :class:`~ir_rarity.report.data.ReportData`, as HTML fragments.

Each function returns a ``<div>`` and the ``<script>`` that draws it with ``Plotly.newPlot`` (template
``templates/chart.html.j2``; the figure's JSON through :func:`~ir_rarity.report.markup.json_for_script`, so no
name in it can close the script); plotly.js itself is inlined once into the page (:func:`plotly_js`), so a chart
needs no network. Plotly reads ``<b>``, ``<br>`` and entities in the texts it shows, so every name (run, team,
measure, baseline) is given to it entity-escaped (:func:`_text`) and shows as written. Plotly is the ``report``
extra (``pip install 'ir_rarity[report]'``); docs/report.md says why it was chosen.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from ir_rarity.errors import ParameterError
from ir_rarity.report.markup import json_for_script, render
from ir_rarity.report.pairs import pair_title

if TYPE_CHECKING:
    from ir_rarity.report.data import ReportData

__all__ = ["asl_scatter", "check_plotly", "composition_ranks", "heatmap", "mean_intervals", "plotly_js",
           "pooling_curves", "rarity_gain", "rarity_scatter", "robust_range", "tau_alpha", "unique_bars"]

CONFIG = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["sendDataToCloud"]}
TEMPLATE = "plotly_white"


def _plotly() -> Any:
    """``plotly.graph_objects``, or a clear error naming the extra to install.

    Raises:
        ParameterError: plotly is not installed.

    """
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise ParameterError("the report's charts need plotly: pip install 'ir_rarity[report]'") from None
    return go


def check_plotly() -> None:
    """Fail early, before any computation, when plotly is missing (see :func:`_plotly`)."""
    _plotly()


def plotly_js() -> str:
    """The plotly.js bundle shipped with the plotly package (inlined once into the page)."""
    _plotly()
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def _text(value: Any) -> str:
    """A name as Plotly text: ``&``, ``<`` and ``>`` as entities, which Plotly shows as the characters."""
    return html.escape(str(value), quote=False)


def _texts(values: Iterable[Any]) -> list[str]:
    return [_text(v) for v in values]


def _html(figure: Any, div_id: str, height: int = 420, margin: dict[str, int] | None = None) -> Markup:
    """The chart's ``<div>`` and drawing ``<script>`` (its JSON written by the report's one script encoder)."""
    figure.update_layout(template=TEMPLATE, height=height,
                         margin={"l": 60, "r": 20, "t": 40, "b": 50, **(margin or {})})
    plain = json.loads(figure.to_json())  # plotly's own encoder (numpy arrays, dates) to plain values
    return render("chart.html.j2", div_id=div_id, height=height, data=json_for_script(plain.get("data", [])),
                  layout=json_for_script(plain.get("layout", {})), config=json_for_script(CONFIG))


def _hover(xlabel: str, ylabel: str) -> str:
    return (f"<b>%{{customdata[0]}}</b><br>team %{{customdata[1]}}<br>{_text(xlabel)}: %{{x:.4f}}<br>"
            f"{_text(ylabel)}: %{{y:.4f}}<extra></extra>")


def _label_margin(names: Iterable[Any], most: int = 260) -> int:
    """Room, in pixels, for run names as tick labels (about 7 pixels a character, at most ``most``)."""
    return min(most, 20 + 7 * max((len(str(n)) for n in names), default=0))


def rarity_scatter(data: ReportData, pair: tuple[str, str], div_id: str) -> Markup:
    """Each run at (standard measure, rarity measure); hovering a point names the run and its team."""
    go = _plotly()
    assert data.table is not None
    rare, base = pair
    runs = list(data.table.index)
    custom = np.array([[_text(r), _text(data.teams.get(r, r))] for r in runs], dtype=object)
    figure = go.Figure(go.Scatter(x=data.table[base], y=data.table[rare], mode="markers", customdata=custom,
                                  marker={"size": 8, "opacity": 0.75, "color": "#1f77b4"}, name="runs",
                                  hovertemplate=_hover(base, rare)))
    label = pair_title(data, pair)["label"]
    figure.update_layout(title=_text(label), xaxis_title=_text(f"{base} (standard, same cutoff)"),
                         yaxis_title=_text(f"{rare} (rarity)"), hovermode="closest")
    return _html(figure, div_id)


def unique_bars(counts: pd.Series, what: str, div_id: str, top: int = 40) -> Markup:
    """Unique relevant documents per team or run: the ``top`` units with any."""
    go = _plotly()
    shown = counts[counts > 0].head(top)
    figure = go.Figure(go.Bar(x=_texts(shown.index), y=shown.to_numpy(), marker_color="#2ca02c",
                              hovertemplate=f"{what} %{{x}}: %{{y}} unique relevant<extra></extra>"))
    figure.update_layout(title=f"Unique relevant documents per {what} ({len(shown)} of {len(counts)} with any)",
                         xaxis_title=what, yaxis_title="unique relevant documents", xaxis_tickangle=-45)
    return _html(figure, div_id, height=460)


def heatmap(diff: pd.DataFrame, measure: str, baseline: str, higher: bool, div_id: str) -> Markup:
    """Per-query difference of every run from ``baseline``, runs sorted by their mean difference.

    Each row is labelled with its run; the chart is 14 pixels a run tall, so every name fits.
    """
    go = _plotly()
    order = diff.mean(axis=1).sort_values(ascending=not higher, kind="mergesort").index
    shown = diff.loc[order]
    limit = float(np.nanmax(np.abs(shown.to_numpy()))) if shown.size else 1.0
    figure = go.Figure(go.Heatmap(z=shown.to_numpy(), x=_texts(f"q{q}" for q in shown.columns), y=_texts(shown.index),
                                  colorscale="RdBu", zmid=0, zmin=-limit, zmax=limit,
                                  hovertemplate="run %{y}<br>query %{x}<br>difference %{z:.4f}<extra></extra>"))
    direction = "higher is better" if higher else "lower is better"
    figure.update_layout(title=_text(f"{measure}: each run minus {baseline}, per query ({direction})"),
                         xaxis_title="query", yaxis={"title": "runs (best mean first)", "autorange": "reversed",
                                                     "type": "category", "dtick": 1, "tickfont": {"size": 10}})
    return _html(figure, div_id, height=max(560, 160 + 14 * len(shown)),
                 margin={"l": _label_margin(shown.index)})


def composition_ranks(comp: pd.DataFrame, measure: str, label: str, div_id: str, top: int = 40) -> Markup:
    """The ``top`` runs' ranks in the whole pool, their bootstrap rank intervals and leave-one-team-out ranges."""
    go = _plotly()
    shown = comp.sort_values(f"{measure} rank", kind="mergesort").head(top)
    runs = _texts(shown.index)
    own = shown[f"{measure} rank"].to_numpy(float)
    traces = []
    if f"{measure} boot rank low" in shown.columns:
        low = shown[f"{measure} boot rank low"].to_numpy(float)
        high = shown[f"{measure} boot rank high"].to_numpy(float)
        traces.append(go.Scatter(x=runs, y=own, mode="markers", name="rank (bootstrap interval over teams)",
                                 error_y={"type": "data", "symmetric": False, "array": high - own,
                                          "arrayminus": own - low, "thickness": 1},
                                 marker={"size": 5}, hovertemplate="%{x}: rank %{y}<extra></extra>"))
    if f"{measure} loto rank best" in shown.columns:
        best = shown[f"{measure} loto rank best"].to_numpy(float)
        worst = shown[f"{measure} loto rank worst"].to_numpy(float)
        traces.append(go.Scatter(x=runs, y=(best + worst) / 2, mode="markers", name="leave one team out: range",
                                 marker={"size": 1, "color": "rgba(0,0,0,0)"},
                                 error_y={"type": "data", "symmetric": True, "array": (worst - best) / 2,
                                          "color": "#ff7f0e", "thickness": 3, "width": 0},
                                 hovertemplate="%{x}<extra>leave one team out</extra>"))
    figure = go.Figure(traces)
    figure.update_layout(title=_text(f"{label}: rank of the first {len(shown)} runs and how it moves with the other "
                                     "participants"), xaxis={"tickangle": -45, "title": "runs (by rank)"},
                         yaxis={"autorange": "reversed", "title": "rank"}, legend={"orientation": "h", "y": -0.55})
    return _html(figure, div_id, height=560)


def mean_intervals(values: pd.DataFrame, measure: str, label: str, level: float, div_id: str) -> Markup:
    """Each run's mean with its bootstrap interval over queries (columns ``<m> ci low`` / ``<m> ci high``).

    Each point is labelled with its run (names written upwards beneath the axis).
    """
    go = _plotly()
    mean = values[measure].to_numpy(float)
    low, high = values[f"{measure} ci low"].to_numpy(float), values[f"{measure} ci high"].to_numpy(float)
    figure = go.Figure(go.Scatter(x=_texts(values.index), y=mean, mode="markers", marker={"size": 5},
                                  error_y={"type": "data", "symmetric": False, "array": high - mean,
                                           "arrayminus": mean - low, "thickness": 1},
                                  hovertemplate="%{x}: %{y:.4f}<extra></extra>"))
    figure.update_layout(title=_text(f"{label}: mean and {level:.0%} bootstrap interval over queries"),
                         xaxis={"title": "runs (leaderboard order)", "type": "category", "dtick": 1, "tickangle": -90,
                                "tickfont": {"size": 10}}, yaxis_title=_text(label))
    return _html(figure, div_id, height=420 + _label_margin(values.index), margin={"b": _label_margin(values.index)})


def robust_range(values: np.ndarray, reach: float = 3.0) -> tuple[float, float] | None:
    r"""An axis range that one outlier cannot flatten: Tukey's far-out fences, None when every value is inside.

    The fences are :math:`[Q_1 - r\,\mathrm{IQR},\; Q_3 + r\,\mathrm{IQR}]` with ``reach`` r = 3 (Tukey,
    *Exploratory Data Analysis*, Addison-Wesley 1977: "far out" values), widened to the inside values' own range;
    values outside are drawn at the edge and marked (see :func:`_clipped`).
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if len(finite) < 4:
        return None
    q1, q3 = np.quantile(finite, [0.25, 0.75])
    if q3 == q1:  # most values equal (every run 100 long): no spread to judge an outlier by
        return None
    low, high = q1 - reach * (q3 - q1), q3 + reach * (q3 - q1)
    inside = finite[(finite >= low) & (finite <= high)]
    if len(inside) == len(finite) or not len(inside):
        return None
    pad = 0.05 * (float(inside.max() - inside.min()) or 1.0)
    return float(inside.min()) - pad, float(inside.max()) + pad


def _clipped(values: np.ndarray, bounds: tuple[float, float] | None) -> tuple[np.ndarray, np.ndarray]:
    """Values drawn inside ``bounds`` (outliers at the edge) and whether each was clipped."""
    values = np.asarray(values, dtype=float)
    if bounds is None:
        return values, np.zeros(len(values), dtype=bool)
    shown = np.clip(values, *bounds)
    return shown, np.isfinite(values) & (shown != values)


def _robust_axis(figure: Any, go: Any, axis: str, values: np.ndarray, x: Any, y: Any, custom: Any,
                 hover: str) -> np.ndarray:
    """Clip ``axis`` ("x" or "y") to :func:`robust_range` and mark the clipped points (hollow triangles).

    The hover names each clipped point's true value. Returns the values to draw.
    """
    bounds = robust_range(values)
    shown, clipped = _clipped(values, bounds)
    if bounds is not None and clipped.any():
        figure.update_layout({f"{axis}axis": {"range": list(bounds)}})
        px = np.asarray(x, dtype=object)[clipped] if axis == "y" else shown[clipped]
        py = shown[clipped] if axis == "y" else np.asarray(y, dtype=object)[clipped]
        figure.add_trace(go.Scatter(x=px, y=py, mode="markers", name="outside the axis (drawn at its edge)",
                                    customdata=np.column_stack([np.asarray(custom, dtype=object)[clipped],
                                                                values[clipped]]),
                                    marker={"symbol": "triangle-up-open", "size": 12, "color": "#d62728"},
                                    hovertemplate=hover + "<br>true value %{customdata[2]:.4g} (off the axis)"
                                                          "<extra></extra>"))
    return shown


def rarity_gain(table: pd.DataFrame, title: dict[str, str], level: float, div_id: str) -> Markup:
    """Each run's rarity gain with its bootstrap interval, best first."""
    go = _plotly()
    runs = _texts(table["run"])
    gain = table["rarity gain"].to_numpy(float)
    low, high = table["low"].to_numpy(float), table["high"].to_numpy(float)
    custom = np.array([[_text(r), _text(t)] for r, t in zip(table["run"], table["team"], strict=True)],
                      dtype=object)
    figure = go.Figure()  # every gain lies between 1 and 1 + alpha: the axis is not clipped, no value is hidden
    hover = "<b>%{customdata[0]}</b><br>team %{customdata[1]}<br>gain %{y:.4f}"
    figure.add_trace(go.Scatter(x=runs, y=gain, mode="markers", marker={"size": 6, "color": "#1f77b4"},
                                customdata=np.column_stack([custom, low, high]), name="rarity gain",
                                error_y={"type": "data", "symmetric": False, "array": high - gain,
                                         "arrayminus": gain - low, "thickness": 1},
                                hovertemplate=hover + " [%{customdata[2]:.4f}, %{customdata[3]:.4f}]"
                                                      "<extra></extra>"))
    figure.update_layout(title=_text(f"Rarity gain ({title['rare']} / {title['base']}, both at the same cutoff) "
                                     f"with its {level:.0%} bootstrap interval over queries"),
                         xaxis={"title": "runs (best gain first)", "type": "category", "dtick": 1,
                                "tickangle": -90, "tickfont": {"size": 9}},
                         yaxis_title=_text(f"{title['rare']} / {title['base']}"), showlegend=False)
    return _html(figure, div_id, height=420 + _label_margin(table["run"]), margin={"b": _label_margin(table["run"])})


def asl_scatter(asl: pd.DataFrame, measure: str, div_id: str) -> Markup:
    """ASL against each run's longest ranking: shorter runs score lower (better) ASL.

    The ASL axis is :func:`robust_range`'s: one run far out (a very long ASL) is drawn at the axis' edge as a
    hollow triangle, its true value in its hover, so it does not flatten the others.
    """
    go = _plotly()
    custom = np.array([[_text(r), _text(t)] for r, t in zip(asl.index, asl["team"], strict=True)], dtype=object)
    figure = go.Figure()
    values = asl[measure].to_numpy(float)
    shown = _robust_axis(figure, go, "y", values, asl["longest ranking"].to_numpy(), values, custom,
                         "<b>%{customdata[0]}</b><br>team %{customdata[1]}")
    figure.add_trace(go.Scatter(x=asl["longest ranking"], y=shown, mode="markers", customdata=custom,
                                marker={"size": 8, "opacity": 0.7, "color": "#9467bd"}, name="runs",
                                hovertemplate=_hover("longest ranking", measure)))
    figure.update_layout(title=_text(f"{measure} against the run's longest ranking (lower ASL is better)"),
                         xaxis_title="longest ranking over the queries", yaxis_title=_text(measure))
    return _html(figure, div_id)


def pooling_curves(found: pd.DataFrame, div_id: str) -> Markup:
    """Relevant documents found against the judging budget, one line per strategy."""
    go = _plotly()
    figure = go.Figure([go.Scatter(x=part["budget"], y=part["relevant"], mode="lines+markers", name=_text(name),
                                   hovertemplate=f"{_text(name)}<br>budget %{{x}}: %{{y}} relevant<extra></extra>")
                        for name, part in found.groupby("strategy", sort=False)])
    figure.update_layout(title="Relevant documents found per judging budget", xaxis_title="judgments per query",
                         yaxis_title="relevant documents found")
    return _html(figure, div_id)


def tau_alpha(curve: pd.DataFrame, div_id: str) -> Markup:
    """Kendall's tau and tau_AP between the ranking by each rarity measure and by its base measure, per alpha."""
    go = _plotly()
    traces = []
    for pair, part in curve.groupby("pair", sort=False):
        for column, dash in (("tau", "solid"), ("tau_ap", "dot")):
            traces.append(go.Scatter(x=part["alpha"], y=part[column], mode="lines+markers",
                                     name=_text(f"{pair}: {column}"), line={"dash": dash},
                                     hovertemplate=f"{_text(pair)}<br>alpha %{{x}}: {column} %{{y:.3f}}"
                                                   "<extra></extra>"))
    figure = go.Figure(traces)
    figure.update_layout(title="Rank correlation with the standard measure as alpha grows", xaxis_title="alpha",
                         yaxis_title="correlation")
    return _html(figure, div_id)
