//! The SVG chart: grouped bars, one group per dataset, one colour per solver × mode × thread
//! count (a hue per solver, lighter for fewer threads), and within each colour one bar per
//! machine, side by side, told apart by hatching. Every label is horizontal, and the default
//! width (800 px) is the README's.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Cell, Comparison, ComparisonRow};
use crate::cmd::bench::BenchMode;
use crate::error::{Error, Result};
use crate::SolverKind;

/// The hue of each solver in [`SolverKind::ALL`] order, so a solver keeps its colour from
/// chart to chart.
pub(crate) const SOLVER_COLORS: [RGBColor; 4] = [
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
];

/// Hues for solvers this build does not know, in order of appearance (repeating).
pub(crate) const OTHER_COLORS: [RGBColor; 4] = [
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0xe3, 0x77, 0xc2),
];

/// The fill of the machine legend's swatches (the hatching is what tells machines apart).
pub const MACHINE_SWATCH: RGBColor = RGBColor(0xa0, 0xa0, 0xa0);

/// Chart width when everything fits: the README's width.
pub(crate) const WIDTH: u32 = 800;

const MARGIN: i32 = 16;
const PLOT_LEFT: i32 = 64;
const PLOT_HEIGHT: i32 = 300;
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const MINOR_GRID: RGBColor = RGBColor(0xf0, 0xf0, 0xf0);
const AXIS_TEXT: RGBColor = RGBColor(0x44, 0x44, 0x44);

/// One colour of the chart: a solver × mode × thread count.
#[derive(Debug, Clone, PartialEq)]
struct Series {
    solver: String,
    mode: BenchMode,
    threads: usize,
    color: RGBColor,
    label: String,
}

impl Series {
    fn matches(&self, row: &ComparisonRow) -> bool {
        row.solver == self.solver && row.mode == self.mode && row.threads == self.threads
    }
}

/// A font of `px` pixels (the SVG backend writes sizes divided by 1.24).
fn font(px: f64) -> FontDesc<'static> {
    ("sans-serif", px * 1.24).into_font()
}

/// Estimated width of `text` in pixels at `px` (about 0.55 em a character; an SVG has no
/// font metrics).
fn text_width(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * px * 0.55
}

/// `color` mixed with white: `white` = 0 is the colour, 1 is white.
fn lighten(color: RGBColor, white: f64) -> RGBColor {
    let mix = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * white).round() as u8;
    RGBColor(mix(color.0), mix(color.1), mix(color.2))
}

/// The series with a rate somewhere, ordered by solver (simplest first), mode, threads; a
/// hue per solver, from light (fewest threads) to full.
fn series_of(rows: &[&ComparisonRow]) -> Vec<Series> {
    let mut solvers: Vec<&str> = Vec::new();
    for row in rows {
        if !solvers.contains(&row.solver.as_str()) {
            solvers.push(&row.solver);
        }
    }
    let kind_index = |name: &str| {
        SolverKind::from_name(name).and_then(|k| SolverKind::ALL.iter().position(|&a| a == k))
    };
    // Known solvers in `SolverKind::ALL` order, then the others as they appear.
    let mut ranked: Vec<(usize, &str)> = solvers
        .iter()
        .enumerate()
        .map(|(i, &s)| (kind_index(s).unwrap_or(SolverKind::ALL.len() + i), s))
        .collect();
    ranked.sort_unstable();
    let modes = rows.iter().any(|r| r.mode != rows[0].mode);
    let mut out = Vec::new();
    let mut others = 0;
    for (_, solver) in ranked {
        let mut variants: Vec<(u8, usize)> = rows
            .iter()
            .filter(|r| r.solver == solver)
            .map(|r| (u8::from(r.mode == BenchMode::Unique), r.threads))
            .collect();
        variants.sort_unstable();
        variants.dedup();
        let hue = match kind_index(solver) {
            Some(i) if i < SOLVER_COLORS.len() => SOLVER_COLORS[i],
            _ => {
                others += 1;
                OTHER_COLORS[(others - 1) % OTHER_COLORS.len()]
            }
        };
        let n = variants.len();
        for (k, &(unique, threads)) in variants.iter().enumerate() {
            let mode = if unique == 1 {
                BenchMode::Unique
            } else {
                BenchMode::First
            };
            let white = if n == 1 {
                0.0
            } else {
                0.6 * (n - 1 - k) as f64 / (n - 1) as f64
            };
            let plural = if threads == 1 { "" } else { "s" };
            let label = if modes {
                format!("{solver} · {mode} · {threads} thread{plural}")
            } else {
                format!("{solver} · {threads} thread{plural}")
            };
            out.push(Series {
                solver: solver.to_string(),
                mode,
                threads,
                color: lighten(hue, white),
                label,
            });
        }
    }
    out
}

