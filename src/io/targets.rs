//! The files a command will write, checked together before it reads its first record: every
//! command (`solve`, `bench`, `verify`, `merge`, `report`, `generate`) lists its outputs as
//! [`Target`]s and calls [`check_targets`] once, so a refused path costs nothing and changes
//! nothing on disk.
//!
//! A target is refused when it is a folder, when its folder is missing or not writable, when it
//! (or a file written beside it: `FILE.partial`, `FILE.run.json`) is one of the run's inputs (by
//! device and inode, or by canonical path), and when two targets of one run would write the
//! same file, or when its symbolic links lead nowhere (more than 40 of them: a loop).
//! Standard output (`-`) and paths written directly (a device such as `/dev/null`, a
//! FIFO, `/dev/stdout`) are not files the run replaces: they are not checked.
//!
//! It also owns the two facts both it and the output writer need about a path: the
//! name of its in-progress file ([`partial_path`]) and whether it is written directly
//! ([`is_direct`]), so `output` imports this module and never the reverse.

use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The suffix of the file a run writes into before it is complete.
pub(crate) const PARTIAL_SUFFIX: &str = ".partial";

/// The suffix of the run sidecar beside a `solve` or `rate` output: `FILE.run.json` (written
/// through `FILE.run.json.tmp`).
pub(crate) const SIDECAR_SUFFIX: &str = ".run.json";

/// How every run sidecar's `kind` begins (`sudoku-batch solve run`, `sudoku-batch rate run`).
pub(crate) const SIDECAR_KIND_PREFIX: &str = "sudoku-batch ";

/// The path of the in-progress file for `path`.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(PARTIAL_SUFFIX);
    PathBuf::from(name)
}

/// The file a regular output path names: `path` itself, or where its symbolic links lead
/// (a relative link from the link's folder). The in-progress file is made beside that file and
/// renamed over it, so `-o LINK` replaces the file the link points to, as `> LINK` in a shell
/// writes through it, and the link stays. A loop of links (more than 40) is left as given
/// (`check_targets` refuses it).
pub(crate) fn through_links(path: &Path) -> PathBuf {
    end_of_links(path).unwrap_or_else(|| path.to_path_buf())
}

/// Where the symbolic links of `path` lead, as [`through_links`] follows them; `None` past 40
/// links (a loop, as the kernel takes it), which lead to no file.
fn end_of_links(path: &Path) -> Option<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..=40 {
        if !std::fs::symlink_metadata(&current).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(current);
        }
        let Ok(target) = std::fs::read_link(&current) else {
            return Some(current);
        };
        current = match current.parent() {
            Some(folder) if target.is_relative() => folder.join(target),
            _ => target,
        };
    }
    None
}

/// True for an output path that is written directly: a device, FIFO or socket (anything that
/// exists and is neither a regular file nor a folder), or a name for a descriptor such as
/// `/dev/stdout` or `/proc/self/fd/1` (whatever it points to, it is not ours to replace).
pub fn is_direct(path: &Path) -> bool {
    let text = path.to_string_lossy();
    if ["/dev/stdout", "/dev/stderr", "/dev/tty"].contains(&text.as_ref())
        || text.starts_with("/dev/fd/")
        || (text.starts_with("/proc/") && text.contains("/fd/"))
    {
        return true;
    }
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Refuses to replace `path` when another run holds its lock: it is that run's in-progress
/// file (`OTHER.partial`), and renaming this output over it would have that run put this
/// output in place of its own rows.
pub(crate) fn refuse_locked(path: &Path) -> Result<()> {
    match locked_by(path) {
        Some(who) => Err(refuse(
            path,
            format!(
                "another run{who} is writing it (it is locked: an in-progress file); give this \
                 output another name"
            ),
        )),
        None => Ok(()),
    }
}

/// When another run holds the lock of the regular file `path`: `Some(" (pid N)")`, or
/// `Some("")` where the holder is not known.
fn locked_by(path: &Path) -> Option<String> {
    // A regular file only: opening a FIFO would wait for a writer.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    match file.try_lock_shared() {
        Err(std::fs::TryLockError::WouldBlock) => {
            Some(lock_holder(&file).map_or(String::new(), |pid| format!(" (pid {pid})")))
        }
        _ => None,
    }
}

