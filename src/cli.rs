//! Command-line interface: the clap derive types, and their conversion into the library's plain
//! configurations. The only module that knows clap.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cmd::bench::{self, BenchConfig};
use crate::cmd::generate::{GenerateConfig, Shape, Symmetry, MIN_UNIQUE_CLUES};
use crate::cmd::merge::MergeConfig;
use crate::cmd::report::{ReportConfig, ReportFormat};
use crate::cmd::solve::SolveConfig;
use crate::cmd::verify::VerifyConfig;
use crate::io::reader::{Format, ReadOptions};
use crate::io::Input;
use crate::run::default_threads;
use crate::shard::{Shard, ShardChoice};
use crate::solver::SolverKind;
use crate::Command;

/// Solve Sudoku puzzles in bulk, fast, on all cores, and measure how fast.
#[derive(Debug, Parser)]
#[command(name = "sudoku-batch", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: CliCommand,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Solve every puzzle of the inputs and write one CSV row per record, in input order.
    ///
    /// Exit status: 0 when every record was solved, 1 when some were not (unsolvable, multiple,
    /// invalid, mismatch) or there were none, 2 on usage or I/O errors, 130 when stopped by
    /// Ctrl-C (rows so far kept in FILE.partial for --resume).
    Solve(SolveArgs),

    /// Measure solver throughput: datasets × solvers × thread counts, median of timed passes.
    ///
    /// With no INPUT, runs the built-in graded suite. Prints a Markdown table; `--csv` appends
    /// rows with machine metadata for `report`.
    Bench(BenchArgs),

    /// Compare `bench --csv` results from many runs and machines in one table (and chart).
    Report(ReportArgs),
    /// Merge the outputs of `solve --shard` runs back into input order (by the `index` column)
    /// and combine their summaries.
    ///
    /// Exit status: 0 when every row is `solved` and no index is missing, 1 otherwise, 2 on
    /// errors (unreadable input, rows out of order, an index in two inputs).
    Merge(MergeArgs),
    /// Generate puzzles with exactly one solution, reproducibly from a seed.
    ///
    /// Each puzzle is proven unique by the solver before it is written. The same seed and options
    /// give the same bytes on any machine, with any thread count and any solver. Without clue
    /// options the puzzles are minimal (no clue can be removed without losing uniqueness).
    ///
    /// Exit status: 0 when every puzzle was written, 2 on usage or I/O errors.
    Generate(GenerateArgs),
    /// Check solution files: each row's solution must be a complete grid that obeys the rules
    /// and keeps every clue of its puzzle (and, with --unique, the puzzle must have exactly one
    /// solution).
    ///
    /// Reads CSVs with a header (Kaggle's quizzes,solutions; puzzle,solution; solve's own
    /// output) and line files `puzzle<sep>solution` (sep: whitespace, `,` or `:`; ids, counts
    /// and ratings around them are allowed). Rows that give no solution (solve's rows whose
    /// status is not `solved`, `puzzle:0` lines) are skipped and counted, unless
    /// --require-solution. Prints a summary and the first failures as `file:line: kind: reason`.
    ///
    /// Exit status: 0 when every checked row passed (and at least one was checked), 1 when some
    /// failed or none was checked, 2 on usage or I/O errors.
    Verify(VerifyArgs),
}

/// Input layout choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Decide from each input's content.
    Auto,
    /// One puzzle per line (the first 81-cell token; ids and trailing text allowed).
    Lines,
    /// CSV with a header naming the puzzle column.
    Csv,
    /// 9 rows of 9 cells per puzzle (`|`, `-`, `+`, spaces allowed), blocks separated by blank
    /// lines or headers such as `Grid 01` (Project Euler 96).
    Grid,
}

impl From<FormatArg> for Format {
    fn from(arg: FormatArg) -> Format {
        match arg {
            FormatArg::Auto => Format::Auto,
            FormatArg::Lines => Format::Lines,
            FormatArg::Csv => Format::Csv,
            FormatArg::Grid => Format::Grid,
        }
    }
}

/// Options shared by commands that read puzzle files.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Input files, read in order; `-` or none reads standard input. gzip, zstd and zip are
    /// recognised by content and decompressed on the fly; `ARCHIVE.zip:MEMBER` reads one member.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Input layout.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,

    /// CSV puzzle column, by header name or 1-based number (default: puzzle, quizzes, quiz,
    /// sudoku or grid).
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<String>,
}

