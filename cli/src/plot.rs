//! PNG plots for the studies (plotters, bitmap backend, the DejaVu Sans font
//! embedded so that no system font is needed): line panels with a linear or
//! log2 x axis, grouped bars, and the size-class heat map.

use anyhow::anyhow;
use buddy_golden::SizeClass;
use buddy_sim::study::heatmap::Heatmap;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

/// Font family name registered for every plot.
const FONT: &str = "sans-serif";

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a compile-time asset of the `dejavu` crate; failing to
        // parse it is a build defect, reported at the first plot.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Series colours: distinct on white and for the common colour-vision deficiencies
/// (Okabe-Ito palette).
const SERIES_COLORS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
];

fn series_color(i: usize) -> RGBAColor {
    SERIES_COLORS[i % SERIES_COLORS.len()].to_rgba()
}

/// One named series of (x, y) points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line plot (one panel).
pub struct LinePlot<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// y axis range.
    pub y_range: (f64, f64),
    pub series: &'a [Series],
    /// Tick label for an x value.
    pub x_ticks: &'a dyn Fn(f64) -> String,
}

/// A horizontal dashed reference line, named in the legend.
pub struct Reference {
    pub y: f64,
    pub name: String,
}

/// Horizontal dashed reference lines drawn in a panel, one per series colour
/// index (`None`: no line for that series).
pub type References<'a> = &'a [Option<Reference>];

fn draw_err(path: &Path) -> impl Fn(String) -> anyhow::Error + '_ {
    move |e| anyhow!("cannot draw {}: {e}", path.display())
}

/// The series legend in the upper right corner.
fn legend<'a, CT: plotters::coord::CoordTranslate>(chart: &mut ChartContext<'a, BitMapBackend<'a>, CT>, path: &Path) -> anyhow::Result<()> {
    legend_at(chart, path, SeriesLabelPosition::UpperRight, 15)
}

/// The series legend at `position`, labels of `font_size` points.
fn legend_at<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, CT>,
    path: &Path,
    position: SeriesLabelPosition,
    font_size: u32,
) -> anyhow::Result<()> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, font_size))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw_err(path)(format!("{e:?}")))
}

/// A chart of two linear f64 axes (log scales are drawn as their logarithm).
type Chart<'a> =
    ChartContext<'a, BitMapBackend<'a>, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

/// Line width of series `i` of `n`, pixels: drawn in order, each line one
/// pixel narrower than the one before it (2 the narrowest, 7 the widest),
/// so a series that coincides with an earlier one leaves that one's colour
/// showing on both sides.
fn line_width(i: usize, n: usize) -> u32 {
    2 + (n.saturating_sub(1 + i)).min(5) as u32
}

/// Series `i` of `n` as a line in `color` ([`line_width`]) with a marker
/// at each point, named in the legend.
fn line_with_dots<'a>(
    chart: &mut Chart<'a>,
    path: &Path,
    pts: Vec<(f64, f64)>,
    name: &str,
    color: RGBAColor,
    (i, n): (usize, usize),
) -> anyhow::Result<()> {
    let err = draw_err(path);
    let width = line_width(i, n);
    let size = 3 + width as i32;
    chart
        .draw_series(LineSeries::new(pts.clone(), color.stroke_width(width)))
        .map_err(|e| err(format!("{e:?}")))?
        .label(name)
        .legend(move |(x, y)| EmptyElement::at((x, y)) + PathElement::new(vec![(0, 0), (24, 0)], color.stroke_width(width)));
    // Markers: a filled circle, a hollow square, a filled triangle and a
    // cross in turn, so that coinciding points of different series stay
    // distinguishable.
    let at = |p: (f64, f64)| EmptyElement::at(p);
    match i % 4 {
        0 => chart.draw_series(pts.iter().map(|&p| at(p) + Circle::new((0, 0), size, color.filled()))).map(|_| ()),
        1 => chart
            .draw_series(pts.iter().map(|&p| at(p) + Rectangle::new([(-size, -size), (size, size)], color.stroke_width(2))))
            .map(|_| ()),
        2 => chart.draw_series(pts.iter().map(|&p| at(p) + TriangleMarker::new((0, 0), size + 1, color.filled()))).map(|_| ()),
        _ => chart.draw_series(pts.iter().map(|&p| at(p) + Cross::new((0, 0), size, color.stroke_width(2)))).map(|_| ()),
    }
    .map_err(|e| err(format!("{e:?}")))?;
    Ok(())
}