/// Hatching of machine `m`'s bars: none for the first, then `/`, `\`, both, repeating.
fn hatch(m: usize) -> (bool, bool) {
    match m % 4 {
        0 => (false, false),
        1 => (true, false),
        2 => (false, true),
        _ => (true, true),
    }
}

/// The hatching lines of machine `m` over the rectangle `(x0, y0)`–`(x1, y1)`.
fn hatch_lines(m: usize, (x0, y0): (i32, i32), (x1, y1): (i32, i32)) -> Vec<[(i32, i32); 2]> {
    const STEP: usize = 5;
    let (slash, backslash) = hatch(m);
    let mut lines = Vec::new();
    if slash {
        // x + y = c, from the bottom left to the top right.
        for c in (x0 + y0 + 2..x1 + y1 - 1).step_by(STEP) {
            let (a, b) = ((c - y1).max(x0), (c - y0).min(x1));
            if b > a {
                lines.push([(a, c - a), (b, c - b)]);
            }
        }
    }
    if backslash {
        // x - y = c, from the top left to the bottom right.
        for c in (x0 - y1 + 2..x1 - y0 - 1).step_by(STEP) {
            let (a, b) = ((c + y0).max(x0), (c + y1).min(x1));
            if b > a {
                lines.push([(a, a - c), (b, b - c)]);
            }
        }
    }
    lines
}

/// The rate axis: bottom and top in axis units (log10 of the rate in log mode), and the
/// labelled ticks.
fn rate_axis(min_rate: f64, max_rate: f64, log: bool) -> (f64, f64, Vec<f64>) {
    if log {
        // From the decade under the slowest rate to the first 1, 2 or 5 × 10^k over the
        // fastest, labelled at every decade and at the top.
        let low = min_rate.log10().floor();
        let room = max_rate * 1.05;
        let magnitude = 10f64.powf(room.log10().floor());
        let top = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|s| s * magnitude)
            .find(|&s| s >= room)
            .unwrap_or(10.0 * magnitude);
        // Rows are finite (`report` refuses others), but a rate near `f64::MAX` has no room
        // above it: the axis stops at the largest decade.
        let high = top.log10().min(f64::MAX.log10()).max(low + 1.0);
        let mut ticks: Vec<f64> = (0..=(high - low + 1e-9) as usize)
            .map(|k| low + k as f64)
            .collect();
        if ticks.last().is_some_and(|&t| high - t > 1e-9) {
            ticks.push(high);
        }
        (low, high, ticks)
    } else {
        let raw = max_rate / 5.0;
        let magnitude = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|s| s * magnitude)
            .find(|&s| s >= raw)
            .unwrap_or(10.0 * magnitude);
        let top = (max_rate * 1.02 / step).ceil() * step;
        let ticks = (0..=(top / step).round() as usize)
            .map(|k| k as f64 * step)
            .collect();
        (0.0, top, ticks)
    }
}

/// Shortens `text` with an ellipsis to fit `width` pixels at `px`.
fn fit(text: &str, px: f64, width: f64) -> String {
    if text_width(text, px) <= width {
        return text.to_string();
    }
    let keep = ((width / (px * 0.55)) as usize).saturating_sub(1).max(1);
    let mut short: String = text.chars().take(keep).collect();
    short.push('…');
    short
}

