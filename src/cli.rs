//! Command-line interface: the clap derive types, and their conversion into the library's plain
//! configurations. The only module that knows clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::batch::{default_threads, SolveConfig};
use crate::io::reader::{Format, ReadOptions};
use crate::io::Input;
use crate::merge::MergeConfig;
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

    /// Merge the outputs of `solve --shard` runs back into input order (by the `index` column)
    /// and combine their summaries.
    ///
    /// Exit status: 0 when every row is `solved` and no index is missing, 1 otherwise, 2 on
    /// errors (unreadable input, rows out of order, an index in two inputs).
    Merge(MergeArgs),
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
    #[arg(value_name = "OUT", required = true)]
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

impl Cli {
    /// Converts the parsed command line into the library's command.
    pub fn into_command(self) -> Command {
        match self.command {
            CliCommand::Solve(args) => Command::Solve(args.into_config()),
            CliCommand::Merge(args) => Command::Merge(args.into_config()),
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
