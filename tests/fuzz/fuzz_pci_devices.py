# SPDX-License-Identifier: BSD-2-Clause
"""PCI functions as QEMU's q35 presents them, in the encoding of
tests/fuzz/fuzz_pci_device.h (256 bytes of configuration space, then the
six BARs' sizing answers): for the seeds of the targets that link
arch/x86/pci.c."""
import struct

PCI_STATUS_CAP_LIST = 0x10


def config(vendor, device, cls, sub, prog_if, bars, masks, caps=b"",
           header_type=0, command=0x0007):
    """bars: six dwords as firmware left them; masks: what each reads
    back after all ones; caps: bytes from 0x40 on (cap pointer 0x40)."""
    cfg = bytearray(256)
    struct.pack_into("<HHHH", cfg, 0, vendor, device, command,
                     PCI_STATUS_CAP_LIST if caps else 0)
    cfg[0x09], cfg[0x0a], cfg[0x0b] = prog_if, sub, cls
    cfg[0x0e] = header_type
    struct.pack_into("<6I", cfg, 0x10, *bars)
    if caps:
        cfg[0x34] = 0x40
        cfg[0x40:0x40 + len(caps)] = caps
    return bytes(cfg) + struct.pack("<6I", *masks)


def virtio_cap(cfg_type, bar, offset, length, next_ptr, extra=b""):
    """struct virtio_pci_cap (virtio 1.0, 4.1.4), ID 0x09."""
    body = struct.pack("<BBBBBxxxII", 0x09, next_ptr, 16 + len(extra),
                       cfg_type, bar, offset, length)
    return body + extra


def virtio_caps(bar=4):
    caps = virtio_cap(1, bar, 0x0000, 0x38, 0x50).ljust(0x10, b"\0")
    caps += virtio_cap(3, bar, 0x1000, 0x1000, 0x60).ljust(0x10, b"\0")
    caps += virtio_cap(4, bar, 0x2000, 0x1000, 0x70).ljust(0x10, b"\0")
    caps += virtio_cap(2, bar, 0x3000, 0x1000, 0x00,
                       struct.pack("<I", 4)).ljust(0x14, b"\0")
    return caps


# virtio-blk (modern): BAR1 32-bit MMIO (MSI-X), BAR4/5 a 64-bit 16 KiB
# BAR with the four structures.
VIRTIO_BLK = config(
    0x1af4, 0x1042, 0x01, 0x00, 0x00,
    [0x0000c001, 0xfebf1000, 0, 0, 0xfe00000c, 0x00000000],
    [0xffffffc1, 0xfffff000, 0, 0, 0xffffc00c, 0xffffffff],
    virtio_caps())
# A transitional virtio-blk whose capabilities name its I/O BAR.
VIRTIO_IO_BAR = config(
    0x1af4, 0x1001, 0x01, 0x00, 0x00,
    [0x0000c001, 0xfebf4000, 0, 0, 0, 0],
    [0xffffffc1, 0xffffc000, 0, 0, 0, 0],
    virtio_caps(bar=0))
# AHCI (ICH9, 00:1f.2): BAR4 I/O, BAR5 (ABAR) 32-bit 4 KiB.
AHCI = config(
    0x8086, 0x2922, 0x01, 0x06, 0x01,
    [0, 0, 0, 0, 0x0000d0c1, 0xfebf2000],
    [0, 0, 0, 0, 0xffffffe1, 0xfffff000])
# NVMe: BAR0/1 64-bit 16 KiB.
NVME = config(
    0x1b36, 0x0010, 0x01, 0x08, 0x02,
    [0xfebf4004, 0, 0, 0, 0, 0],
    [0xffffc004, 0xffffffff, 0, 0, 0, 0])