/// Title text size in pixels.
const TITLE_PX: f64 = 18.0;
/// Legend text size in pixels.
const LEGEND_PX: f64 = 13.0;
/// The top of the plot area: room for the title and the rate axis's name.
const PLOT_TOP: i32 = 76;
/// The bars' common baseline.
const PLOT_BOTTOM: i32 = PLOT_TOP + PLOT_HEIGHT;
/// The top of the legends: room under the plot for the dataset labels.
const LEGEND_TOP: i32 = PLOT_BOTTOM + 40;
/// One legend line.
const LINE_HEIGHT: i32 = 22;

/// What the chart shows: the rows with a rate, their datasets in order of first appearance,
/// the series, and the machines (columns of the comparison) with a rate somewhere.
struct ChartData<'a> {
    comparison: &'a Comparison,
    rows: Vec<&'a ComparisonRow>,
    datasets: Vec<&'a str>,
    series: Vec<Series>,
    machines: Vec<usize>,
    /// The configurations measured as not `ok` (timed out, wrong, failed, skipped), which
    /// have no bar: one note each, listed under the legends.
    unmeasured: Vec<String>,
}

/// At most this many notes on configurations without a bar; the rest are counted.
const MAX_NOTES: usize = 6;

impl<'a> ChartData<'a> {
    fn of(comparison: &'a Comparison) -> Self {
        let rows: Vec<&ComparisonRow> = comparison
            .rows
            .iter()
            .filter(|r| r.cells.iter().any(|c| c.rate().is_some()))
            .collect();
        let mut datasets: Vec<&str> = Vec::new();
        for row in &rows {
            if !datasets.contains(&row.dataset.as_str()) {
                datasets.push(&row.dataset);
            }
        }
        let series = series_of(&rows);
        let machines: Vec<usize> = (0..comparison.machines.len())
            .filter(|&m| {
                rows.iter()
                    .any(|r| r.cells.get(m).and_then(|c| c.rate()).is_some())
            })
            .collect();
        let several = comparison.machines.len() > 1;
        let modes = comparison
            .rows
            .iter()
            .any(|r| r.mode != comparison.rows[0].mode);
        let mut unmeasured = Vec::new();
        for row in &comparison.rows {
            for (m, cell) in row.cells.iter().enumerate() {
                if let Cell::NotMeasured(status) = cell {
                    let mode = if modes {
                        format!(" · {}", row.mode)
                    } else {
                        String::new()
                    };
                    let machine = if several {
                        format!(" on {}", comparison.machines[m].label())
                    } else {
                        String::new()
                    };
                    let plural = if row.threads == 1 { "" } else { "s" };
                    unmeasured.push(format!(
                        "{} · {}{mode} · {} thread{plural}{machine}: {status}",
                        row.dataset, row.solver, row.threads
                    ));
                }
            }
        }
        ChartData {
            comparison,
            rows,
            datasets,
            series,
            machines,
            unmeasured,
        }
    }

    /// The note lines on configurations without a bar: up to [`MAX_NOTES`], then a count.
    fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self
            .unmeasured
            .iter()
            .take(MAX_NOTES)
            .map(|n| format!("not measured: {n}"))
            .collect();
        if self.unmeasured.len() > MAX_NOTES {
            notes.push(format!(
                "and {} more not measured (see the table)",
                self.unmeasured.len() - MAX_NOTES
            ));
        }
        notes
    }

    /// Machine `m`'s legend text, marked as the baseline when there are several.
    fn machine_label(&self, m: usize) -> String {
        let note = if m == self.comparison.baseline && self.machines.len() > 1 {
            " (baseline)"
        } else {
            ""
        };
        format!("{}{note}", self.comparison.machines[m].label())
    }

    /// Every measured rate.
    fn rates(&self) -> impl Iterator<Item = f64> + '_ {
        self.rows
            .iter()
            .flat_map(|r| r.cells.iter().filter_map(|c| c.rate()))
    }
}

/// Where everything goes, in pixels: the chart's size, the series' places within a dataset's
/// group, and the legend's grid.
struct Layout {
    width: i32,
    height: i32,
    plot_right: i32,
    plot_width: f64,
    /// Each series' left edge within a group, in series widths.
    offsets: Vec<f64>,
    /// A group's width in series widths, gaps included.
    units: f64,
    /// Each series' legend cell: (column, line).
    cells: Vec<(usize, usize)>,
    column_width: f64,
    series_lines: i32,
    /// Where the notes on configurations without a bar start.
    notes_top: i32,
}

