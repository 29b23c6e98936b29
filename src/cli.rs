//! Command-line interface: the clap derive types, and their conversion into the library's plain
//! configurations; shell completions and the man page generated from the same definitions. The
//! only module that knows clap.
//!
//! Flags that several commands share are declared once, as flattened groups ([`InputArgs`],
//! [`OutputArgs`], [`ThreadArgs`], [`SolverArgs`], [`SummaryArgs`], [`QuietArgs`]). Defaults have
//! one source, the library: each conversion starts from the command's `Config::new` (or
//! equivalent) and overrides only what was given, and `--help` prints defaults read from the
//! library's constants, never a second copy of them.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::PossibleValue;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::cmd::bench::{self, BenchConfig};
use crate::cmd::generate::{GenerateConfig, Shape, Symmetry};
use crate::cmd::merge::MergeConfig;
use crate::cmd::rate::RateColumn;
use crate::cmd::report::{ReportConfig, ReportFormat};
use crate::cmd::solve::SolveConfig;
use crate::cmd::verify::VerifyConfig;
use crate::cmd::RunOptions;
use crate::io::compress::Codec;
use crate::io::results::Column;
use crate::io::Input;
use crate::io::{Format, ReadOptions, PUZZLE_COLUMNS, SOLUTION_COLUMNS};
use crate::shard::{Shard, ShardChoice};
use crate::solver::SolverKind;
use crate::Command;

/// The binary's name, as completions and the man page call it.
pub const BIN_NAME: &str = "sudoku-batch";

/// Solve Sudoku puzzles in bulk, fast, on all cores, and measure how fast.
#[derive(Debug, Parser)]
#[command(
    name = "sudoku-batch",
    version,
    about,
    long_about = None,
    propagate_version = true,
    override_usage = "sudoku-batch <COMMAND>",
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Print a man page or a shell completion script, generated from these definitions, on
    /// stdout.
    #[arg(long = "generate", value_name = "KIND", value_enum, hide = true)]
    pub generate_kind: Option<GenerateKind>,

    /// What to do.
    #[command(subcommand)]
    pub command: Option<CliCommand>,
}

/// What `--generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateKind {
    /// The man page (roff), for `man -l -` or a `man1` directory.
    Man,
    /// Bash completions.
    CompleteBash,
    /// Zsh completions.
    CompleteZsh,
    /// Fish completions.
    CompleteFish,
    /// PowerShell completions.
    CompletePowershell,
    /// Elvish completions.
    CompleteElvish,
}

/// What the command line asks for.
#[derive(Debug, Clone)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per process, moved once; a box would buy nothing"
)]
pub enum Action {
    /// Run a command.
    Run(Command),
    /// Print a man page or a completion script (`--generate KIND`).
    Generate(GenerateKind),
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Solve every puzzle of the inputs and write one CSV row per record, in input order.
    ///
    /// Exit status: 0 when every record was solved, 1 when some were not (unsolvable, multiple,
    /// invalid, mismatch, gave_up) or there were none, 2 on usage or I/O errors, 128 + the
    /// signal's number when stopped by one (on Linux 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 138
    /// SIGUSR1, 140 SIGUSR2, 152 SIGXCPU; rows so far kept in FILE.partial for --resume).
    Solve(SolveArgs),

    /// Measure solver throughput: datasets × solvers × thread counts, median of timed passes.
    ///
    /// With no INPUT, runs the built-in graded suite. Prints a Markdown table; `--csv` appends
    /// rows with machine metadata for `report`, `--summary` writes them as JSON.
    ///
    /// Exit status: 0 when every row measured (a `skipped` row included), 1 when a solver or
    /// external program gave a wrong answer, failed or timed out, or a check pass gave up on
    /// puzzles (--max-guesses), 2 on usage or I/O errors or an input with no valid puzzle to
    /// measure, 128 + the signal's number when stopped by one (on Linux
    /// 130/143/129/138/140/152 for SIGINT/TERM/HUP/USR1/USR2/XCPU; the rows measured so far are
    /// printed and kept in --csv).
    Bench(BenchArgs),

    /// Compare `bench --csv` results from many runs and machines in one table (and chart).
    ///
    /// Exit status: 0 when the table (and chart) was written, 2 on usage or I/O errors or a file
    /// that is not `bench --csv` output (the message names the file and line).
    Report(ReportArgs),
    /// Merge the outputs of `solve --shard` (or `rate --shard`) runs back into input order (by
    /// the `index` column) and combine their summaries.
    ///
    /// Exit status: 0 when every row is `solved` (`rated`) and no index is missing, 1
    /// otherwise (or when the shards hold no rows), 2 on errors (unreadable input, rows out of order, an index in two inputs),
    /// 128 + the signal's number when stopped by one (on Linux 130/143/129/138/140/152 for
    /// SIGINT/TERM/HUP/USR1/USR2/XCPU; no merged file is put in place).
    Merge(MergeArgs),
    /// Generate puzzles with exactly one solution, reproducibly from a seed.
    ///
    /// Each puzzle is proven unique by the solver before it is written. The same seed and options
    /// give the same bytes on any machine, with any thread count and (without --max-guesses)
    /// any solver. Without clue options the puzzles are minimal (no clue can be removed without
    /// losing uniqueness).
    ///
    /// Exit status: 0 when every puzzle was written (generate has no 1), 2 on usage or I/O
    /// errors or when no puzzle could be made as asked (a clue count or --er range that the
    /// attempts never met: the message says which), 128 + the signal's number when stopped by one (on Linux
    /// 130/143/129/138/140/152 for SIGINT/TERM/HUP/USR1/USR2/XCPU; the puzzles made so far, the
    /// first ones of the run, kept in FILE.partial).
    Generate(GenerateArgs),
    /// Check solution files: each row's solution must be a complete grid that obeys the rules
    /// and keeps every clue of its puzzle (and, with --unique, the puzzle must have exactly one
    /// solution).
    ///
    /// Reads CSVs with a header (Kaggle's quizzes,solutions; puzzle,solution; solve's own output)
    /// and line files `puzzle<sep>solution` (sep: whitespace, `,`, `:`, `;` or `|`; ids, counts and
    /// ratings around them are allowed). Rows that give no solution (solve's rows whose status is
    /// not `solved`, `puzzle:0` lines, lines with a puzzle alone, empty solution fields) are
    /// skipped and counted, unless --require-solution (which fails them, with --unique too); with
    /// --unique, a record that holds only a puzzle (`puzzle:0`, an empty solution field outside
    /// solve's output) is checked as a puzzle. Prints a summary and the first failures as
    /// `file:line: kind: reason`.
    ///
    /// Exit status: 0 when every checked row passed (and at least one was checked), 1 when some
    /// failed or none was checked, 2 on usage or I/O errors, 128 + the signal's number when
    /// stopped by one (on Linux 130/143/129/138/140/152 for SIGINT/TERM/HUP/USR1/USR2/XCPU; the
    /// summary covers the rows checked before it).
    Verify(VerifyArgs),
    /// Rate how hard each puzzle is for a person, on Sudoku Explainer's scale (ER/EP/ED).
    ///
    /// Each puzzle is proven to have exactly one solution first; then the human-style solver
    /// applies the easiest technique that makes progress until the grid is full. ER is the
    /// hardest step, EP the hardest up to the first placement, ED the first step. Writes one
    /// CSV row per record, in input order (columns index, line, puzzle, er, ep, ed, technique,
    /// steps, status, rate_ns, message, file; statuses rated, unsolvable, multiple, invalid,
    /// gave_up), and a summary by rating band. --explain writes each solving path in words.
    ///
    /// Exit status: 0 when every record was rated, 1 when some were not (or there were none),
    /// 2 on usage or I/O errors, 128 + the signal's number when stopped by one
    /// (on Linux 130/143/129/138/140/152 for SIGINT/TERM/HUP/USR1/USR2/XCPU; rows so far kept in
    /// FILE.partial for --resume).
    Rate(RateArgs),
}