/// Fraction of a panel's plotting height the legend in its upper corner
/// takes: `rows` labels of [`LEGEND_ROW_PIXELS`] and the box's margins.
fn legend_fraction(rows: usize, plot_pixels: u32) -> f64 {
    ((rows as f64 * LEGEND_ROW_PIXELS + 24.0) / f64::from(plot_pixels.max(1))).min(0.6)
}

/// Height of a panel's plotting area in `area`, pixels: the caption, the
/// margins and the x label area take about 130.
fn plot_pixels(area: &Area) -> u32 {
    area.dim_in_pixel().1.saturating_sub(130)
}

/// Light grid lines across `x` at `ticks` (values), each labelled
/// [`log_label`] left of the axis, at `y(value)` on the chart's y axis.
fn log_grid(chart: &mut Chart, path: &Path, x: (f64, f64), ticks: &[f64], y: impl Fn(f64) -> f64) -> anyhow::Result<()> {
    let err = draw_err(path);
    let grid = RGBColor(200, 200, 200);
    let style = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for &v in ticks {
        let at = y(v);
        chart.draw_series(LineSeries::new(vec![(x.0, at), (x.1, at)], grid.stroke_width(1))).map_err(|e| err(format!("{e:?}")))?;
        let label = Text::new(log_label(v), (-8, 0), style.clone());
        chart.plotting_area().draw(&(EmptyElement::at((x.0, at)) + label)).map_err(|e| err(format!("{e:?}")))?;
    }
    Ok(())
}

/// Height of one legend label, pixels (15-point labels).
const LEGEND_ROW_PIXELS: f64 = 22.0;

/// The transformed y range `lo..hi` extended upwards so that every value up
/// to `hi` lies below a legend taking `fraction` of the height at the top.
fn with_legend_room(lo: f64, hi: f64, fraction: f64) -> (f64, f64) {
    (lo, lo + (hi - lo) / (1.0 - fraction))
}

/// The values a log axis from `lo` to `hi` (values, not logarithms) is
/// labelled at: round values 4 to 10 apart under half a decade; 1, 1.5, 2,
/// 3, 4, 5 and 7 per decade up to 1.2 decades; 1, 2 and 5 up to 4; every
/// decade up to 12; every other one beyond.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10(), hi.log10());
    if b - a < 0.5 {
        return linear_ticks(lo, hi);
    }
    let mantissas: &[f64] = if b - a <= 1.2 {
        &[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0]
    } else if b - a <= 4.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let step = if b - a > 12.0 { 2 } else { 1 };
    let mut ticks = Vec::new();
    for k in (a.floor() as i32..=b.ceil() as i32).step_by(step) {
        for m in mantissas {
            let v = m * 10f64.powi(k);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                ticks.push(v);
            }
        }
    }
    ticks
}

/// Multiples of a round step (1, 2 or 5 times a power of ten) from `lo` to
/// `hi`, the step the smallest giving at most 10 values.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(f64::MIN_POSITIVE);
    let mut step = 10f64.powf((span / 10.0).log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if span / (step * m) <= 10.0 {
            step *= m;
            break;
        }
    }
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A value on a log axis: three significant digits, no trailing zeros
/// (`0.5`, `2`, `150`, `1.25`).
fn log_number(y: f64) -> String {
    let digits = (2 - y.log10().floor() as i32).max(0) as usize;
    let n = format!("{y:.digits$}");
    if n.contains('.') {
        n.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        n
    }
}

