"""Measures given as objects or strings in ir_measures syntax, parsed and checked in one place, and their direction.

Every measure's parameters are checked here, before any provider sees them: ir_measures' own check accepts
``True`` for an integer and a cutoff of 0, which pytrec_eval turns into a crash of the whole process (``P@0``),
and turns a wrong type into a bare ``AssertionError``. Here each wrong value is a one-line
:class:`~ir_rarity.errors.ParameterError` naming the measure, the parameter and the value.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterable, Mapping
from typing import Any

import ir_measures
from ir_measures.measures.base import _NOT_PROVIDED, ParamInfo

from ir_rarity.errors import ParameterError, did_you_mean
from ir_rarity.measures.base import RarityMeasure
from ir_rarity.measures.trec_names import TREC_NICKNAMES

__all__ = ["MeasureLabels", "check_params", "higher_is_better", "measure_label", "measure_labels", "parse_measure",
           "parse_measures"]

_POSITIVE = ("cutoff", "depth")
"""Integer parameters that must be positive (a rank cutoff, an S_d depth)."""
_TYPE_NAMES = {int: "an integer", float: "a number", bool: "True or False", str: "a string", dict: "a mapping"}


def _show(value: Any, limit: int = 40) -> str:
    """``repr`` of a value for a message, cut short."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # True is not a cutoff


def _is_number(value: Any) -> bool:
    return _is_int(value) or isinstance(value, float)  # the measure checks the range (alpha: >= 0 and finite)


def _type_ok(info: ParamInfo, value: Any) -> bool:
    """Whether ``value`` has the parameter's type (strictly: a bool is not an int, an int is a float)."""
    if info.dtype is int:
        return _is_int(value)
    if info.dtype is float:
        return _is_number(value)
    if info.dtype is bool:
        return isinstance(value, bool)
    return info.dtype is None or isinstance(value, info.dtype)


def _check_value(name: str, measure_name: str, info: ParamInfo, value: Any) -> None:
    """One parameter's type, choices and range. Raises :class:`ParameterError`."""
    where = f"{measure_name}: {name}={_show(value)}"
    if not _type_ok(info, value):
        raise ParameterError(f"{where}: expected {_TYPE_NAMES.get(info.dtype, info.dtype)}")
    if info.choices is not _NOT_PROVIDED and value not in info.choices:
        raise ParameterError(f"{where}: choose from {', '.join(map(str, info.choices))}")
    if name in _POSITIVE and value <= 0:
        raise ParameterError(f"{where}: {name} must be a positive integer")
    if name == "gains" and not all(_is_int(k) and _is_int(v) for k, v in value.items()):
        raise ParameterError(f"{where}: gains map integer relevance labels to integer gains (e.g. {{1:1,2:3}}): "
                             "ir_measures' providers do not support other gains")


_CHECKED: dict[int, weakref.ref[ir_measures.Measure]] = {}
"""The measures :func:`check_params` returned, by identity (``id`` -> a weak reference to the object itself).

A measure is checked where it enters (parsed from its string, or given as an object) and then travels down the
call; every layer that takes "a measure" calls :func:`parse_measure` on it again, which returns a measure checked
here at once instead of checking it again (:func:`check_params` itself always checks). Identity, not equality:
``P_rare(alpha=True)@5`` equals the checked ``P_rare@5`` by ``repr`` (ir_measures' equality) but is not it, so it is
still checked and refused. An entry goes when its measure is collected."""


def _checked(measure: ir_measures.Measure) -> ir_measures.Measure:
    """Record ``measure`` as checked (see :data:`_CHECKED`) and return it."""
    key = id(measure)

    def forget(ref: weakref.ref[ir_measures.Measure]) -> None:
        if _CHECKED.get(key) is ref:
            del _CHECKED[key]

    _CHECKED[key] = weakref.ref(measure, forget)
    return measure


def _is_checked(measure: Any) -> bool:
    """Whether ``measure`` is an object :func:`check_params` returned (and so need not be checked again)."""
    ref = _CHECKED.get(id(measure))
    return ref is not None and ref() is measure