/// `rate` options.
#[derive(Debug, Clone, Args)]
pub struct RateArgs {
    /// Where the puzzles come from and how they are read.
    #[command(flatten)]
    pub input: InputArgs,

    /// Where the result rows go.
    #[command(flatten)]
    pub output: OutputArgs,

    /// How the output is compressed.
    #[command(flatten)]
    pub compress: CompressArgs,

    /// How many worker threads run.
    #[command(flatten)]
    pub threads: ThreadArgs,

    /// Stop rating a puzzle once a step above this rating is needed (status gave_up, the ER
    /// so far a lower bound): for example 6.0 to sort out the hard ones quickly.
    #[arg(long, value_name = "ER", value_parser = crate::cmd::rate::parse_er)]
    pub max_er: Option<u16>,

    /// Stop rating a puzzle after this many milliseconds (status gave_up; checked between
    /// steps and within the nested forcing-chain searches; at least 1).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,

    /// Follow the original Sudoku Explainer 1.2.1, whose "direct" hints place their single
    /// without applying their eliminations (the release behind most published ER lists). This
    /// is the default; the flag is kept for scripts.
    #[arg(long)]
    pub se121: bool,

    /// Follow serate 1.2.1.3 instead, whose "direct" hints also remove the candidates they
    /// justify (about 1% of easy puzzles rate lower, all at ER 2.0-3.4).
    #[arg(long, conflicts_with = "se121")]
    pub serate1213: bool,

    /// The scale to rate on: se1.2.1 (Sudoku Explainer 1.2.1, the default), se1.2.1.3 (as
    /// --serate1213) or sukaku (Sukaku Explainer 1.15.10's default techniques: SE's plus turbot
    /// fish, three strong-linked fishes and the WXYZ- and VWXYZ-wings; the scale of the
    /// Sudoku Exchange puzzle bank).
    #[arg(long, value_name = "NAME", value_parser = parse_scale, conflicts_with_all = ["se121", "serate1213"])]
    pub scale: Option<crate::rate::Flavor>,

    /// Write each puzzle's solving path in words (technique, cells, eliminations) instead of
    /// CSV rows: how a person checks a rating. Meant for a few puzzles.
    #[arg(long, conflicts_with_all = ["resume", "columns"])]
    pub explain: bool,

    /// Where the JSON summary goes.
    #[command(flatten)]
    pub summary: SummaryArgs,

    /// Whether the progress bar and summary are left out.
    #[command(flatten)]
    pub quiet: QuietArgs,

    /// Rate only shard K of N (K is 1-based): the records whose 0-based index i has
    /// i % N == K-1; rows keep their global index. Without it, K and N come from a Slurm job
    /// array or a Kubernetes Indexed Job when set, as for solve; `--shard 1/1` turns sharding
    /// off.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,

    /// Continue an interrupted run: keep the rows already in FILE.partial (each checked against
    /// its input record; a torn last row is dropped), rate the rest. Needs -o FILE.
    #[arg(long, requires = "output")]
    pub resume: bool,

    /// With --resume: rate again the rows that gave up (`gave_up`), for example with a larger
    /// --max-er or --timeout-ms, instead of keeping them; every row from the first such one on
    /// is redone.
    #[arg(long, requires = "resume")]
    pub retry_gave_up: bool,

    /// The rate columns to write, in order (`--columns`).
    #[arg(long, value_name = "LIST", value_parser = parse_rate_columns, help = rate_columns_help())]
    pub columns: Option<RateColumnList>,

    /// Write the rows without the header line (with `--columns er`, one rating per line).
    /// Such a file cannot be resumed or merged.
    #[arg(long, conflicts_with_all = ["resume", "explain"])]
    pub no_header: bool,
}

/// The value of `rate --columns`: rate columns in output order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateColumnList(pub Vec<RateColumn>);

/// The help of `rate --columns`, its list of names taken from [`RateColumn::ALL`].
fn rate_columns_help() -> String {
    format!(
        "The output columns, in this order (the header follows it), from {}. --resume needs \
         status, er and one of index, line, puzzle [default: all, in that order]",
        RateColumn::join(&RateColumn::ALL, ", ")
    )
}

/// `rate --columns`: a comma-separated list of rate columns.
fn parse_rate_columns(list: &str) -> Result<RateColumnList, String> {
    RateColumn::parse_list(list).map(RateColumnList)
}

