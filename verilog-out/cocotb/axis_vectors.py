"""What the cocotb suite knows about verilog-out/, read from the delivery itself.

Nothing here is a hand-kept copy: the codec's ports and widths come from the
interface header of ``<codec>.v``, the AXI4-Stream mapping (which field sits
in ``tdata``, which in ``tuser`` at which bits) from the header of
``<codec>_axis.v``, and the expected outputs from ``vectors/<codec>.hex``.

Vector line format (``buddy vectors``; the README's "Vector line format"):
one line per vector, hex, the codec's data inputs then its data outputs in
the order of its interface header (clock, reset, valid and ready are not
data), first field first. A field of ``w`` bits is ``ceil(w/4)`` hex digits,
most significant first, zero-extended to whole digits, so a 1024-bit entry
is 256 digits (bit k of the field is bit k of the entry) and a 1-bit flag is
one digit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# Handshake and clocking ports: every other port of a codec is a data field.
CONTROL_PORTS = {"clock", "reset", "in_valid", "in_ready", "out_valid", "out_ready"}


@dataclass(frozen=True)
class Field:
    """A data port of the codec: ``name``, ``width`` in bits."""

    name: str
    width: int

    @property
    def digits(self) -> int:
        """Hex digits the field takes in a vector line."""
        return (self.width + 3) // 4


@dataclass(frozen=True)
class StreamSide:
    """One AXI4-Stream side of a wrapper: the codec field carried whole in
    ``tdata`` and the fields packed in ``tuser`` as ``(name, msb, lsb)``."""

    tdata: str
    tdata_bits: int
    tuser: tuple[tuple[str, int, int], ...]

    def pack_tuser(self, values: dict[str, int]) -> int:
        """``tuser`` for the field values ``values`` (name -> int)."""
        word = 0
        for name, msb, lsb in self.tuser:
            value = values[name]
            if value >> (msb - lsb + 1):
                raise ValueError(f"{name} = {value:#x} does not fit [{msb}:{lsb}]")
            word |= value << lsb
        return word

    def unpack_tuser(self, word: int) -> dict[str, int]:
        """The field values ``tuser`` word ``word`` holds."""
        return {name: (word >> lsb) & ((1 << (msb - lsb + 1)) - 1) for name, msb, lsb in self.tuser}


@dataclass(frozen=True)
class Wrapper:
    """An AXI4-Stream codec wrapper of verilog-out/ and what it wraps."""

    name: str  # the wrapper module, `<codec>_axis`
    codec: str  # the wrapped module
    directory: Path  # the verilog-out/ (or a copy) holding both files
    inputs: tuple[Field, ...]  # the codec's data inputs, in header order
    outputs: tuple[Field, ...]  # the codec's data outputs, in header order
    latency: int  # cycles from an input transfer to its output (codec header)
    s_axis: StreamSide
    m_axis: StreamSide

    @property
    def sources(self) -> list[Path]:
        """The Verilog files to compile: the wrapper, then the codec."""
        return [self.directory / f"{self.name}.v", self.directory / f"{self.codec}.v"]

    @property
    def vector_file(self) -> Path:
        return self.directory / "vectors" / f"{self.codec}.hex"

    def parse_line(self, line: str) -> tuple[dict[str, int], dict[str, int]]:
        """One vector line as (input values, expected output values), by
        field name. Raises ``ValueError`` on a line of the wrong length or
        with a non-hex digit."""
        line = line.strip()
        fields = self.inputs + self.outputs
        want = sum(f.digits for f in fields)
        if len(line) != want:
            raise ValueError(f"{self.vector_file}: a line of {len(line)} hex digits, {self.codec} needs {want}")
        values, at = {}, 0
        for f in fields:
            value = int(line[at : at + f.digits], 16)
            if value >> f.width:
                raise ValueError(f"{self.vector_file}: {f.name} = {value:#x} is wider than {f.width} bits")
            values[f.name] = value
            at += f.digits
        return {f.name: values[f.name] for f in self.inputs}, {f.name: values[f.name] for f in self.outputs}


def header(path: Path) -> list[str]:
    """The leading `//` comment lines of a Verilog file, without the `//`."""
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[2:])
    return lines


def _codec_ports(path: Path, codec: str) -> tuple[list[Field], list[Field], int]:
    """(data inputs, data outputs, latency) from the interface header of
    ``<codec>.v``: the ``port dir bits`` table and the ``Latency N cycles``
    line."""
    lines = header(path)
    try:
        start = lines.index(f" Interface of {codec}:") + 2  # skip the column titles
    except ValueError:
        raise ValueError(f"{path}: no 'Interface of {codec}:' table in the header") from None
    inputs, outputs = [], []
    for line in lines[start:]:
        m = re.fullmatch(r"\s+(\w+)\s+(input|output)\s+(\d+)", line)
        if not m:
            break
        name, direction, bits = m.group(1), m.group(2), int(m.group(3))
        if name not in CONTROL_PORTS:
            (inputs if direction == "input" else outputs).append(Field(name, bits))
    latency = next((int(m.group(1)) for l in lines if (m := re.match(r" Latency (\d+) cycles", l))), None)
    if not inputs or not outputs or latency is None:
        raise ValueError(f"{path}: the header lists no data inputs, data outputs or latency")
    return inputs, outputs, latency


def _side(lines: list[str], side: str, path: Path) -> StreamSide:
    text = "\n".join(lines)
    data = re.search(rf"{side}_axis_tdata \[(\d+):0\] = (\w+)", text)
    if not data:
        raise ValueError(f"{path}: no '{side}_axis_tdata [N:0] = field' line in the header")
    user = re.search(rf"{side}_axis_tuser \[(\d+):0\] = \{{([^}}]*)\}}", text)
    fields = []
    if user:
        for m in re.finditer(r"(\w+) \[(\d+)(?::(\d+))?\]", user.group(2)):
            msb = int(m.group(2))
            fields.append((m.group(1), msb, int(m.group(3)) if m.group(3) else msb))
    return StreamSide(data.group(2), int(data.group(1)) + 1, tuple(fields))


def load_wrapper(path: Path) -> Wrapper:
    """The wrapper ``<codec>_axis.v`` at ``path``, its codec's ports and its
    stream mapping, checked against each other: every codec data field is in
    exactly one of tdata/tuser with its width."""
    path = Path(path).resolve()
    lines = header(path)
    m = re.search(r"AXI4-Stream wrapper of (\w+) \(in (\w+)\.v\)", "\n".join(lines))
    if not m:
        raise ValueError(f"{path}: the header names no wrapped module ('AXI4-Stream wrapper of X (in X.v)')")
    codec = m.group(1)
    inputs, outputs, latency = _codec_ports(path.parent / f"{m.group(2)}.v", codec)
    w = Wrapper(path.stem, codec, path.parent, tuple(inputs), tuple(outputs), latency, _side(lines, "s", path), _side(lines, "m", path))
    for side, fields in ((w.s_axis, inputs), (w.m_axis, outputs)):
        widths = {f.name: f.width for f in fields}
        mapped = {side.tdata: side.tdata_bits} | {n: msb - lsb + 1 for n, msb, lsb in side.tuser}
        if mapped != widths:
            raise ValueError(f"{path}: the stream carries {mapped}, the codec's header lists {widths}")
    return w


def wrappers(directory: Path) -> list[Path]:
    """Every AXI4-Stream wrapper file of ``directory`` (a verilog-out/), sorted."""
    return sorted(Path(directory).glob("*_axis.v"))


def spread(lines: list[str], share: int) -> list[tuple[int, str]]:
    """``(index, line)`` of every line, or when ``0 < share < len(lines)`` of
    every k-th line so that at most ``share`` remain, spread over the whole
    file (the shipped files are real entries, then MAG-BDI boundary, random
    and, for decompressors, malformed inputs: a spread keeps each kind)."""
    indexed = list(enumerate(lines))
    if share <= 0 or share >= len(indexed):
        return indexed
    step = -(-len(indexed) // share)
    return indexed[::step]