/// The pid holding a `flock` on `file`, from `/proc/locks` (Linux), where known.
#[cfg(unix)]
pub(crate) fn lock_holder(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let (dev, ino) = (meta.dev(), meta.ino());
    let (major, minor) = (
        libc::major(dev as libc::dev_t),
        libc::minor(dev as libc::dev_t),
    );
    let wanted = format!("{major:02x}:{minor:02x}:{ino}");
    // The kernel writes /proc/locks a page at a time and finds its place again by counting
    // entries, so a lock taken or dropped elsewhere between two reads can make the listing skip
    // one: ours. A few reads make that unlikely to matter.
    (0..4).find_map(|_| {
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        locks.lines().find_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // "1: FLOCK  ADVISORY  WRITE 3705 fe:00:5840920 0 EOF"
            let at = fields.iter().position(|f| *f == "FLOCK")?;
            (fields.get(at + 4) == Some(&wanted.as_str()))
                .then(|| fields.get(at + 3)?.parse().ok())
                .flatten()
        })
    })
}

/// The pid holding the lock on `file`: not looked up on this OS.
#[cfg(not(unix))]
pub(crate) fn lock_holder(_: &std::fs::File) -> Option<u32> {
    None
}

/// How a target is written, which says which files beside it the run writes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// Written into `FILE.partial`, renamed to `FILE` when complete (`-o`, `--summary`,
    /// `--report`, `--svg`).
    Replaced,
    /// `solve -o FILE` and `rate -o FILE`: `FILE.partial` renamed to `FILE`, and the run
    /// sidecar `FILE.run.json` (written through `FILE.run.json.tmp`).
    WithSidecar,
    /// Written in place: appended to (`bench --csv`).
    InPlace,
}

/// One file a command will write: the flag that names it, the path, and how it is written.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The option that names it, for messages (`-o`, `--summary`, ...).
    pub flag: &'static str,
    /// The path as given.
    pub path: &'a Path,
    /// How it is written.
    pub kind: WriteKind,
}

impl<'a> Target<'a> {
    /// A target named by `flag`, written as `kind`.
    pub fn new(flag: &'static str, path: &'a Path, kind: WriteKind) -> Target<'a> {
        Target { flag, path, kind }
    }

    /// The files the target writes, each with what it is to the run: (path, role).
    fn files(&self) -> Vec<(PathBuf, String)> {
        let mut files = vec![(self.path.to_path_buf(), format!("the {} file", self.flag))];
        if matches!(self.kind, WriteKind::Replaced | WriteKind::WithSidecar) {
            // Beside the file the path's links lead to, where the run makes it.
            files.push((
                partial_path(&through_links(self.path)),
                format!("the in-progress file of {}", self.flag),
            ));
        }
        if self.kind == WriteKind::WithSidecar {
            // Beside the file the links lead to, too.
            let mut sidecar = through_links(self.path).into_os_string();
            sidecar.push(SIDECAR_SUFFIX);
            let mut temp = sidecar.clone();
            temp.push(".tmp");
            let role = format!("the run sidecar of {}", self.flag);
            files.push((PathBuf::from(sidecar), role.clone()));
            files.push((PathBuf::from(temp), role));
        }
        files
    }
}

fn refuse(path: &Path, why: String) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        cause: io::Error::other(why),
    }
}

/// What identifies a file that may not exist yet: its canonical path when it exists, else the
/// canonical folder of the file it names (through any links) joined with that file's name; and
/// its device and inode when it exists.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    path: PathBuf,
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(path: &Path) -> Identity {
        // A link to a file not made yet names the file it will write: where it leads.
        let absolute = std::fs::canonicalize(path).ok().or_else(|| {
            let path = through_links(path);
            let name = path.file_name()?;
            std::fs::canonicalize(folder_of(&path))
                .ok()
                .map(|f| f.join(name))
        });
        Identity {
            path: absolute.unwrap_or_else(|| path.to_path_buf()),
            inode: std::fs::metadata(path)
                .ok()
                .as_ref()
                .and_then(super::input::inode_of),
        }
    }

    fn same(&self, other: &Identity) -> bool {
        self.path == other.path || (self.inode.is_some() && self.inode == other.inode)
    }
}