impl RateArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> crate::cmd::rate::RateConfig {
        let mut config = crate::cmd::rate::RateConfig::new(Vec::new());
        config.run = run_options(&self.input, self.summary, &self.threads, &self.quiet);
        config.output = self.output.output;
        config.compress = self.compress.codec();
        config.max_er = self.max_er;
        config.timeout = self.timeout_ms.map(std::time::Duration::from_millis);
        if self.serate1213 {
            config.flavor = crate::rate::Flavor::Se1213;
        }
        if let Some(flavor) = self.scale {
            config.flavor = flavor;
        }
        config.explain = self.explain;
        config.shard = self
            .shard
            .map_or(ShardChoice::FromEnvironment, ShardChoice::Only);
        config.resume = self.resume;
        config.retry_gave_up = self.retry_gave_up;
        if let Some(RateColumnList(columns)) = self.columns {
            config.columns = columns;
        }
        config.header = !self.no_header;
        config
    }
}

// ---------------------------------------------------------------------------------------------
// Shared flag groups.

/// `--format` takes the library's format names, with each format's line of help.
impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &Format::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.name()).help(self.about()))
    }
}

/// Puzzle files and how to read them: `solve`, `verify` and `bench`.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Input files, read in order; `-` or none reads standard input. gzip, zstd and zip are
    /// recognised by content and decompressed on the fly; `ARCHIVE.zip:MEMBER` reads one member.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Input layout.
    #[arg(long, value_enum, default_value_t = Format::default())]
    pub format: Format,

    /// The CSV column that holds the puzzle (`--column`).
    #[arg(long, value_name = "NAME|N", help = column_help("puzzle", PUZZLE_COLUMNS))]
    pub column: Option<String>,
}

/// Help for a CSV column option, naming the header names tried by default.
fn column_help(what: &str, defaults: &[&str]) -> String {
    let names = match defaults {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    };
    format!(
        "CSV {what} column, by header name or 1-based number [default: the column named {names}]"
    )
}

impl InputArgs {
    /// The inputs as given (none when none were given).
    pub fn files(&self) -> Vec<Input> {
        self.inputs.iter().map(|p| Input::from_arg(p)).collect()
    }

    /// The inputs, standard input when none were given.
    pub(crate) fn files_or_stdin(&self) -> Vec<Input> {
        if self.inputs.is_empty() {
            vec![Input::Stdin]
        } else {
            self.files()
        }
    }

    /// How to read them.
    pub(crate) fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: self.format,
            column: self.column.clone(),
        }
    }

    /// The inputs (stdin when none) and read options.
    pub(crate) fn to_inputs(&self) -> (Vec<Input>, ReadOptions) {
        (self.files_or_stdin(), self.read_options())
    }
}

/// The options `solve`, `rate` and `verify` share, from their flag groups: the inputs (stdin
/// when none) and how to read them, `--summary`, `-j` with `--allow-oversubscribe`, and `-q`.
fn run_options(
    input: &InputArgs,
    summary: SummaryArgs,
    threads: &ThreadArgs,
    quiet: &QuietArgs,
) -> RunOptions {
    let (inputs, read) = input.to_inputs();
    let mut run = RunOptions::new(inputs);
    run.read = read;
    run.summary = summary.summary;
    threads.apply(&mut run.threads, &mut run.allow_oversubscribe);
    run.quiet = quiet.quiet;
    run
}

/// `-o FILE`: `solve`, `merge` and `generate`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write to FILE instead of stdout (through FILE.partial, locked while written, renamed
    /// when complete; a device or FIFO is written directly). FILE.gz and FILE.zst are
    /// compressed (gzip members, zstd frames).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `--compress`: `solve` and `generate`.
#[derive(Debug, Clone, Args)]
pub struct CompressArgs {
    /// Compress the output: gz or zst (for stdout too), or none to write FILE.gz/FILE.zst
    /// plain [default: from -o's extension, plain for stdout].
    #[arg(long, value_name = "HOW", value_enum)]
    pub compress: Option<CompressArg>,
}

/// `--compress` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompressArg {
    /// Plain output, whatever the extension.
    None,
    /// gzip (one member per chunk; `gzip -dc` reads it).
    Gz,
    /// zstd (one frame per chunk; `zstd -dc` reads it).
    Zst,
}

impl CompressArgs {
    /// The library's choice: `None` follows the extension.
    pub fn codec(&self) -> Option<Codec> {
        self.compress.map(|c| match c {
            CompressArg::None => Codec::None,
            CompressArg::Gz => Codec::Gzip,
            CompressArg::Zst => Codec::Zstd,
        })
    }
}

/// `-j N`: `solve`, `verify` and `generate`.
#[derive(Debug, Clone, Args)]
pub struct ThreadArgs {
    /// Worker threads [default: all logical cores]. The output does not depend on it.
    #[arg(short = 'j', long = "threads", value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,

    /// Allow -j above 4 threads per logical core (refused otherwise: threads beyond the cores
    /// only take turns).
    #[arg(long)]
    pub allow_oversubscribe: bool,
}

impl ThreadArgs {
    /// Overrides the library's default thread count when one was given, and sets whether a
    /// count above the bound is allowed.
    pub fn apply(&self, threads: &mut usize, allow_oversubscribe: &mut bool) {
        if let Some(n) = self.threads {
            *threads = usize::from(n);
        }
        *allow_oversubscribe = self.allow_oversubscribe;
    }
}

/// `--solver NAME`: `solve`, `verify` and `generate`.
#[derive(Debug, Clone, Args)]
pub struct SolverArgs {
    /// The solver named by `--solver`; the default solver when absent.
    #[arg(long, value_name = "NAME", value_parser = parse_solver, help = solver_help())]
    pub solver: Option<SolverKind>,
}

impl SolverArgs {
    /// Overrides the library's default solver when one was given.
    pub fn apply(&self, solver: &mut SolverKind) {
        if let Some(kind) = self.solver {
            *solver = kind;
        }
    }
}

/// `--max-guesses N`: `solve`, `bench` and `verify --unique`.
#[derive(Debug, Clone, Args)]
pub struct GuessLimitArgs {
    /// Give up on a puzzle after N guesses: `solve` gives it the status `gave_up` (with the
    /// guesses spent), never `unsolvable`, and exits 1; `bench` marks the row `gave_up` (its
    /// rate is of a bounded run); `verify --unique` fails the row as `gave_up` (a proof it
    /// could not finish) [default: no limit].
    #[arg(long, value_name = "N")]
    pub max_guesses: Option<u64>,
}

