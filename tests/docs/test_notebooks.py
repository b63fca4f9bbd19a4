"""The example notebooks run from top to bottom in a fresh kernel and show a table and a figure.

Every ``examples/*.ipynb`` is executed with nbclient in a temporary working directory. The kernel is this test's
own interpreter: a ``python3`` kernelspec written by ipykernel into a temporary ``JUPYTER_PATH`` (which is searched
before the user's and the environment's kernelspecs), so a ``python3`` kernel installed elsewhere cannot shadow it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
kernelspec = pytest.importorskip("ipykernel.kernelspec")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))


pytestmark = pytest.mark.slow  # notebooks run in a kernel


def outputs(nb: object, output_type: str | None = None) -> list[dict]:
    """Every output of every code cell (of ``output_type`` if given)."""
    found = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    return [out for out in found if output_type is None or out.output_type == output_type]


def data_of(nb: object, mime: str) -> list[str]:
    """The ``mime`` payloads of every rich output (display_data and execute_result)."""
    return [out.data[mime] for out in outputs(nb) if out.output_type in ("display_data", "execute_result")
            and mime in out.get("data", {})]


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS, "no examples/*.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = nbformat.read(path, as_version=4)
    assert not outputs(nb), f"{path.name} is committed with outputs: clear them (jupyter nbconvert --clear-output)"

    jupyter_path = tmp_path / "jupyter"
    kernelspec.write_kernel_spec(jupyter_path / "kernels" / "python3")  # argv[0] is sys.executable
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    monkeypatch.delenv("IR_RARITY_POOL", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel chooses its inline backend
    work = tmp_path / "work"
    work.mkdir()
    from jupyter_client.kernelspec import KernelSpecManager

    assert KernelSpecManager().get_kernel_spec("python3").argv[0] == sys.executable

    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    client.execute()

    errors = outputs(nb, "error")
    assert not errors, "\n".join(f"{e.ename}: {e.evalue}" for e in errors)
    assert any("<table" in html for html in data_of(nb, "text/html")), "no HTML table shown"
    assert data_of(nb, "image/png"), "no figure shown"
    warned = [out.text for out in outputs(nb, "stream") if out.name == "stderr"]  # a kernel shows them red
    assert not warned, warned
    texts = [out.get("text", "") for out in outputs(nb, "stream")]
    assert not [t for t in texts if "\x1b" in t or "\r" in t], "escape codes or carriage returns in the output"