impl InputArgs {
    /// The inputs (stdin when none) and read options.
    pub fn to_inputs(&self) -> (Vec<Input>, ReadOptions) {
        let inputs = if self.inputs.is_empty() {
            vec![Input::Stdin]
        } else {
            self.inputs.iter().map(|p| Input::from_arg(p)).collect()
        };
        (
            inputs,
            ReadOptions {
                format: self.format.into(),
                column: self.column.clone(),
            },
        )
    }
}

/// Parses a solver name, listing the valid ones on error.
pub fn parse_solver(name: &str) -> Result<SolverKind, String> {
    SolverKind::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = SolverKind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "unknown solver {name:?}; choose one of: {}",
            names.join(", ")
        )
    })
}

fn solver_help() -> String {
    let lines: Vec<String> = SolverKind::ALL
        .iter()
        .map(|k| format!("{}: {}", k.name(), k.description()))
        .collect();
    format!(
        "Solver [default: {}]. {}",
        SolverKind::default().name(),
        lines.join("; ")
    )
}

/// `solve` options.
#[derive(Debug, Clone, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Write the result CSV here (written to FILE.partial, renamed when complete) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Solver threads [default: all logical cores].
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    #[arg(long, value_name = "NAME", value_parser = parse_solver, help = solver_help())]
    pub solver: Option<SolverKind>,

    /// Prove uniqueness (solution limit 2): puzzles with several solutions get status `multiple`.
    #[arg(long)]
    pub unique: bool,

    /// Also write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// No progress bar and no summary on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// Process only shard K of N (K is 1-based): the records whose 0-based index i has
    /// i % N == K-1; rows keep their global index. Without it, K and N come from a Slurm job
    /// array (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1, SLURM_ARRAY_TASK_COUNT) or a
    /// Kubernetes Indexed Job (JOB_COMPLETION_INDEX + 1, SUDOKU_BATCH_SHARDS) when set;
    /// `--shard 1/1` turns sharding off.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,

    /// Continue an interrupted run: keep the rows already in FILE.partial (checked against the
    /// input; a torn last row is dropped), append the rest. Needs -o FILE.
    #[arg(long, requires = "output")]
    pub resume: bool,
}

impl SolveArgs {
    /// The plain configuration.
    pub fn into_config(self) -> SolveConfig {
        let (inputs, read) = self.input.to_inputs();
        SolveConfig {
            inputs,
            read,
            output: self.output,
            summary_json: self.summary,
            threads: self.threads.map_or_else(default_threads, usize::from),
            solver: self.solver.unwrap_or_default(),
            unique: self.unique,
            quiet: self.quiet,
            shard: self
                .shard
                .map_or(ShardChoice::FromEnvironment, ShardChoice::Only),
            resume: self.resume,
        }
    }
}

/// `merge` options.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The shards' result CSVs, in any order.
    #[arg(value_name = "SHARD_CSV", required = true)]
    pub inputs: Vec<PathBuf>,

    /// Write the combined CSV here (via FILE.partial, renamed when complete) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write the combined summary as JSON to FILE (counts and solve-time percentiles are
    /// recomputed from the rows).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// A shard's JSON summary (`solve --summary`); repeat for each shard. Gives the combined
    /// summary its solver, threads (summed) and wall time (the longest shard's).
    #[arg(long = "shard-summary", value_name = "JSON")]
    pub shard_summaries: Vec<PathBuf>,
}

impl MergeArgs {
    /// The plain configuration.
    pub fn into_config(self) -> MergeConfig {
        MergeConfig {
            inputs: self.inputs,
            output: self.output,
            summary_json: self.summary,
            shard_summaries: self.shard_summaries,
        }
    }
}

/// Parses a number of seconds (fractions allowed, not negative).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(value).map_err(|_| format!("{text:?} is not a duration in seconds"))
}