/// A ratio on a log axis as a label: `0.5x`, `2x`, `150x`.
fn log_label(y: f64) -> String {
    // Short labels for large ratios, so that they stay clear of the axis title.
    match y {
        y if y >= 1e6 => format!("{}Mx", log_number(y / 1e6)),
        y if y >= 1e4 => format!("{}kx", log_number(y / 1e3)),
        y => format!("{}x", log_number(y)),
    }
}

/// A PNG of `n` panels side by side (900 x 620 pixels each) under `caption`,
/// each drawn by `draw(area, index)`.
fn panels(path: &Path, caption: &str, n: usize, draw: impl Fn(&Area, usize) -> anyhow::Result<()>) -> anyhow::Result<()> {
    register_font();
    let root = BitMapBackend::new(path, (900 * n.max(1) as u32, 620)).into_drawing_area();
    let err = draw_err(path);
    root.fill(&WHITE).map_err(|e| err(format!("{e:?}")))?;
    let root = root.titled(caption, (FONT, 26)).map_err(|e| err(format!("{e:?}")))?;
    for (i, area) in root.split_evenly((1, n.max(1))).iter().enumerate().take(n) {
        draw(area, i)?;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e:?}", path.display()))
}

fn x_extent(series: &[Series]) -> Option<(f64, f64)> {
    let xs: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    if xs.is_empty() {
        return None;
    }
    Some(xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x))))
}

/// Draws `plot` into `area`; `log2_x` puts x on a log2 scale, `refs` adds
/// dashed horizontal lines in the series' colours.
fn line_panel(area: &Area, path: &Path, plot: &LinePlot, log2_x: bool, refs: References) -> anyhow::Result<()> {
    line_panel_scaled(area, path, plot, log2_x, false, refs)
}

/// [`line_panel`], with y on a log10 scale when `log10_y` (labelled by
/// [`log_ticks`]). The y range is extended upwards so that the legend never
/// covers a point or a line.
fn line_panel_scaled(area: &Area, path: &Path, plot: &LinePlot, log2_x: bool, log10_y: bool, refs: References) -> anyhow::Result<()> {
    let err = draw_err(path);
    let (lo, hi) = x_extent(plot.series).ok_or_else(|| anyhow!("nothing to plot for {}", path.display()))?;
    if log2_x && lo <= 0.0 {
        return Err(anyhow!("log-scale x needs positive values in {}", path.display()));
    }
    if log10_y && (plot.y_range.0 <= 0.0 || plot.series.iter().any(|s| s.points.iter().any(|p| p.1 <= 0.0))) {
        return Err(anyhow!("log-scale y needs positive values in {}", path.display()));
    }
    let tx = |x: f64| if log2_x { x.log2() } else { x };
    let ty = |y: f64| if log10_y { y.log10() } else { y };
    let (tlo, thi) = (tx(lo), tx(hi).max(tx(lo) + if log2_x { 1.0 } else { 1e-9 }));
    let pad = ((thi - tlo) * 0.04).max(0.2 * f64::from(log2_x as u8));
    let rows = plot.series.len() + refs.iter().flatten().count();
    let (ylo, yhi) = with_legend_room(ty(plot.y_range.0), ty(plot.y_range.1), legend_fraction(rows, plot_pixels(area)));
    let mut chart = ChartBuilder::on(area)
        .caption(plot.title, (FONT, 22))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((tlo - pad)..(thi + pad), ylo..yhi)
        .map_err(|e| err(format!("{e:?}")))?;
    let ticks = plot.x_ticks;
    let distinct: std::collections::BTreeSet<u64> = plot.series.iter().flat_map(|s| s.points.iter().map(|p| tx(p.0).to_bits())).collect();
    let untx = move |v: f64| if log2_x { v.exp2() } else { v };
    let x_tick = |v: &f64| ticks(untx(*v));
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(plot.x_label)
        .y_desc(plot.y_label)
        .x_labels(distinct.len().clamp(2, 12))
        .x_label_formatter(&x_tick)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17));
    if log10_y {
        // Labels and grid lines at round values (log_ticks), drawn below.
        mesh.y_labels(0).disable_y_mesh();
    }
    mesh.draw().map_err(|e| err(format!("{e:?}")))?;
    if log10_y {
        log_grid(&mut chart, path, (tlo - pad, thi + pad), &log_ticks(10f64.powf(ylo), 10f64.powf(yhi)), f64::log10)?;
    }
    let n = plot.series.len();
    for (i, s) in plot.series.iter().enumerate() {
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (tx(x), ty(y))).collect();
        line_with_dots(&mut chart, path, pts, &s.name, series_color(i), (i, n))?;
    }
    for (i, r) in refs.iter().enumerate() {
        if let Some(r) = r {
            let line = vec![(tlo - pad, ty(r.y)), (thi + pad, ty(r.y))];
            let color = series_color(i);
            chart
                .draw_series(DashedLineSeries::new(line, 10, 6, color.stroke_width(2)))
                .map_err(|e| err(format!("{e:?}")))?
                .label(r.name.as_str())
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (8, 0)], color.stroke_width(2))
                        + PathElement::new(vec![(13, 0), (21, 0)], color.stroke_width(2))
                });
        }
    }
    legend(&mut chart, path)
}