/// `--summary FILE`: `solve`, `merge`, `verify` and `bench` (`--json` is a hidden alias in
/// `verify` and `bench`, where it was the name).
#[derive(Debug, Clone, Args)]
pub struct SummaryArgs {
    /// Also write the summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
}

/// `-q`: every command with a progress bar.
#[derive(Debug, Clone, Args)]
pub struct QuietArgs {
    /// No progress bar and no summary (files asked for are still written).
    #[arg(short, long)]
    pub quiet: bool,
}

/// Parses a solver name, listing the valid ones on error.
pub(crate) fn parse_solver(name: &str) -> Result<SolverKind, String> {
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

// ---------------------------------------------------------------------------------------------
// The subcommands' options.

/// `solve` options.
#[derive(Debug, Clone, Args)]
pub struct SolveArgs {
    /// Where the puzzles come from and how they are read.
    #[command(flatten)]
    pub input: InputArgs,

    /// Where the result rows go.
    #[command(flatten)]
    pub output: OutputArgs,

    /// How the output is compressed.
    #[command(flatten)]
    pub compress: CompressArgs,

    /// How many worker threads run.
    #[command(flatten)]
    pub threads: ThreadArgs,

    /// Which solver runs.
    #[command(flatten)]
    pub solver: SolverArgs,

    /// Prove uniqueness (solution limit 2): puzzles with several solutions get status `multiple`.
    #[arg(long)]
    pub unique: bool,

    /// The per-puzzle guess limit.
    #[command(flatten)]
    pub guesses: GuessLimitArgs,

    /// Where the JSON summary goes.
    #[command(flatten)]
    pub summary: SummaryArgs,

    /// Whether the progress bar and summary are left out.
    #[command(flatten)]
    pub quiet: QuietArgs,

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

    /// With --resume: solve again the rows that gave up (`gave_up`), for example with a larger
    /// --max-guesses, instead of keeping them; every row from the first such one on is redone.
    #[arg(long, requires = "resume")]
    pub retry_gave_up: bool,

    /// The result columns to write, in order (`--columns`).
    #[arg(long, value_name = "LIST", value_parser = parse_columns, help = columns_help())]
    pub columns: Option<ColumnList>,

    /// Write the rows without the header line: with `--columns solution`, one solution per
    /// line, as other solvers print them. Such a file cannot be resumed or merged.
    #[arg(long, conflicts_with = "resume")]
    pub no_header: bool,
}

/// The value of `--columns`: result columns in output order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnList(pub Vec<Column>);

/// The help of `--columns`, its list of names taken from [`Column::ALL`].
fn columns_help() -> String {
    format!(
        "The output columns, in this order (the header follows it), from {}; `puzzle,solution` \
         writes a Kaggle-style file. --resume needs status, guesses, solve_ns and one of index, \
         line, puzzle; merge needs index, status, guesses, solve_ns [default: all, in that order]",
        Column::join(&Column::ALL, ", ")
    )
}

/// `--columns`: a comma-separated list of result columns.
fn parse_columns(list: &str) -> Result<ColumnList, String> {
    Column::parse_list(list).map(ColumnList)
}

impl SolveArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> SolveConfig {
        let mut config = SolveConfig::new(Vec::new());
        config.run = run_options(&self.input, self.summary, &self.threads, &self.quiet);
        config.output = self.output.output;
        config.compress = self.compress.codec();
        self.solver.apply(&mut config.solver);
        config.unique = self.unique;
        config.max_guesses = self.guesses.max_guesses;
        config.retry_gave_up = self.retry_gave_up;
        // The command line looks at Slurm's and Kubernetes' variables; the library does not
        // unless asked to.
        config.shard = self
            .shard
            .map_or(ShardChoice::FromEnvironment, ShardChoice::Only);
        config.resume = self.resume;
        if let Some(ColumnList(columns)) = self.columns {
            config.columns = columns;
        }
        config.header = !self.no_header;
        config
    }
}

/// `merge` options.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("summary", |a| a.help(
    "Write the combined summary as JSON to FILE (counts and solve-time percentiles are \
     recomputed from the rows)"
)))]
pub struct MergeArgs {
    /// The shards' result CSVs, in any order.
    #[arg(value_name = "SHARD_CSV", required = true)]
    pub inputs: Vec<PathBuf>,

    /// Where the result rows go.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Where the JSON summary goes.
    #[command(flatten)]
    pub summary: SummaryArgs,

    /// A shard's JSON summary (`solve --summary`); repeat for each shard. Gives the combined
    /// summary its solver, threads (summed) and wall time (the longest shard's) when some shard
    /// has no sidecar (FILE.run.json, which gives them otherwise). Their puzzle counts must
    /// add up to the shards' rows (refused otherwise, before anything is written). Not used
    /// for `rate` shards.
    #[arg(long = "shard-summary", value_name = "JSON")]
    pub shard_summaries: Vec<PathBuf>,

    /// Merge what there is when shards are missing or cut off (their `FILE.run.json` says how
    /// many rows their run wrote): warnings and exit 1, instead of no output.
    #[arg(long = "allow-incomplete")]
    pub allow_incomplete: bool,

    /// No summary and no remarks (warnings and errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
}

impl MergeArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> MergeConfig {
        // Every field comes from the command line: merge has no defaults of its own.
        MergeConfig {
            inputs: self.inputs,
            output: self.output.output,
            summary: self.summary.summary,
            shard_summaries: self.shard_summaries,
            allow_incomplete: self.allow_incomplete,
            quiet: self.quiet,
        }
    }
}

/// A duration given in seconds on the command line (fractions allowed, not negative), shown
/// in seconds in `--help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// Parses a number of seconds (fractions allowed, not negative).
fn parse_seconds(text: &str) -> Result<Seconds, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(value)
        .map(Seconds)
        .map_err(|_| format!("{text:?} is not a duration in seconds"))
}

/// Parses a timeout in seconds: at least a millisecond (a zero timeout would kill every
/// pass at once).
fn parse_timeout(text: &str) -> Result<Seconds, String> {
    let seconds = parse_seconds(text)?;
    if seconds.0 < Duration::from_millis(1) {
        return Err(format!(
            "{text:?} is below the least timeout, 0.001 seconds"
        ));
    }
    Ok(seconds)
}

/// Parses a count of at least 1.
fn parse_positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a whole number of at least 1")),
    }
}

