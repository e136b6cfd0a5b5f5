//! Logic depth of a synthesized module, counted by the project's own walk
//! over Yosys's `write_json` netlist of `synth_xilinx` (7-series cells):
//! the most LUT levels on any path between two timing points, with the
//! CARRY4 and MUXF7/F8 cells of that path counted apart, for each kind of
//! path (register to register, input to register, register to output,
//! input to output).
//!
//! Timing points: a path starts at a flip-flop's `Q`, a block RAM's or
//! shift register's output, or a top-level input, and ends at any data
//! pin of a flip-flop, RAM or shift register (clock pins excepted) or at a
//! top-level output. LUTs and `INV` count one level each; a LUT-RAM
//! (`RAM32M`, `RAM64M`, `RAM*X1*`) counts one level from each read port's
//! address pins to that port's outputs (`ADDRA` to `DOA`, ..., `DPRA` to
//! `DPO`; port D's address, the write address too, reaches only `DOD`),
//! its writes being clocked. `IBUF`/`OBUF` count
//! nothing; `BUFG` only drives clocks and is not walked.
//!
//! The estimated clock rate ([`Depth::estimated_fmax_mhz`]) assumes an
//! UltraScale+ -2 part with typical routing; see the constants below.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Nanoseconds per LUT level: the LUT (about 0.1 ns) and a typical net
/// to the next LUT (about 0.35 ns) on an UltraScale+ -2.
pub const NS_PER_LUT_LEVEL: f64 = 0.45;
/// Nanoseconds per CARRY4 cell on a path (a 7-series CARRY4 is half an
/// UltraScale+ CARRY8, whose chain hop is about 0.15 ns).
pub const NS_PER_CARRY4: f64 = 0.08;
/// Nanoseconds per MUXF7/MUXF8 cell.
pub const NS_PER_MUXF: f64 = 0.1;
/// Nanoseconds a register-to-register path costs beyond its logic: clock
/// to out, setup and clock uncertainty.
pub const NS_REGISTER_OVERHEAD: f64 = 0.4;

/// The cells on one path, a maximum over paths in LUT levels first, then
/// CARRY4 cells, then MUXF cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct Depth {
    /// LUT levels (LUT1..LUT6, INV, LUT-RAM reads).
    pub luts: u32,
    /// CARRY4 cells.
    pub carry4: u32,
    /// MUXF7/MUXF8 cells.
    pub muxf: u32,
}

impl Depth {
    /// This path's delay estimate in nanoseconds, register overhead included.
    pub fn estimated_ns(self) -> f64 {
        NS_REGISTER_OVERHEAD
            + NS_PER_LUT_LEVEL * f64::from(self.luts)
            + NS_PER_CARRY4 * f64::from(self.carry4)
            + NS_PER_MUXF * f64::from(self.muxf)
    }

    /// The clock rate, in MHz, at which this path would just meet timing.
    pub fn estimated_fmax_mhz(self) -> f64 {
        1000.0 / self.estimated_ns()
    }

    fn plus(self, step: Depth) -> Depth {
        Depth { luts: self.luts + step.luts, carry4: self.carry4 + step.carry4, muxf: self.muxf + step.muxf }
    }
}

/// `LUTs[+Nc][+Nm]`: the LUT levels, then the CARRY4 and MUXF cells if any.
impl std::fmt::Display for Depth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.luts)?;
        if self.carry4 > 0 {
            write!(f, "+{}c", self.carry4)?;
        }
        if self.muxf > 0 {
            write!(f, "+{}m", self.muxf)?;
        }
        Ok(())
    }
}

/// The deepest path of each kind; `None` where a module has no such path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LutLevels {
    pub reg_to_reg: Option<Depth>,
    pub in_to_reg: Option<Depth>,
    pub reg_to_out: Option<Depth>,
    pub in_to_out: Option<Depth>,
}