def check_params(measure: ir_measures.Measure) -> ir_measures.Measure:
    """Check every parameter of ``measure`` (any ir_measures measure) and return it, integer floats as floats.

    Raises:
        ParameterError: an unsupported parameter, a missing required one, a value of the wrong type (``True`` is
            not an integer), not among the choices, a cutoff or depth that is not positive, or gains that are not
            integers; the message names the measure and the value.

    """
    name = str(getattr(measure, "NAME", None) or getattr(measure, "__name__", type(measure).__name__))
    supported = measure.SUPPORTED_PARAMS
    unknown = sorted(set(measure.params) - set(supported))
    if unknown:
        raise ParameterError(f"{name}: unsupported parameter {_show(unknown[0])}; supported: "
                             f"{', '.join(sorted(supported)) or 'none'}")
    floats = {}
    for param, info in supported.items():
        value = measure.params.get(param, _NOT_PROVIDED)
        if value is _NOT_PROVIDED:
            if info.required:
                at = f" (write {name}@k)" if param == measure.AT_PARAM else f" (e.g. {name}({param}=...))"
                raise ParameterError(f"{name}: parameter {param!r} is required{at}")
        elif not (value is None and info.default is None):
            _check_value(param, name, info, value)
            if info.dtype is float and _is_int(value):
                floats[param] = float(value)
    if floats:
        measure = measure(**floats)
    if isinstance(measure, RarityMeasure):
        measure.validate_params()
    else:
        try:
            measure.validate_params()
        except AssertionError as e:  # a check of ir_measures' not covered above: still one clear line
            raise ParameterError(f"{name}: {' '.join(str(e).split())}") from None
    return _checked(measure)


def parse_measure(measure: ir_measures.Measure | str) -> ir_measures.Measure:
    """One measure: an ``ir_measures.Measure`` (returned checked) or a string such as ``'P_rare(alpha=0.5)@100'``.

    Every measure has its parameters checked here (:func:`check_params`), so a bad value fails before any run is
    read and before any provider (pytrec_eval) sees it. A measure this module returned is returned as it is: it is
    neither parsed nor checked again, so a measure parsed where a call begins can be handed down as it is.

    Raises:
        ParameterError: not a measure or string, an unknown measure, bad syntax or a parameter out of range.

    """
    if isinstance(measure, str):
        try:
            parsed = ir_measures.parse_measure(measure)
        except Exception as e:  # ir_measures raises NameError for unknown names, ValueError/SyntaxError for syntax
            signed = _read_written_values(measure)  # a value ir_measures' syntax cannot read (alpha=-1, alpha=inf)
            if signed is not None:
                return signed
            trec = _trec_name(measure)  # a trec_eval name of one measure (map, P.10, ndcg_cut.10)
            if trec is not None:
                return check_params(trec)
            name = measure.split("@")[0].split("(")[0].strip()
            hint = "" if name in ir_measures.measures.registry else did_you_mean(name, ir_measures.measures.registry)
            raise ParameterError(f"cannot parse measure {_show(measure, 60)}: {' '.join(str(e).split())}{hint}"
                                 ) from None
    elif isinstance(measure, ir_measures.Measure):
        if _is_checked(measure):  # made here already (where the call began): neither parsed nor checked again
            return measure
        parsed = measure
    else:
        raise ParameterError(f"expected a measure (an ir_measures.Measure or a string such as 'P_rare@100'), got "
                             f"{type(measure).__name__}")
    return check_params(parsed)


def _trec_name(text: str) -> ir_measures.Measure | None:
    """The measure trec_eval's name ``text`` stands for (``map``: AP, ``P.10``: P@10), or None.

    Read by ir_measures' own ``parse_trec_measure``. None for a name of several measures (``P.5,10``, ``all_trec``:
    ``ir-rarity eval -m`` expands those) or for no trec_eval name.
    """
    if text.strip() in TREC_NICKNAMES:  # parse_trec_measure prints the group's unsupported measures on stdout
        return None
    try:
        found = ir_measures.parse_trec_measure(text.strip())
    except Exception:  # ValueError, KeyError, NameError or SyntaxError: no trec_eval name
        return None
    return found[0] if len(found) == 1 else None


_SPECIAL_FLOATS = {"inf": float("inf"), "infinity": float("inf"), "nan": float("nan")}


def _written_value(node: ast.expr) -> tuple[bool, Any]:
    """``(True, value)`` of a parameter value written as a signed number or ``inf``/``nan``; ``(False, None)`` else."""
    sign = 1.0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign, node = (-1.0 if isinstance(node.op, ast.USub) else 1.0), node.operand
    if isinstance(node, ast.Name) and node.id.lower() in _SPECIAL_FLOATS:
        return True, sign * _SPECIAL_FLOATS[node.id.lower()]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return True, node.value if sign > 0 else -node.value
    return False, None