/// The folder a path is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether the process may create files in `folder`.
#[cfg(unix)]
fn writable(folder: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(folder.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the name"))?;
    // SAFETY: `name` is a NUL-terminated string that outlives the call.
    if unsafe { libc::access(name.as_ptr(), libc::W_OK | libc::X_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn writable(_: &Path) -> io::Result<()> {
    Ok(())
}

/// Refuses a run whose text on standard output (`what`) would be lost: standard output was
/// closed when the command started. `hint` says what to do instead.
pub(crate) fn stdout_open_for(what: &str, hint: &str) -> Result<()> {
    if stdout_closed() {
        return Err(refuse(
            Path::new("-"),
            format!(
                "standard output is closed (the command started with it shut, as by `>&-`), \
                 so {what} would be lost; {hint}"
            ),
        ));
    }
    Ok(())
}

/// Set by [`note_stdout_at_start`]: descriptor 1 was closed when the process started.
static STDOUT_CLOSED_AT_START: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Notes whether descriptor 1 is closed. The binary calls it before `main`, from a
/// constructor: by `main`, the standard library has opened `/dev/null` on a closed descriptor
/// 0-2 (so that no file opened later takes it), and text written there vanishes with exit 0.
/// Not called (a library, Python), standard output counts as open.
#[doc(hidden)]
pub fn note_stdout_at_start() {
    #[cfg(unix)]
    {
        // SAFETY: F_GETFD only asks whether descriptor 1 is open; it reads and changes nothing
        // else, and needs nothing of the Rust runtime.
        let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
        STDOUT_CLOSED_AT_START.store(closed, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Whether the process started with standard output closed (see [`note_stdout_at_start`]).
fn stdout_closed() -> bool {
    STDOUT_CLOSED_AT_START.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether the target is a file the run replaces or appends to (not stdout, not a device or
/// FIFO written directly).
fn is_file_target(path: &Path) -> bool {
    path.as_os_str() != "-" && !is_direct(path)
}

/// The output a run sidecar's name belongs to: `OUT` for `OUT.run.json` or
/// `OUT.run.json.tmp`; `None` for any other name.
fn sidecar_owner(path: &Path) -> Option<PathBuf> {
    let name = path.as_os_str().to_str()?;
    let name = name.strip_suffix(".tmp").unwrap_or(name);
    let owner = name.strip_suffix(SIDECAR_SUFFIX)?;
    (!owner.is_empty()).then(|| PathBuf::from(owner))
}

/// Whether the file at `path`, named as a sidecar, holds one (its `kind` names a sudoku-batch
/// run near its start).
fn holds_run_sidecar(path: &Path) -> bool {
    let mut head = [0u8; 256];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let n = io::Read::read(&mut file, &mut head).unwrap_or(0);
    let head = String::from_utf8_lossy(&head[..n]);
    head.trim_start().starts_with('{')
        && head.contains(&format!("\"kind\": \"{SIDECAR_KIND_PREFIX}"))
}

/// What makes `partial`, an output's in-progress file left at its place, unusable: a folder,
/// a symbolic link (never written through) or anything but a regular file (a FIFO would take
/// the rows and then be renamed into place empty); `None` when it is absent or a regular file.
pub(crate) fn partial_problem(partial: &Path) -> Option<String> {
    let kind = std::fs::symlink_metadata(partial).ok()?.file_type();
    let shown = partial.display();
    if kind.is_dir() {
        Some(format!(
            "its in-progress file {shown} is a folder; remove or rename that folder"
        ))
    } else if kind.is_symlink() {
        Some(format!(
            "its in-progress file {shown} is a symbolic link, which is never written through; \
             remove it"
        ))
    } else if !kind.is_file() {
        Some(format!(
            "its in-progress file {shown} is not a regular file (a FIFO, socket or device); \
             remove it"
        ))
    } else {
        None
    }
}

/// Checks one target on its own, before any work: not a folder; its in-progress file (where
/// it has one) usable and not another run's; its run sidecar (where it has one) not a folder;
/// the folders it is written in exist and are writable (the folder of the file its links lead
/// to, where the in-progress file is made, and for a sidecar the folder of the path as given).
fn check_place(target: &Target<'_>) -> Result<()> {
    let (path, flag) = (target.path, target.flag);
    let named = |why: String| refuse(path, format!("{flag} names it, but {why}"));
    if path.is_dir() {
        return Err(named("it is a folder".to_string()));
    }
    // Writing beside the link and renaming over it would replace the link, where a shell's
    // `> LINK` fails.
    let Some(resolved) = end_of_links(path) else {
        return Err(named(
            "it leads through more than 40 symbolic links (a loop?), so no file lies at their \
             end"
            .to_string(),
        ));
    };
    refuse_locked(&resolved).map_err(|e| match e {
        Error::Write { cause, .. } => named(cause.to_string()),
        other => other,
    })?;
    // A run's sidecar (`OUT.run.json`, or its temporary file), running, stopped or finished:
    // replaced, that run could no longer be resumed or merged. A running run writes it only
    // with its first rows; until then its locked `OUT.partial` tells.
    if let Some(owner) = sidecar_owner(&resolved) {
        if holds_run_sidecar(&resolved) {
            return Err(named(
                "it is the run sidecar of a solve or rate run's output (--resume and merge read \
                 it); give this output another name"
                    .to_string(),
            ));
        }
        let partial = partial_path(&through_links(&owner));
        if let Some(who) = locked_by(&partial) {
            return Err(named(format!(
                "it is the run sidecar of {}, which another run{who} is writing ({} is \
                 locked); give this output another name",
                owner.display(),
                partial.display()
            )));
        }
    }
    if target.kind != WriteKind::InPlace {
        let partial = partial_path(&resolved);
        if let Some(why) = partial_problem(&partial) {
            return Err(named(why));
        }
        // That run's `-o`: this output would be renamed over its rows when it ends.
        if let Some(who) = locked_by(&partial) {
            return Err(named(format!(
                "another run{who} is writing it ({} is locked); wait for it, or stop it",
                partial.display()
            )));
        }
    }
    // The in-progress file and the sidecar go beside the file the links lead to.
    if target.kind == WriteKind::WithSidecar {
        for (sidecar, _) in target.files().into_iter().skip(2) {
            if std::fs::symlink_metadata(&sidecar).is_ok_and(|m| m.is_dir()) {
                return Err(named(format!(
                    "its run sidecar {} is a folder; remove or rename that folder",
                    sidecar.display()
                )));
            }
        }
    }
    let folder = folder_of(&resolved);
    let shown = folder.display();
    match std::fs::metadata(folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(named(format!("{shown} is not a folder"))),
        Err(e) => return Err(named(format!("its folder {shown} cannot be used: {e}"))),
    }
    writable(folder).map_err(|e| named(format!("its folder {shown} is not writable: {e}")))
}

/// The file on disk for an input path: the archive for `ARCHIVE.zip:MEMBER`.
pub(crate) fn input_on_disk(path: &Path) -> PathBuf {
    crate::io::input::zip_member(path).map_or_else(|| path.to_path_buf(), |(archive, _)| archive)
}

/// The regular file a standard stream (`/dev/stdin`, `/dev/stdout`, `/dev/stderr`) is
/// redirected to, as a name that leads to it (`sudoku-batch solve - < FILE`, `... > FILE`), so
/// that it is checked against the inputs and outputs like a named file; `None` for a terminal,
/// pipe or device.
fn redirected(stream: &str) -> Option<PathBuf> {
    let name = Path::new(stream);
    (cfg!(unix) && std::fs::metadata(name).is_ok_and(|m| m.is_file())).then(|| name.into())
}

/// How an input is named in a refusal.
fn shown_input(input: &Path) -> String {
    if input.as_os_str() == "-" {
        "read from standard input".to_string()
    } else {
        input.display().to_string()
    }
}

/// Refuses standard input named more than once among `inputs` (`-`, or `/dev/stdin` and the
/// like when it is a pipe, FIFO or socket): a second read would find it used up. A regular
/// file on standard input can be read again, so `- < FILE` with `FILE` named too is allowed.
pub(crate) fn stdin_once(inputs: &[PathBuf]) -> Result<()> {
    let stream = stdin_stream();
    let reads_stdin = |f: &&PathBuf| {
        f.as_os_str() == "-"
            || stream.is_some_and(|id| {
                std::fs::metadata(f)
                    .ok()
                    .as_ref()
                    .and_then(super::input::inode_of)
                    == Some(id)
            })
    };
    if inputs.iter().filter(reads_stdin).count() > 1 {
        return Err(Error::Usage(
            "standard input is given more than once (`-`, or a name such as /dev/stdin); it \
             can be read only once"
                .to_string(),
        ));
    }
    Ok(())
}

/// The device and inode of standard input when it is a stream that can be read only once (a
/// pipe, FIFO or socket), else `None`.
#[cfg(unix)]
fn stdin_stream() -> Option<(u64, u64)> {
    use std::os::unix::fs::FileTypeExt;
    let meta = std::fs::metadata("/dev/stdin").ok()?;
    let kind = meta.file_type();
    (kind.is_fifo() || kind.is_socket())
        .then(|| super::input::inode_of(&meta))
        .flatten()
}

#[cfg(not(unix))]
fn stdin_stream() -> Option<(u64, u64)> {
    None
}

/// Checks every file a run will write before it reads anything: each target is not a folder,
/// its folder exists and is writable, none of the files it writes (itself, `FILE.partial`,
/// `FILE.run.json`) is one of `inputs` (stdin, `-`, counts when it is a file), and no two
/// targets write the same file; standard output redirected to a file counts as one more
/// target. The error names the file and the flags concerned.
pub fn check_targets(inputs: &[PathBuf], targets: &[Target<'_>]) -> Result<()> {
    stdin_once(inputs)?;
    if let Some(target) = targets.iter().find(|t| is_stdout(t.path)) {
        let flag = target.flag;
        stdout_open_for("what it writes there", &format!("name a file with {flag}"))?;
    }
    let targets: Vec<&Target<'_>> = targets.iter().filter(|t| is_file_target(t.path)).collect();
    for target in &targets {
        check_place(target)?;
    }
    let inputs: Vec<(&PathBuf, Identity)> = inputs
        .iter()
        .filter_map(|p| {
            let on_disk = if p.as_os_str() == "-" {
                redirected("/dev/stdin")?
            } else {
                input_on_disk(p)
            };
            Some((p, Identity::of(&on_disk)))
        })
        .filter(|(_, id)| id.inode.is_some())
        .collect();
    let mut claimed: Vec<(Identity, PathBuf, String)> = Vec::new();
    // Standard output and error redirected to a file are outputs too (what a command prints
    // would otherwise be mixed into, or replaced by, that file); standard error is not held
    // against standard output, as `> log 2>&1` keeps both in one file.
    for (stream, name) in [("/dev/stdout", "output"), ("/dev/stderr", "error")] {
        let Some(file) = redirected(stream) else {
            continue;
        };
        let id = Identity::of(&file);
        if let Some((input, _)) = inputs.iter().find(|(_, i)| i.same(&id)) {
            return Err(refuse(
                &id.path,
                format!(
                    "standard {name} is redirected to it, but it is the input {}; writing it \
                     would change the input",
                    shown_input(input)
                ),
            ));
        }
        if !claimed.iter().any(|(i, _, _)| i.same(&id)) {
            let path = id.path.clone();
            claimed.push((id, path, format!("standard {name} (redirected to it)")));
        }
    }
    for target in &targets {
        for (file, role) in target.files() {
            let id = Identity::of(&file);
            if id.inode.is_some() {
                if let Some((input, _)) = inputs.iter().find(|(_, i)| i.same(&id)) {
                    let what = if file.as_path() == target.path {
                        format!(
                            "{} names it, but it is the input {}",
                            target.flag,
                            shown_input(input)
                        )
                    } else {
                        format!(
                            "{} names it, so the run would write {} ({role}), which is the \
                             input {}",
                            target.flag,
                            file.display(),
                            shown_input(input)
                        )
                    };
                    return Err(refuse(
                        target.path,
                        format!("{what}; writing it would destroy the input"),
                    ));
                }
            }
            if let Some((_, _, other)) = claimed.iter().find(|(i, _, _)| i.same(&id)) {
                return Err(refuse(
                    &file,
                    format!("it is both {other} and {role}; give each output its own name"),
                ));
            }
            claimed.push((id, file, role));
        }
    }
    Ok(())
}

/// Refuses two targets that both name standard output (`-`, `/dev/stdout`, ...): their text
/// would be mixed into one stream. For the commands whose outputs all go to standard output
/// unless told otherwise (`solve`'s and `rate`'s rows, `verify`'s report); [`check_targets`]
/// itself lets any target be standard output.
pub fn one_on_stdout(targets: &[Target<'_>]) -> Result<()> {
    let mut on_stdout = targets.iter().filter(|t| is_stdout(t.path));
    if let (Some(first), Some(second)) = (on_stdout.next(), on_stdout.next()) {
        return Err(refuse(
            second.path,
            format!(
                "{} names standard output, where {} writes too{}; give one of them a file",
                second.flag,
                first.flag,
                if first.flag == "-o" {
                    " (the rows: no -o, or -o -)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// [`check_targets`] for a command that reads records and writes rows (`solve`, `rate`):
/// `-o` with its in-progress file and run sidecar, and `--summary`.
pub fn check_run_targets(
    inputs: &[PathBuf],
    output: Option<&Path>,
    summary: Option<&Path>,
) -> Result<()> {
    // No -o writes the rows to standard output.
    let mut targets = vec![Target::new(
        "-o",
        output.unwrap_or(Path::new("-")),
        WriteKind::WithSidecar,
    )];
    if let Some(path) = summary {
        targets.push(Target::new("--summary", path, WriteKind::Replaced));
    }
    one_on_stdout(&targets)?;
    check_targets(inputs, &targets)
}

pub(crate) use crate::error::is_stdout;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_that_meet_an_input_or_each_other_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        std::fs::write(&input, "x\n").unwrap();
        let out = dir.path().join("out.csv");
        let sidecar = dir.path().join("out.csv.run.json");
        let inputs = [input.clone()];
        let check = |targets: &[Target<'_>]| {
            check_targets(&inputs, targets)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let run = Target::new("-o", &out, WriteKind::WithSidecar);
        assert_eq!(check(&[run]), "");
        let cases: [(Target<'_>, &str); 4] = [
            (
                Target::new("--summary", &input, WriteKind::Replaced),
                "it is the input",
            ),
            (
                Target::new("--summary", &out, WriteKind::Replaced),
                "it is both the -o file and the --summary file",
            ),
            (
                Target::new("--summary", &sidecar, WriteKind::Replaced),
                "it is both the run sidecar of -o and the --summary file",
            ),
            (
                Target::new("--svg", dir.path(), WriteKind::InPlace),
                "it is a folder",
            ),
        ];
        for (target, says) in cases {
            let message = check(&[run, target]);
            assert!(message.contains(says), "{message}");
            assert!(message.contains(target.flag), "{message}");
        }
        let nowhere = dir.path().join("nodir").join("s.json");
        let message = check(&[Target::new("--summary", &nowhere, WriteKind::Replaced)]);
        assert!(message.contains("nodir") && message.contains("cannot be used"));
        // Standard output and devices are never refused.
        let null = Path::new("/dev/null");
        assert_eq!(
            check(&[
                Target::new("-o", Path::new("-"), WriteKind::Replaced),
                Target::new("--summary", Path::new("-"), WriteKind::Replaced),
            ]),
            ""
        );
        // ...but rows and the summary cannot both go to standard output.
        for (rows, summary) in [(None, "-"), (Some("-"), "/dev/stdout"), (None, "/dev/fd/1")] {
            let message = check_run_targets(&inputs, rows.map(Path::new), Some(Path::new(summary)))
                .unwrap_err()
                .to_string();
            assert!(
                message.contains("--summary names standard output"),
                "{message}"
            );
        }
        // Any two outputs, such as verify's --report and --summary.
        let both = one_on_stdout(&[
            Target::new("--report", Path::new("-"), WriteKind::Replaced),
            Target::new(
                "--summary",
                Path::new("/proc/self/fd/1"),
                WriteKind::Replaced,
            ),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            both.contains("--summary names standard output, where --report writes too"),
            "{both}"
        );
        let out = dir.path().join("rows.csv");
        assert!(check_run_targets(&inputs, Some(&out), Some(Path::new("-"))).is_ok());
        assert!(check_run_targets(&inputs, None, Some(&dir.path().join("s.json"))).is_ok());
        if null.exists() {
            assert_eq!(
                check(&[
                    Target::new("-o", null, WriteKind::WithSidecar),
                    Target::new("--summary", null, WriteKind::Replaced),
                ]),
                ""
            );
        }
    }
}
