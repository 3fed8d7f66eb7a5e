"""Helpers several test folders use (not fixtures): running a call on a fresh thread,
finding the shared NETLIB set."""
import os
import threading
from pathlib import Path


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


def shared_netlib():
    """The shared NETLIB folder (all 75 problems with HiGHS's optima) beside the checkout,
    or the one GLGPGPU_NETLIB names; None where neither is there (the repository's own
    data/netlib holds Table 3's ten)."""
    for cand in (Path(__file__).resolve().parents[2] / "shared" / "data" / "netlib",
                 Path(os.environ.get("GLGPGPU_NETLIB", "/nonexistent"))):
        if (cand / "optima.csv").exists():
            return cand
    return None