impl LutLevels {
    /// The deepest path that ends at a register (register or input to
    /// register): what the module's own clock must cover when its inputs
    /// come straight from registers.
    pub fn to_register(&self) -> Option<Depth> {
        self.reg_to_reg.max(self.in_to_reg)
    }

    /// The path that sets the clock: [`LutLevels::to_register`], or for a
    /// block without registers (a pipeline stage synthesized on its own)
    /// its deepest input-to-output path.
    pub fn clocked(&self) -> Option<Depth> {
        self.to_register().or(self.in_to_out)
    }
}

/// A netlist the walk cannot take.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetlistError {
    #[error("the netlist is not Yosys JSON: {0}")]
    Json(String),
    #[error("module {0} is not in the netlist")]
    NoModule(String),
    #[error("cell {cell} of type {kind} is not a 7-series cell the walk knows (LUT1..6, INV, CARRY4, MUXF7/8, FD*, SRL*, RAM*, IBUF/OBUF, BUFG)")]
    UnknownCell { cell: String, kind: String },
    #[error("cell {cell} ({kind}) has no direction for its pin {pin}")]
    NoDirection { cell: String, kind: String, pin: String },
    #[error("the netlist has a combinational loop through {0} cells")]
    CombinationalLoop(usize),
}

#[derive(Deserialize)]
struct Netlist {
    modules: HashMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    ports: HashMap<String, Port>,
    #[serde(default)]
    cells: HashMap<String, Cell>,
    #[serde(default)]
    netnames: HashMap<String, NetName>,
}

#[derive(Deserialize)]
struct NetName {
    #[serde(default)]
    hide_name: u8,
    bits: Vec<Bit>,
}

#[derive(Deserialize)]
struct Port {
    direction: String,
    bits: Vec<Bit>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    port_directions: HashMap<String, String>,
    #[serde(default)]
    connections: HashMap<String, Vec<Bit>>,
}

/// A net number, or a constant ("0", "1", "x", "z").
#[derive(Deserialize)]
#[serde(untagged)]
enum Bit {
    Net(u64),
    #[allow(dead_code)]
    Constant(String),
}

impl Bit {
    fn net(&self) -> Option<u64> {
        match self {
            Bit::Net(n) => Some(*n),
            Bit::Constant(_) => None,
        }
    }
}

/// How a cell takes part in the walk.
enum Role {
    /// Every input to every output, adding this depth.
    Combinational(Depth),
    /// Read-address pins to the outputs (one LUT level); every non-clock
    /// input is also a timing end point (the clocked write).
    LutRam,
    /// Outputs start paths, non-clock inputs end them.
    Register,
    /// Not walked (clock buffers, constant drivers).
    Ignored,
}

fn role(kind: &str) -> Option<Role> {
    let lut = Depth { luts: 1, carry4: 0, muxf: 0 };
    Some(match kind {
        "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" | "INV" => Role::Combinational(lut),
        "CARRY4" => Role::Combinational(Depth { luts: 0, carry4: 1, muxf: 0 }),
        "MUXF7" | "MUXF8" => Role::Combinational(Depth { luts: 0, carry4: 0, muxf: 1 }),
        "IBUF" | "OBUF" => Role::Combinational(Depth::default()),
        "BUFG" | "VCC" | "GND" => Role::Ignored,
        k if k.starts_with("RAMB") || k.starts_with("FD") || k.starts_with("SRL") || k.starts_with("DSP48") => Role::Register,
        k if k.starts_with("RAM") => Role::LutRam,
        _ => return None,
    })
}

fn is_clock_pin(pin: &str) -> bool {
    pin == "C" || pin.contains("CLK")
}

fn is_read_address_pin(pin: &str) -> bool {
    pin.starts_with('A') || pin.starts_with("DPRA")
}