impl Layout {
    fn of(data: &ChartData<'_>, title: &str) -> Layout {
        let (offsets, units) = series_offsets(&data.series);
        let groups = data.datasets.len().max(1);
        let min_plot = groups as f64 * units * (data.machines.len() as f64 * 4.0 + 1.0) / 0.9;
        let width = (f64::from(WIDTH)
            .max(min_plot + f64::from(PLOT_LEFT + MARGIN))
            .max(text_width(title, TITLE_PX) + 2.0 * f64::from(MARGIN)))
        .min(4000.0)
        .round() as i32;
        let plot_right = width - MARGIN;
        let cells = legend_cells(&data.series, width);
        let columns = cells.iter().map(|c| c.0 + 1).max().unwrap_or(1);
        let series_lines = cells.iter().map(|c| c.1 as i32 + 1).max().unwrap_or(1);
        let machine_lines = if data.machines.len() > 1 {
            data.machines.len()
        } else {
            1
        } as i32;
        let notes_top = LEGEND_TOP + (series_lines + machine_lines) * LINE_HEIGHT + 8;
        let notes = data.notes().len() as i32;
        Layout {
            width,
            height: notes_top + notes * LINE_HEIGHT + MARGIN,
            plot_right,
            plot_width: f64::from(plot_right - PLOT_LEFT),
            offsets,
            units,
            cells,
            column_width: f64::from(width - 2 * MARGIN) / columns as f64,
            series_lines,
            notes_top,
        }
    }
}

/// Horizontal layout, in units of one series' width: a small gap between the thread counts of
/// a solver, a wider one between solvers. Each series' offset, and the total.
fn series_offsets(series: &[Series]) -> (Vec<f64>, f64) {
    let mut offsets = Vec::with_capacity(series.len());
    let mut units = 0.0;
    for (s, one) in series.iter().enumerate() {
        if s > 0 {
            units += if series[s - 1].solver == one.solver {
                0.12
            } else {
                0.35
            };
        }
        offsets.push(units);
        units += 1.0;
    }
    (offsets, units)
}

/// The series legend's grid, as (column, line) per series: a column per solver when they fit
/// across `width`, else entries left to right, line by line.
fn legend_cells(series: &[Series], width: i32) -> Vec<(usize, usize)> {
    let entry_width = series
        .iter()
        .map(|s| text_width(&s.label, LEGEND_PX))
        .fold(0.0, f64::max)
        + 36.0;
    let fit_columns = ((f64::from(width - 2 * MARGIN) / entry_width) as usize).max(1);
    let mut solver_of = Vec::with_capacity(series.len());
    let mut within = Vec::with_capacity(series.len());
    for (s, one) in series.iter().enumerate() {
        let new = s == 0 || series[s - 1].solver != one.solver;
        let column = solver_of
            .last()
            .map_or(0, |&c: &usize| c + usize::from(new));
        within.push(if new { 0 } else { within[s - 1] + 1 });
        solver_of.push(column);
    }
    let solver_columns = solver_of.last().map_or(1, |&c| c + 1);
    if solver_columns <= fit_columns {
        solver_of.into_iter().zip(within).collect()
    } else {
        (0..series.len())
            .map(|i| (i % fit_columns, i / fit_columns))
            .collect()
    }
}

/// The rate axis as drawn: its ends and ticks in axis units (log10 of the rate on a log
/// scale), and the mapping from a rate to a height in pixels.
struct RateAxis {
    low: f64,
    high: f64,
    ticks: Vec<f64>,
    log: bool,
}

impl RateAxis {
    fn new(data: &ChartData<'_>, log: bool) -> Self {
        let max_rate = data.rates().fold(0.0f64, f64::max).max(1.0);
        let min_rate = data
            .rates()
            .fold(f64::INFINITY, f64::min)
            .clamp(1e-3, max_rate);
        let (low, high, ticks) = rate_axis(min_rate, max_rate, log);
        RateAxis {
            low,
            high,
            ticks,
            log,
        }
    }

    /// A rate in axis units.
    fn to_axis(&self, rate: f64) -> f64 {
        if self.log {
            rate.max(1e-3).log10()
        } else {
            rate
        }
    }

