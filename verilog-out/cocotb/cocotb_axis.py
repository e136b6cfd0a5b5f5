"""cocotb tests of one AXI4-Stream codec wrapper (the simulator's toplevel).

Run by ``test_axis_wrappers.py`` (pytest), which passes, in the environment:

  BUDDY_AXIS_WRAPPER  path of ``<codec>_axis.v`` (its folder holds the codec
                      and ``vectors/``)
  BUDDY_AXIS_VECTORS  the vector file [default: vectors/<codec>.hex beside it]
  BUDDY_AXIS_SHARE    replay at most this many vectors, spread over the file
                      (0: every vector)
  BUDDY_AXIS_SEED     seed of the random pauses
  BUDDY_AXIS_P_VALID  percent of cycles the source offers a transfer
  BUDDY_AXIS_P_READY  percent of cycles the sink is ready

cocotbext-axi's AxiStreamSource drives ``s_axis_*`` and AxiStreamSink takes
``m_axis_*``, each pausing at random; every output transfer is compared,
field by field, with its vector's expected outputs, in order.
"""

import itertools
import os
import random
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from axis_vectors import load_wrapper, spread

PERIOD_NS = 10
# Failures printed in full before the summary.
SHOWN_FAILURES = 5


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def _pauses(rng: random.Random, percent_active: int):
    """An endless pause pattern: True (paused) on (100 - percent_active)% of cycles."""
    return (rng.randrange(100) >= percent_active for _ in itertools.count())


class _Ports:
    """The wrapper's stream ports, each looked up by name, as the entity
    cocotb-bus takes. cocotb-bus finds optional signals with ``dir()``, which
    makes cocotb discover every object of the design; under Verilator 5.006
    with cocotb 1.8.1 a write through a top-level input's handle after that
    discovery never reaches the model (aresetn stays 0, no transfer
    starts)."""

    def __init__(self, dut, wrapper):
        self._name = dut._name
        self._log = dut._log
        for prefix, side in (("s_axis", wrapper.s_axis), ("m_axis", wrapper.m_axis)):
            for signal in ("tvalid", "tready", "tdata") + (("tuser",) if side.tuser else ()):
                setattr(self, f"{prefix}_{signal}", getattr(dut, f"{prefix}_{signal}"))


async def _start(dut, wrapper):
    """Clock, the wrapper's source and sink, and two reset cycles."""
    cocotb.start_soon(Clock(dut.aclk, PERIOD_NS, units="ns").start())
    # No reset signal given to them: nothing is queued before the reset
    # ends, so the source's tvalid stays 0 through it.
    ports = _Ports(dut, wrapper)
    source = AxiStreamSource(AxiStreamBus.from_prefix(ports, "s_axis"), dut.aclk, byte_size=wrapper.s_axis.tdata_bits)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(ports, "m_axis"), dut.aclk, byte_size=wrapper.m_axis.tdata_bits)
    for log in (source.log, sink.log):
        log.setLevel("WARNING")  # one INFO line per 1024-bit transfer otherwise
    dut.aresetn.value = 0
    await ClockCycles(dut.aclk, 2)
    dut.aresetn.value = 1
    return source, sink


def _frame(wrapper, inputs):
    side = wrapper.s_axis
    tuser = side.pack_tuser(inputs) if side.tuser else None
    return AxiStreamFrame(tdata=[inputs[side.tdata]], tuser=tuser)


def _fields(wrapper, frame) -> dict:
    """The codec output fields one sink frame (one transfer) carries."""
    side = wrapper.m_axis
    assert len(frame.tdata) == 1, f"a frame of {len(frame.tdata)} transfers: {wrapper.name} has no tlast, every transfer is one frame"
    got = {side.tdata: frame.tdata[0]}
    if side.tuser:
        # recv() compacts a per-transfer list of equal values to one int.
        tuser = frame.tuser if isinstance(frame.tuser, int) else frame.tuser[0]
        got |= side.unpack_tuser(tuser)
    return got


