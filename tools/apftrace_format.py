# SPDX-License-Identifier: BSD-2-Clause
"""The trace format of apftrace (lib/trace/trace_format.h): the file's
constants, the event model (Field, EventDesc, Record, Decoded), TraceFile,
which reads and checks a trace file and decodes its records with the file's
own descriptor table, and the trace disk (a 4 KiB header, then the trace
file): reading it and copying the trace out (--extract).

A library module, not a program: tools/apftrace imports it from its own
folder (tools/), as do its other apftrace_*.py modules.
"""

import os
import struct
from collections import OrderedDict

SUPPORTED_MAJOR = 1
TRACE_MAGIC = b"APFTRACE"
DISK_MAGIC = b"APFVTRCD"
DISK_DATA_OFFSET = 4096
HEADER_SIZE = 128
RECORD_HEADER = 16
RECORD_ALIGN = 8
NO_VCPU = 0xFFFF

FLAG_NAMES = ((1 << 0, "overwrite"), (1 << 1, "full"), (1 << 2, "truncated"))

# Fields shown in hexadecimal (addresses, bit masks, and async-PF tokens,
# whose low 12 bits are the vCPU as in KVM's); the rest in decimal.
HEX_FIELDS = frozenset(("gpa", "rip", "qualification", "cpus", "token"))

# Field type -> struct format (all little-endian).
FIELD_TYPES = {
    "u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q",
    "i8": "<b", "i16": "<h", "i32": "<i", "i64": "<q",
}

# The fixed header after magic, major, minor and header size (offset 16).
_HEADER_REST = struct.Struct("<QIIIIQQQQQQQQQQQ")
_RECORD = struct.Struct("<QHHBBH")

SECTIONS = ("descriptor", "config", "records", "counters")


class TraceError(Exception):
    """Malformed or unreadable input; the message says what is wrong."""


class Field:
    """One field of an event descriptor: name, type word, enum name."""

    __slots__ = ("name", "type", "enum")

    def __init__(self, name, ftype, enum):
        self.name, self.type, self.enum = name, ftype, enum


class EventDesc:
    """An "event" line of the descriptor table."""

    __slots__ = ("id", "name", "version", "fields")

    def __init__(self, eid, name, version, fields):
        self.id, self.name, self.version, self.fields = eid, name, version, fields


class Record:
    """One record: its header words and its payload (the bytes after them)."""

    __slots__ = ("tsc", "event", "size", "cpu", "vcpu", "payload")

    def __init__(self, tsc, event, size, cpu, vcpu, payload):
        self.tsc, self.event, self.size = tsc, event, size
        self.cpu, self.vcpu, self.payload = cpu, vcpu, payload


class Decoded:
    """A decoded record: event name, field values (ints) and display pairs."""

    __slots__ = ("rec", "name", "values", "items")

    def __init__(self, rec, name, values, items):
        self.rec, self.name, self.values, self.items = rec, name, values, items


# ---------------------------------------------------------------------------
# Parsing


def _version_error(major, minor):
    if major > SUPPORTED_MAJOR:
        return TraceError(
            "trace format %d.%d is newer than this apftrace reads (%d.x): "
            "update apftrace" % (major, minor, SUPPORTED_MAJOR))
    return TraceError("trace format %d.%d is older than this apftrace reads "
                      "(%d.x)" % (major, minor, SUPPORTED_MAJOR))


def _text(data, what):
    try:
        return data.rstrip(b"\0").decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError("the %s section is not UTF-8 text" % what) from None


def _is_decimal(word):
    return word.isascii() and word.isdigit()


def _parse_int(word, what, lineno):
    if not _is_decimal(word):
        raise TraceError("descriptor line %d: %s %r is not a decimal number"
                         % (lineno, what, word))
    return int(word)


def _parse_field(word, lineno):
    parts = word.split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise TraceError("descriptor line %d: field %r is not NAME:TYPE[:ENUM]"
                         % (lineno, word))
    return Field(parts[0], parts[1], parts[2] if len(parts) == 3 else None)