/// `bench` options.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Puzzle files, each one dataset (`-` reads standard input); none runs the built-in suite.
    #[arg(value_name = "INPUT", long_help = format!(
        "Puzzle files, each one dataset (`-` reads standard input); only valid puzzles are \
         kept. None runs the built-in suite: {}.", bench::SUITE_HELP))]
    pub inputs: Vec<PathBuf>,

    /// Input layout.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,

    /// CSV puzzle column, by header name or 1-based number.
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<String>,

    /// Solvers to measure, comma-separated [default: all].
    #[arg(long, value_name = "A,B", value_delimiter = ',', value_parser = parse_solver)]
    pub solvers: Vec<SolverKind>,

    /// Thread counts, comma-separated [default: 1 and all logical cores].
    #[arg(short = 'j', long, value_name = "N,M", value_delimiter = ',',
          value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Vec<u16>,

    /// Warm-up time per configuration, seconds.
    #[arg(long, value_name = "SECONDS", default_value = "1", value_parser = parse_seconds)]
    pub warmup: Duration,

    /// Least total time of the timed passes per configuration, seconds.
    #[arg(long, value_name = "SECONDS", default_value = "3", value_parser = parse_seconds)]
    pub min_time: Duration,

    /// Least number of timed passes per configuration.
    #[arg(long, value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,

    /// Skip a solver on a dataset when one single-thread pass takes longer than this, seconds
    /// (reported as `skipped`; keeps slow solvers like `naive` from stalling the suite).
    #[arg(long, value_name = "SECONDS", default_value = "2", value_parser = parse_seconds)]
    pub max_pass: Duration,

    /// Prove uniqueness (solution limit 2), as tdoku's benchmark does; default: first solution.
    #[arg(long)]
    pub unique: bool,

    /// Seed of the random equivalence transforms applied to the puzzles on every pass.
    #[arg(long, value_name = "SEED", default_value_t = bench::DEFAULT_SEED,
          conflicts_with = "no_permute")]
    pub permute: u64,

    /// Solve the puzzles as given, without equivalence transforms.
    #[arg(long)]
    pub no_permute: bool,

    /// Append the rows, with machine metadata, to this CSV file (header written once).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write the rows, with machine metadata, as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

impl BenchArgs {
    /// The plain configuration.
    pub fn into_config(self) -> BenchConfig {
        BenchConfig {
            inputs: self.inputs.iter().map(|p| Input::from_arg(p)).collect(),
            read: ReadOptions {
                format: self.format.into(),
                column: self.column,
            },
            solvers: self.solvers,
            threads: self.threads.into_iter().map(usize::from).collect(),
            warmup: self.warmup,
            min_time: self.min_time,
            runs: self.runs as usize,
            max_pass: self.max_pass,
            unique: self.unique,
            permute: (!self.no_permute).then_some(self.permute),
            csv: self.csv,
            json: self.json,
            quiet: self.quiet,
        }
    }
}

/// Output formats of `report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormatArg {
    /// A Markdown table.
    Markdown,
    /// CSV: one row per configuration, two columns (puzzles/s, ratio) per machine.
    Csv,
}

/// `report` options.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Results CSV files written by `bench --csv` (for example data/results/*.csv).
    #[arg(value_name = "RESULTS.csv", required = true)]
    pub files: Vec<PathBuf>,

    /// The machine the ratios are relative to: a hostname, or text found in `hostname (CPU)`
    /// [default: the first machine read].
    #[arg(long, value_name = "MACHINE")]
    pub baseline: Option<String>,

    /// Table format on stdout.
    #[arg(long, value_enum, default_value_t = ReportFormatArg::Markdown)]
    pub format: ReportFormatArg,

    /// Also draw the comparison as an SVG bar chart in FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Logarithmic puzzles/s axis in the chart.
    #[arg(long)]
    pub log: bool,

    /// Chart title.
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

impl ReportArgs {
    /// The plain configuration.
    pub fn into_config(self) -> ReportConfig {
        ReportConfig {
            files: self.files,
            baseline: self.baseline,
            format: match self.format {
                ReportFormatArg::Markdown => ReportFormat::Markdown,
                ReportFormatArg::Csv => ReportFormat::Csv,
            },
            svg: self.svg,
            log_scale: self.log,
            title: self.title,
        }
    }
}

/// Parses a symmetry name, listing the valid ones on error.
pub fn parse_symmetry(name: &str) -> Result<Symmetry, String> {
    Symmetry::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Symmetry::ALL.iter().map(|s| s.name()).collect();
        format!(
            "unknown symmetry {name:?}; choose one of: {}",
            names.join(", ")
        )
    })
}

/// `generate` options.
#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// How many puzzles to make.
    #[arg(short = 'n', long = "count", value_name = "COUNT")]
    pub count: u64,

    /// Seed: the same seed and options give the same output anywhere [default: drawn from the
    /// clock, and printed in the summary].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,

    /// Exactly N clues per puzzle.
    #[arg(long, value_name = "N", conflicts_with_all = ["min_clues", "max_clues"])]
    pub clues: Option<usize>,

    /// At least N clues per puzzle [default: 17]. With --max-clues, each puzzle's clue count is
    /// drawn from the range.
    #[arg(long, value_name = "N")]
    pub min_clues: Option<usize>,

    /// At most N clues per puzzle [default: 81].
    #[arg(long, value_name = "N")]
    pub max_clues: Option<usize>,

    /// Minimal puzzles: no clue (no symmetric group of clues, with --symmetry) can be removed
    /// without losing uniqueness. The default when no clue count is given; with --clues or a
    /// range, puzzles must be minimal and in range.
    #[arg(long)]
    pub minimal: bool,

    /// Symmetry of the clue pattern: none, central (half turn), quarter (quarter turn),
    /// diagonal, antidiagonal, horizontal (mirror top/bottom), vertical (mirror left/right),
    /// dihedral (all eight).
    #[arg(long, value_name = "NAME", value_parser = parse_symmetry, default_value = "none")]
    pub symmetry: Symmetry,

    /// Write CSV `puzzle,solution,clues` (with a header) instead of one puzzle per line.
    #[arg(long)]
    pub with_solution: bool,

    /// Write to FILE (written to FILE.partial, renamed when complete) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Worker threads [default: all logical cores]. Does not change the output.
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    #[arg(long, value_name = "NAME", value_parser = parse_solver, help = solver_help())]
    pub solver: Option<SolverKind>,

    /// No progress bar and no summary on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