/// `bench` options.
#[derive(Debug, Clone, Args)]
#[command(
    mut_arg("inputs", |a| a
        .help("Puzzle files, each one dataset (`-` reads standard input); none runs the \
               built-in suite")
        .long_help(format!(
            "Puzzle files, each one dataset (`-` reads standard input). Invalid records \
             (malformed, contradictory clues) are left out; puzzles with no solution or \
             several are timed with the rest. The notes under the table name the input lines \
             of both. None runs the built-in suite: {}.",
            bench::SUITE_HELP
        ))),
    mut_arg("summary", |a| a
        .alias("json")
        .help("Write the rows, with machine metadata, as JSON to FILE")),
    mut_arg("quiet", |a| a.help("No progress bar (the table is still printed)"))
)]
pub struct BenchArgs {
    /// Where the puzzles come from and how they are read.
    #[command(flatten)]
    pub input: InputArgs,

    /// Solvers to measure, comma-separated [default: all].
    #[arg(long, value_name = "A,B", value_delimiter = ',', value_parser = parse_solver)]
    pub solvers: Vec<SolverKind>,

    /// Thread counts, comma-separated [default: 1 and all logical cores].
    #[arg(short = 'j', long, value_name = "N,M", value_delimiter = ',',
          value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Vec<u16>,

    /// Allow thread counts above 4 per logical core (refused otherwise: threads beyond the
    /// cores only take turns).
    #[arg(long)]
    pub allow_oversubscribe: bool,

    /// Warm-up time per configuration of our solvers, seconds (an --external program gets
    /// no warm-up: each of its --runs passes is a whole process).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds,
          default_value_t = Seconds(BenchConfig::DEFAULT_WARMUP))]
    pub warmup: Seconds,

    /// Least total time of the timed passes per configuration of our solvers, seconds (an
    /// --external program runs exactly --runs passes).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds,
          default_value_t = Seconds(BenchConfig::DEFAULT_MIN_TIME))]
    pub min_time: Seconds,

    /// Least number of timed passes per configuration.
    #[arg(long, value_name = "N", value_parser = parse_positive,
          default_value_t = BenchConfig::DEFAULT_RUNS)]
    pub runs: usize,

    /// Skip one of our solvers on a dataset when one pass (the single-thread check pass, or
    /// any warm-up or timed pass) takes longer than this, seconds (reported as `skipped`;
    /// keeps slow solvers like `naive` from stalling the suite). An --external program is
    /// bounded by --external-timeout instead.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds,
          default_value_t = Seconds(BenchConfig::DEFAULT_MAX_PASS))]
    pub max_pass: Seconds,

    /// Prove uniqueness (solution limit 2), as tdoku's benchmark does; default: first solution.
    #[arg(long)]
    pub unique: bool,

    /// The per-puzzle guess limit.
    #[command(flatten)]
    pub guesses: GuessLimitArgs,

    /// Also time another program on the same (permuted) puzzles: `sh -c COMMAND` reads one
    /// puzzle a line on stdin and prints one solution a line (the last 81-character token of a
    /// line is taken); every solution is checked, and its rate (puzzles over the whole process's
    /// wall time, median of --runs passes) is a row beside ours. Its row's `threads` is 1 and
    /// its mode that of the run: the program's own threads are whatever its command sets.
    /// Repeatable.
    #[arg(long, value_name = "NAME=COMMAND")]
    pub external: Vec<crate::cmd::bench::external::External>,

    /// Kill an external program after this many seconds per pass (row status `timeout`; at
    /// least 0.001).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, default_value = "60")]
    pub external_timeout: Seconds,

    /// Seed of the random equivalence transforms applied to the puzzles on every pass.
    #[arg(long, value_name = "SEED", default_value_t = bench::DEFAULT_SEED,
          conflicts_with = "no_permute")]
    pub permute: u64,

    /// Solve the puzzles as given, without equivalence transforms.
    #[arg(long)]
    pub no_permute: bool,

    /// Append the rows, with machine metadata, to this CSV file (header written once); `-`
    /// writes the CSV to stdout, and the table then goes to stderr.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Where the JSON summary goes.
    #[command(flatten)]
    pub summary: SummaryArgs,

    /// Whether the progress bar and summary are left out.
    #[command(flatten)]
    pub quiet: QuietArgs,
}

impl BenchArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> BenchConfig {
        // No INPUT means the built-in suite, not standard input.
        let mut config = BenchConfig::new(self.input.files());
        config.read = self.input.read_options();
        config.solvers = self.solvers;
        config.threads = self.threads.into_iter().map(usize::from).collect();
        config.allow_oversubscribe = self.allow_oversubscribe;
        config.warmup = self.warmup.0;
        config.min_time = self.min_time.0;
        config.runs = self.runs;
        config.max_pass = self.max_pass.0;
        config.unique = self.unique;
        config.max_guesses = self.guesses.max_guesses;
        config.externals = self.external;
        config.external_timeout = self.external_timeout.0;
        config.permute = (!self.no_permute).then_some(self.permute);
        config.csv = self.csv;
        config.summary = self.summary.summary;
        config.quiet = self.quiet.quiet;
        config
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

impl From<ReportFormat> for ReportFormatArg {
    fn from(format: ReportFormat) -> ReportFormatArg {
        match format {
            ReportFormat::Markdown => ReportFormatArg::Markdown,
            ReportFormat::Csv => ReportFormatArg::Csv,
        }
    }
}

impl From<ReportFormatArg> for ReportFormat {
    fn from(arg: ReportFormatArg) -> ReportFormat {
        match arg {
            ReportFormatArg::Markdown => ReportFormat::Markdown,
            ReportFormatArg::Csv => ReportFormat::Csv,
        }
    }
}

/// `report` options.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Results CSV files written by `bench --csv` (for example data/results/*.csv), or the
    /// JSON of `bench --summary`, plain or compressed with gzip or zstd; `-` reads standard
    /// input.
    #[arg(value_name = "RESULTS.csv", required = true)]
    pub files: Vec<PathBuf>,

    /// The machine the ratios are relative to: a hostname, or text found in `hostname (CPU)`
    /// [default: the first machine read].
    #[arg(long, value_name = "MACHINE")]
    pub baseline: Option<String>,

    /// Table format, printed on stdout (on stderr when `--svg -` puts the chart there).
    #[arg(long, value_enum, default_value_t = ReportFormatArg::from(ReportFormat::default()))]
    pub format: ReportFormatArg,