class TraceFile:
    """A parsed trace file.

    Attributes: name (for messages), header (dict), events (ID -> EventDesc),
    enums (name -> {value: label}), config (OrderedDict), counters
    (OrderedDict name -> int), records (list of Record, in file order) and
    sorted_records (by TSC, ties in file order).
    """

    def __init__(self, data, name="trace"):
        self.name = name
        self.events = {}
        self.enums = {}
        self.config = OrderedDict()
        self.counters = OrderedDict()
        self.records = []
        data = self._parse_header(bytes(data))
        self._parse_descriptors(self._section(data, "descriptor"))
        self._parse_config(self._section(data, "config"))
        self._parse_counters(self._section(data, "counters"))
        self._parse_records(self._section(data, "records"))
        self.sorted_records = sorted(self.records, key=lambda r: r.tsc)
        self._decoded = None

    @classmethod
    def from_path(cls, path):
        return cls(read_trace_bytes(path), path)

    # -- the fixed header -------------------------------------------------

    def _parse_header(self, data):
        if len(data) < len(TRACE_MAGIC) or data[:8] != TRACE_MAGIC:
            raise TraceError("not a trace file (no APFTRACE magic at byte 0)")
        if len(data) < 16:
            raise TraceError("truncated: the file ends inside its header")
        major, minor, hsize = struct.unpack_from("<HHI", data, 8)
        if major != SUPPORTED_MAJOR:
            raise _version_error(major, minor)
        if hsize < HEADER_SIZE:
            raise TraceError("the header size %d is smaller than %d"
                             % (hsize, HEADER_SIZE))
        if len(data) < hsize:
            raise TraceError("truncated: the file (%d bytes) ends inside its "
                             "%d-byte header" % (len(data), hsize))
        v = _HEADER_REST.unpack_from(data, 16)
        h = OrderedDict()
        h["format"] = "%d.%d" % (major, minor)
        h["major"], h["minor"], h["header_size"] = major, minor, hsize
        h["tsc_hz"], h["cpus"], h["vcpus"], h["flags"] = v[0], v[1], v[2], v[3]
        h["flag_names"] = [n for bit, n in FLAG_NAMES if v[3] & bit]
        h["records_kept"], h["records_lost"] = v[5], v[6]
        h["file_size"] = v[15]
        self.header = h
        self._offsets = {s: (v[7 + 2 * i], v[8 + 2 * i])
                         for i, s in enumerate(SECTIONS)}
        size = h["file_size"]
        if size < hsize:
            raise TraceError("the file size in the header (%d) is smaller "
                             "than the header (%d)" % (size, hsize))
        if size > len(data):
            raise TraceError("truncated: the header says %d bytes, the file "
                             "has %d" % (size, len(data)))
        if h["tsc_hz"] == 0:
            raise TraceError("the header's TSC frequency is 0")
        return data[:size]

    def _section(self, data, what):
        off, size = self._offsets[what]
        if off > len(data) or size > len(data) - off:
            raise TraceError("the %s section (offset %d, %d bytes) runs past "
                             "the end of the file (%d bytes)"
                             % (what, off, size, len(data)))
        if size and off < self.header["header_size"]:
            raise TraceError("the %s section (offset %d) overlaps the header"
                             % (what, off))
        return data[off:off + size]

    # -- text sections ----------------------------------------------------

    def _parse_descriptors(self, data):
        for lineno, line in enumerate(_text(data, "descriptor").split("\n"), 1):
            words = line.split()
            if not words:
                continue
            if words[0] == "event":
                self._parse_event_line(words, lineno)
            elif words[0] == "enum":
                self._parse_enum_line(words, lineno)
            # A line of a kind this reader does not know: skipped.

    def _parse_event_line(self, words, lineno):
        if len(words) < 4:
            raise TraceError("descriptor line %d: an event line needs ID NAME "
                             "VERSION" % lineno)
        eid = _parse_int(words[1], "event ID", lineno)
        if not 1 <= eid <= 0xFFFF:
            raise TraceError("descriptor line %d: event ID %d is not in "
                             "1..65535" % (lineno, eid))
        if eid in self.events:
            raise TraceError("descriptor line %d: event ID %d declared twice"
                             % (lineno, eid))
        version = _parse_int(words[3], "event version", lineno)
        fields = [_parse_field(w, lineno) for w in words[4:]]
        self.events[eid] = EventDesc(eid, words[2], version, fields)

    def _parse_enum_line(self, words, lineno):
        if len(words) < 2:
            raise TraceError("descriptor line %d: an enum line needs a name"
                             % lineno)
        labels = self.enums.setdefault(words[1], {})
        for w in words[2:]:
            value, sep, label = w.partition("=")
            if not sep or not label:
                raise TraceError("descriptor line %d: enum value %r is not "
                                 "VALUE=LABEL" % (lineno, w))
            labels[_parse_int(value, "enum value", lineno)] = label

    def _parse_config(self, data):
        for line in _text(data, "config").split("\n"):
            key, sep, value = line.partition("=")
            if sep and key.strip():
                self.config[key.strip()] = value.strip()

    def _parse_counters(self, data):
        for lineno, line in enumerate(_text(data, "counters").split("\n"), 1):
            words = line.split()
            if not words:
                continue
            if len(words) != 2 or not _is_decimal(words[1]):
                raise TraceError("counters line %d is not NAME VALUE: %r"
                                 % (lineno, line[:60]))
            self.counters[words[0]] = int(words[1])

    # -- records ----------------------------------------------------------

    def _parse_records(self, data):
        pos, end = 0, len(data)
        base = self._offsets["records"][0]
        while pos < end:
            if end - pos < RECORD_HEADER:
                raise TraceError("the record at byte %d runs past the records "
                                 "section" % (base + pos))
            tsc, event, size, cpu, _, vcpu = _RECORD.unpack_from(data, pos)
            if size < RECORD_HEADER:
                raise TraceError("the record at byte %d has size %d (less "
                                 "than %d)" % (base + pos, size, RECORD_HEADER))
            if size > end - pos:
                raise TraceError("the record at byte %d (%d bytes) runs past "
                                 "the records section" % (base + pos, size))
            payload = data[pos + RECORD_HEADER:pos + size]
            self.records.append(Record(tsc, event, size, cpu, vcpu, payload))
            pos += (size + RECORD_ALIGN - 1) & ~(RECORD_ALIGN - 1)
        kept = self.header["records_kept"]
        if kept != len(self.records):
            raise TraceError("the header says %d records, the records section "
                             "holds %d" % (kept, len(self.records)))

    # -- decoding ---------------------------------------------------------

    def decode(self, rec):
        """Decodes one record's payload with the descriptor table."""
        desc = self.events.get(rec.event)
        if desc is None:
            items = [("raw", rec.payload.hex())] if rec.payload else []
            return Decoded(rec, "event#%d" % rec.event, {}, items)
        values, items, pos, payload = {}, [], 0, rec.payload
        for field in desc.fields:
            fmt = FIELD_TYPES.get(field.type)
            if fmt is None:
                break                   # unknown type: the rest is raw
            width = struct.calcsize(fmt)
            if pos + width > len(payload):
                break                   # a short record: the rest is raw
            value = struct.unpack_from(fmt, payload, pos)[0]
            pos += width
            values[field.name] = value
            items.append((field.name, self.show(field, value)))
        if pos < len(payload):
            items.append(("raw", payload[pos:].hex()))
        return Decoded(rec, desc.name, values, items)

    def show(self, field, value):
        """A field's value as text: enum label, hex or decimal."""
        label = self.enums.get(field.enum, {}).get(value) if field.enum else None
        if label is not None:
            return label
        if field.name in HEX_FIELDS:
            return "%#x" % value
        return "%d" % value

    def label(self, enum, value):
        """The label of value in enum, or the number as text."""
        return self.enums.get(enum, {}).get(value, "%d" % value)

    def decoded(self):
        """Every record decoded, in TSC order (computed once)."""
        if self._decoded is None:
            self._decoded = [self.decode(r) for r in self.sorted_records]
        return self._decoded

    def first_tsc(self):
        return self.sorted_records[0].tsc if self.sorted_records else 0

    def seconds(self, tsc):
        return (tsc - self.first_tsc()) / self.header["tsc_hz"]

    def vcpus(self):
        """Every vCPU number: those the header counts and those seen."""
        seen = {r.vcpu for r in self.records if r.vcpu != NO_VCPU}
        return sorted(seen | set(range(min(self.header["vcpus"], 256))))


