"""GPU buffers the grader owns and the agent's process maps: CUDA IPC through the driver API (ctypes).

The grader allocates the input and output buffers in its own CUDA context and exports them; the
process that runs the agent's code imports them and sees them as torch tensors. Two ways to export:

* ``fd``: a virtual-memory allocation (cuMemCreate) exported as a POSIX file descriptor and passed over
  the Unix socket (SCM_RIGHTS). The descriptor itself is the capability, so it works across users.
* ``legacy``: cudaIpcGetMemHandle's 64-byte handle, sent as bytes (needs the same PID namespace).

Copied next to ``runner.py`` for the agent's process: standard library and torch only, no secrets.
Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Any

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0
CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1


class CUipcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemAllocFlags(ctypes.Structure):
    _fields_ = [
        ("compressionType", ctypes.c_ubyte),
        ("gpuDirectRDMACapable", ctypes.c_ubyte),
        ("usage", ctypes.c_ushort),
        ("reserved", ctypes.c_ubyte * 4),
    ]


class CUmemAllocationProp(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("requestedHandleTypes", ctypes.c_int),
        ("location", CUmemLocation),
        ("win32HandleMetaData", ctypes.c_void_p),
        ("allocFlags", CUmemAllocFlags),
    ]


class CUmemAccessDesc(ctypes.Structure):
    _fields_ = [("location", CUmemLocation), ("flags", ctypes.c_int)]


class CudaError(RuntimeError):
    pass


class Driver:
    """The few driver-API calls we need, with the device's primary context made current."""

    def __init__(self, device: int = 0) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.device = device
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")

    def fn(self, *names: str) -> Any:
        for name in names:
            f = getattr(self.lib, name, None)
            if f is not None:
                return f
        raise CudaError(f"libcuda has none of {names}")

    def check(self, code: int, what: str) -> None:
        if code != 0:
            text = ctypes.c_char_p()
            self.lib.cuGetErrorString(code, ctypes.byref(text))
            detail = text.value.decode() if text.value else "unknown error"
            raise CudaError(f"{what} failed with CUDA error {code}: {detail}")

    def location(self) -> CUmemLocation:
        return CUmemLocation(CU_MEM_LOCATION_TYPE_DEVICE, self.device)

    def _vmm_prop(self) -> CUmemAllocationProp:
        prop = CUmemAllocationProp()
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        prop.location = self.location()
        return prop

    def _map(self, handle: int, size: int) -> int:
        ptr = ctypes.c_uint64()
        self.check(self.lib.cuMemAddressReserve(ctypes.byref(ptr), ctypes.c_size_t(size), ctypes.c_size_t(0),
                                                ctypes.c_uint64(0), ctypes.c_uint64(0)), "cuMemAddressReserve")
        self.check(self.lib.cuMemMap(ptr, ctypes.c_size_t(size), ctypes.c_size_t(0), ctypes.c_uint64(handle),
                                     ctypes.c_uint64(0)), "cuMemMap")
        access = CUmemAccessDesc(self.location(), CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        self.check(self.lib.cuMemSetAccess(ptr, ctypes.c_size_t(size), ctypes.byref(access), ctypes.c_size_t(1)),
                   "cuMemSetAccess")
        return ptr.value


@dataclass
class SharedBuffer:
    """A device buffer: its pointer in this process, its size, and how another process can map it."""

    ptr: int
    nbytes: int
    descriptor: dict[str, Any]  # JSON-able, sent over the channel
    fd: int | None  # sent alongside the descriptor (fd mode)


def export_buffer(driver: Driver, nbytes: int, mode: str) -> SharedBuffer:
    """Allocate ``nbytes`` of device memory that another process can map (grader side)."""
    if mode == "fd":
        prop = driver._vmm_prop()
        gran = ctypes.c_size_t()
        driver.check(driver.lib.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop),
                                                               CU_MEM_ALLOC_GRANULARITY_MINIMUM), "granularity")
        size = -(-nbytes // gran.value) * gran.value
        handle = ctypes.c_uint64()
        driver.check(driver.lib.cuMemCreate(ctypes.byref(handle), ctypes.c_size_t(size), ctypes.byref(prop),
                                            ctypes.c_uint64(0)), "cuMemCreate")
        ptr = driver._map(handle.value, size)
        fd = ctypes.c_int(-1)
        driver.check(driver.lib.cuMemExportToShareableHandle(ctypes.byref(fd), ctypes.c_uint64(handle.value),
                                                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                                             ctypes.c_uint64(0)), "cuMemExportToShareableHandle")
        return SharedBuffer(ptr, nbytes, {"mode": "fd", "size": size, "nbytes": nbytes}, fd.value)
    if mode == "legacy":
        ptr = ctypes.c_uint64()
        driver.check(driver.fn("cuMemAlloc_v2", "cuMemAlloc")(ctypes.byref(ptr), ctypes.c_size_t(nbytes)),
                     "cuMemAlloc")
        handle = CUipcMemHandle()
        driver.check(driver.lib.cuIpcGetMemHandle(ctypes.byref(handle), ptr), "cuIpcGetMemHandle")
        return SharedBuffer(ptr.value, nbytes, {"mode": "legacy", "handle": bytes(handle).hex(), "nbytes": nbytes},
                            None)
    raise ValueError(f"unknown CUDA IPC mode {mode!r} (use fd or legacy)")


def import_buffer(driver: Driver, descriptor: dict[str, Any], fd: int | None) -> int:
    """Map a buffer another process exported; returns its device pointer here (agent side)."""
    if descriptor["mode"] == "fd":
        if fd is None:
            raise CudaError("the fd-mode buffer arrived without its file descriptor")
        handle = ctypes.c_uint64()
        driver.check(driver.lib.cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fd),
                                                               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                     "cuMemImportFromShareableHandle")
        os.close(fd)
        return driver._map(handle.value, int(descriptor["size"]))
    handle = CUipcMemHandle()
    ctypes.memmove(ctypes.byref(handle), bytes.fromhex(descriptor["handle"]), 64)
    ptr = ctypes.c_uint64()
    driver.check(driver.fn("cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle")(
        ctypes.byref(ptr), handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle")
    return ptr.value


class _CudaArray:
    """Just enough of __cuda_array_interface__ for torch.as_tensor to wrap a raw int32 pointer."""

    def __init__(self, ptr: int, length: int) -> None:
        self.__cuda_array_interface__ = {
            "shape": (length,), "typestr": "<i4", "data": (ptr, False), "version": 2, "strides": None,
        }


def int32_tensor(ptr: int, length: int, device: int = 0) -> Any:
    """A torch int32 tensor of ``length`` elements over device memory at ``ptr`` (no copy)."""
    import torch

    return torch.as_tensor(_CudaArray(ptr, length), device=f"cuda:{device}")