/// Draw `plot` into the PNG file `path` (1000 x 600 pixels), x on a log2 scale.
///
/// # Errors
/// No points, an x value <= 0, or the file cannot be written.
pub fn line_plot_log2_x(path: &Path, plot: &LinePlot) -> anyhow::Result<()> {
    register_font();
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_err(path)(format!("{e:?}")))?;
    line_panel(&root, path, plot, true, &[])?;
    root.present().map_err(|e| anyhow!("cannot write {}: {e:?}", path.display()))
}

/// Draw line panels side by side (linear x) into the PNG file `path`, each
/// with its dashed reference lines, under one caption.
///
/// # Errors
/// A panel without points, or the file cannot be written.
pub fn line_panels(path: &Path, caption: &str, plots: &[(LinePlot, References)]) -> anyhow::Result<()> {
    panels(path, caption, plots.len(), |area, i| line_panel(area, path, &plots[i].0, false, plots[i].1))
}

/// One panel of grouped bars: a group per category (workload), a bar per series.
pub struct Bars<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub groups: &'a [String],
    pub series: &'a [String],
    /// `values[group][series]`.
    pub values: &'a [Vec<f64>],
    /// Printed above each bar.
    pub value_label: &'a dyn Fn(f64) -> String,
    /// y on a log2 scale (labelled 1x, 2x, 4x, ...), bars rising from 1, as
    /// cDMA Fig. 11 draws ratios; every value must be positive.
    pub log2_y: bool,
}