    /// Also draw the comparison as an SVG bar chart in FILE.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Logarithmic puzzles/s axis in the chart.
    #[arg(long)]
    pub log: bool,

    /// Chart title [default: "sudoku-batch bench: puzzles per second by machine (higher is
    /// better)"].
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}

impl ReportArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> ReportConfig {
        let mut config = ReportConfig::new(self.files);
        config.baseline = self.baseline;
        config.format = self.format.into();
        config.svg = self.svg;
        config.log_scale = self.log;
        config.title = self.title;
        config
    }
}

/// Parses a symmetry name, listing the valid ones on error.
pub(crate) fn parse_symmetry(name: &str) -> Result<Symmetry, String> {
    Symmetry::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Symmetry::ALL.iter().map(|s| s.name()).collect();
        format!(
            "unknown symmetry {name:?}; choose one of: {}",
            names.join(", ")
        )
    })
}

fn min_clues_help() -> String {
    format!(
        "At least N clues per puzzle [default: {}]. With --max-clues, each puzzle's clue count \
         is drawn from the range",
        Shape::default().min_clues
    )
}

fn max_clues_help() -> String {
    format!(
        "At most N clues per puzzle [default: {}]",
        Shape::default().max_clues
    )
}

fn symmetry_help() -> String {
    format!(
        "Symmetry of the clue pattern [default: {}]: none, central (half turn), quarter \
         (quarter turn), diagonal, antidiagonal, horizontal (mirror top/bottom), vertical \
         (mirror left/right), dihedral (all eight)",
        Shape::default().symmetry.name()
    )
}

/// `generate` options.
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("rated").args(["er", "difficulty"])))]
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

    /// The fewest clues a generated puzzle may have (`--min-clues`).
    #[arg(long, value_name = "N", help = min_clues_help())]
    pub min_clues: Option<usize>,

    /// The most clues a generated puzzle may have (`--max-clues`).
    #[arg(long, value_name = "N", help = max_clues_help())]
    pub max_clues: Option<usize>,

    /// Minimal puzzles: no clue (no symmetric group of clues, with --symmetry) can be removed
    /// without losing uniqueness. The default when no clue count is given; with --clues or a
    /// range, puzzles must be minimal and in range.
    #[arg(long, conflicts_with = "max_guesses")]
    pub minimal: bool,

    /// The symmetry of the clue pattern (`--symmetry`).
    #[arg(long, value_name = "NAME", value_parser = parse_symmetry, help = symmetry_help())]
    pub symmetry: Option<Symmetry>,

    /// Keep only puzzles whose Sudoku Explainer rating ER lies in A..B (for example 5.0..6.5):
    /// candidates are rated until one fits, still reproducible from the seed.
    #[arg(long, value_name = "A..B", value_parser = parse_er_range, conflicts_with = "difficulty")]
    pub er: Option<(u16, u16)>,

    /// Keep only puzzles of a Sudoku Exchange band: easy (ER below 1.5), medium (1.5-2.4), hard
    /// (2.5-4.9) or diabolical (5.0 and up).
    #[arg(long, value_name = "BAND", value_parser = parse_difficulty)]
    pub difficulty: Option<(u16, u16)>,

    /// The scale --er and --difficulty rate on: se1.2.1 (the default, also for --difficulty),
    /// se1.2.1.3 or sukaku (as `rate --scale`; the Sudoku Exchange bank's own ratings, whose
    /// bands --difficulty names, are on sukaku).
    #[arg(long, value_name = "NAME", value_parser = parse_scale, requires = "rated")]
    pub scale: Option<crate::rate::Flavor>,

    /// Write CSV `puzzle,solution,clues` (with a header) instead of one puzzle per line.
    #[arg(long)]
    pub with_solution: bool,

    /// Where the result rows go.
    #[command(flatten)]
    pub output: OutputArgs,

    /// How the output is compressed.
    #[command(flatten)]
    pub compress: CompressArgs,

    /// How many worker threads run.
    #[command(flatten)]
    pub threads: ThreadArgs,

    /// Which solver runs.
    #[command(flatten)]
    pub solver: SolverArgs,

    /// Bound each uniqueness probe while removing clues to N guesses: a probe that reaches it
    /// keeps its clue, so puzzles stay unique and reproducible, only less sparse: not
    /// necessarily minimal (so not with --minimal) [default: no limit].
    #[arg(long, value_name = "N")]
    pub max_guesses: Option<u64>,

    /// Whether the progress bar and summary are left out.
    #[command(flatten)]
    pub quiet: QuietArgs,
}

impl GenerateArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> GenerateConfig {
        // `GenerateConfig::new` takes a seed; the command line's may be absent (drawn later).
        let mut config = GenerateConfig::new(self.count, 0);
        config.seed = self.seed;
        // Clap refuses --clues with --min-clues or --max-clues, so the shape is consistent.
        config.shape = Shape::from_options(
            self.clues,
            self.min_clues,
            self.max_clues,
            self.minimal,
            self.symmetry.unwrap_or_default(),
        )
        .unwrap_or_default();
        config.with_solution = self.with_solution;
        config.output = self.output.output;
        config.compress = self.compress.codec();
        self.threads
            .apply(&mut config.threads, &mut config.allow_oversubscribe);
        self.solver.apply(&mut config.solver);
        config.max_guesses = self.max_guesses;
        config.er = self.er.or(self.difficulty);
        config.scale = self.scale.unwrap_or_default();
        config.quiet = self.quiet.quiet;
        config
    }
}

/// `--scale NAME`: a rating scale.
fn parse_scale(name: &str) -> Result<crate::rate::Flavor, String> {
    crate::rate::Flavor::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = crate::rate::Flavor::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown scale {name:?}; expected one of: {}",
            names.join(", ")
        )
    })
}

/// `--er A..B`: an ER range in tenths.
fn parse_er_range(text: &str) -> Result<(u16, u16), String> {
    let malformed = || format!("expected a range such as 5.0..6.5, got {text:?}");
    let (low, high) = text.split_once("..").ok_or_else(malformed)?;
    // `5...6`: one dot too many, not the range 5.0..0.6.
    if high.starts_with('.') {
        return Err(malformed());
    }
    let (low, high) = (
        crate::cmd::rate::parse_er_number(low)?,
        crate::cmd::rate::parse_er_number(high)?,
    );
    crate::rate::scale::puzzle_range(low, high)
}

