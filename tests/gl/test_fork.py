"""A process forked after the parent used GL gets, at its first glgpgpu call, an error
naming 'spawn' / 'forkserver' at once -- never a hang; a spawned one computes."""
import multiprocessing as mp

import numpy as np

import glgpgpu


def _first_call(_):
    try:
        return float(glgpgpu.cholesky(np.eye(3) * 4.0)[0, 0])
    except Exception as exc:             # noqa: BLE001 -- the message travels back to the test
        return f"{type(exc).__name__}: {exc}"


def test_forked_child_answers_at_once(ctx):
    glgpgpu.cholesky(np.eye(2))                       # the parent has used GL
    with mp.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(_first_call, (0,)).get(timeout=60)
    assert isinstance(got, str) and "spawn" in got and "forkserver" in got, got


def test_spawned_child_computes(ctx):
    with mp.get_context("spawn").Pool(1) as pool:
        got = pool.apply_async(_first_call, (0,)).get(timeout=120)
    assert got == 2.0, got