@cocotb.test()
async def replays_golden_vectors_under_random_pauses(dut):
    """Every chosen vector through the wrapper, the source idling and the
    sink stalling at random; outputs equal the expected fields, in order,
    and no extra transfer follows."""
    wrapper = load_wrapper(Path(os.environ["BUDDY_AXIS_WRAPPER"]))
    vector_file = Path(os.environ.get("BUDDY_AXIS_VECTORS") or wrapper.vector_file)
    lines = [l for l in vector_file.read_text().splitlines() if l.strip()]
    chosen = spread(lines, _env_int("BUDDY_AXIS_SHARE", 0))
    assert chosen, f"{vector_file}: no vectors"
    vectors = [(i, *wrapper.parse_line(line)) for i, line in chosen]
    seed = _env_int("BUDDY_AXIS_SEED", 1)
    p_valid, p_ready = _env_int("BUDDY_AXIS_P_VALID", 70), _env_int("BUDDY_AXIS_P_READY", 60)
    assert 0 < p_valid <= 100 and 0 < p_ready <= 100, "pause percentages outside 1..100 would never transfer"

    source, sink = await _start(dut, wrapper)
    source.set_pause_generator(_pauses(random.Random(seed), p_valid))
    sink.set_pause_generator(_pauses(random.Random(seed + 1), p_ready))
    for _, inputs, _ in vectors:
        source.send_nowait(_frame(wrapper, inputs))

    # A bound on the run, as the shipped testbench's: far above what the
    # pauses cost, so only a hung stream reaches it.
    budget_ns = (50 * len(vectors) + 1000 + wrapper.latency) * PERIOD_NS
    failures = []
    start = cocotb.utils.get_sim_time("ns")
    for k, (index, _, expected) in enumerate(vectors):
        left = budget_ns - (cocotb.utils.get_sim_time("ns") - start)
        try:
            frame = await with_timeout(sink.recv(), max(left, PERIOD_NS), "ns")
        except cocotb.result.SimTimeoutError:
            raise AssertionError(f"{wrapper.name}: timeout: {k} of {len(vectors)} outputs after {budget_ns} ns") from None
        got = _fields(wrapper, frame)
        wrong = [f for f in expected if got[f] != expected[f]]
        if wrong:
            failures.append(index)
            if len(failures) <= SHOWN_FAILURES:
                dut._log.error(
                    "%s: vector %d (line %d of %s) differs:\n%s",
                    wrapper.name,
                    index,
                    index + 1,
                    vector_file.name,
                    "\n".join(f"  {f}: got {got[f]:x} expected {expected[f]:x}" for f in wrong),
                )
    # Nothing more comes out once every input has been answered.
    await ClockCycles(dut.aclk, wrapper.latency + 20)
    extra = sink.count()
    dut._log.info("%s: %d passed, %d failed", wrapper.name, len(vectors) - len(failures), len(failures))
    assert not failures, f"{wrapper.name}: {len(failures)} of {len(vectors)} vectors differ (vector indices {failures[:10]})"
    assert extra == 0, f"{wrapper.name}: {extra} transfers after the last expected output"


@cocotb.test()
async def latency_and_throughput_are_the_codecs(dut):
    """Without pauses the wrapper adds no register: the first output follows
    the first input by the codec's documented latency, and one transfer
    leaves per cycle (initiation interval 1)."""
    wrapper = load_wrapper(Path(os.environ["BUDDY_AXIS_WRAPPER"]))
    vector_file = Path(os.environ.get("BUDDY_AXIS_VECTORS") or wrapper.vector_file)
    lines = [l for l in vector_file.read_text().splitlines() if l.strip()][:16]
    source, sink = await _start(dut, wrapper)
    taken_in, taken_out, cycle = [], [], 0

    async def watch():
        nonlocal cycle
        while True:
            await RisingEdge(dut.aclk)
            cycle += 1
            if dut.s_axis_tvalid.value == 1 and dut.s_axis_tready.value == 1:
                taken_in.append(cycle)
            if dut.m_axis_tvalid.value == 1 and dut.m_axis_tready.value == 1:
                taken_out.append(cycle)

    watcher = cocotb.start_soon(watch())
    for line in lines:
        source.send_nowait(_frame(wrapper, wrapper.parse_line(line)[0]))
    for _ in lines:
        await with_timeout(sink.recv(), (len(lines) + wrapper.latency + 100) * PERIOD_NS, "ns")
    watcher.kill()
    assert len(taken_in) == len(taken_out) == len(lines), (taken_in, taken_out)
    # An input taken on edge t is taken by an always-ready sink on edge
    # t+L, L the header's latency (as the project's stream driver counts it).
    latencies = {o - i for i, o in zip(taken_in, taken_out)}
    assert latencies == {wrapper.latency}, f"{wrapper.name}: edges from input to output {sorted(latencies)}, header latency {wrapper.latency}"
    gaps = {b - a for a, b in zip(taken_out, taken_out[1:])}
    assert gaps == {1}, f"{wrapper.name}: output gaps {sorted(gaps)} cycles, not one per cycle"