/// The read port a LUT RAM pin belongs to, so that an address reaches
/// only its own port's data output: `ADDRx` / `DOx` of the multi-port
/// `RAM32M`/`RAM64M` (port D's address is also the write address, and
/// does not reach `DOA`); `A*` / `SPO` and `DPRA*` / `DPO` of the
/// `RAM*X1D`; `A*` / `O` of the single-port `RAM*X1S`. `None` for a pin
/// of no read port.
fn lut_ram_port(pin: &str) -> Option<&str> {
    if let Some(x) = pin.strip_prefix("ADDR").or_else(|| pin.strip_prefix("DO")) {
        return (x.len() == 1).then_some(x);
    }
    match pin {
        "SPO" | "O" => Some("S"),
        "DPO" => Some("D"),
        _ if pin.starts_with("DPRA") => Some("D"),
        _ if pin.starts_with('A') => Some("S"),
        _ => None,
    }
}

/// Where a net's deepest paths come from: registers, and top-level
/// inputs; each with the net the path starts at.
#[derive(Clone, Copy, Default)]
struct Arrival {
    from_reg: Option<(Depth, u64)>,
    from_in: Option<(Depth, u64)>,
}

impl Arrival {
    fn merge(&mut self, other: Arrival, step: Depth) {
        let add = |d: Option<(Depth, u64)>| d.map(|(d, start)| (d.plus(step), start));
        self.from_reg = self.from_reg.max(add(other.from_reg));
        self.from_in = self.from_in.max(add(other.from_in));
    }
}

/// The two ends of a module's deepest path that ends at a register (or,
/// for a block without registers, of its deepest input-to-output path),
/// as the netlist names the nets: from a register (named by its output
/// net) or an input port bit, to a register (named by its output net) or
/// an output port bit.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CriticalPath {
    pub from: String,
    pub to: String,
    pub depth: Depth,
}