/// `--difficulty BAND`: a Sudoku Exchange band as an ER range in tenths.
fn parse_difficulty(name: &str) -> Result<(u16, u16), String> {
    crate::rate::scale::difficulty_range(name)
}

fn show_help() -> String {
    format!(
        "Print at most N failures after the summary [default: {}]",
        VerifyConfig::new(Vec::new()).show
    )
}

/// `verify` options.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("summary", |a| a.alias("json")))]
pub struct VerifyArgs {
    /// Where the puzzles come from and how they are read.
    #[command(flatten)]
    pub input: InputArgs,

    /// The CSV column that holds the solution (`--solution-column`).
    #[arg(long, value_name = "NAME|N", help = column_help("solution", SOLUTION_COLUMNS))]
    pub solution_column: Option<String>,

    /// Also prove that each puzzle has exactly one solution (solver with limit 2). A record
    /// that holds only a puzzle (a puzzle alone, a `puzzle:0` line, a CSV without a solution
    /// column or with the field empty) is then checked too: it passes only with exactly one
    /// solution.
    #[arg(long)]
    pub unique: bool,

    /// The per-puzzle guess limit.
    #[command(flatten)]
    pub guesses: GuessLimitArgs,

    /// Rows that give no solution fail (as malformed) instead of being skipped or, with
    /// --unique, checked as puzzles.
    #[arg(long)]
    pub require_solution: bool,

    /// Write every failure as CSV `file,line,kind,reason` to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Where the JSON summary goes.
    #[command(flatten)]
    pub summary: SummaryArgs,

    /// How many failures to print (`--show`).
    #[arg(long, value_name = "N", help = show_help())]
    pub show: Option<usize>,

    /// How many worker threads run.
    #[command(flatten)]
    pub threads: ThreadArgs,

    /// Which solver runs.
    #[command(flatten)]
    pub solver: SolverArgs,

    /// Whether the progress bar and summary are left out.
    #[command(flatten)]
    pub quiet: QuietArgs,
}

impl VerifyArgs {
    /// The library's configuration, with what was given on the command line.
    pub(crate) fn into_config(self) -> VerifyConfig {
        let mut config = VerifyConfig::new(Vec::new());
        config.run = run_options(&self.input, self.summary, &self.threads, &self.quiet);
        config.solution_column = self.solution_column;
        config.unique = self.unique;
        config.max_guesses = self.guesses.max_guesses;
        config.require_solution = self.require_solution;
        config.report = self.report;
        if let Some(show) = self.show {
            config.show = show;
        }
        self.solver.apply(&mut config.solver);
        config
    }
}

impl Cli {
    /// Converts the parsed command line into what to do.
    pub fn into_action(self) -> Action {
        match (self.generate_kind, self.command) {
            (Some(kind), _) => Action::Generate(kind),
            (None, Some(command)) => Action::Run(command.into_command()),
            // `arg_required_else_help` leaves this only for a bare `--generate`-less call with
            // top-level arguments, which clap already rejects; answer as clap would.
            (None, None) => Cli::command()
                .error(
                    clap::error::ErrorKind::MissingSubcommand,
                    "a subcommand is required",
                )
                .exit(),
        }
    }
}

impl CliCommand {
    /// Converts the parsed subcommand into the library's command.
    pub(crate) fn into_command(self) -> Command {
        match self {
            CliCommand::Solve(args) => Command::Solve(args.into_config()),
            CliCommand::Bench(args) => Command::Bench(args.into_config()),
            CliCommand::Report(args) => Command::Report(args.into_config()),
            CliCommand::Merge(args) => Command::Merge(args.into_config()),
            CliCommand::Generate(args) => Command::Generate(args.into_config()),
            CliCommand::Verify(args) => Command::Verify(args.into_config()),
            CliCommand::Rate(args) => Command::Rate(args.into_config()),
        }
    }
}

/// Writes the man page or a completion script for `kind`, generated from the clap definitions.
pub fn write_generated(kind: GenerateKind, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap_complete::Shell;
    let mut command = Cli::command();
    let shell = match kind {
        GenerateKind::Man => return write_man_page(command, out),
        GenerateKind::CompleteBash => Shell::Bash,
        GenerateKind::CompleteZsh => Shell::Zsh,
        GenerateKind::CompleteFish => Shell::Fish,
        GenerateKind::CompletePowershell => Shell::PowerShell,
        GenerateKind::CompleteElvish => Shell::Elvish,
    };
    // Into memory first: `generate` panics on a write error (a closed pipe, `| head`).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN_NAME, &mut script);
    out.write_all(&script)
}

