# glgpgpu: `make demo` and `make test` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-floors docs lint check-egl check-xvfb check-colamd check-chromium venv bench-cpu clean help

help:
	@echo "make demo   - set up .venv and run the main example headless"
	@echo "make test   - set up .venv and run the test suite"
	@echo "make lint   - ruff over the code (CI runs it after the tests)"
	@echo "make docs   - the documentation site (API reference, guides, tables) in docs/_build/html"
	@echo "make clean  - remove .venv and generated output"

# EGL (headless OpenGL) must be there: Mesa's libEGL + the llvmpipe rasterizer on a
# CPU machine, or a GPU driver's EGL vendor library.
check-egl:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libEGL\.so\.1'; then \
	  echo "ERROR: libEGL.so.1 not found: glgpgpu renders headless through EGL."; \
	  echo "       Debian/Ubuntu: sudo apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri"; \
	  exit 1; fi
	@if ! cat /usr/share/glvnd/egl_vendor.d/*.json /etc/glvnd/egl_vendor.d/*.json \
	        /usr/local/nvidia/share/glvnd/egl_vendor.d/*.json 2>/dev/null | grep -q library_path; then \
	  echo "ERROR: no EGL vendor library (Mesa or a GPU driver) is installed."; \
	  echo "       Debian/Ubuntu: sudo apt-get install libegl-mesa0 libgl1-mesa-dri"; \
	  exit 1; fi
	@if ls /usr/share/glvnd/egl_vendor.d/*mesa*.json >/dev/null 2>&1 && \
	    ! ls /usr/lib/*/dri/swrast_dri.so 2>/dev/null | grep -q . && \
	    ! ls /usr/lib/dri/swrast_dri.so 2>/dev/null | grep -q .; then \
	  echo "ERROR: Mesa's EGL is there but its software rasterizer (llvmpipe) is not."; \
	  echo "       Debian/Ubuntu: sudo apt-get install libgl1-mesa-dri"; \
	  exit 1; fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	@touch $(STAMP)

venv: $(STAMP)

# The demo-window test runs under Xvfb: installed here where we can (root + apt),
# else the exact command is named (the test fails without it, it does not skip).
check-xvfb:
	@if ! command -v xvfb-run >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing xvfb and xauth (apt-get) for the demo-window test ..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xauth) >/dev/null 2>&1 || true; fi
	@if ! command -v xvfb-run >/dev/null 2>&1; then \
	  echo "ERROR: xvfb-run not found: the demo-window test needs it."; \
	  echo "       Debian/Ubuntu: sudo apt-get install xvfb xauth"; \
	  exit 1; fi

# Sparse QR orders columns with COLAMD (SuiteSparse's libcolamd, BSD), loaded at run
# time: installed here where we can (root + apt), else the command is named.
check-colamd:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libcolamd\.so' && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing libcolamd (apt-get) for sparse_qr's COLAMD ordering ..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcolamd2 || \
	   DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcolamd3) >/dev/null 2>&1 || true; fi
	@if ! ldconfig -p 2>/dev/null | grep -q 'libcolamd\.so'; then \
	  echo "ERROR: libcolamd not found: sparse_qr's default ordering (COLAMD) needs it."; \
	  echo "       Debian/Ubuntu: sudo apt-get install libcolamd2"; \
	  exit 1; fi

# The web demo's test drives headless Chromium: installed here where we can (root + apt);
# where it cannot be, that test is skipped and says how to install it.
check-chromium:
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && \
	    ! command -v google-chrome >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium (apt-get) for the web page's test ..."; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true; fi

demo: check-egl check-colamd $(STAMP)
	$(VENV)/bin/glgpgpu info
	$(PY) examples/assemble_adat.py
	$(PY) examples/cholesky_steps.py 4 | tail -n 3
	$(PY) examples/data_fitting.py demo_out/data_fitting.png
	$(PY) examples/qr_least_squares.py
	$(PY) examples/lssvm_digits.py
	$(PY) examples/tiled_cholesky.py
	$(PY) examples/three_methods.py
	$(PY) examples/sparse_least_squares.py
	$(PY) examples/distributed_tiles.py 512 128 2 demo_out/distributed_tiles.png
	$(VENV)/bin/glgpgpu demo --out demo_out
	$(VENV)/bin/glgpgpu demo --web demo_out/web

test: check-egl check-xvfb check-colamd check-chromium $(STAMP)
	$(PY) -m pytest -q

# The dependency floors pyproject.toml states, pinned in a second environment, and the
# peers' suites (tests/peer) run there: a floor is only stated if the code meets it.
FLOORS := .venv-floors
test-floors: check-egl check-colamd
	@echo "== the stated minimum versions: $$($(PYTHON) .ci/floors.py | tr '\n' ' ')"
	$(PYTHON) -m venv $(FLOORS)
	$(FLOORS)/bin/python -m pip install -q --upgrade pip
	$(FLOORS)/bin/python -m pip install -q $$($(PYTHON) .ci/floors.py) pytest hypothesis
	$(FLOORS)/bin/python -m pip install -q --no-deps -e .
	$(FLOORS)/bin/python -m pytest -q -p no:cacheprovider tests/peer --ignore=tests/peer/test_scipy_linalg_suite.py \
	  --ignore=tests/peer/test_scipy_linprog_suite.py        # scipy's own classes change from release to release

# The documentation site (docs/): the API reference from the docstrings, the guides, the
# benchmark tables; warnings are errors.  Open docs/_build/html/index.html.
docs: $(STAMP)
	$(PY) -m pip install -q -e '.[docs]'
	$(PY) -m sphinx -q -W --keep-going -b html docs docs/_build/html
	@echo "wrote docs/_build/html/index.html"

lint: $(STAMP)
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) $(FLOORS) demo_out out .pytest_cache
