"""Helpers several test folders use (not fixtures): running a call on a fresh thread, an LP-like
staircase matrix."""
import threading


def run_in_thread(fn, *args):
    """fn(*args) on a new thread (which gets its own GL context); its result or its exception."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:          # hand it to the caller's thread
            box["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join(timeout=300)
    if "error" in box:
        raise box["error"]
    return box["value"]


def untracked_files(root) -> set:
    """Files in the checkout that git neither tracks nor ignores (empty set without git):
    what a run left behind."""
    import shutil
    import subprocess
    if shutil.which("git") is None or not (root / ".git").exists():
        return set()
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=root, capture_output=True,
                         text=True, timeout=60).stdout
    return set(out.split())


def staircase(blocks, rows, rng):
    """Diagonal blocks of rows x 2 rows (3% dense) and one linking column per block: an LP's
    staircase (scipy CSR), whose fill-reducing order leaves tiles of L zero."""
    import scipy.sparse as sp
    A = sp.block_diag([sp.random(rows, 2 * rows, density=0.03, random_state=rng) + sp.eye(rows, 2 * rows)
                       for _ in range(blocks)]).tocsr()
    link = sp.random(A.shape[0], blocks, density=2.0 / A.shape[0], random_state=rng)
    return sp.hstack([A, link]).tocsr()