fn bar_panel(area: &Area, path: &Path, bars: &Bars) -> anyhow::Result<()> {
    let err = draw_err(path);
    if bars.log2_y && bars.values.iter().flatten().any(|&v| v <= 0.0) {
        return Err(anyhow!("log-scale y needs positive values in {}", path.display()));
    }
    let ty = |v: f64| if bars.log2_y { v.log2() } else { v };
    let (lo, hi) = bars.values.iter().flatten().map(|&v| ty(v)).fold((0.0f64, 0.0f64), |(a, b), t| (a.min(t), b.max(t)));
    let hi = if hi > lo { hi + (hi - lo) * 0.18 } else { lo + 1.0 };
    let (lo, top) = with_legend_room(lo, hi, legend_fraction(bars.series.len(), plot_pixels(area)));
    let n = bars.groups.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(bars.title, (FONT, 22))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(0.0..n, lo..top)
        .map_err(|e| err(format!("{e:?}")))?;
    let groups = bars.groups;
    let group_label = |v: &f64| {
        let i = v.floor() as usize;
        if (v - v.floor() - 0.5).abs() < 1e-6 && i < groups.len() {
            groups[i].clone()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .x_labels(groups.len() * 2 + 1)
        .x_label_formatter(&group_label)
        .y_desc(bars.y_label)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17));
    if bars.log2_y {
        // Labels and grid lines at the powers of two, drawn below.
        mesh.y_labels(0).disable_y_mesh();
    }
    mesh.draw().map_err(|e| err(format!("{e:?}")))?;
    if bars.log2_y {
        let values: Vec<f64> = if top - lo >= 2.0 {
            (lo.ceil() as i32..=top.floor() as i32).map(|k| f64::from(k).exp2()).collect()
        } else {
            log_ticks(lo.exp2(), top.exp2())
        };
        log_grid(&mut chart, path, (0.0, n), &values, f64::log2)?;
    }
    let base = ty(if bars.log2_y { 1.0 } else { 0.0 });
    let k = bars.series.len().max(1) as f64;
    let width = 0.8 / k;
    for (s, name) in bars.series.iter().enumerate() {
        let color = series_color(s);
        let rects: Vec<_> = bars
            .values
            .iter()
            .enumerate()
            .map(|(g, v)| {
                let x0 = g as f64 + 0.1 + s as f64 * width;
                Rectangle::new([(x0, base), (x0 + width * 0.92, ty(v[s]))], color.filled())
            })
            .collect();
        chart
            .draw_series(rects)
            .map_err(|e| err(format!("{e:?}")))?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
        let labels: Vec<_> = bars
            .values
            .iter()
            .enumerate()
            .map(|(g, v)| {
                let x = g as f64 + 0.1 + (s as f64 + 0.1) * width;
                Text::new((bars.value_label)(v[s]), (x, ty(v[s]).max(base) + (top - lo) * 0.01), (FONT, 13).into_font())
            })
            .collect();
        chart.draw_series(labels).map_err(|e| err(format!("{e:?}")))?;
    }
    legend(&mut chart, path)
}

/// Draw bar panels side by side into the PNG file `path`.
///
/// # Errors
/// The file cannot be written.
pub fn bar_panels(path: &Path, caption: &str, bars: &[Bars]) -> anyhow::Result<()> {
    panels(path, caption, bars.len(), |area, i| bar_panel(area, path, &bars[i]))
}

/// Colour of a size class: cold (blue, compressible) to hot (red, RAW), as
/// in the paper's Fig. 8.
pub fn class_color(class: SizeClass) -> RGBColor {
    const RAMP: [RGBColor; 8] = [
        RGBColor(49, 54, 149),
        RGBColor(69, 117, 180),
        RGBColor(116, 173, 209),
        RGBColor(171, 217, 233),
        RGBColor(254, 224, 144),
        RGBColor(253, 174, 97),
        RGBColor(244, 109, 67),
        RGBColor(165, 0, 38),
    ];
    RAMP[class.code() as usize]
}

