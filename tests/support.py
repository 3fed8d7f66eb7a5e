"""Helpers several test folders use (not fixtures): running a call on a fresh thread."""
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
