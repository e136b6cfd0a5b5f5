//! PNG line plots for the studies (plotters, bitmap backend, the DejaVu
//! Sans font embedded so that no system font is needed).

use anyhow::anyhow;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// Font family name registered for every plot.
const FONT: &str = "sans-serif";

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

/// One named series of (x, y) points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line plot with a logarithmic (base 2) x axis.
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

/// Draw `plot` into the PNG file `path` (1000 x 600 pixels).
///
/// # Errors
/// No points, or the file cannot be written.
pub fn line_plot_log2_x(path: &Path, plot: &LinePlot) -> anyhow::Result<()> {
    register_font();
    let xs: Vec<f64> = plot.series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    let (lo, hi) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    if xs.is_empty() || lo <= 0.0 {
        return Err(anyhow!("nothing to plot for {}", path.display()));
    }
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    let draw = |e| anyhow!("cannot draw {}: {e:?}", path.display());
    root.fill(&WHITE).map_err(draw)?;
    let (l2lo, l2hi) = (lo.log2(), hi.log2().max(lo.log2() + 1.0));
    let mut chart = ChartBuilder::on(&root)
        .caption(plot.title, (FONT, 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d((l2lo - 0.2)..(l2hi + 0.2), plot.y_range.0..plot.y_range.1)
        .map_err(draw)?;
    let ticks = plot.x_ticks;
    chart
        .configure_mesh()
        .x_desc(plot.x_label)
        .y_desc(plot.y_label)
        .x_labels(((l2hi - l2lo).round() as usize + 1).max(2))
        .x_label_formatter(&|v| ticks(v.exp2()))
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 18))
        .draw()
        .map_err(draw)?;
    for (i, s) in plot.series.iter().enumerate() {
        let color = SERIES_COLORS[i % SERIES_COLORS.len()].to_rgba();
        let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x.log2(), y)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(3)))
            .map_err(draw)?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3)));
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 5, color.filled()))).map_err(draw)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(draw)?;
    root.present().map_err(|e| anyhow!("cannot write {}: {e:?}", path.display()))?;
    Ok(())
}
