"""One map of the figures: README.md's measured table is a part of benchmarks/RESULTS.md's
"Current figures" table (same figure, value, device and date, cell for cell), every row there
names CSVs that exist and a section that RESULTS.md has, and README links to that table and to
the layer map (docs/ARCHITECTURE.md).  No GL."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "RESULTS.md"
README = ROOT / "README.md"


def _table(text: str, header: str) -> list:
    """The rows (lists of cells) of the markdown table whose header line is `header`."""
    assert header in text, f"no table headed {header!r}"
    body = text.split(header, 1)[1].split("\n\n", 1)[0].strip().splitlines()[1:]
    return [[c.strip() for c in row.strip().strip("|").split("|")] for row in body]


def _current():
    rows = _table(RESULTS.read_text(), "| figure | value | device | date | CSV | section |")
    assert rows and all(len(r) == 6 for r in rows)
    return rows


def _headings():
    return {line.lstrip("#").strip() for line in RESULTS.read_text().splitlines() if line.startswith("#")}


def test_results_opens_with_the_current_figures():
    text = RESULTS.read_text()
    first = [line for line in text.splitlines() if line.startswith("## ")][0]
    assert first == "## Current figures"


@pytest.mark.parametrize("row", _current(), ids=lambda r: r[0][:40])
def test_every_current_figure_has_its_csv_and_section(row):
    figure, value, device, date, csvs, section = row
    assert value and device and len(date) == 10 and date.startswith("20")
    if csvs != "—":
        for name in csvs.split(", "):
            assert (RESULTS.parent / "results" / name).is_file(), f"{figure}: no results/{name}"
    assert section in _headings(), f"{figure}: RESULTS.md has no section {section!r}"


def test_readme_figures_are_the_current_ones():
    readme = README.read_text()
    assert "benchmarks/RESULTS.md#current-figures" in readme and "docs/ARCHITECTURE.md" in readme
    current = {r[0]: r[1:4] for r in _current()}
    rows = _table(readme, "| figure | value | device | date |")
    assert rows
    for figure, *cells in rows:
        assert figure in current, f"README's {figure!r} is not in RESULTS.md's current figures"
        assert cells == current[figure], f"README says {cells} for {figure!r}, RESULTS.md {current[figure]}"


def test_the_check_can_fail():
    """A README value that drifted from RESULTS.md's is caught."""
    current = {r[0]: r[1:4] for r in _current()}
    figure, cells = next(iter(current.items()))
    assert ["1 case, 3 misses", *cells[1:]] != current[figure]
    with pytest.raises(AssertionError):
        _table("no table here", "| figure | value | device | date |")
