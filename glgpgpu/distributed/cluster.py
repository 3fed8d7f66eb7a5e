"""Dask workers bound to GPUs: one worker process per GPU, one thread each.

`GLDevicePlugin` sets each worker's GLGPGPU_DEVICE before its first task, so the GL
context its thread creates opens that EGL device; it works with any Dask cluster --
on several machines start `dask worker SCHEDULER --nthreads 1 --nworkers G` on each and
register the plugin from the client (`client.register_plugin(GLDevicePlugin())`); a
worker then takes the device of its position on its machine (its name's last number)."""
from __future__ import annotations

import os
import re

from distributed import Client, LocalCluster, WorkerPlugin


class GLDevicePlugin(WorkerPlugin):
    """Worker i of a machine uses EGL device devices[i % len(devices)] (default: the
    worker's number itself, i.e. one GPU per worker)."""

    name = "glgpgpu-device"

    def __init__(self, devices=None):
        self.devices = None if devices is None else [int(d) for d in devices]

    def setup(self, worker):
        numbers = re.findall(r"\d+", str(worker.name))
        position = int(numbers[-1]) if numbers else 0
        device = position if self.devices is None else self.devices[position % len(self.devices)]
        os.environ["GLGPGPU_DEVICE"] = str(device)
        worker.glgpgpu_device = device


class LocalGLCluster(LocalCluster):
    """A dask.distributed LocalCluster of one single-threaded worker process per GPU.

    devices: "all" (every EGL device of this machine: glgpgpu.gl.devices()) or a list of
    device indices; n_workers: that many workers, spread over `devices` in turn (on a
    machine with one device -- llvmpipe, CI -- several workers share it).  Other
    keyword arguments go to LocalCluster (dashboard_address, memory_limit, ...)."""

    def __init__(self, devices="all", n_workers: int | None = None, **kwargs):
        if devices == "all":
            from ..gl import devices as egl_devices
            found = [d[0] for d in egl_devices()]
            devices = found or [0]
        elif isinstance(devices, str) or not all(isinstance(d, int) and d >= 0 for d in devices):
            raise ValueError(f"devices must be 'all' or a list of EGL device indices, got {devices!r}")
        devices = list(devices)
        if not devices:
            raise ValueError("devices is empty: give at least one EGL device index")
        n = len(devices) if n_workers is None else int(n_workers)
        if n < 1:
            raise ValueError(f"n_workers must be at least 1, got {n_workers!r}")
        kwargs.setdefault("dashboard_address", ":0")        # a free port: several clusters may run
        kwargs.setdefault("processes", True)
        super().__init__(n_workers=n, threads_per_worker=1, **kwargs)
        self.devices = devices
        # LocalCluster names its workers 0, 1, ...: worker i takes devices[i % len(devices)],
        # set before any task of ours (register_plugin runs setup on every worker, and on
        # any started later)
        self.plugin = GLDevicePlugin(devices)
        with Client(self) as client:
            client.register_plugin(self.plugin)