/// Draw `map` into the PNG file `path`: one panel per snapshot side by side,
/// `columns` entries per row, each entry a `cell`-pixel square coloured by
/// its size class, allocation starts marked by a tick left of the first
/// panel, and a legend of the classes.
///
/// # Errors
/// An empty map, or the file cannot be written.
pub fn heatmap(path: &Path, map: &Heatmap) -> anyhow::Result<()> {
    register_font();
    let rows = map.rows();
    if rows == 0 || map.snapshots.is_empty() {
        return Err(anyhow!("nothing to plot for {}", path.display()));
    }
    let panels = map.snapshots.len() as u32;
    // Cells as large as fit in about 1800 x 1000 pixels of panels, at least 1.
    let cell = ((1800 / (panels * (map.columns as u32 + 8))).min(1000 / rows as u32)).clamp(1, 8);
    let (left, top, gap, bottom) = (40u32, 90u32, 8 * cell, 70u32);
    let panel_w = map.columns as u32 * cell;
    let width = (left + panels * (panel_w + gap) + 20).max(1100);
    let height = top + rows as u32 * cell + bottom;
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    let err = draw_err(path);
    root.fill(&WHITE).map_err(|e| err(format!("{e:?}")))?;
    let title = format!(
        "{}: size class of every 128 B memory-entry ({}), {} entries per row in virtual-address order",
        map.workload, map.algorithm, map.columns
    );
    root.draw(&Text::new(title, (left as i32, 10), (FONT, 20).into_font())).map_err(|e| err(format!("{e:?}")))?;
    for (p, snap) in map.snapshots.iter().enumerate() {
        let x0 = (left + p as u32 * (panel_w + gap)) as i32;
        root.draw(&Text::new(format!("snapshot {}", snap.index), (x0, top as i32 - 24), (FONT, 14).into_font()))
            .map_err(|e| err(format!("{e:?}")))?;
        for (r, row) in snap.rows.iter().enumerate() {
            for (c, code) in row.bytes().enumerate() {
                let class = SizeClass::from_code(code - b'0').map_err(|e| anyhow!("{e}"))?;
                let x = x0 + (c as u32 * cell) as i32;
                let y = (top + r as u32 * cell) as i32;
                root.draw(&Rectangle::new([(x, y), (x + cell as i32, y + cell as i32)], class_color(class).filled()))
                    .map_err(|e| err(format!("{e:?}")))?;
            }
        }
    }
    // Allocation starts: a short black tick left of the first panel.
    for a in &map.allocations {
        let y = (top + (a.first_entry / map.columns as u64) as u32 * cell) as i32;
        root.draw(&PathElement::new(vec![(left as i32 - 12, y), (left as i32 - 3, y)], BLACK.stroke_width(1)))
            .map_err(|e| err(format!("{e:?}")))?;
    }
    root.draw(&Text::new("allocation starts", (4, top as i32 - 44), (FONT, 12).into_font())).map_err(|e| err(format!("{e:?}")))?;
    // Legend: one swatch per class.
    let ly = (top + rows as u32 * cell + 25) as i32;
    let mut lx = left as i32;
    for class in SizeClass::ALL {
        root.draw(&Rectangle::new([(lx, ly), (lx + 18, ly + 18)], class_color(class).filled())).map_err(|e| err(format!("{e:?}")))?;
        let label = format!("{} ({} B)", class.name(), class.bytes());
        root.draw(&Text::new(label, (lx + 24, ly + 2), (FONT, 15).into_font())).map_err(|e| err(format!("{e:?}")))?;
        lx += 125;
    }
    root.present().map_err(|e| anyhow!("cannot write {}: {e:?}", path.display()))
}

/// Draw line panels side by side (linear x, log10 y) into the PNG file
/// `path` under one caption.
///
/// # Errors
/// A panel without points, a y value <= 0, or the file cannot be written.
pub fn line_panels_log10_y(path: &Path, caption: &str, plots: &[LinePlot]) -> anyhow::Result<()> {
    panels(path, caption, plots.len(), |area, i| line_panel_scaled(area, path, &plots[i], false, true, &[]))
}

/// A largest-fitting batch marked on [`minibatch_panels`]: `buddy` picks the
/// marker (hollow square with Buddy, filled triangle without), `memory` the
/// colour (index of the device memory).
pub struct BatchMark {
    pub label: String,
    pub batch: f64,
    pub footprint_gb: f64,
    pub throughput: f64,
    pub buddy: bool,
    pub memory: usize,
}