    /// The height in pixels of `v` in axis units.
    fn y(&self, v: f64) -> i32 {
        let share = ((v - self.low) / (self.high - self.low)).clamp(0.0, 1.0);
        (f64::from(PLOT_BOTTOM) - share * f64::from(PLOT_HEIGHT)).round() as i32
    }
}

/// The SVG drawing area, drawn into a string, and the file it is for, which every drawing
/// error names.
struct Canvas<'a> {
    root: DrawingArea<SVGBackend<'a>, Shift>,
    path: &'a Path,
}

impl<'a> Canvas<'a> {
    fn new(svg: &'a mut String, path: &'a Path, width: i32, height: i32) -> Self {
        let root = SVGBackend::with_string(svg, (width as u32, height as u32)).into_drawing_area();
        Canvas { root, path }
    }

    fn fail(&self, error: impl std::fmt::Display) -> Error {
        Error::Write {
            path: self.path.to_path_buf(),
            cause: std::io::Error::other(error.to_string()),
        }
    }

    fn fill(&self, color: RGBColor) -> Result<()> {
        self.root.fill(&color).map_err(|e| self.fail(e))
    }

    fn text(&self, text: &str, at: (i32, i32), px: f64, color: RGBColor, pos: Pos) -> Result<()> {
        let style = TextStyle::from(font(px)).color(&color).pos(pos);
        self.root
            // On one line, without control characters, which XML does not allow.
            .draw(&Text::new(crate::cmd::bench::one_line(text), at, style))
            .map_err(|e| self.fail(e))
    }

    fn line(&self, points: Vec<(i32, i32)>, style: impl Into<ShapeStyle>) -> Result<()> {
        self.root
            .draw(&PathElement::new(points, style))
            .map_err(|e| self.fail(e))
    }

    fn rect(&self, corners: [(i32, i32); 2], style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&Rectangle::new(corners, style))
            .map_err(|e| self.fail(e))
    }

    /// Machine `k`'s hatching over the rectangle `from`–`to`.
    fn hatch(&self, k: usize, from: (i32, i32), to: (i32, i32)) -> Result<()> {
        for line in hatch_lines(k, from, to) {
            self.line(line.to_vec(), WHITE.stroke_width(2))?;
        }
        Ok(())
    }

    fn present(&self) -> Result<()> {
        self.root.present().map_err(|e| self.fail(e))
    }
}

/// Text anchored at its top left.
fn left_top() -> Pos {
    Pos::new(HPos::Left, VPos::Top)
}

/// Text anchored at its top centre.
fn centre_top() -> Pos {
    Pos::new(HPos::Center, VPos::Top)
}

/// Text anchored at the middle of its left edge.
fn left_centre() -> Pos {
    Pos::new(HPos::Left, VPos::Center)
}

/// Draws the chart of `comparison` to `path`: one group per dataset (in order of first
/// appearance, which for `bench` output is the suite's order), one colour per series, one
/// bar per machine with a rate within each colour, a legend of the series and, when there
/// are several machines, of the machines' hatching.
/// Draws the chart of `comparison` into the SVG file `path`, whole or not at all (written to
/// `FILE.partial` and renamed, as every output is).
pub(crate) fn draw_svg(comparison: &Comparison, path: &Path, title: &str, log: bool) -> Result<()> {
    let data = ChartData::of(comparison);
    let layout = Layout::of(&data, title);
    let mut svg = String::new();
    {
        let canvas = Canvas::new(&mut svg, path, layout.width, layout.height);
        draw(&canvas, &data, &layout, title, log)?;
        canvas.present()?;
    }
    let options = crate::io::output::OutputOptions {
        flag: Some("--svg"),
        ..Default::default()
    };
    let mut output = crate::io::output::Output::create_with(Some(path), &options)?;
    output.write_all(svg.as_bytes())?;
    output.finish()
}