/// The walk, once: the deepest path of each kind ([`lut_levels`]) and the
/// ends of the one that sets the clock ([`critical_path`]).
///
/// # Errors
/// As [`lut_levels`].
pub fn walk(netlist_json: &str, top: &str) -> Result<(LutLevels, Option<CriticalPath>), NetlistError> {
    let netlist: Netlist = serde_json::from_str(netlist_json).map_err(|e| NetlistError::Json(e.to_string()))?;
    let module = netlist.modules.get(top).ok_or_else(|| NetlistError::NoModule(top.to_string()))?;

    // Each combinational arc: (cell, input nets, output nets, depth).
    struct Arc {
        inputs: Vec<u64>,
        outputs: Vec<u64>,
        step: Depth,
    }
    let mut arcs: Vec<Arc> = Vec::new();
    let mut arrival: HashMap<u64, Arrival> = HashMap::new();
    let mut ends_at_register: Vec<u64> = Vec::new();
    // A register's data-input nets, to its first output net (its name).
    let mut register_of: HashMap<u64, u64> = HashMap::new();
    let mut names: Vec<&String> = module.cells.keys().collect();
    names.sort();
    for name in names {
        let cell = &module.cells[name];
        let role = role(&cell.kind).ok_or_else(|| NetlistError::UnknownCell { cell: name.clone(), kind: cell.kind.clone() })?;
        let mut inputs = Vec::new();
        let mut outputs = Vec::new();
        let mut addresses: Vec<(Option<&str>, u64)> = Vec::new();
        let mut output_ports: Vec<(Option<&str>, u64)> = Vec::new();
        for (pin, bits) in &cell.connections {
            let direction = cell.port_directions.get(pin).ok_or_else(|| NetlistError::NoDirection {
                cell: name.clone(),
                kind: cell.kind.clone(),
                pin: pin.clone(),
            })?;
            let nets = bits.iter().filter_map(Bit::net);
            match direction.as_str() {
                "output" => {
                    let nets: Vec<u64> = nets.collect();
                    output_ports.extend(nets.iter().map(|&n| (lut_ram_port(pin), n)));
                    outputs.extend(nets);
                }
                _ if is_clock_pin(pin) => {}
                _ => {
                    let nets: Vec<u64> = nets.collect();
                    if is_read_address_pin(pin) {
                        addresses.extend(nets.iter().map(|&n| (lut_ram_port(pin), n)));
                    }
                    inputs.extend(nets);
                }
            }
        }
        match role {
            Role::Combinational(step) => arcs.push(Arc { inputs, outputs, step }),
            Role::LutRam => {
                ends_at_register.extend(&inputs);
                if let Some(&q) = outputs.first() {
                    register_of.extend(inputs.iter().map(|&i| (i, q)));
                }
                // Each read port's address to its own data output; a layout
                // this does not know reads every address into every output.
                let lut = Depth { luts: 1, carry4: 0, muxf: 0 };
                let ports: std::collections::BTreeSet<Option<&str>> = output_ports.iter().map(|p| p.0).collect();
                if ports.iter().all(|p| p.is_some() && addresses.iter().any(|a| a.0 == *p)) {
                    for port in ports {
                        arcs.push(Arc {
                            inputs: addresses.iter().filter(|a| a.0 == port).map(|a| a.1).collect(),
                            outputs: output_ports.iter().filter(|o| o.0 == port).map(|o| o.1).collect(),
                            step: lut,
                        });
                    }
                } else {
                    arcs.push(Arc { inputs: addresses.iter().map(|a| a.1).collect(), outputs, step: lut });
                }
            }
            Role::Register => {
                ends_at_register.extend(&inputs);
                if let Some(&q) = outputs.first() {
                    register_of.extend(inputs.iter().map(|&i| (i, q)));
                }
                for q in outputs {
                    arrival.entry(q).or_default().from_reg = Some((Depth::default(), q));
                }
            }
            Role::Ignored => {}
        }
    }
    let mut ends_at_output = Vec::new();
    for port in module.ports.values() {
        let nets = port.bits.iter().filter_map(Bit::net);
        match port.direction.as_str() {
            "input" => {
                for n in nets {
                    arrival.entry(n).or_default().from_in = Some((Depth::default(), n));
                }
            }
            "output" => ends_at_output.extend(nets),
            _ => {}
        }
    }

    // Arcs in topological order: an arc is ready once every arc driving
    // one of its inputs is done.
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, arc) in arcs.iter().enumerate() {
        for &o in &arc.outputs {
            driver.insert(o, i);
        }
    }
    let mut waiting: Vec<usize> = vec![0; arcs.len()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); arcs.len()];
    for (i, arc) in arcs.iter().enumerate() {
        for n in &arc.inputs {
            if let Some(&d) = driver.get(n) {
                waiting[i] += 1;
                readers[d].push(i);
            }
        }
    }
    let mut ready: Vec<usize> = (0..arcs.len()).filter(|&i| waiting[i] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        let arc = &arcs[i];
        let mut out = Arrival::default();
        for n in &arc.inputs {
            if let Some(a) = arrival.get(n) {
                out.merge(*a, arc.step);
            }
        }
        for &o in &arc.outputs {
            arrival.entry(o).or_default().merge(out, Depth::default());
        }
        for &r in &readers[i] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.push(r);
            }
        }
    }
    if done < arcs.len() {
        return Err(NetlistError::CombinationalLoop(arcs.len() - done));
    }

    // Per kind: the deepest (depth, start net, end net).
    type Deepest = Option<(Depth, u64, u64)>;
    let deepest = |ends: &[u64], pick: fn(&Arrival) -> Option<(Depth, u64)>| -> Deepest {
        ends.iter().filter_map(|e| arrival.get(e).and_then(pick).map(|(d, s)| (d, s, *e))).max()
    };
    let kinds: [Deepest; 4] = [
        deepest(&ends_at_register, |a| a.from_reg),
        deepest(&ends_at_register, |a| a.from_in),
        deepest(&ends_at_output, |a| a.from_reg),
        deepest(&ends_at_output, |a| a.from_in),
    ];
    let depth = |k: Deepest| k.map(|(d, _, _)| d);
    let levels =
        LutLevels { reg_to_reg: depth(kinds[0]), in_to_reg: depth(kinds[1]), reg_to_out: depth(kinds[2]), in_to_out: depth(kinds[3]) };
    let to_register = kinds[0].max(kinds[1]);
    let critical = match to_register {
        Some((depth, from, to)) => Some((depth, from, register_of.get(&to).copied().unwrap_or(to))),
        None => kinds[3],
    }
    .map(|(depth, from, to)| CriticalPath { from: net_name(module, from), to: net_name(module, to), depth });
    Ok((levels, critical))
}