/// One man page for the whole tool: the top-level sections, then one section per subcommand
/// with its synopsis, description and options as subsections (instead of a list of
/// `sudoku-batch-solve(1)` pages that are not shipped), so `man sudoku-batch` shows every option.
fn write_man_page(mut command: clap::Command, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    command.build();
    let top = clap_mangen::Man::new(command.clone());
    top.render_title(out)?;
    top.render_name_section(out)?;
    top.render_synopsis_section(out)?;
    top.render_description_section(out)?;
    top.render_options_section(out)?;
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let man = clap_mangen::Man::new(sub.clone());
        let mut section = Vec::new();
        man.render_synopsis_section(&mut section)?;
        man.render_description_section(&mut section)?;
        man.render_options_section(&mut section)?;
        let section = String::from_utf8_lossy(&section);
        // Each part becomes a subsection of one section per subcommand.
        writeln!(out, ".SH \"COMMAND: {}\"", sub.get_name().to_uppercase())?;
        for line in section.lines() {
            match line.strip_prefix(".SH ") {
                Some(title) => writeln!(out, ".SS {title}")?,
                None => writeln!(out, "{line}")?,
            }
        }
    }
    top.render_version_section(out)
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
        let Action::Run(Command::Solve(config)) = cli.into_action() else {
            panic!("expected solve");
        };
        assert_eq!(
            config.run.inputs,
            vec![Input::File("a.txt".into()), Input::Stdin]
        );
        assert_eq!(config.run.threads, 3);
        assert!(config.unique);
        assert_eq!(config.run.read.format, Format::Csv);
        assert!(Cli::try_parse_from(["sudoku-batch", "solve", "--solver", "nope"]).is_err());
        assert!(Cli::try_parse_from(["sudoku-batch", "solve", "-j", "0"]).is_err());
    }

    fn parse(args: &[&str]) -> Command {
        let cli = Cli::try_parse_from(std::iter::once("sudoku-batch").chain(args.iter().copied()))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        match cli.into_action() {
            Action::Run(command) => command,
            Action::Generate(kind) => panic!("{args:?}: unexpected --generate {kind:?}"),
        }
    }

    #[test]
    fn unset_options_keep_the_library_defaults() {
        let Command::Solve(solve) = parse(&["solve", "a.txt"]) else {
            panic!("expected solve");
        };
        let library = SolveConfig::new(Vec::new());
        assert_eq!(solve.run.threads, library.run.threads);
        assert_eq!(solve.solver, library.solver);
        assert_eq!(solve.run.read.format, library.run.read.format);

        let Command::Verify(verify) = parse(&["verify", "a.csv"]) else {
            panic!("expected verify");
        };
        let library = VerifyConfig::new(Vec::new());
        assert_eq!(verify.show, library.show);
        assert_eq!(verify.run.threads, library.run.threads);
        assert_eq!(verify.run.read.format, library.run.read.format);

        let Command::Generate(generate) = parse(&["generate", "-n", "3"]) else {
            panic!("expected generate");
        };
        let library = GenerateConfig::new(3, 0);
        assert_eq!(generate.shape, library.shape);
        assert_eq!(generate.seed, None, "drawn at run time when not given");
        assert_eq!(generate.threads, library.threads);

        let Command::Bench(bench) = parse(&["bench"]) else {
            panic!("expected bench");
        };
        let library = BenchConfig::new(Vec::new());
        assert!(
            bench.inputs.is_empty(),
            "no INPUT is the built-in suite, not stdin"
        );
        assert_eq!(
            (bench.warmup, bench.min_time, bench.runs, bench.max_pass),
            (
                library.warmup,
                library.min_time,
                library.runs,
                library.max_pass
            )
        );
        assert_eq!(bench.permute, library.permute);

        let Command::Report(report) = parse(&["report", "r.csv"]) else {
            panic!("expected report");
        };
        assert_eq!(report.format, ReportConfig::new(Vec::new()).format);
    }

    #[test]
    fn given_options_override_the_defaults() {
        let Command::Generate(generate) = parse(&[
            "generate",
            "-n",
            "2",
            "--min-clues",
            "30",
            "--symmetry",
            "central",
            "-j",
            "1",
        ]) else {
            panic!("expected generate");
        };
        assert_eq!(generate.shape.min_clues, 30);
        assert_eq!(generate.shape.max_clues, Shape::default().max_clues);
        assert!(
            !generate.shape.minimal,
            "a clue count given turns minimal off"
        );
        assert_eq!(generate.shape.symmetry, Symmetry::Central);
        assert_eq!(generate.threads, 1);

        let Command::Bench(bench) = parse(&[
            "bench",
            "x.txt",
            "--format",
            "lines",
            "--column",
            "2",
            "--warmup",
            "0.5",
            "--runs",
            "7",
            "--no-permute",
        ]) else {
            panic!("expected bench");
        };
        assert_eq!(bench.inputs, vec![Input::File("x.txt".into())]);
        assert_eq!(bench.read.format, Format::Lines);
        assert_eq!(bench.read.column.as_deref(), Some("2"));
        assert_eq!(bench.warmup, Duration::from_millis(500));
        assert_eq!(bench.runs, 7);
        assert_eq!(bench.permute, None);
        assert!(Cli::try_parse_from(["sudoku-batch", "bench", "--runs", "0"]).is_err());
    }

    #[test]
    fn summary_has_one_name_and_json_stays_an_alias_where_it_was_the_name() {
        for command in ["solve", "merge", "verify", "bench"] {
            let mut args = vec![command, "--summary", "s.json"];
            if command == "merge" {
                args.push("shard.csv");
            }
            let summary = match parse(&args) {
                Command::Solve(c) => c.run.summary,
                Command::Merge(c) => c.summary,
                Command::Verify(c) => c.run.summary,
                Command::Bench(c) => c.summary,
                other => panic!("{other:?}"),
            };
            assert_eq!(summary, Some(PathBuf::from("s.json")), "{command}");
        }
        let Command::Verify(verify) = parse(&["verify", "--json", "v.json"]) else {
            panic!("expected verify");
        };
        assert_eq!(verify.run.summary, Some(PathBuf::from("v.json")));
        let Command::Bench(bench) = parse(&["bench", "--json", "b.json"]) else {
            panic!("expected bench");
        };
        assert_eq!(bench.summary, Some(PathBuf::from("b.json")));
        // The alias is hidden, and not offered where it never existed.
        assert!(Cli::try_parse_from(["sudoku-batch", "solve", "--json", "s.json"]).is_err());
        let help = Cli::command()
            .find_subcommand_mut("verify")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(help.contains("--summary"), "{help}");
        assert!(!help.contains("--json"), "{help}");
    }

    #[test]
    fn help_shows_the_library_defaults() {
        let help = |name: &str| {
            Cli::command()
                .find_subcommand_mut(name)
                .unwrap()
                .render_help()
                .to_string()
        };
        let bench = help("bench");
        assert!(
            bench.contains(&format!("[default: {}]", BenchConfig::DEFAULT_RUNS)),
            "{bench}"
        );
        let solve = help("solve");
        let solver = format!("[default: {}]", SolverKind::default().name());
        assert!(solve.contains(&solver), "{solve}");
        assert!(solve.contains("[default: auto]"), "{solve}");
        let generate = help("generate");
        let min_clues = format!("[default: {}]", Shape::default().min_clues);
        assert!(generate.contains(&min_clues), "{generate}");
    }

    #[test]
    fn generate_needs_no_subcommand_and_takes_none() {
        let cli = Cli::try_parse_from(["sudoku-batch", "--generate", "complete-zsh"]).unwrap();
        assert!(matches!(
            cli.into_action(),
            Action::Generate(GenerateKind::CompleteZsh)
        ));
        assert!(Cli::try_parse_from(["sudoku-batch", "--generate", "man", "solve"]).is_err());
        assert!(Cli::try_parse_from(["sudoku-batch", "--generate", "nope"]).is_err());
    }
}