/// Buddy Fig. 15 for one workload: footprint (uncompressed and the device
/// part with Buddy, GB, log10 y) against the mini-batch (log2 x) with a
/// dashed line per device memory, and relative throughput against the
/// mini-batch; both with the largest fitting batches marked. Every style is
/// in its panel's legend.
///
/// # Errors
/// A series without points, a value <= 0, or the file cannot be written.
pub fn minibatch_panels(
    path: &Path,
    caption: &str,
    footprint: &[Series; 2],
    memories: &[(String, f64)],
    throughput: &Series,
    marks: &[BatchMark],
) -> anyhow::Result<()> {
    let err = draw_err(path);
    let all = || footprint.iter().chain([throughput]).flat_map(|s| s.points.iter());
    if footprint.iter().chain([throughput]).any(|s| s.points.is_empty()) || all().any(|p| p.0 <= 0.0 || p.1 <= 0.0) {
        return Err(anyhow!("nothing to plot, or a value <= 0, in {}", path.display()));
    }
    let (lo, hi) = all().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (xlo, xhi) = (lo.log2() - 0.3, hi.log2() + 0.3);
    let ys = footprint.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(memories.iter().map(|m| m.1));
    let (ylo, yhi) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    // Room above the curves for the legend.
    let (ylo, yhi) = (ylo.log10() - 0.15, yhi.log10() + 1.0);
    let x_tick = |v: &f64| format!("{:.0}", v.exp2());
    panels(path, caption, 2, |area, i| {
        if i == 0 {
            let mut chart = ChartBuilder::on(area)
                .caption("(a) footprint against the mini-batch", (FONT, 22))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(80)
                .build_cartesian_2d(xlo..xhi, ylo..yhi)
                .map_err(|e| err(format!("{e:?}")))?;
            chart
                .configure_mesh()
                .x_desc("mini-batch size (samples, log2)")
                .y_desc("memory (GB, log10)")
                .x_labels(((xhi - xlo) as usize + 1).clamp(2, 16))
                .x_label_formatter(&x_tick)
                .y_label_formatter(&|v| log_number(10f64.powf(*v)))
                .label_style((FONT, 15))
                .axis_desc_style((FONT, 17))
                .draw()
                .map_err(|e| err(format!("{e:?}")))?;
            for (k, s) in footprint.iter().enumerate() {
                let color = series_color(k);
                let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x.log2(), y.log10())).collect();
                line_with_dots(&mut chart, path, pts, &s.name, color, (k, footprint.len()))?;
            }
            for (m, (name, gb)) in memories.iter().enumerate() {
                let c = mark_color(m);
                chart
                    .draw_series(DashedLineSeries::new(vec![(xlo, gb.log10()), (xhi, gb.log10())], 10, 6, c.stroke_width(2)))
                    .map_err(|e| err(format!("{e:?}")))?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        EmptyElement::at((x, y))
                            + PathElement::new(vec![(0, 0), (8, 0)], c.stroke_width(2))
                            + PathElement::new(vec![(13, 0), (21, 0)], c.stroke_width(2))
                    });
            }
            draw_marks(&mut chart, path, marks, &|m| m.footprint_gb.log10())?;
            legend_at(&mut chart, path, SeriesLabelPosition::UpperLeft, 14)
        } else {
            let mut chart = ChartBuilder::on(area)
                .caption("(b) projected throughput against the mini-batch", (FONT, 22))
                .margin(20)
                .x_label_area_size(50)
                .y_label_area_size(80)
                .build_cartesian_2d(xlo..xhi, 0.0..1.05)
                .map_err(|e| err(format!("{e:?}")))?;
            chart
                .configure_mesh()
                .x_desc("mini-batch size (samples, log2)")
                .y_desc("samples/s, fraction of the plateau")
                .x_labels(((xhi - xlo) as usize + 1).clamp(2, 16))
                .x_label_formatter(&x_tick)
                .label_style((FONT, 15))
                .axis_desc_style((FONT, 17))
                .draw()
                .map_err(|e| err(format!("{e:?}")))?;
            let color = series_color(0);
            let pts: Vec<(f64, f64)> = throughput.points.iter().map(|&(x, y)| (x.log2(), y)).collect();
            line_with_dots(&mut chart, path, pts, &throughput.name, color, (0, 1))?;
            draw_marks(&mut chart, path, marks, &|m| m.throughput)?;
            legend_at(&mut chart, path, SeriesLabelPosition::LowerRight, 14)
        }
    })
}