impl GenerateArgs {
    /// The plain configuration.
    pub fn into_config(self) -> GenerateConfig {
        let (min_clues, max_clues) = match self.clues {
            Some(n) => (n, n),
            None => (
                self.min_clues.unwrap_or(MIN_UNIQUE_CLUES),
                self.max_clues.unwrap_or(81),
            ),
        };
        let counts_given =
            self.clues.is_some() || self.min_clues.is_some() || self.max_clues.is_some();
        GenerateConfig {
            count: self.count,
            seed: self.seed,
            shape: Shape {
                min_clues,
                max_clues,
                minimal: self.minimal || !counts_given,
                symmetry: self.symmetry,
            },
            with_solution: self.with_solution,
            output: self.output,
            threads: self.threads.map_or_else(default_threads, usize::from),
            solver: self.solver.unwrap_or_default(),
            quiet: self.quiet,
        }
    }
}

/// `verify` options.
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// CSV solution column, by header name or 1-based number (default: solution or solutions).
    #[arg(long, value_name = "NAME|N")]
    pub solution_column: Option<String>,

    /// Also prove that each puzzle has exactly one solution (solver with limit 2).
    #[arg(long)]
    pub unique: bool,

    /// Rows that give no solution fail (as malformed) instead of being skipped.
    #[arg(long)]
    pub require_solution: bool,

    /// Write every failure as CSV `file,line,kind,reason` to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Also write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Print at most N failures after the summary.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub show: usize,

    /// Worker threads [default: all logical cores].
    #[arg(short = 'j', long = "threads", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    #[arg(long, value_name = "NAME", value_parser = parse_solver, help = solver_help())]
    pub solver: Option<SolverKind>,

    /// No progress bar and no summary: only the exit status (and --report / --json files).
    #[arg(short, long)]
    pub quiet: bool,
}

impl VerifyArgs {
    /// The plain configuration.
    pub fn into_config(self) -> VerifyConfig {
        let (inputs, read) = self.input.to_inputs();
        VerifyConfig {
            inputs,
            format: read.format,
            puzzle_column: read.column,
            solution_column: self.solution_column,
            unique: self.unique,
            require_solution: self.require_solution,
            report: self.report,
            json: self.json,
            show: self.show,
            threads: self.threads.map_or_else(default_threads, usize::from),
            solver: self.solver.unwrap_or_default(),
            quiet: self.quiet,
        }
    }
}

impl Cli {
    /// Converts the parsed command line into the library's command.
    pub fn into_command(self) -> Command {
        match self.command {
            CliCommand::Solve(args) => Command::Solve(args.into_config()),
            CliCommand::Bench(args) => Command::Bench(args.into_config()),
            CliCommand::Report(args) => Command::Report(args.into_config()),
            CliCommand::Merge(args) => Command::Merge(args.into_config()),
            CliCommand::Generate(args) => Command::Generate(args.into_config()),
            CliCommand::Verify(args) => Command::Verify(args.into_config()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn solve_args_convert() {
        let cli = Cli::try_parse_from([
            "sudoku-batch",
            "solve",
            "a.txt",
            "-",
            "-j",
            "3",
            "--unique",
            "--format",
            "csv",
        ])
        .unwrap();
        let Command::Solve(config) = cli.into_command() else {
            panic!("expected solve");
        };
        assert_eq!(
            config.inputs,
            vec![Input::File("a.txt".into()), Input::Stdin]
        );
        assert_eq!(config.threads, 3);
        assert!(config.unique);
        assert_eq!(config.read.format, Format::Csv);
        assert!(Cli::try_parse_from(["sudoku-batch", "solve", "--solver", "nope"]).is_err());
        assert!(Cli::try_parse_from(["sudoku-batch", "solve", "-j", "0"]).is_err());
    }
}