def read_trace_bytes(path):
    """The trace file's bytes from a trace file or a trace disk image."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != DISK_MAGIC:
            return magic + f.read()
        disk_size = os.fstat(f.fileno()).st_size
        f.seek(DISK_DATA_OFFSET)
        head = f.read(HEADER_SIZE)
        if head[:8] != TRACE_MAGIC:
            raise TraceError("the trace disk holds no trace (was trace = on, "
                             "and did the guest end?)")
        if len(head) < HEADER_SIZE:
            return head                 # TraceFile says what is missing
        size = struct.unpack_from("<Q", head, 120)[0]
        size = min(max(size, len(head)), max(disk_size - DISK_DATA_OFFSET, 0))
        return head + f.read(size - len(head))


def is_disk(path):
    with open(path, "rb") as f:
        return f.read(8) == DISK_MAGIC


def extract(path, out_path):
    """Copies the trace file out of the trace disk path into out_path
    (--extract), after checking that it reads."""
    if not is_disk(path):
        raise TraceError("not a trace disk (no APFVTRCD magic at byte 0)")
    data = read_trace_bytes(path)
    TraceFile(data, path)               # refuse to extract a broken trace
    try:
        with open(out_path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise TraceError("cannot write %s: %s" % (out_path, e.strerror)) \
            from None
