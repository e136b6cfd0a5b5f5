#!/usr/bin/env python3
"""Formal proofs of the delivered Verilog in verilog-out/ (issue #53).

Every proof is a small formal-only wrapper (generated here, written to the
work directory) around delivered modules, turned into an AIGER model by
Yosys and checked by ABC (`yosys-abc`, shipped with Debian's yosys):

* ``roundtrip/<codec>``: compressor then decompressor over their valid/ready
  handshake, with free backpressure; one arbitrary memory-entry (or cDMA
  sector) is tracked through the pair and must come back unchanged, and
  every compressor output's size class must match its stored bytes
  (docs/formats.md#size-classes). Bounded model check (ABC ``bmc3``) to
  the pair's latency plus a margin.
* ``protocol/<module>``: on every valid/ready stream of the module, reset
  leaves no beat offered and an offered beat is held, data unchanged, until
  taken; for the one-in-one-out stream modules also count in == count out
  (nothing leaves that was not taken, everything taken leaves within the
  latency once the sink is ready) and the header's latency and initiation
  interval without backpressure. Unbounded proof (ABC ``pdr``), else a
  bounded check.
* ``mutant/<family>``: the same check on a copy of a delivered file with one
  gate flipped (made here by a text substitution that must match exactly
  once); it must FAIL, which shows the family bites.

Usage: ``formal/formal.py [--quick] [--only SUBSTRING] [--work DIR]
[--report DIR] [--list]``. Exit status 0 when every proof passed and every
mutant failed, 1 otherwise, 2 when a tool is missing. The report (markdown
and JSON: proof, engine, depth, result, seconds) goes to ``--report``.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VOUT = ROOT / "verilog-out"

# Stored bytes of each size-class code (docs/formats.md#size-classes); codes
# 8..15 are reserved and never emitted.
CLASS_BYTES = [0, 8, 16, 32, 64, 80, 96, 128]

# ABC's time limit per round-trip property (one 32-bit word, say), and per
# round-trip proof in all (the properties after it are NOT RUN); BPC's
# decompressor runs 37 cycles and its round trip is only probed.
ROUNDTRIP_SECONDS = 20
ROUNDTRIP_BUDGET = 420
BPC_BUDGET = 40
# Properties of one split proof checked at once (--jobs).
JOBS = 1

# The blocks' and slices' protocol proofs: pdr on each property for this
# long, at most this long in all, then bmc3 on the whole model to the depth
# for this long.
PDR_EACH_SECONDS = 10
# k-induction's largest k (a property pdr leaves undecided), and its time
# limit per property: the write planner's held 1,226-bit writes need about
# 45 s at k = 2.
INDUCTION_DEPTH = 8
INDUCTION_SECONDS = 120
BLOCK_PDR_BUDGET = 240
BLOCK_BMC_SECONDS = 90
# A slice's model is 10-40 times a block's (about 600,000 AND gates): 90 s
# of bmc3 reach 8-10 frames, 900 s 14-16.
SLICE_BMC_SECONDS = 900
# Six properties, each 10 s of pdr then up to 120 s of k-induction: 240 s
# reached three of a slice's six (2026-12-01).
SLICE_PDR_BUDGET = 900
# Bounded depths (cycles from reset): a block's request goes through in
# fewer (metadata cache: hit 4, miss to fill request 3, fill to response 2;
# translator 2; docs/controller.md); a slice's request needs 4 (front) + 4
# (metadata hit) + 2 (plan) + the compressor's latency (ZVC, MAG-BDI: 4;
# BPC: 10, not covered) + 2 (write plan).
BLOCK_DEPTH = 12
SLICE_DEPTH = 16

# The proofs `--quick` (make test) runs: the smallest codec module's
# protocol, and its mutant.
QUICK = ("mag_bdi64_decompressor",)


# ---------------------------------------------------------------- reading


def module_ports(path, top):
    """(direction, bits, name) of every port of module `top` in `path`."""
    text = path.read_text()
    start = re.search(r"^module\s+%s\b" % re.escape(top), text, re.M)
    if not start:
        raise SystemExit("formal: no module %s in %s" % (top, path))
    body = text[start.start():text.index("endmodule", start.start())]
    ports = []
    for m in re.finditer(r"\b(input|output)\s+(?:wire|reg)?\s*(?:\[(\d+):0\])?\s*(\w+)\s*[;,)\n]", body):
        ports.append((m.group(1), int(m.group(2)) + 1 if m.group(2) else 1, m.group(3)))
    return ports


def header_latency(path):
    """The latency in cycles the interface header states, or None."""
    head = path.read_text().split("`resetall", 1)[0]
    m = re.search(r"Latency (\d+) cycles", head) or re.search(r"(\d+) cycles after", head)
    return int(m.group(1)) if m else None


def streams(ports):
    """Valid/ready streams: {prefix: (source_is_module, [data ports])}."""
    names = {n: (d, b) for d, b, n in ports}
    prefixes = [n[: -len("valid")] for n in names if n.endswith("valid") and n[: -len("valid")] + "ready" in names]
    out = {}
    for p in prefixes:
        source = names[p + "valid"][0] == "output"
        longer = [q for q in prefixes if q != p and q.startswith(p)]
        data = [
            n
            for n, (d, _) in names.items()
            if n.startswith(p)
            and n not in (p + "valid", p + "ready")
            and not any(n.startswith(q) for q in longer)
            and (d == "output") == source
        ]
        out[p] = (source, data)
    return out


def clock_reset(ports):
    names = [n for _, _, n in ports]
    if "aclk" in names:
        return "aclk", "aresetn", True
    return "clock", "reset", False


# ---------------------------------------------------------------- wrappers

PRELUDE = """`default_nettype none
// Formal-only wrapper generated by formal/formal.py; never synthesized.
"""


# What a block's documentation promises of its environment beyond the
# stream rule (assumed), where a block with request/response pairs would
# otherwise lose its protocol to an answer no request asked for.
ENVIRONMENT = {
    # hdl/src/memory_port.rs: the cache has at most FILLS (16) fills asked
    # for and not yet handed back; memory answers each fill once.
    "memory_port": [
        "  // the environment memory_port's doc promises: <= 16 fills out, each answered once",
        "  reg [4:0] env_fills = 0;    // fills memory took and the cache has not been handed",
        "  reg [15:0] env_asked = 0;   // fill numbers asked for and not yet answered",
        "  reg [3:0] env_next = 0;     // the number of the next fill asked for",
        "  wire env_fill_taken = md_req_valid && md_req_ready && !md_req_write;",
        "  wire env_fill_answer = mem_resp_valid && mem_resp_ready && mem_resp_tag[10];",
        "  always @(posedge clock) if (reset) begin env_fills <= 0; env_asked <= 0; env_next <= 0; end else begin",
        "    env_fills <= env_fills + env_fill_taken - (md_fill_valid && md_fill_ready);",
        "    if (env_fill_taken) env_next <= env_next + 1'b1;",
        "    env_asked <= (env_asked | (env_fill_taken ? 16'd1 << env_next : 16'd0)) & ~(env_fill_answer ? 16'd1 << mem_resp_tag[3:0] : 16'd0);",
        "  end",
        "  always @* if (!init && !reset) begin",
        "    if (md_req_valid && !md_req_write) assume(env_fills < 16);",
        "    if (mem_resp_valid && mem_resp_tag[10]) assume(env_asked[mem_resp_tag[3:0]]);",
        "  end",
    ],
    # hdl/src/sector_gather.rs, "Protocol": per context the device part's
    # layout once (the context free), the buddy part's at most once, in the
    # same plan or a later one with plan_last; a part's runs only after its
    # plan, within its planned sectors, each sector once; the context is
    # free again once it has left.
    "sector_gather": None,  # sector_gather_environment(), below
}


def sector_gather_environment():
    """The gather's protocol as assumptions (see ENVIRONMENT): the wrapper
    keeps each context's plans and, per part, its planned and arrived
    sectors."""
    lines = [
        "  // the environment sector_gather's doc promises, per context",
        "  reg [127:0] env_open = 0, env_closed = 0, env_bud = 0;  // device plan taken / closed / buddy plan taken",
        "  wire env_leave = out_valid && out_ready;",
        "  always @(posedge clock) if (reset) begin env_open <= 0; env_closed <= 0; env_bud <= 0; end else begin",
        "    if (plan_valid && plan_device) env_open[plan_id] <= 1'b1;",
        "    if (plan_valid && plan_buddy) env_bud[plan_id] <= 1'b1;",
        "    if (plan_valid) env_closed[plan_id] <= plan_last;",
        "    if (env_leave) begin env_open[out_id] <= 1'b0; env_closed[out_id] <= 1'b0; env_bud[out_id] <= 1'b0; end",
        "  end",
        "  always @* if (!init && !reset) begin",
        "    if (plan_valid) assume((plan_device || plan_buddy) && plan_sectors <= 3'd5 && plan_bud_sectors <= 3'd5",
        "      && !plan_lead[0] && !plan_bud_lead[0] && !plan_words[0] && plan_words <= 6'd32);",
        "    if (plan_valid && !plan_device) assume(plan_sectors == 3'd0);",
        "    if (plan_valid && !plan_buddy) assume(plan_bud_sectors == 3'd0);",
        "    if (plan_valid && plan_device) assume(!env_open[plan_id]);",
        "    if (plan_valid && plan_buddy) assume((plan_device || env_open[plan_id]) && !env_closed[plan_id] && !env_bud[plan_id] && plan_last);",
        "  end",
    ]
    # per part (port prefix, the plan flag that holds it, its sector count,
    # the flag its runs need): sectors planned (3 bits a context) and
    # arrived (5 bits a context)
    for part, port, buddy, sectors, flag in (
        ("dev", "dev", "plan_device", "plan_sectors", "env_open"),
        ("bud", "buddy", "plan_buddy", "plan_bud_sectors", "env_bud"),
    ):
        n, got, run = "env_%s_n" % part, "env_%s_got" % part, "env_%s_run" % part
        lines += [
            "  reg [383:0] %s = 0; reg [639:0] %s = 0;" % (n, got),
            "  wire [4:0] %s = ((5'd1 << %s_sectors) - 5'd1) << %s_sector;" % (run, port, port),
            "  always @(posedge clock) if (reset) %s <= 0; else begin" % got,
            "    if (plan_valid && %s) %s[plan_id * 3 +: 3] <= %s;" % (buddy, n, sectors),
            "    if (%s_valid) %s[%s_id * 5 +: 5] <= %s[%s_id * 5 +: 5] | %s;" % (port, got, port, got, port, run),
            "    if (env_leave) %s[out_id * 5 +: 5] <= 5'd0;" % got,
            "  end",
            "  always @* if (!init && !reset && %s_valid) assume(%s[%s_id] && %s_sectors >= 3'd1 && %s_sectors <= 3'd4" % (port, flag, port, port, port),
            "    && (%s_sector == 3'd0 || %s_sector == 3'd4) && {1'b0, %s_sector} + %s_sectors <= {1'b0, %s[%s_id * 3 +: 3]}"
            % (port, port, port, port, n, port),
            "    && (%s[%s_id * 5 +: 5] & %s) == 5'd0);" % (got, port, run),
        ]
    return lines


ENVIRONMENT["sector_gather"] = sector_gather_environment()


def serial_slice_environment():
    """Memory as the serial slice's doc promises it (hdl/src/buddy_controller.rs,
    `dev_resp_*` / `buddy_resp_*`): one sector answered per read request,
    in request order, so an answer only while a read is out."""
    lines = ["  // memory answers only reads it took: one sector per read request, in order"]
    for port in ("dev", "buddy"):
        out = "env_%s_out" % port
        lines += [
            "  reg [7:0] %s = 0;  // read requests taken and not yet answered" % out,
            "  always @(posedge clock) if (reset) %s <= 0; else" % out,
            "    %s <= %s + (%s_req_valid && %s_req_ready && !%s_req_write) - (%s_resp_valid && %s_resp_ready);"
            % (out, out, port, port, port, port, port),
            "  always @* if (!init && !reset && %s_resp_valid) assume(%s != 0);" % (port, out),
            "  always @* if (!init && !reset && %s_req_valid && !%s_req_write) assume(%s != 8'hff);" % (port, port, out),
        ]
    return lines


def pipelined_slice_environment():
    """Memory as the pipelined slice's ports promise it (hdl/src/memory_port.rs,
    `mem_tag` `{sectors - 1, fill, context, sector}`): a read is answered
    once, with its own tag, in any order; a data read is keyed by
    {context, sector}, a metadata fill by its number mod 16."""
    lines = ["  // memory answers each read it took once, with the read's own tag, in any order"]
    for port in ("dev", "bud"):
        rd, ln, fl = "env_%s_rd" % port, "env_%s_len" % port, "env_%s_fill" % port
        ask, ans = "env_%s_ask" % port, "env_%s_ans" % port
        tag, rtag = "%s_mem_tag" % port, "%s_mem_resp_tag" % port
        lines += [
            "  reg [1023:0] %s = 0; reg [2047:0] %s = 0; reg [15:0] %s = 0;" % (rd, ln, fl),
            "  wire %s = %s_mem_valid && %s_mem_ready && !%s_mem_write;" % (ask, port, port, port),
            "  wire %s = %s_mem_resp_valid && %s_mem_resp_ready;" % (ans, port, port),
            "  always @(posedge clock) if (reset) begin %s <= 0; %s <= 0; end else begin" % (rd, fl),
            # the answer's clear first, so that a read of the same key asked
            # on the same cycle stays out
            "    if (%s && !%s[10]) %s[%s[9:0]] <= 1'b0;" % (ans, rtag, rd, rtag),
            "    if (%s && %s[10]) %s[%s[3:0]] <= 1'b0;" % (ans, rtag, fl, rtag),
            "    if (%s && !%s[10]) begin %s[%s[9:0]] <= 1'b1; %s[%s[9:0] * 2 +: 2] <= %s[12:11]; end" % (ask, tag, rd, tag, ln, tag, tag),
            "    if (%s && %s[10]) %s[%s[3:0]] <= 1'b1;" % (ask, tag, fl, tag),
            "  end",
            "  always @* if (!init && !reset && %s_mem_resp_valid) assume(%s[10] ? (%s[%s[3:0]] && %s[12:11] == 2'd0)"
            % (port, rtag, fl, rtag, rtag),
            "    : (%s[%s[9:0]] && %s[%s[9:0] * 2 +: 2] == %s[12:11]));" % (rd, rtag, ln, rtag, rtag),
        ]
    return lines


SERIAL_SLICES = ("buddy_controller", "buddy_controller_zvc", "buddy_controller_mag_bdi32")
PIPELINED_SLICES = ("pipelined_controller", "pipelined_controller_zvc", "pipelined_controller_mag_bdi32")
SLICES = SERIAL_SLICES + PIPELINED_SLICES
for _m in SERIAL_SLICES:
    ENVIRONMENT[_m] = serial_slice_environment()
for _m in PIPELINED_SLICES:
    ENVIRONMENT[_m] = pipelined_slice_environment()


# Lemmas over a block's own ports, proved on their own first
# (`protocol/<module>/lemmas`, the module's stream properties not asserted)
# and then assumed by its protocol proof: an induction step starts from any
# state, and without them it may start in one reset never leaves. Sound
# because the lemma proof assumes nothing the protocol proof asserts.
LEMMAS = {
    # hdl/src/write_planner.rs: a job is taken only when the planner is idle
    # or its job is done, and a write is offered only while its job still
    # has sectors left; so a write offered means no job is taken, and the
    # write's data (from the job registers) cannot change under a stall.
    "write_planner": ["!(dev_wr_valid && in_ready)", "!(buddy_wr_valid && in_ready)"],
}


def protocol_wrapper(top, ports, latency, ratio, lemmas_only=False):
    """Stream-protocol properties of `top`; `ratio` = (beats in, beats out)
    per unit for a one-in-one-out stream module with a `latency`, else None.
    The module's `LEMMAS` are assumed; with `lemmas_only` they are asserted
    instead and the module's own stream properties are not."""
    clk, rst, low = clock_reset(ports)
    st = streams(ports)
    width = {n: b for _, b, n in ports}
    # Only inputs at the top: ABC reads every AIGER output as a property.
    lines = [PRELUDE, "module formal_top(input wire %s, %s);" % (clk, ", ".join(
        "input wire %s%s" % ("[%d:0] " % (b - 1) if b > 1 else "", n) for d, b, n in ports if n != clk and d == "input"))]
    lines += ["  wire %s%s;" % ("[%d:0] " % (b - 1) if b > 1 else "", n) for d, b, n in ports if d == "output"]
    active = "!%s" % rst if low else rst
    lines += [
        "  reg init = 1'b1;",
        "  always @(posedge %s) init <= 1'b0;" % clk,
        "  always @* if (init) assume(%s);" % active,
        "  %s dut(%s);" % (top, ", ".join(".%s(%s)" % (n, n) for _, _, n in ports)),
        "  reg past_reset = 1'b0;",
        "  always @(posedge %s) past_reset <= %s;" % (clk, active),
    ]
    for i, (p, (source, data)) in enumerate(sorted(st.items())):
        v, r = p + "valid", p + "ready"
        bits = sum(width[n] for n in data)
        cat = "{%s}" % ", ".join(data) if data else "1'b0"
        bits = bits or 1
        role = "assert" if source else "assume"
        if lemmas_only and source:
            continue
        # A slice's memory request: a read's data and strobe are no part of
        # its beat (AXI4's AR has none; the serial slice's read offers
        # whatever sector its payload holds, which a read answer changes),
        # so they are held only under a write (`held_w`).
        wdata = [n for n in data if n in (p + "data", p + "strobe")] if source and top in SLICES and p + "write" in data else []
        if wdata:
            data = [n for n in data if n not in wdata]
            bits, cat = sum(width[n] for n in data), "{%s}" % ", ".join(data)
            cat_w = "{%s}" % ", ".join(wdata)
        offers = "the module offers" if source else "the environment offers"
        lines += [
            "  // stream %s (%s)" % (p, offers + "; data and strobe held under a write only" if wdata else offers),
            "  reg stall_%d = 1'b0; reg [%d:0] held_%d;" % (i, bits - 1, i)
            + (" reg [%d:0] held_w%d;" % (sum(width[n] for n in wdata) - 1, i) if wdata else ""),
            "  always @(posedge %s) begin stall_%d <= %s && !%s && !(%s); held_%d <= %s;%s end"
            % (clk, i, v, r, active, i, cat, " held_w%d <= %s;" % (i, cat_w) if wdata else ""),
            "  always @* if (!init && !(%s) && stall_%d) %s(%s && %s == held_%d%s);"
            % (active, i, role, v, cat, i, " && (!%swrite || %s == held_w%d)" % (p, cat_w, i) if wdata else ""),
        ]
        # After a reset cycle neither side offers a beat: asserted of the
        # module, assumed of the environment (AXI4 and AXI4-Stream: a
        # source drives VALID high no earlier than the rising edge after
        # reset is deasserted), so a combinational pass-through passes.
        lines.append("  always @* if (!init && past_reset) %s(!%s);" % (role, v))
    lines += ENVIRONMENT.get(top, [])
    for expr in LEMMAS.get(top, []):
        lines.append("  always @* if (!init && !(%s)) %s(%s);  // lemma" % (active, "assert" if lemmas_only else "assume", expr))
    if lemmas_only:
        lines.append("endmodule")
        return "\n".join(lines) + "\n"
    pin = "in_" if "in_" in st else "s_axis_t"
    pout = "out_" if "out_" in st else "m_axis_t"
    if ratio and len(st) == 2 and pin in st and pout in st:
        win, wout = ratio
        # the skid buffer holds one beat more than the pipeline stages; cDMA's
        # engines hold up to two lines (eight sectors)
        drain = latency + 1 + (8 if win != wout else 0)
        lines += [
            "  // conservation: %d beat(s) in per %d beat(s) out; drained within %d ready cycles" % (win, wout, drain),
            "  wire fire_in = %svalid && %sready, fire_out = %svalid && %sready;" % (pin, pin, pout, pout),
            "  reg [7:0] flight = 0;  // beats in minus beats out, in units of 1/(in x out)",
            "  reg [7:0] quiet = 0;   // cycles with the sink ready and no beat offered",
            "  reg always_ready = 1'b1; reg always_offered = 1'b1;",
            "  reg [%d:0] fired = 0;  // fire_in over the last cycles, newest at bit 0" % max(latency, 1),
            "  always @(posedge %s) begin" % clk,
            "    fired <= %s ? 0 : {fired, fire_in};" % active,
            "    if (%s) begin flight <= 0; quiet <= 0; always_ready <= 1'b1; always_offered <= 1'b1; end" % active,
            "    else begin",
            "      flight <= flight + (fire_in ? %d : 0) - (fire_out ? %d : 0);" % (wout, win),
            "      quiet <= (%sready && !%svalid) ? (quiet == 8'hff ? quiet : quiet + 1) : 0;" % (pout, pin),
            "      always_ready <= always_ready && %sready;" % pout,
            "      always_offered <= always_offered && %svalid;" % pin,
            "    end",
            "  end",
            "  always @* if (!init && !(%s)) begin" % active,
            "    if (fire_out) assert(flight >= %d);  // nothing leaves that was not taken" % win,
            "    if (quiet >= %d) assert(flight < %d);  // nothing taken is lost" % (drain, win),
        ]
        if win == wout == 1:
            lines += [
                "    // the header's latency and initiation interval 1, without backpressure",
                "    if (always_ready && %sready) assert(%sready);" % (pout, pin),
                "    if (always_ready && %sready && fired[%d] && !past_reset) assert(%svalid);" % (pout, latency - 1, pout),
                "    if (always_ready && %svalid) assert(fired[%d]);" % (pout, latency - 1),
            ]
        lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def roundtrip_wrapper(comp, comp_ports, decomp, decomp_ports, margin_bits=6):
    """Compressor -> stored bytes -> decompressor, one entry tracked."""
    cw = {n: b for _, b, n in comp_ports}
    extra_c = [n for d, _, n in comp_ports if d == "output" and n not in
               ("in_ready", "out_valid", "out_payload", "out_class", "out_stream_bits")]
    sbits = cw["out_stream_bits"]
    masks = "\n".join("    4'd%d: stored = {1024{1'b1}} >> %d;" % (c, 1024 - 8 * b) if b else "    4'd0: stored = 1024'd0;"
                      for c, b in enumerate(CLASS_BYTES))
    words = "\n".join("    if (tracked_out && !out_done) assert(d_entry[%d +: 32] == tracked[%d +: 32]);" % (32 * i, 32 * i)
                       for i in range(32))
    zeros = "\n".join("      assert((c_payload[%d +: 32] & ~stored[%d +: 32]) == 0);" % (32 * i, 32 * i) for i in range(32))
    raws = "\n".join("    if (tracked_mid && !mid_done && c_class == 4'd7) assert(c_payload[%d +: 32] == tracked[%d +: 32]);"
                      % (32 * i, 32 * i) for i in range(32))
    bounds = "\n".join("        4'd%d: assert(c_bits > %d && c_bits <= %d);" % (c, 8 * CLASS_BYTES[c - 1], 8 * CLASS_BYTES[c])
                       for c in range(1, 7))
    return PRELUDE + f"""module formal_top(input wire clock, input wire reset, input wire in_valid, input wire [1023:0] in_entry,
                  input wire out_ready, input wire track);
  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  // reset on the first cycle only: a reset drops the beats in flight by design
  always @* assume(reset == init);
  wire c_in_ready, c_out_valid, d_in_ready, d_out_valid, d_error;
  wire [1023:0] c_payload, d_entry;
  wire [3:0] c_class;
  wire [{sbits - 1}:0] c_bits;
  // memory keeps the class's stored bytes and nothing above them
  reg [1023:0] stored;
  always @* case (c_class)
{masks}
    default: stored = {{1024{{1'b1}}}};
  endcase
  {comp} c(.clock(clock), .reset(reset), .in_valid(in_valid), .in_entry(in_entry), .in_ready(c_in_ready),
    .out_valid(c_out_valid), .out_payload(c_payload), .out_class(c_class), .out_stream_bits(c_bits), .out_ready(d_in_ready){"".join(", .%s()" % n for n in extra_c)});
  {decomp} d(.clock(clock), .reset(reset), .in_valid(c_out_valid), .in_class(c_class), .in_payload(c_payload & stored),
    .in_ready(d_in_ready), .out_valid(d_out_valid), .out_entry(d_entry), .out_error(d_error), .out_ready(out_ready));
  // the source keeps valid and its entry until taken
  reg in_stall = 1'b0; reg [1023:0] in_held;
  always @(posedge clock) begin in_stall <= in_valid && !c_in_ready && !reset; in_held <= in_entry; end
  always @* if (in_stall) assume(in_valid && in_entry == in_held);
  (* anyconst *) reg [1023:0] tracked;
  wire fire_in = in_valid && c_in_ready, fire_mid = c_out_valid && d_in_ready, fire_out = d_out_valid && out_ready;
  wire take = fire_in && track && !armed;
  always @* if (!init && take) assume(in_entry == tracked);
  reg armed = 1'b0;                          // the tracked entry was taken
  reg [{margin_bits - 1}:0] flight_c = 0, flight_d = 0;  // beats in the compressor, in the pair
  reg [{margin_bits - 1}:0] ahead_c = 0, ahead_d = 0;    // beats ahead of the tracked one
  always @(posedge clock) begin
    if (reset) begin armed <= 1'b0; flight_c <= 0; flight_d <= 0; end
    else begin
      flight_c <= flight_c + fire_in - fire_mid;
      flight_d <= flight_d + fire_in - fire_out;
      if (take) begin armed <= 1'b1; ahead_c <= flight_c - fire_mid; ahead_d <= flight_d - fire_out; end
      else begin
        if (armed && fire_mid && ahead_c != 0) ahead_c <= ahead_c - 1'b1;
        if (armed && fire_out && ahead_d != 0) ahead_d <= ahead_d - 1'b1;
      end
    end
  end
  wire tracked_mid = armed && fire_mid && ahead_c == 0, tracked_out = armed && fire_out && ahead_d == 0;
  reg mid_done = 1'b0, out_done = 1'b0;
  always @(posedge clock) begin if (tracked_mid) mid_done <= 1'b1; if (tracked_out) out_done <= 1'b1; end
  always @* if (!init) begin
    if (fire_mid) assert(flight_c != 0);   // nothing leaves that was not taken
    if (fire_out) assert(flight_d != 0);
`ifdef CHECK_CLASS
    if (c_out_valid) begin
      assert(c_class <= 4'd7);             // never a reserved code
      // zeros after the stored bytes, one property per 32-bit word
{zeros}
      case (c_class)
        4'd0: assert(c_bits == 0);
{bounds}
        4'd7: assert(c_bits > 768);
        default: ;
      endcase
    end
    // RAW is the entry itself (one property per word)
{raws}
    if (tracked_mid && !mid_done && c_class == 4'd0) assert(tracked == 0);
`endif
`ifdef CHECK_REACH
    if (tracked_out) assert(1'b0);   // must FAIL: the tracked entry does come back within the depth
`endif
`ifdef CHECK_ROUNDTRIP
    // one property per 32-bit word: ABC checks each on its own (see split)
    if (tracked_out && !out_done) assert(!d_error);
{words}
`endif
  end
endmodule
"""


def cdma_roundtrip_wrapper(comp, comp_ports, decomp, decomp_ports):
    """cDMA's engines: four sectors -> one line stream -> four sectors; one
    arbitrary sector tracked."""
    return PRELUDE + """module formal_top(input wire clock, input wire reset, input wire in_valid, input wire [255:0] in_sector,
                  input wire out_ready, input wire track);
  reg init = 1'b1;
  always @(posedge clock) init <= 1'b0;
  always @* assume(reset == init);
  wire c_in_ready, c_out_valid, d_in_ready, d_out_valid, d_last;
  wire [31:0] c_mask; wire [1023:0] c_words; wire [10:0] c_bits; wire [255:0] d_sector;
  %s c(.clock(clock), .reset(reset), .in_valid(in_valid), .in_sector(in_sector), .in_ready(c_in_ready),
    .out_valid(c_out_valid), .out_mask(c_mask), .out_words(c_words), .out_stream_bits(c_bits), .out_ready(d_in_ready));
  %s d(.clock(clock), .reset(reset), .in_valid(c_out_valid), .in_mask(c_mask), .in_words(c_words), .in_ready(d_in_ready),
    .out_valid(d_out_valid), .out_sector(d_sector), .out_last(d_last), .out_ready(out_ready));
  reg in_stall = 1'b0; reg [255:0] in_held;
  always @(posedge clock) begin in_stall <= in_valid && !c_in_ready && !reset; in_held <= in_sector; end
  always @* if (in_stall) assume(in_valid && in_sector == in_held);
  (* anyconst *) reg [255:0] tracked;
  wire fire_in = in_valid && c_in_ready, fire_out = d_out_valid && out_ready;
  reg armed = 1'b0, out_done = 1'b0;
  wire take = fire_in && track && !armed;
  always @* if (!init && take) assume(in_sector == tracked);
  reg [5:0] flight = 0, ahead = 0;   // sectors in the pair; ahead of the tracked one
  reg [1:0] sent = 0;                // sectors out of the current line
  always @(posedge clock) begin
    if (reset) begin armed <= 1'b0; flight <= 0; sent <= 0; end
    else begin
      flight <= flight + fire_in - fire_out;
      if (fire_out) sent <= sent + 1'b1;
      if (take) begin armed <= 1'b1; ahead <= flight - fire_out; end
      else if (armed && fire_out && ahead != 0) ahead <= ahead - 1'b1;
      if (armed && fire_out && ahead == 0) out_done <= 1'b1;
    end
  end
  integer i; reg [6:0] count; reg [1023:0] kept;
  always @* begin
    count = 0; kept = 0;
    for (i = 0; i < 32; i = i + 1) if (c_mask[i]) begin kept = kept | ({{1023{1'b0}}, 1'b1} << (32 * count)); count = count + 1; end
  end
  always @* if (!init) begin
    if (fire_out) assert(flight != 0);            // nothing leaves that was not taken
    if (fire_out) assert(d_last == (sent == 2'd3));
`ifdef CHECK_CLASS
    if (c_out_valid) assert(c_bits == 32 + 32 * count);
`endif
`ifdef CHECK_REACH
    if (armed && fire_out && ahead == 0 && !out_done) assert(1'b0);  // must FAIL: reachable
`endif
`ifdef CHECK_ROUNDTRIP
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[31:0] == tracked[31:0]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[63:32] == tracked[63:32]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[95:64] == tracked[95:64]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[127:96] == tracked[127:96]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[159:128] == tracked[159:128]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[191:160] == tracked[191:160]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[223:192] == tracked[223:192]);
    if (armed && fire_out && ahead == 0 && !out_done) assert(d_sector[255:224] == tracked[255:224]);
`endif
  end
endmodule
""" % (comp, decomp)


# ---------------------------------------------------------------- running


def need_tools():
    missing = [t for t in ("yosys", "yosys-abc") if shutil.which(t) is None]
    if missing:
        print("formal: FAILED: missing %s (Debian package yosys; run `make deps`)" % ", ".join(missing), file=sys.stderr)
        sys.exit(2)


def build_aig(work, name, sources, wrapper, defines, cut_memories=False):
    """Wrapper + delivered sources -> AIGER at work/name.aig; with
    `cut_memories`, every memory's read data is free (any value on any
    cycle): an over-approximation, so a property that holds holds for the
    real memories too."""
    d = work / name.replace("/", "_")
    d.mkdir(parents=True, exist_ok=True)
    (d / "formal_top.sv").write_text(wrapper)
    script = [
        "read_verilog %s" % " ".join(str(s) for s in sources),
        "proc",
        # No power-up values: the delivered flops start anywhere and only
        # the reset (cycle 0) may bring them to a known state.
        "setattr -unset init",
        "read_verilog -formal -sv %s %s" % (" ".join("-D" + x for x in defines), d / "formal_top.sv"),
        "prep -top formal_top",
        "flatten",
    ] + ([
        # The slices' RAMs as flip-flops made Yosys run 9 minutes and more
        # (and the model far larger); their contents do not decide a stream
        # rule of the slice's ports, so they are cut.
        "cutpoint t:$mem_v2 t:$mem",
    ] if cut_memories else []) + [
        # An x in the delivered logic (or an unconnected output) may be any
        # value on any cycle: the proofs hold for every choice.
        "setundef -undriven -anyseq",
        "opt -fast",
        "async2sync",
        "chformal -assume -early",
        "memory_map",
        "opt -fast",
        "techmap",
        "opt -fast",
        "dffunmap",
        "abc -g AND -fast",
        "opt_clean",
        "write_aiger -zinit -map %s %s" % (d / "model.map", d / "model.aig"),
    ]
    text = "\n".join(script) + "\n"
    # The model is made again only when the script, the wrapper or a source
    # changed (a slice's or the gather's takes Yosys many minutes).
    stamp = hashlib.sha256((text + wrapper + "".join(Path(x).read_text() for x in sources)).encode()).hexdigest()
    if (d / "model.aig").exists() and (d / "model.stamp").exists() and (d / "model.stamp").read_text() == stamp:
        return d / "model.aig"
    (d / "model.stamp").unlink(missing_ok=True)
    (d / "model.ys").write_text(text)
    r = subprocess.run(["yosys", "-q", "-l", str(d / "yosys.log"), str(d / "model.ys")], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("yosys failed on %s: %s" % (name, (r.stderr or r.stdout)[-2000:]))
    (d / "model.stamp").write_text(stamp)
    return d / "model.aig"


def outputs(aig):
    """The number of properties of `aig` (its outputs less the constraints)."""
    r = subprocess.run(["yosys-abc", "-c", "read_aiger %s; fold; strash; print_stats" % aig], capture_output=True, text=True)
    m = re.search(r"i/o\s*=\s*\d+/\s*(\d+)", r.stdout)
    if not m:
        raise RuntimeError("ABC could not read %s: %s" % (aig, r.stdout[-500:]))
    return int(m.group(1))


def abc_split(aig, depth, timeout, stop_on_fail, budget=None, engine="bmc3"):
    """`engine` on each property's sequential cone alone (much faster than
    all at once for the round trips), `JOBS` at a time; a property not
    started once `budget` seconds are spent is NOT RUN. A property pdr
    leaves undecided gets k-induction (pdr struggles to relate wide held
    data to the bus, where one induction step sees it). Returns (result,
    frames, per-output rows)."""
    start = time.time()
    failed = threading.Event()

    def one(k):
        if (budget is not None and time.time() - start > budget) or failed.is_set():
            return {"output": k, "result": "NOT RUN", "frames": 0, "seconds": 0}
        t0 = time.time()
        result, frames = abc(aig, engine, depth, timeout, cone=k)
        row = {"output": k}
        if result == "UNKNOWN" and engine == "pdr":
            result, frames = abc(aig, "ind", INDUCTION_DEPTH, max(timeout, INDUCTION_SECONDS), cone=k)
            row["engine"] = "k-induction"
        if result == "FAILED" and stop_on_fail:
            failed.set()
        return dict(row, result=result, frames=frames, seconds=round(time.time() - t0, 1))

    # each property is one yosys-abc process: threads only wait on them
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        rows = list(pool.map(one, range(outputs(aig))))
    results = {r["result"] for r in rows}
    if "FAILED" in results:
        return "FAILED", min(r["frames"] for r in rows if r["result"] == "FAILED"), rows
    if results == {"PROVED"}:
        return "PROVED", None, rows
    if results <= {"PASSED", "PROVED"}:
        return "PASSED", depth, rows
    # the frames every property was checked to (those NOT RUN: none)
    return "UNKNOWN", min(r["frames"] or 0 for r in rows if r["result"] == "UNKNOWN") if "UNKNOWN" in results else 0, rows


def abc(aig, engine, depth, timeout, cone=None):
    """Run ABC; returns (result, frames) with result PROVED (unbounded),
    PASSED (to `frames` frames), FAILED (counterexample at `frames`) or
    UNKNOWN (time-out after `frames` frames)."""
    pick = "cone -s -O %d; " % cone if cone is not None else ""
    if engine == "ind":
        return induction(aig, depth, timeout, pick, cone)
    if engine == "pdr":
        cmd = "read_aiger %s; fold; strash; %spdr -T %d" % (aig, pick, timeout)
    else:
        cmd = "read_aiger %s; fold; strash; %sbmc3 -F %d -T %d -v" % (aig, pick, depth, timeout)
    try:
        r = subprocess.run(["yosys-abc", "-c", cmd], capture_output=True, text=True, timeout=timeout + 30)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        # bmc3 checks -T only between SAT calls; one call can run on.
        out = (e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")) + "\nformal.py: killed after %d s\n" % (timeout + 30)
    (aig.parent / ("abc-%s%s.log" % (engine, "" if cone is None else "-%d" % cone))).write_text(out)
    m = re.search(r"was asserted in frame (\d+)", out)
    if m:
        return "FAILED", int(m.group(1))
    if "Property proved" in out:
        return "PROVED", None
    m = re.search(r"No output asserted in (\d+) frames", out)
    if m and int(m.group(1)) >= depth and engine == "bmc3":
        return "PASSED", int(m.group(1))
    frames = [int(x) for x in re.findall(r"^\s*(\d+) [+:]", out, re.M)]
    return "UNKNOWN", (max(frames) if frames else 0)


def induction(aig, depth, timeout, pick, cone):
    """k-induction for k up to `depth`: ABC's `ind` checks the inductive
    step (k frames satisfying the property imply the next one does), then
    `bmc3` the base case (no counterexample in the first k + 1 frames from
    reset). PROVED (unbounded) when both hold; FAILED only when the base
    case fails; else UNKNOWN."""
    cmd = "read_aiger %s; fold; strash; %sind -F %d -T %d -v" % (aig, pick, depth, timeout)
    try:
        out = subprocess.run(["yosys-abc", "-c", cmd], capture_output=True, text=True, timeout=timeout + 30).stdout
    except subprocess.TimeoutExpired:
        out = "formal.py: killed after %d s\n" % (timeout + 30)
    (aig.parent / ("abc-ind%s.log" % ("" if cone is None else "-%d" % cone))).write_text(out)
    m = re.search(r"Completed (\d+) iterations", out)
    if not (m and "Networks are equivalent" in out):
        return "UNKNOWN", 0
    k = int(m.group(1))
    result, frames = abc(aig, "bmc3", k + 1, timeout, cone)
    if result == "PASSED":
        return "PROVED", None
    return result, frames


class Proof:
    """One proof. `split`: each property on its own cone (`timeout` each,
    `budget` seconds in all); `pdr_each`: for the protocol of the blocks,
    pdr on each property for `pdr_each` seconds (`budget` in all), then bmc3
    on the whole model for the properties pdr did not prove (`timeout`, to
    `depth`); `cut`: the memories' read data is free (build_aig)."""

    def __init__(self, name, family, sources, wrapper, defines, engine, depth, timeout, expect, quick, note="", split=False,
                 budget=None, pdr_each=None, cut=False):
        self.name, self.family, self.sources, self.wrapper = name, family, sources, wrapper
        self.defines, self.engine, self.depth, self.timeout = defines, engine, depth, timeout
        self.expect, self.quick, self.note, self.split = expect, quick, note, split
        self.budget, self.pdr_each, self.cut = budget, pdr_each, cut


def mutate(work, src, old, new, tag):
    """A copy of delivered `src` with `old` replaced by `new`, exactly once."""
    text = src.read_text()
    n = text.count(old)
    if n != 1:
        raise RuntimeError("mutant %s: %r occurs %d times in %s (expected once): update formal/formal.py" % (tag, old, n, src.name))
    out = work / "mutants" / tag / src.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text.replace(old, new))
    return out


def codec_pairs():
    """(compressor, decompressor) names of every size-class codec pair in verilog-out/."""
    pairs = []
    for c in sorted(VOUT.glob("*_compressor.v")):
        base = c.name[: -len("_compressor.v")]
        d = VOUT / (base + "_decompressor.v")
        if d.exists():
            pairs.append((base + "_compressor", base + "_decompressor"))
    return pairs


def proofs(work):
    out = []
    # Round trips.
    for comp, decomp in codec_pairs():
        cp, dp = module_ports(VOUT / (comp + ".v"), comp), module_ports(VOUT / (decomp + ".v"), decomp)
        srcs = [VOUT / (comp + ".v"), VOUT / (decomp + ".v")]
        base = comp[: -len("_compressor")]
        if "in_sector" in {n for _, _, n in cp}:
            lat = header_latency(srcs[0]) + header_latency(srcs[1]) + 4
            w = cdma_roundtrip_wrapper(comp, cp, decomp, dp)
        else:
            lat = header_latency(srcs[0]) + header_latency(srcs[1])
            w = roundtrip_wrapper(comp, cp, decomp, dp)
        depth = lat + 4
        budget = BPC_BUDGET if base == "bpc" else ROUNDTRIP_BUDGET
        out.append(Proof("roundtrip/%s/class" % base, "class", srcs, w, ["CHECK_CLASS"], "bmc3",
                         header_latency(srcs[0]) + 4, ROUNDTRIP_SECONDS, "pass", False, split=True, budget=budget))
        out.append(Proof("roundtrip/%s/entry" % base, "roundtrip", srcs, w, ["CHECK_ROUNDTRIP"], "bmc3",
                         depth, ROUNDTRIP_SECONDS, "pass", False, split=True, budget=budget))
        # Not vacuous: the tracked entry's check point is reached in the depth.
        out.append(Proof("roundtrip/%s/reach" % base, "reach", srcs, w, ["CHECK_REACH"], "bmc3", depth,
                         60 if base == "bpc" else 300, "fail", False,
                         "the tracked entry leaves the decompressor within the depth"))
    # Stream protocol of every delivered module.
    for f in sorted(VOUT.glob("*.v")):
        top = f.stem
        ports = module_ports(f, top)
        if not any(source for source, _ in streams(ports).values()):
            # no stream the module offers (request_contexts: only alloc_ in),
            # so no property to state: the environment's rule is assumed only
            continue
        srcs = [f]
        if top.endswith("_axis"):
            srcs.append(VOUT / (top[: -len("_axis")] + ".v"))
        core = VOUT / (top[: -len("_axis")] + ".v") if top.endswith("_axis") else f
        lat = header_latency(core)
        ratio = None
        if lat is not None:
            ratio = (4, 1) if top == "cdma_zvc_compressor" else (1, 4) if top == "cdma_zvc_decompressor" else (1, 1)
        w = protocol_wrapper(top, ports, lat, ratio)
        if lat is not None:
            # the codecs and their wrappers: one pdr run on all properties
            out.append(Proof("protocol/%s" % top, "protocol", srcs, w, [], "pdr", 2 * lat + 8, 60 if top.startswith("bpc") else 120,
                             "pass", top in QUICK))
        else:
            # the blocks and the controller slices: pdr proves most streams'
            # properties in seconds and runs long on the wide held data of a
            # few; those get a bounded check to the depth below
            slice_ = top in SLICES
            # A cut RAM's read data is free on every cycle, also under a
            # stall, so a hold of a beat read from a RAM (a write-back's
            # data) fails on the cut alone: only the pipelined slices'
            # 634,816 memory bits are cut; the serial slices' 34,912 are kept
            cut = top in PIPELINED_SLICES
            depth = SLICE_DEPTH if slice_ else BLOCK_DEPTH
            bmc_seconds = SLICE_BMC_SECONDS if slice_ else BLOCK_BMC_SECONDS
            pdr_budget = SLICE_PDR_BUDGET if slice_ else BLOCK_PDR_BUDGET
            if top in LEMMAS:
                out.append(Proof("protocol/%s/lemmas" % top, "protocol", srcs, protocol_wrapper(top, ports, lat, ratio, lemmas_only=True),
                                 [], "pdr", depth, bmc_seconds, "pass", False, "; ".join(LEMMAS[top]),
                                 pdr_each=PDR_EACH_SECONDS, budget=pdr_budget, cut=cut))
            out.append(Proof("protocol/%s" % top, "protocol", srcs, w, [], "pdr", depth, bmc_seconds, "pass", False,
                             "assumes protocol/%s/lemmas" % top if top in LEMMAS else "",
                             pdr_each=PDR_EACH_SECONDS, budget=pdr_budget, cut=cut))
    # Mutants: one flipped gate each, in the stall logic (protocol) and in
    # the decompressor's data path (round trip).
    src = VOUT / "mag_bdi64_decompressor.v"
    m = mutate(work, src, "load_main = out_ready | (~skid_valid__q & ~main_valid__q);",
               "load_main = out_ready | (~skid_valid__q | ~main_valid__q);", "protocol")
    ports = module_ports(src, "mag_bdi64_decompressor")
    out.append(Proof("mutant/protocol/mag_bdi64_decompressor", "mutant", [m],
                     protocol_wrapper("mag_bdi64_decompressor", ports, header_latency(src), (1, 1)),
                     [], "pdr", 10, 120, "fail", True, "skid buffer's load_main: AND flipped to OR"))
    # The round trip and the class checks on ZVC with one flipped gate in
    # the decompressor's routing, one swapped constant bit in the
    # compressor's class choice.
    comp, decomp = VOUT / "mag_bdi64_compressor.v", VOUT / "mag_bdi64_decompressor.v"
    cp, dp = module_ports(comp, "mag_bdi64_compressor"), module_ports(decomp, "mag_bdi64_decompressor")
    w = roundtrip_wrapper("mag_bdi64_compressor", cp, "mag_bdi64_decompressor", dp)
    m = mutate(work, decomp, "words[10'h40+:32] = deltas[10'h40+:32] + base;", "words[10'h40+:32] = deltas[10'h40+:32] ^ base;",
               "roundtrip")
    out.append(Proof("mutant/roundtrip/mag_bdi64", "mutant", [comp, m], w, ["CHECK_ROUNDTRIP"], "bmc3",
                     header_latency(comp) + header_latency(decomp) + 5, 120, "fail", False,
                     "decompressor, word 2: base + delta became base XOR delta", split=True))
    # A block's protocol: the memory port without its grant hold (a
    # metadata request arriving while a read waits takes mem_* over).
    src = VOUT / "memory_port.v"
    m = mutate(work, src, "grant_md = md_req_valid & ~held_wr__q & ~held_rd__q;", "grant_md = md_req_valid;", "protocol_block")
    out.append(Proof("mutant/protocol/memory_port", "mutant", [m], protocol_wrapper("memory_port", module_ports(src, "memory_port"), None, None),
                     [], "pdr", BLOCK_DEPTH, BLOCK_BMC_SECONDS, "fail", False, "grant hold of a waiting write or read removed",
                     pdr_each=PDR_EACH_SECONDS, budget=BLOCK_PDR_BUDGET))
    # A slice's protocol: the pipelined ZVC slice's response port without
    # its grant hold for a fault (a fault arriving while a beat waits takes
    # resp_* over: the design error of 2026-12-01). Little pdr: bmc3 finds it.
    src = VOUT / "pipelined_controller_zvc.v"
    m = mutate(work, src, "grant_err = err_valid__q & ~held_wr__q & ~held_dec__q & ~held_r0__q;", "grant_err = err_valid__q;",
               "protocol_slice")
    out.append(Proof("mutant/protocol/pipelined_controller_zvc", "mutant", [m],
                     protocol_wrapper("pipelined_controller_zvc", module_ports(src, "pipelined_controller_zvc"), None, None),
                     [], "pdr", SLICE_DEPTH, SLICE_BMC_SECONDS, "fail", False, "response port: a fault's grant no longer waits for a held beat",
                     pdr_each=PDR_EACH_SECONDS, budget=60, cut=True))
    comp, decomp = VOUT / "zvc_compressor.v", VOUT / "zvc_decompressor.v"
    cp, dp = module_ports(comp, "zvc_compressor"), module_ports(decomp, "zvc_decompressor")
    w = roundtrip_wrapper("zvc_compressor", cp, "zvc_decompressor", dp)
    m = mutate(work, comp, "if (zero_count >= 6'h19) begin", "if (zero_count >= 6'h18) begin", "class")
    out.append(Proof("mutant/class/zvc", "mutant", [m, decomp], w, ["CHECK_CLASS"], "bmc3", header_latency(comp) + 4, 300,
                     "fail", False, "compressor's B32 threshold: bit 0 of 0x19 flipped", split=True))
    def cost(p):
        # cheapest and most asked first; BPC and the slices (minutes of Yosys each) last
        if "bpc" in p.name:
            return 3
        if "controller" in p.name:
            return 2
        return 1 if p.name.startswith("protocol/") and header_latency(p.sources[-1]) is None else 0
    return sorted(out, key=cost)


def run(p, work):
    t0 = time.time()
    try:
        aig = build_aig(work, p.name, p.sources, p.wrapper, p.defines, p.cut)
        t1 = time.time()
        rows = None
        if p.split:
            result, frames, rows = abc_split(aig, p.depth, p.timeout, p.expect == "fail", p.budget)
        elif p.pdr_each:
            result, frames, rows = abc_split(aig, p.depth, p.pdr_each, p.expect == "fail", p.budget, engine="pdr")
        else:
            result, frames = abc(aig, p.engine, p.depth, p.timeout)
        each = "pdr per property"
        if rows and any(r.get("engine") == "k-induction" for r in rows):
            each = "pdr or k-induction per property"
        if result == "UNKNOWN" and p.engine == "pdr":
            # No unbounded proof in time: a bounded check instead.
            result, frames = abc(aig, "bmc3", p.depth, p.timeout)
            engine = each + ", then bmc3" if p.pdr_each else "pdr, then bmc3"
        else:
            engine = each if p.pdr_each else p.engine
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        return {"proof": p.name, "family": p.family, "engine": p.engine, "result": "ERROR", "error": str(e)[:500],
                "seconds": round(time.time() - t0, 1), "expect": p.expect, "ok": False}
    t2 = time.time()
    ok = (result in ("PROVED", "PASSED")) if p.expect == "pass" else (result == "FAILED")
    return {"proof": p.name, "family": p.family, "engine": engine, "depth": p.depth if engine != "pdr" or result != "PROVED" else None,
            "frames": frames, "result": result, "expect": p.expect, "ok": ok, "model_seconds": round(t1 - t0, 1),
            "solver_seconds": round(t2 - t1, 1), "seconds": round(t2 - t0, 1), "note": p.note,
            "properties": rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the quick proofs (make test)")
    ap.add_argument("--only", action="append", default=None, help="only proofs whose name contains this (repeatable)")
    ap.add_argument("--work", default=str(ROOT / "target" / "formal"), help="work directory")
    ap.add_argument("--skip", action="append", default=[], help="not the proofs whose name contains this (repeatable)")
    ap.add_argument("--report", default=None, help="write report.md and report.json here")
    ap.add_argument("--list", action="store_true", help="list the proofs and stop")
    ap.add_argument("--seconds", type=int, default=None, help="the solver's time limit per property (default: each proof's own)")
    ap.add_argument("--budget", type=int, default=None,
                    help="seconds per split proof before its remaining properties are NOT RUN (default: each proof's own)")
    ap.add_argument("--jobs", type=int, default=1, help="properties of a split proof checked at once (one yosys-abc each)")
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    every = proofs(work)
    ps = [p for p in every if (not a.quick or p.quick) and (a.only is None or any(x in p.name for x in a.only))
          and not any(x in p.name for x in a.skip)]
    global JOBS
    JOBS = max(1, a.jobs)
    for p in ps:
        p.timeout = a.seconds or p.timeout
        p.budget = a.budget or p.budget
    if a.list:
        for p in ps:
            print(p.name, p.engine, p.depth, "quick" if p.quick else "")
        return 0
    need_tools()
    rows = []
    for p in ps:
        r = run(p, work)
        rows.append(r)
        print("%-50s %-8s %-14s frames=%-4s %6.1f s  %s" % (r["proof"], r["result"], r["engine"], r.get("frames"), r["seconds"],
                                                           "ok" if r["ok"] else "NOT OK (expected %s)" % r["expect"]), flush=True)
        if a.report:
            # after every proof, so a long run that is stopped keeps what it found
            write_report(Path(a.report), [r], [p.name for p in every])
    bad = [r for r in rows if not r["ok"]]
    print("formal: %d proofs, %d as expected, %d not" % (len(rows), len(rows) - len(bad), len(bad)))
    return 1 if bad else 0


def write_report(d, rows, order):
    d.mkdir(parents=True, exist_ok=True)
    # A partial run (--only) replaces its own rows and keeps the others.
    old = json.loads((d / "report.json").read_text()) if (d / "report.json").exists() else []
    names = {r["proof"] for r in rows}
    rows = [r for r in old if r["proof"] not in names and r["result"] != "NOT RUN" and r["proof"] in order] + rows
    done = {r["proof"] for r in rows}
    rows += [{"proof": n, "result": "NOT RUN", "engine": "", "expect": "", "seconds": None} for n in order if n not in done]
    rows = sorted(rows,
                  key=lambda r: order.index(r["proof"]) if r["proof"] in order else len(order))
    (d / "report.json").write_text(json.dumps(rows, indent=1) + "\n")
    md = ["# Formal proofs of verilog-out/", "", "Written by `make formal` (formal/formal.py); see docs/formal.md.", "",
          "| proof | engine | depth | result | expected | seconds |", "|---|---|---|---|---|---|"]
    for r in rows:
        depth = "unbounded" if r["result"] == "PROVED" else str(r.get("frames") if r.get("frames") is not None else "")
        md.append("| %s | %s | %s | %s | %s | %s |" % (r["proof"], r["engine"], depth, r["result"], r["expect"], r["seconds"]))
    (d / "report.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    sys.exit(main())