/// The deepest paths of module `top` in a Yosys JSON netlist.
///
/// # Errors
/// The text is not a Yosys JSON netlist, `top` is not in it, a cell is of
/// a type the walk does not know or lacks pin directions, or the logic
/// has a combinational loop.
pub fn lut_levels(netlist_json: &str, top: &str) -> Result<LutLevels, NetlistError> {
    walk(netlist_json, top).map(|(levels, _)| levels)
}

/// The ends of the path that sets the clock ([`LutLevels::clocked`]); `None`
/// when the module has no such path.
///
/// # Errors
/// As [`lut_levels`].
pub fn critical_path(netlist_json: &str, top: &str) -> Result<Option<CriticalPath>, NetlistError> {
    walk(netlist_json, top).map(|(_, path)| path)
}

/// A net's name as `signal[bit]`: the netlist's first visible name
/// holding it (alphabetically), or `net N` when it has none.
fn net_name(module: &Module, net: u64) -> String {
    let mut names: Vec<(&String, &NetName)> = module.netnames.iter().filter(|(_, n)| n.hide_name == 0).collect();
    names.sort_by_key(|(name, _)| (name.len(), *name));
    for (name, n) in names {
        if let Some(bit) = n.bits.iter().position(|b| b.net() == Some(net)) {
            return if n.bits.len() == 1 { name.clone() } else { format!("{name}[{bit}]") };
        }
    }
    format!("net {net}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A netlist of cells given as (name, type, [(pin, direction, nets)])
    /// and ports as (name, direction, nets).
    fn netlist(cells: &[(&str, &str, &[(&str, &str, &[u64])])], ports: &[(&str, &str, &[u64])]) -> String {
        let cells: serde_json::Map<String, serde_json::Value> = cells
            .iter()
            .map(|(name, kind, pins)| {
                let dirs: serde_json::Map<_, _> = pins.iter().map(|(p, d, _)| (p.to_string(), (*d).into())).collect();
                let conns: serde_json::Map<_, _> = pins.iter().map(|(p, _, n)| (p.to_string(), serde_json::json!(n))).collect();
                (name.to_string(), serde_json::json!({"type": kind, "port_directions": dirs, "connections": conns}))
            })
            .collect();
        let ports: serde_json::Map<String, serde_json::Value> =
            ports.iter().map(|(n, d, b)| (n.to_string(), serde_json::json!({"direction": d, "bits": b}))).collect();
        serde_json::json!({"modules": {"top": {"ports": ports, "cells": cells}}}).to_string()
    }

    const I: &str = "input";
    const O: &str = "output";

    fn d(luts: u32, carry4: u32, muxf: u32) -> Option<Depth> {
        Some(Depth { luts, carry4, muxf })
    }

    #[test]
    fn counts_luts_between_registers_and_ports() {
        // in(1) -IBUF-> 2 -LUT-> 3 -> FD a; FD a(4) -LUT-> 5 -LUT-> 6 -> FD b;
        // FD b(7) -LUT-> 8 -OBUF-> out(9); in(2) also -LUT-> 10 -OBUF-> out(11).
        let json = netlist(
            &[
                ("ib", "IBUF", &[("I", I, &[1]), ("O", O, &[2])]),
                ("l1", "LUT2", &[("I0", I, &[2]), ("I1", I, &[7]), ("O", O, &[3])]),
                ("a", "FDRE", &[("C", I, &[99]), ("D", I, &[3]), ("Q", O, &[4])]),
                ("l2", "LUT1", &[("I0", I, &[4]), ("O", O, &[5])]),
                ("l3", "LUT6", &[("I0", I, &[5]), ("O", O, &[6])]),
                ("b", "FDRE", &[("C", I, &[99]), ("D", I, &[6]), ("Q", O, &[7])]),
                ("l4", "INV", &[("I", I, &[7]), ("O", O, &[8])]),
                ("ob", "OBUF", &[("I", I, &[8]), ("O", O, &[9])]),
                ("l5", "LUT1", &[("I0", I, &[2]), ("O", O, &[10])]),
                ("ob2", "OBUF", &[("I", I, &[10]), ("O", O, &[11])]),
                ("clk", "BUFG", &[("I", I, &[98]), ("O", O, &[99])]),
            ],
            &[("x", I, &[1]), ("clock", I, &[98]), ("y", O, &[9]), ("z", O, &[11])],
        );
        let l = lut_levels(&json, "top").unwrap();
        assert_eq!(l.reg_to_reg, d(2, 0, 0));
        assert_eq!(l.in_to_reg, d(1, 0, 0));
        assert_eq!(l.reg_to_out, d(1, 0, 0));
        assert_eq!(l.in_to_out, d(1, 0, 0));
        assert_eq!(l.to_register(), d(2, 0, 0));
        assert_eq!(l.clocked(), d(2, 0, 0));
    }

    #[test]
    fn names_the_ends_of_the_path_that_sets_the_clock() {
        // FD a(4) -LUT-> 5 -LUT-> 6 -> FD b: the deepest path, 2 levels.
        let cells: &[(&str, &str, &[(&str, &str, &[u64])])] = &[
            ("a", "FDRE", &[("D", I, &[1]), ("Q", O, &[4])]),
            ("l2", "LUT1", &[("I0", I, &[4]), ("O", O, &[5])]),
            ("l3", "LUT6", &[("I0", I, &[5]), ("O", O, &[6])]),
            ("b", "FDRE", &[("D", I, &[6]), ("Q", O, &[7])]),
            ("l1", "LUT1", &[("I0", I, &[7]), ("O", O, &[1])]),
        ];
        let mut json: serde_json::Value = serde_json::from_str(&netlist(cells, &[])).unwrap();
        let unnamed = critical_path(&json.to_string(), "top").unwrap().unwrap();
        assert_eq!((unnamed.from.as_str(), unnamed.to.as_str(), unnamed.depth), ("net 4", "net 7", Depth { luts: 2, carry4: 0, muxf: 0 }));
        json["modules"]["top"]["netnames"] = serde_json::json!({
            "s1_count__q": {"hide_name": 0, "bits": [9, 4]},
            "$abc$12": {"hide_name": 1, "bits": [4]},
            "sum": {"hide_name": 0, "bits": [6]},
            "b__q": {"hide_name": 0, "bits": [7]},
        });
        let named = critical_path(&json.to_string(), "top").unwrap().unwrap();
        assert_eq!((named.from.as_str(), named.to.as_str()), ("s1_count__q[1]", "b__q"));
        assert_eq!(critical_path(&netlist(&[], &[]), "top").unwrap(), None);
    }

    #[test]
    fn counts_carry_and_muxf_apart_and_prefers_more_luts() {
        // FD q(1): path A = LUT -> CARRY4 -> CARRY4 -> FD (1 LUT, 2 carry);
        // path B = LUT -> LUT -> MUXF7 -> FD (2 LUTs, 1 muxf), the deeper.
        let json = netlist(
            &[
                ("q", "FDRE", &[("C", I, &[]), ("D", I, &[]), ("Q", O, &[1])]),
                ("la", "LUT2", &[("I0", I, &[1]), ("O", O, &[2])]),
                ("c0", "CARRY4", &[("S", I, &[2, 2, 2, 2]), ("CI", I, &[]), ("CO", O, &[3, 4, 5, 6])]),
                ("c1", "CARRY4", &[("S", I, &[]), ("CI", I, &[6]), ("O", O, &[7, 20, 21, 22])]),
                ("fa", "FDRE", &[("D", I, &[7]), ("Q", O, &[8])]),
                ("lb", "LUT2", &[("I0", I, &[1]), ("O", O, &[9])]),
                ("lc", "LUT3", &[("I0", I, &[9]), ("O", O, &[10])]),
                ("m", "MUXF7", &[("I0", I, &[10]), ("I1", I, &[9]), ("S", I, &[1]), ("O", O, &[11])]),
                ("fb", "FDSE", &[("D", I, &[11]), ("Q", O, &[12])]),
            ],
            &[],
        );
        let l = lut_levels(&json, "top").unwrap();
        assert_eq!(l.reg_to_reg, d(2, 0, 1));
        assert_eq!(l.in_to_reg, None);
        // The carry path on its own.
        let carry_only = json.replace("\"D\":[11]", "\"D\":[]");
        assert_eq!(lut_levels(&carry_only, "top").unwrap().reg_to_reg, d(1, 2, 0));
    }

    #[test]
    fn lut_ram_reads_are_a_level_and_block_ram_cuts() {
        // FD(1) -LUT-> 2 = RAM64M address -> DOA(3) -LUT-> 4 -> FD: 3 levels.
        // RAM64M data in (5) ends a path; RAMB18E1 output (6) starts one.
        let json = netlist(
            &[
                ("q", "FDRE", &[("D", I, &[]), ("Q", O, &[1])]),
                ("l0", "LUT1", &[("I0", I, &[1]), ("O", O, &[2])]),
                ("r", "RAM64M", &[("ADDRA", I, &[2]), ("DIA", I, &[5]), ("WE", I, &[1]), ("WCLK", I, &[]), ("DOA", O, &[3])]),
                ("l1", "LUT1", &[("I0", I, &[3]), ("O", O, &[4])]),
                ("f", "FDRE", &[("D", I, &[4]), ("Q", O, &[])]),
                ("l2", "LUT1", &[("I0", I, &[1]), ("O", O, &[12])]),
                ("l3", "LUT1", &[("I0", I, &[12]), ("O", O, &[13])]),
                ("l4", "LUT1", &[("I0", I, &[13]), ("O", O, &[14])]),
                ("l5", "LUT1", &[("I0", I, &[14]), ("O", O, &[5])]),
                ("b", "RAMB18E1", &[("CLKARDCLK", I, &[]), ("DIADI", I, &[4]), ("DOADO", O, &[6])]),
                ("l6", "LUT1", &[("I0", I, &[6]), ("O", O, &[7])]),
                ("g", "FDRE", &[("D", I, &[7]), ("Q", O, &[])]),
            ],
            &[],
        );
        // The RAM's data input is 4 LUTs deep, the read path 3.
        assert_eq!(lut_levels(&json, "top").unwrap().reg_to_reg, d(4, 0, 0));
        let shallow_data = json.replace("\"I0\":[14]", "\"I0\":[1]");
        assert_eq!(lut_levels(&shallow_data, "top").unwrap().reg_to_reg, d(3, 0, 0));
    }

    #[test]
    fn a_lut_ram_address_reaches_only_its_own_ports_output() {
        // FD(1) -4 LUTs-> 5 = RAM64M ADDRD (port D: also the write address);
        // ADDRA = 1 -> DOA(3) -LUT-> 4 -> FD. ADDRD does not reach DOA:
        // the deepest path is the 4 LUTs ending at the RAM.
        let json = netlist(
            &[
                ("q", "FDRE", &[("D", I, &[]), ("Q", O, &[1])]),
                ("l2", "LUT1", &[("I0", I, &[1]), ("O", O, &[12])]),
                ("l3", "LUT1", &[("I0", I, &[12]), ("O", O, &[13])]),
                ("l4", "LUT1", &[("I0", I, &[13]), ("O", O, &[14])]),
                ("l5", "LUT1", &[("I0", I, &[14]), ("O", O, &[5])]),
                ("r", "RAM64M", &[("ADDRA", I, &[1]), ("ADDRD", I, &[5]), ("WE", I, &[1]), ("WCLK", I, &[]), ("DOA", O, &[3])]),
                ("l1", "LUT1", &[("I0", I, &[3]), ("O", O, &[4])]),
                ("f", "FDRE", &[("D", I, &[4]), ("Q", O, &[])]),
            ],
            &[],
        );
        assert_eq!(lut_levels(&json, "top").unwrap().reg_to_reg, d(4, 0, 0));
        // Port D's own output does follow its address: 4 + RAM + LUT.
        let read_d = json.replace("\"DOA\"", "\"DOD\"");
        assert_eq!(lut_levels(&read_d, "top").unwrap().reg_to_reg, d(6, 0, 0));
        // A dual-port RAM128X1D, `A` 2 LUTs deep: DPRA reaches DPO, A
        // reaches SPO only.
        let x1d = |dpo: &[u64], spo: &[u64]| {
            netlist(
                &[
                    ("q", "FDRE", &[("D", I, &[]), ("Q", O, &[1])]),
                    ("l2", "LUT1", &[("I0", I, &[1]), ("O", O, &[12])]),
                    ("l3", "LUT1", &[("I0", I, &[12]), ("O", O, &[5])]),
                    (
                        "r",
                        "RAM128X1D",
                        &[("A", I, &[5]), ("DPRA", I, &[1]), ("D", I, &[1]), ("WE", I, &[1]), ("WCLK", I, &[]), ("DPO", O, dpo), ("SPO", O, spo)],
                    ),
                    ("l1", "LUT1", &[("I0", I, &[3]), ("O", O, &[4])]),
                    ("f", "FDRE", &[("D", I, &[4]), ("Q", O, &[])]),
                ],
                &[],
            )
        };
        assert_eq!(lut_levels(&x1d(&[3], &[]), "top").unwrap().reg_to_reg, d(2, 0, 0));
        assert_eq!(lut_levels(&x1d(&[], &[3]), "top").unwrap().reg_to_reg, d(4, 0, 0));
    }

    #[test]
    fn rejects_unknown_cells_loops_and_missing_modules() {
        let unknown = netlist(&[("x", "DSP58", &[("A", I, &[1])])], &[]);
        assert!(matches!(lut_levels(&unknown, "top"), Err(NetlistError::UnknownCell { .. })));
        let looped = netlist(&[("a", "LUT1", &[("I0", I, &[2]), ("O", O, &[1])]), ("b", "LUT1", &[("I0", I, &[1]), ("O", O, &[2])])], &[]);
        assert_eq!(lut_levels(&looped, "top"), Err(NetlistError::CombinationalLoop(2)));
        assert_eq!(lut_levels(&unknown, "other"), Err(NetlistError::NoModule("other".into())));
        assert!(matches!(lut_levels("{", "top"), Err(NetlistError::Json(_))));
    }

    #[test]
    fn eight_levels_estimate_about_250_mhz() {
        let eight = Depth { luts: 8, carry4: 0, muxf: 0 };
        assert!((eight.estimated_fmax_mhz() - 250.0).abs() < 1.0, "{}", eight.estimated_fmax_mhz());
        assert!(Depth { luts: 9, carry4: 0, muxf: 0 } > Depth { luts: 8, carry4: 5, muxf: 5 });
        assert_eq!(Depth { luts: 9, carry4: 0, muxf: 2 }.to_string(), "9+2m");
        assert_eq!(Depth { luts: 8, carry4: 18, muxf: 0 }.to_string(), "8+18c");
    }
}
