"""After `import ir_rarity`, the measures live inside ir_measures and PyTerrier."""

from __future__ import annotations

import os
import subprocess
import sys

import ir_measures
import pytest

import ir_rarity
from ir_rarity import AP_rare, P_rare


@pytest.mark.parametrize("text", ["P_rare(alpha=0.5)@100", "AP_rare", "AP_rare@10", "P_rare(rel=2,depth=50)@10",
                                  "AP_rare(alpha=0.25,bounded=True)"])
def test_parse_and_round_trip(text: str) -> None:
    measure = ir_measures.parse_measure(text)
    assert str(measure) == text
    assert ir_measures.parse_measure(str(measure)) == measure


def test_int_alpha_names_the_same_measure() -> None:
    assert P_rare(alpha=1) @ 5 == P_rare @ 5
    assert str(P_rare(alpha=2) @ 5) == "P_rare(alpha=2.0)@5"
    assert ir_measures.parse_measure("P_rare(alpha=2)@5") == P_rare(alpha=2.0) @ 5


def test_registered_with_ir_measures() -> None:
    assert ir_measures.measures.registry["P_rare"] is P_rare
    assert ir_measures.measures.registry["AP_rare"] is AP_rare
    provider = ir_measures.providers.registry["ir_rarity"]
    assert provider in ir_measures.DefaultPipeline.providers
    assert provider.supports(P_rare @ 10) and not provider.supports(ir_measures.P @ 10)
    assert ir_rarity.higher_is_better(P_rare @ 10) and ir_rarity.higher_is_better("nDCG@10")


def test_pyterrier_measures_copied_before_registration_gets_the_measures() -> None:
    # Installed, ir_rarity is loaded by PyTerrier's entry point and by the ir_measures start-up hook, so the
    # measures are normally in ir_measures' registry before pyterrier.measures copies it. Recreate the other
    # order on the real module (a copy made before registration) and check that registering repairs it.
    code = ("import pyterrier.measures as m, ir_rarity\n"
            "from ir_rarity.integrations import registration\n"
            "del m.P_rare, m.AP_rare, m.ASL\n"
            "registration.register()\n"
            "assert m.P_rare is ir_rarity.P_rare and m.AP_rare is ir_rarity.AP_rare and m.ASL is ir_rarity.ASL\n"
            "print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "IR_RARITY_NO_HOOK": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_import_pyterrier_alone_exposes_the_measures() -> None:
    code = "import pyterrier as pt, pyterrier.measures as m; print(m.P_rare, pt.rarity.P_rare)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "IR_RARITY_NO_HOOK": "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["P_rare", "P_rare"]


def test_pyterrier_measures_imported_after_ir_rarity() -> None:
    import pyterrier.measures as m

    assert m.P_rare is P_rare


def test_registering_with_ir_measures_stays_light() -> None:
    # The start-up hook registers ir_rarity on every `import ir_measures`: that must not load numpy or pandas.
    code = ("import sys, ir_measures, ir_rarity; "
            "print('P_rare' in ir_measures.measures.registry, any(m in sys.modules for m in ('numpy', 'pandas')), "
            "ir_rarity.Pool.__name__, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "Pool", "True"]  # lazy names still resolve on first use
