//! The interface block at the top of every delivered Verilog file: the top
//! module's ports (read from the emitted Verilog itself), its handshake,
//! latency and initiation interval, reset and error codes (from the
//! hardware's own constants), and where the bit formats are described.
//! Only comments: the synthesis report's hash ignores them
//! ([`crate::delivery::verilog_hash`]).

use buddy_golden::HardwareCodec;
use buddy_hdl::Stages;
use buddy_hdl::{address_translator::fault, buddy_controller::error, metadata_cache::outcome};

use crate::modules::HwModule;

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

const STREAM: &str = "Handshake: valid/ready streams (in_*, out_*); a transfer happens on a rising clock edge \
with valid && ready; a source keeps valid and its data until taken.";

fn codec_notes(m: HwModule) -> Vec<String> {
    // The latency is the module's own constant, as the synthesis report shows it.
    let latency = m.stream_timing().map_or_else(|| "?".to_string(), |(latency, _)| latency);
    let compressor = matches!(m, HwModule::BpcCompressor | HwModule::ZvcCompressor | HwModule::MagBdiCompressor(_));
    let mut notes = vec![
        STREAM.to_string(),
        format!(
            "Latency {latency} cycles (an input taken on edge t is on out_* after edge t+{latency}); initiation interval 1 \
             (one 128-byte memory-entry per cycle without backpressure)."
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

/// What the header says besides the ports.
fn notes(m: HwModule) -> Vec<String> {
    let mut notes = match m {
        HwModule::BpcCompressor
        | HwModule::BpcDecompressor
        | HwModule::ZvcCompressor
        | HwModule::ZvcDecompressor
        | HwModule::MagBdiCompressor(_)
        | HwModule::MagBdiDecompressor(_) => codec_notes(m),
        HwModule::CdmaZvcCompressor => vec![
            STREAM.to_string(),
            format!(
                "cDMA's ZVC compression engine: one 32-byte sector (in_sector, word 0 at [31:0]) per transfer, four per \
                 128-byte line in order; a line's stream (out_mask: bit i set when word i is not zero; out_words: the \
                 non-zero words from word 0, zero after; out_stream_bits = 32 + 32 x non-zero words) is on out_* {} cycles \
                 after its first sector is taken; a line every {} cycles (docs/formats.md#zvc, docs/cdma.md). Built with \
                 its input registered (at most 8 LUT levels between flip-flops); the paper's three-stage build takes {}.",
                buddy_hdl::cdma_zvc_compressor::latency(Stages::DELIVERED),
                buddy_hdl::cdma_zvc_compressor::CYCLES_PER_LINE,
                buddy_hdl::cdma_zvc_compressor::latency(Stages::Paper),
            ),
        ],
        HwModule::CdmaZvcDecompressor => vec![
            STREAM.to_string(),
            format!(
                "cDMA's ZVC decompression engine: one line's stream (in_mask, in_words) per transfer; its four 32-byte \
                 sectors leave on out_sector one per cycle, the first {} cycles after the line is taken, out_last with the \
                 fourth; a line every {} cycles. Every input is valid: words past the mask's count are ignored. Built with \
                 its input registered (at most 8 LUT levels between flip-flops); the paper's build takes {} cycles to the \
                 first sector.",
                buddy_hdl::cdma_zvc_decompressor::latency(Stages::DELIVERED),
                buddy_hdl::cdma_zvc_decompressor::CYCLES_PER_LINE,
                buddy_hdl::cdma_zvc_decompressor::latency(Stages::Paper),
            ),
        ],
        HwModule::AddressTranslator => vec![
            STREAM.to_string(),
            "Initiation interval 1. The GBBR, carve-out, metadata base and heap base inputs are registers the host sets \
             before use (docs/formats.md#translation)."
                .into(),
            format!(
                "out_fault: 0 none, {} reserved target in the PTE, {} address below the heap base, {} buddy slot outside \
                 the carve-out, {} reserved size class.",
                fault::RESERVED_TARGET,
                fault::BELOW_HEAP_BASE,
                fault::OUTSIDE_CARVE_OUT,
                fault::RESERVED_CLASS
            ),
        ],
        HwModule::MetadataCache | HwModule::PipelinedMetadataCache => vec![
            "Handshake: valid/ready on the request, response, memory-request and fill ports.".to_string(),
            format!(
                "A hit answers {} cycles after the request; a sector miss asks memory for the 32-byte sector {} cycles \
                 after; {} cycles after reset it invalidates its {} sets before taking requests.",
                buddy_hdl::metadata_cache::HIT_CYCLES,
                buddy_hdl::metadata_cache::SECTOR_FILL_CYCLES,
                buddy_hdl::timing::INIT_CYCLES,
                buddy_hdl::metadata_cache::SETS
            ),
            format!(
                "resp_outcome: {} hit, {} sector miss, {} line miss. Metadata nibbles: docs/formats.md#metadata.",
                outcome::HIT,
                outcome::SECTOR_MISS,
                outcome::LINE_MISS
            ),
        ],
        HwModule::RequestContexts | HwModule::SectorGather | HwModule::ReadPlanner | HwModule::WritePlanner | HwModule::MemoryPort => {
            vec!["A block of the pipelined controller slice (pipelined_controller.v); its ports, handshakes and cycle-level \
             behaviour are described in docs/controller.md of the buddy-hw repository."
                .into()]
        }
        HwModule::BuddyController(hardware) | HwModule::PipelinedController(hardware) => {
            let latency = buddy_hdl::timing::codec_latency(hardware);
            let codec = match hardware {
                HardwareCodec::Bpc => "BPC",
                HardwareCodec::Zvc => "ZVC",
                HardwareCodec::MagBdi(_) => "MAG-BDI",
            };
            let serial = matches!(m, HwModule::BuddyController(_));
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
    };
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
pub fn header(m: HwModule, verilog: &str) -> String {
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
pub fn with_header(m: HwModule, verilog: &str) -> String {
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