/// Everything on the chart: the title, then the axis, bars and legends (or a note that there
/// is nothing to chart).
fn draw(
    canvas: &Canvas<'_>,
    data: &ChartData<'_>,
    layout: &Layout,
    title: &str,
    log: bool,
) -> Result<()> {
    canvas.fill(WHITE)?;
    canvas.text(
        title,
        (layout.width / 2, MARGIN),
        TITLE_PX,
        BLACK,
        centre_top(),
    )?;
    if data.series.is_empty() || data.machines.is_empty() {
        canvas.text(
            "no measured rates to chart",
            (layout.width / 2, PLOT_TOP + PLOT_HEIGHT / 2),
            14.0,
            AXIS_TEXT,
            centre_top(),
        )?;
    } else {
        let axis = RateAxis::new(data, log);
        draw_rate_axis(canvas, layout, &axis)?;
        draw_bars(canvas, data, layout, &axis)?;
        draw_legends(canvas, data, layout)?;
    }
    draw_notes(canvas, data, layout)
}

/// The notes on configurations measured as not `ok`, which have no bar, under the legends.
fn draw_notes(canvas: &Canvas<'_>, data: &ChartData<'_>, layout: &Layout) -> Result<()> {
    let width = f64::from(layout.width - 2 * MARGIN);
    for (k, note) in data.notes().iter().enumerate() {
        canvas.text(
            &fit(note, LEGEND_PX, width),
            (MARGIN, layout.notes_top + k as i32 * LINE_HEIGHT),
            LEGEND_PX,
            AXIS_TEXT,
            left_top(),
        )?;
    }
    Ok(())
}

/// The rate axis: its name above it, minor grid lines on a log scale, and the horizontal grid
/// lines with their labels.
fn draw_rate_axis(canvas: &Canvas<'_>, layout: &Layout, axis: &RateAxis) -> Result<()> {
    let axis_name = if axis.log {
        "puzzles per second (log scale, higher is better)"
    } else {
        "puzzles per second (higher is better)"
    };
    canvas.text(
        axis_name,
        (MARGIN, PLOT_TOP - 28),
        13.0,
        AXIS_TEXT,
        left_top(),
    )?;
    let across = |y: i32| vec![(PLOT_LEFT, y), (layout.plot_right, y)];
    if axis.log {
        for decade in axis.low as i32..axis.high.ceil() as i32 {
            for minor in [2.0f64, 5.0] {
                let v = f64::from(decade) + minor.log10();
                if v < axis.high - 1e-9 {
                    canvas.line(across(axis.y(v)), MINOR_GRID)?;
                }
            }
        }
    }
    for (i, &tick) in axis.ticks.iter().enumerate() {
        let y = axis.y(tick);
        canvas.line(across(y), GRID)?;
        // A log axis's top (2 or 5 × 10^k) goes unlabelled when it would crowd the decade.
        if axis.log && i > 0 && tick - axis.ticks[i - 1] < 0.5 {
            continue;
        }
        let rate = if axis.log { 10f64.powf(tick) } else { tick };
        canvas.text(
            &format_rate(rate),
            (PLOT_LEFT - 8, y),
            12.0,
            AXIS_TEXT,
            Pos::new(HPos::Right, VPos::Center),
        )?;
    }
    Ok(())
}

