//! The interface block at the top of every delivered Verilog file: the top
//! module's ports (read from the emitted Verilog itself), its handshake,
//! latency and initiation interval, reset and error codes (from the
//! hardware's own constants), and where the bit formats are described.
//! Only comments: the synthesis report's hash ignores them
//! ([`crate::delivery::verilog_hash`]).

use buddy_golden::HardwareCodec;
use buddy_hdl::{address_translator::fault, buddy_controller::error};

use crate::modules::{DeliveredModule, ModuleKind};

/// (direction, bits, name) of every port of `top` in `verilog`, in
/// declaration order.
pub fn ports(verilog: &str, top: &str) -> Vec<(&'static str, usize, String)> {
    let Some(start) = verilog.find(&format!("\nmodule {top}(")) else {
        return Vec::new();
    };
    let body = &verilog[start..];
    let end = body.find("\nendmodule").unwrap_or(body.len());
    let mut out = Vec::new();
    for line in body[..end].lines().map(str::trim) {
        let dir = if line.starts_with("input ") {
            "input"
        } else if line.starts_with("output ") {
            "output"
        } else {
            continue;
        };
        let decl = line.trim_end_matches(';');
        let name = decl.split_whitespace().last().unwrap_or("").to_string();
        let bits = decl
            .find('[')
            .and_then(|a| decl[a + 1..].split_once(':').and_then(|(msb, _)| msb.trim().parse::<usize>().ok()))
            .map_or(1, |msb| msb + 1);
        out.push((dir, bits, name));
    }
    out
}

/// The handshake note of every valid/ready stream module.
pub(crate) const STREAM: &str = "Handshake: valid/ready streams (in_*, out_*); a transfer happens on a rising clock edge \
with valid && ready; a source keeps valid and its data until taken.";

/// The notes of a stream compressor or decompressor (`m.kind()`) of a
/// size-class codec.
pub(crate) fn codec_notes(m: &dyn DeliveredModule) -> Vec<String> {
    // The latency is the module's own constant, as the synthesis report shows it.
    let latency = m.stream_timing().map_or_else(|| "?".to_string(), |(latency, _)| latency);
    // The last stage is a register slice: its output shows a cycle before the transfer.
    let shown = latency.parse::<u64>().map_or_else(|_| format!("{latency}-1"), |l| l.saturating_sub(1).to_string());
    let compressor = m.kind() == ModuleKind::Compressor;
    let mut notes = vec![
        STREAM.to_string(),
        format!(
            "Latency {latency} cycles (an input taken on edge t is offered on out_* after edge t+{shown} and can be taken on \
             edge t+{latency}); initiation interval 1 (one 128-byte memory-entry per cycle without backpressure)."
        ),
    ];
    if compressor {
        notes.push(
            "out_payload: the stored bytes packed LSB first (docs/formats.md#stream-packing); out_class: the 4-bit size class \
             (docs/formats.md#size-classes); out_stream_bits: the stream's length in bits."
                .into(),
        );
    } else {
        notes.push(
            "in_class/in_payload: a size class and stored bytes as the compressor emits them; out_error = 1: the payload is \
             not a stream the class allows, or the class is reserved (out_entry is then 0)."
                .into(),
        );
    }
    notes
}

/// The notes of a block of the pipelined controller slice.
pub(crate) fn pipelined_block_notes() -> Vec<String> {
    vec!["A block of the pipelined controller slice (pipelined_controller.v); its ports, handshakes and cycle-level \
     behaviour are described in docs/controller.md of the buddy-hw repository."
        .into()]
}

/// The notes of a controller slice built with `hardware`, the serial one
/// (`serial`) or the pipelined one.
pub(crate) fn slice_notes(hardware: HardwareCodec, serial: bool) -> Vec<String> {
    let latency = buddy_hdl::timing::codec_latency(hardware);
    let codec = match hardware {
        HardwareCodec::Bpc => "BPC",
        HardwareCodec::Zvc => "ZVC",
        HardwareCodec::MagBdi(_) => "MAG-BDI",
    };
    let kind = if serial {
        "serves one request at a time"
    } else {
        "holds many requests in flight: req_id names a taken request, resp_id its response, which may come \
         back out of order (responses to one memory-entry keep their order)"
    };
    let errors = if serial {
        format!(
            "resp_error: {} served, {}-{} the translator's faults (as address_translator.v), {} the stored entry \
             does not decode (nothing written).",
            error::NONE,
            fault::RESERVED_TARGET,
            fault::OUTSIDE_CARVE_OUT,
            error::DECODE
        )
    } else {
        "resp_fault: 0, or the translator's fault code (as address_translator.v); resp_decode_error = 1: the \
         stored entry does not decode (nothing written)."
            .to_string()
    };
    vec![
        format!(
            "A Buddy Compression memory-controller slice with the {codec} codec (compress {} / decompress {} \
             cycles); it {kind}. Handshake: valid/ready on the request, response and 32-byte sector ports of \
             device memory and buddy-memory. Behaviour and timing: docs/controller.md.",
            latency.compress, latency.decompress
        ),
        errors,
    ]
}

/// What the header says besides the ports: the module's own notes, then
/// reset and where the formats and testbench are.
fn notes(m: &dyn DeliveredModule) -> Vec<String> {
    let mut notes = m.notes();
    notes.push("Reset: synchronous, active high, sampled on the rising clock edge.".into());
    notes.push("Bit formats: docs/formats.md; testbench: tb/<module>_tb.v with vectors/ (README, \"Using verilog-out/\").".into());
    notes
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().expect("one line at least");
        if !last.is_empty() && last.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

/// The interface block of `m`'s Verilog (comment lines, each ending in a
/// newline).
pub fn header(m: &dyn DeliveredModule, verilog: &str) -> String {
    let top = m.name();
    let ports = ports(verilog, top);
    let width = ports.iter().map(|p| p.2.len()).max().unwrap_or(4).max(4);
    let mut out = format!("//\n// Interface of {top}:\n//   {:<width$}  {:<6}  {:>4}\n", "port", "dir", "bits");
    for (dir, bits, name) in &ports {
        out += &format!("//   {name:<width$}  {dir:<6}  {bits:>4}\n");
    }
    for note in notes(m) {
        for (i, line) in wrap(&note, 96).into_iter().enumerate() {
            out += &format!("// {}{line}\n", if i == 0 { "" } else { "  " });
        }
    }
    out + "//\n"
}

/// `verilog` with `m`'s interface block after its first two lines (the
/// generator's line and "Do not edit").
pub fn with_header(m: &dyn DeliveredModule, verilog: &str) -> String {
    let mut split = verilog.splitn(3, '\n');
    let (first, second, rest) = (split.next().unwrap_or(""), split.next().unwrap_or(""), split.next().unwrap_or(""));
    format!("{first}\n{second}\n{}{rest}", header(m, verilog))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_read_from_the_emitted_module() {
        let v = "// x\n\nmodule top(a,b,c);\n    input wire  a;\n    input wire  [1023:0] b;\n    output reg  [3:0] c;\n    reg  d;\nendmodule // top\n\nmodule top$s(q);\n    output reg q;\nendmodule\n";
        assert_eq!(ports(v, "top"), [("input", 1, "a".into()), ("input", 1024, "b".into()), ("output", 4, "c".into())]);
    }
}
