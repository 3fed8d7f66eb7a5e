"""Print the dependency floors of pyproject.toml as pins (`name==version`): the core and
the extras the tests use.  `make test-floors` installs them in a second environment and
runs the peers' suites there, so each floor stated is one the code meets."""
import re
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:                      # Python < 3.11
    import tomli as tomllib

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
specs = list(project["dependencies"])
for extra in ("lp", "ml"):
    specs += project["optional-dependencies"][extra]
for spec in specs:
    m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([^,;\s]+)\s*", spec)
    if not m:
        sys.exit(f"floors.py: {spec!r} is not NAME>=VERSION")
    print(f"{m.group(1)}=={m.group(2)}")