/// The colour of the `m`-th device memory's line and marks (after the two
/// footprint series' colours).
fn mark_color(m: usize) -> RGBAColor {
    series_color(2 + m)
}

/// The [`BatchMark`]s at x = log2(batch), y = `y(mark)`, each in the legend.
fn draw_marks<'a>(chart: &mut Chart<'a>, path: &Path, marks: &[BatchMark], y: &dyn Fn(&BatchMark) -> f64) -> anyhow::Result<()> {
    let err = draw_err(path);
    for m in marks {
        let c = mark_color(m.memory);
        let p = (m.batch.log2(), y(m));
        let label = m.label.as_str();
        if m.buddy {
            chart
                // Hollow, so an uncompressed mark at nearly the same batch shows through.
                .draw_series([EmptyElement::at(p) + Rectangle::new([(-9, -9), (9, 9)], c.stroke_width(3))])
                .map_err(|e| err(format!("{e:?}")))?
                .label(label)
                .legend(move |(x, y)| EmptyElement::at((x + 10, y)) + Rectangle::new([(-7, -7), (7, 7)], c.stroke_width(3)));
        } else {
            chart
                .draw_series([EmptyElement::at(p) + TriangleMarker::new((0, 0), 10, c.filled())])
                .map_err(|e| err(format!("{e:?}")))?
                .label(label)
                .legend(move |(x, y)| EmptyElement::at((x + 10, y)) + TriangleMarker::new((0, 0), 9, c.filled()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axes_are_labelled_at_one_two_five_per_decade() {
        assert_eq!(log_ticks(0.8, 150.0), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        // Wide ranges: every decade, then every other one.
        assert_eq!(log_ticks(1.0, 1e6), vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(1.0, 1e14).len(), 8);
        // Under a decade: more than two labels.
        assert!(log_ticks(1.1, 8.0).len() >= 4, "{:?}", log_ticks(1.1, 8.0));
        // Under half a decade: round steps.
        let t = log_ticks(1.0, 1.27);
        assert!(t.len() >= 4 && t.len() <= 10, "{t:?}");
        assert!(t.iter().all(|v| (v * 20.0 - (v * 20.0).round()).abs() < 1e-9), "{t:?}");
        assert_eq!(log_label(0.5), "0.5x");
        assert_eq!(log_label(1.5), "1.5x");
        assert_eq!(log_label(200.0), "200x");
        assert_eq!(log_label(20_000.0), "20kx");
        assert_eq!(log_label(5e6), "5Mx");
        assert_eq!(linear_ticks(0.0, 1.0).len(), 11);
        let t = linear_ticks(1.0, 1.3);
        assert_eq!(t.len(), 7, "{t:?}");
        assert!((t[1] - 1.05).abs() < 1e-12 && (t[6] - 1.3).abs() < 1e-12, "{t:?}");
    }

    #[test]
    fn the_legend_room_keeps_every_value_below_the_legend() {
        for (lo, hi, rows) in [(0.0, 2.5, 6), (-0.1, 2.3, 3), (0.0, 1.0, 12)] {
            let f = legend_fraction(rows, 450);
            let (a, b) = with_legend_room(lo, hi, f);
            assert_eq!(a, lo);
            // The legend covers the top `f` of the height: `hi` is at or below it.
            assert!((hi - a) / (b - a) <= 1.0 - f + 1e-12, "{lo} {hi} {rows}");
            assert!(f > 0.0 && f <= 0.6);
        }
    }

    #[test]
    fn a_later_series_is_drawn_narrower_than_an_earlier_one() {
        for n in 1..=6 {
            for i in 1..n {
                assert!(line_width(i, n) < line_width(i - 1, n), "{i} of {n}");
            }
            assert_eq!(line_width(n - 1, n), 2);
        }
    }
}