/// The bars: a group per dataset with its label under it, in each a run of adjacent machine
/// bars per series, each bar hatched by machine and, when every value fits over its bar,
/// labelled with its rate; then the baseline.
fn draw_bars(
    canvas: &Canvas<'_>,
    data: &ChartData<'_>,
    layout: &Layout,
    axis: &RateAxis,
) -> Result<()> {
    let machines = &data.machines;
    let group_width = layout.plot_width / data.datasets.len().max(1) as f64;
    let series_width = group_width * 0.9 / layout.units;
    let bar_width = series_width / machines.len() as f64;
    let machine_gap = if machines.len() > 1 { 1 } else { 0 };
    let label_px = 14.0;
    // Values over the bars when every one fits over its bar (the gap between thread counts
    // is the least room between two labels).
    let value_px = 9.5;
    let values = data
        .rows
        .iter()
        .flat_map(|r| machines.iter().filter_map(|&m| r.cells.get(m)?.rate()))
        // Digits are wider than the average character.
        .map(|rate| format_rate(rate).chars().count() as f64 * value_px * 0.6)
        .fold(0.0, f64::max)
        <= bar_width
            + if machines.len() > 1 {
                0.0
            } else {
                0.12 * series_width
            }
            - 2.0;
    for (g, dataset) in data.datasets.iter().enumerate() {
        let group_left = f64::from(PLOT_LEFT) + g as f64 * group_width + group_width * 0.05;
        for (one, offset) in data.series.iter().zip(&layout.offsets) {
            let Some(row) = data
                .rows
                .iter()
                .find(|r| r.dataset == *dataset && one.matches(r))
            else {
                continue;
            };
            let series_left = group_left + offset * series_width;
            for (k, &m) in machines.iter().enumerate() {
                let Some(rate) = row.cells.get(m).and_then(|c| c.rate()) else {
                    continue;
                };
                let x0 = (series_left + k as f64 * bar_width).round() as i32;
                let x1 = ((series_left + (k + 1) as f64 * bar_width).round() as i32 - machine_gap)
                    .max(x0 + 1);
                let top = axis.y(axis.to_axis(rate)).min(PLOT_BOTTOM - 1);
                canvas.rect([(x0, top), (x1, PLOT_BOTTOM)], one.color.filled())?;
                canvas.hatch(k, (x0, top), (x1, PLOT_BOTTOM))?;
                if values {
                    canvas.text(
                        &format_rate(rate),
                        ((x0 + x1) / 2, top - 2),
                        value_px,
                        AXIS_TEXT,
                        Pos::new(HPos::Center, VPos::Bottom),
                    )?;
                }
            }
        }
        let centre = (f64::from(PLOT_LEFT) + (g as f64 + 0.5) * group_width).round() as i32;
        canvas.text(
            &fit(dataset, label_px, group_width * 0.95),
            (centre, PLOT_BOTTOM + 8),
            label_px,
            BLACK,
            centre_top(),
        )?;
    }
    canvas.line(
        vec![(PLOT_LEFT, PLOT_BOTTOM), (layout.plot_right, PLOT_BOTTOM)],
        BLACK,
    )
}

/// The legends: a swatch per series in the layout's grid, then a hatched swatch per machine
/// when there are several, else the one machine's name.
fn draw_legends(canvas: &Canvas<'_>, data: &ChartData<'_>, layout: &Layout) -> Result<()> {
    for (one, &(column, line)) in data.series.iter().zip(&layout.cells) {
        let x = MARGIN + (layout.column_width * column as f64).round() as i32;
        let y = LEGEND_TOP + line as i32 * LINE_HEIGHT;
        canvas.rect([(x, y), (x + 14, y + 14)], one.color.filled())?;
        canvas.text(&one.label, (x + 20, y + 7), LEGEND_PX, BLACK, left_centre())?;
    }
    let machines_top = LEGEND_TOP + layout.series_lines * LINE_HEIGHT + 8;
    if data.machines.len() > 1 {
        for (k, &m) in data.machines.iter().enumerate() {
            let (x, y) = (MARGIN, machines_top + k as i32 * LINE_HEIGHT);
            canvas.rect([(x, y), (x + 14, y + 14)], MACHINE_SWATCH.filled())?;
            canvas.hatch(k, (x, y), (x + 14, y + 14))?;
            let label = data.machine_label(m);
            canvas.text(&label, (x + 20, y + 7), LEGEND_PX, BLACK, left_centre())?;
        }
        Ok(())
    } else {
        canvas.text(
            &format!("machine: {}", data.machine_label(data.machines[0])),
            (MARGIN, machines_top),
            LEGEND_PX,
            AXIS_TEXT,
            left_top(),
        )
    }
}

/// A rate with a k/M suffix: 950, 12.5k, 1.2M.
pub(crate) fn format_rate(rate: f64) -> String {
    if rate >= 1e6 {
        let text = format!("{:.1}M", rate / 1e6);
        text.replace(".0M", "M")
    } else if rate >= 1e4 {
        format!("{:.0}k", rate / 1e3)
    } else if rate >= 1e3 {
        let text = format!("{:.1}k", rate / 1e3);
        text.replace(".0k", "k")
    } else if rate >= 1.0 || rate == 0.0 {
        format!("{rate:.0}")
    } else {
        format!("{rate:.2}")
    }
}