def _read_written_values(text: str) -> ir_measures.Measure | None:
    """A measure string ir_measures could not parse because of a signed or infinite value, read and checked here.

    ir_measures reads only literal values (``alpha=0.5``): a sign (``alpha=-1``, ``alpha=+0.5``) or ``inf`` fails
    with "values must be str, float, int, bool, etc.". Such values are read here as Python reads them and the
    measure's own check run on them, so an error says what is wrong with the value (``P_rare: alpha must be >= 0
    and finite, got -1.0``) and a valid one is accepted. Any other value the syntax cannot hold is named.

    Returns:
        The checked measure, or None when the failure has another cause (left to ir_measures' message).

    Raises:
        ParameterError: a value out of the measure's range, or a value that is not one, naming it.

    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    at: ast.expr | None = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at = node.right
        node = node.left
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ir_measures.measures.registry and not node.args):
        return None
    name, values, written = node.func.id, {}, False
    for keyword in node.keywords:
        if keyword.arg is None:
            return None
        if isinstance(keyword.value, ast.Constant):
            values[keyword.arg] = keyword.value.value
            continue
        ok, value = _written_value(keyword.value)
        if not ok:
            raise ParameterError(f"{name}: {_show(f'{keyword.arg}={ast.unparse(keyword.value)}')}: not a value "
                                 "(write a number, 'text', True or False)")
        values[keyword.arg], written = value, True
    if not written or (at is not None and not isinstance(at, ast.Constant)):
        return None
    measure = ir_measures.measures.registry[name](**values)
    if isinstance(at, ast.Constant):
        measure = measure @ at.value
    return check_params(measure)


_QUOTED = re.compile(r"""('[^']*'|"[^"]*")""")


def measure_label(text: str) -> str:
    """The column name of a measure given as ``text``: its whitespace dropped, except inside quotes.

    ``'P_rare(alpha=0.5) @100'`` and ``'P_rare( alpha = 0.5 )@100'`` are both column ``'P_rare(alpha=0.5)@100'``,
    the text that parses back to the measure. The one rule for every table, frame and report column.
    """
    parts = _QUOTED.split(text)
    return "".join(part if i % 2 else "".join(part.split()) for i, part in enumerate(parts))


class MeasureLabels(dict[ir_measures.Measure, str]):
    """Measures parsed and checked once, in order, each -> its column name: what :func:`measure_labels` makes.

    The value a call carries down from where it begins (``ir_rarity.evaluate``, ``ir-rarity eval``): every layer
    below takes it as its measures, and :func:`measure_labels` given one returns it as it is, so no layer parses
    or labels the measures again.
    """


def parse_measures(measures: ir_measures.Measure | str | Iterable[ir_measures.Measure | str]
                   ) -> list[ir_measures.Measure]:
    """A measure, or an iterable of them, as a list of parsed measures (see :func:`parse_measure`).

    A measure given twice (``['P@10', 'P@10']``, or equal ones such as ``P_rare@5`` and ``P_rare(alpha=1)@5``) is
    kept once, where it first appears: a table has one column per measure.
    """
    return list(measure_labels(measures))


def measure_labels(measures: ir_measures.Measure | str | Iterable[ir_measures.Measure | str]
                   | Mapping[ir_measures.Measure | str, str]) -> MeasureLabels:
    """The parsed measures (in order, each once) -> the name the user gave each: the column of every table.

    A measure given as a string is named by that string less its whitespace (:func:`measure_label`):
    ``'P_rare(alpha=0)@100'`` stays ``'P_rare(alpha=0)@100'``, not ``'P_rare(alpha=0.0)@100'``; one given as an
    object by ``str(measure)``; a
    mapping ``measure -> name`` (what this function returns, or the command line's measures with the text typed)
    keeps its names. A measure named twice (``'P_rare@10'`` and ``'P_rare(alpha=1)@10'``) keeps the first name.
    A :class:`MeasureLabels` (what this function made) is returned as it is: measures are parsed once per call.

    Raises:
        ParameterError: not a measure, a string or an iterable of them, or a bad measure (:func:`parse_measure`).

    """
    if isinstance(measures, MeasureLabels):
        return measures
    if isinstance(measures, (str, ir_measures.Measure)):
        items: Iterable[tuple[Any, str | None]] = [(measures, None)]
    elif isinstance(measures, Mapping):
        items = measures.items()
    elif isinstance(measures, Iterable):
        items = ((m, None) for m in measures)
    else:
        raise ParameterError(f"expected measures (a measure, a string or a list of them), got "
                             f"{type(measures).__name__}")
    labels = MeasureLabels()
    for item, name in items:
        measure = parse_measure(item)
        if measure not in labels:
            given = name if name is not None else item if isinstance(item, str) else str(measure)
            labels[measure] = measure_label(given)
    return labels


def higher_is_better(measure: ir_measures.Measure | str) -> bool:
    """Whether larger values of ``measure`` are better.

    ir_rarity measures declare it with ``HIGHER_IS_BETTER`` (False for ASL); every standard ir_measures measure is
    higher-is-better.
    """
    return bool(getattr(parse_measure(measure), "HIGHER_IS_BETTER", True))
