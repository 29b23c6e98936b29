//! Build script: embeds the git commit and the rustc version, which `bench` records with every
//! result row so a measurement names the exact build it came from. Never fails the build: when
//! git or rustc cannot be asked, the value is "unknown".

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(hash) => {
            // Uncommitted changes to the sources make the hash a lie; say so.
            let dirty = git(&[
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                "src",
                "build.rs",
                "Cargo.toml",
                "Cargo.lock",
            ])
            .is_some_and(|status| !status.is_empty());
            if dirty {
                format!("{hash}-dirty")
            } else {
                hash
            }
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=SUDOKU_BATCH_GIT_COMMIT={commit}");

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let rustc_version = run(&rustc, &["--version"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=SUDOKU_BATCH_RUSTC={rustc_version}");

    // Re-run when HEAD moves (checkout, commit) or the sources change (dirty flag).
    println!("cargo:rerun-if-changed=build.rs");
    for path in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={path}");
    }
    let mut git_paths = vec![
        "HEAD".to_string(),
        "packed-refs".to_string(),
        "index".to_string(),
    ];
    if let Some(head_ref) = git(&["symbolic-ref", "-q", "HEAD"]) {
        git_paths.push(head_ref);
    }
    for name in git_paths {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            if Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
}

/// Runs git in the package directory; its trimmed stdout on success.
fn git(args: &[&str]) -> Option<String> {
    run("git", args)
}

fn run(program: &str, args: &[&str]) -> Option<String> {
    let output = Command::new(program).args(args).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    Some(text.trim().to_string())
}
