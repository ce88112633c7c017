//! `nomad fmt [-check] [-list=bool] [-recursive] [-write=bool] [paths ...]`: rewrite job and
//! agent config files to the canonical HCL layout, as Nomad's command/fmt.go does: files
//! ending in .nomad or .hcl, the current directory when no path is given, `-` for stdin to
//! stdout. Exit 1 on a syntax error, a missing path, or (with -check) a file that would change.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::jobspec;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Report files that are not formatted and exit 1, without writing them.
    #[arg(long)]
    pub check: bool,
    /// List the files whose formatting changes.
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_value_t = true, default_missing_value = "true")]
    pub list: bool,
    /// Process subdirectories too.
    #[arg(long)]
    pub recursive: bool,
    /// Overwrite the files with their formatted text (ignored for stdin).
    #[arg(long, action = clap::ArgAction::Set, num_args = 0..=1, default_value_t = true, default_missing_value = "true")]
    pub write: bool,
    /// Files or directories; `-` reads stdin and writes stdout.
    pub paths: Vec<PathBuf>,
}

struct Run<'a> {
    args: &'a Args,
    write_file: bool,
    write_stdout: bool,
    list: bool,
    unformatted: bool,
    errors: Vec<String>,
}

pub fn run(args: &Args) -> anyhow::Result<i32> {
    let stdin = args.paths.first().is_some_and(|p| p == Path::new("-"));
    let mut write_file = args.write && !stdin && !args.check;
    let mut list = args.list && !stdin;
    if stdin {
        write_file = false;
        list = false;
    }
    let mut r = Run {
        args,
        write_file,
        write_stdout: !list && !write_file,
        list,
        unformatted: false,
        errors: Vec::new(),
    };
    if stdin {
        let mut src = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut src) {
            r.errors.push(format!("Failed to read file <stdin>: {e}"));
        } else {
            r.file("<stdin>", None, &src)?;
        }
    } else if args.paths.is_empty() {
        r.dir(Path::new("."))?;
    } else {
        for path in &args.paths {
            match std::fs::metadata(path) {
                Err(_) => r
                    .errors
                    .push(format!("No file or directory at {}", path.display())),
                Ok(m) if m.is_dir() => r.dir(path)?,
                Ok(_) if is_nomad_file(path) => r.path(path)?,
                Ok(_) => r.errors.push(
                    "Only .nomad and .hcl files can be processed using nomad fmt".to_string(),
                ),
            }
        }
    }
    if !r.errors.is_empty() {
        let n = r.errors.len();
        let mut text = format!("{n} error{} occurred:\n", if n == 1 { "" } else { "s" });
        for e in &r.errors {
            text.push_str(&format!("\t* {e}\n"));
        }
        output::err(text);
        return Ok(1);
    }
    Ok(if r.unformatted { 1 } else { 0 })
}

fn is_nomad_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("nomad") | Some("hcl")
    )
}

impl Run<'_> {
    fn dir(&mut self, dir: &Path) -> anyhow::Result<()> {
        let mut entries = match std::fs::read_dir(dir) {
            Ok(it) => it.filter_map(Result::ok).collect::<Vec<_>>(),
            Err(_) => {
                self.errors
                    .push(format!("Failed to list directory {}", dir.display()));
                return Ok(());
            }
        };
        // Go's os.ReadDir returns entries sorted by name.
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => {
                    if self.args.recursive {
                        self.dir(&path)?;
                    }
                }
                Ok(_) if is_nomad_file(&path) => self.path(&path)?,
                Ok(_) => {}
                Err(e) => self.errors.push(e.to_string()),
            }
        }
        Ok(())
    }

    fn path(&mut self, path: &Path) -> anyhow::Result<()> {
        match std::fs::read_to_string(path) {
            Ok(src) => self.file(&path.display().to_string(), Some(path), &src),
            Err(e) => {
                self.errors
                    .push(format!("Failed to open file {}: {e}", path.display()));
                Ok(())
            }
        }
    }

    fn file(&mut self, name: &str, path: Option<&Path>, src: &str) -> anyhow::Result<()> {
        let formatted = match jobspec::format(src, name) {
            Ok(f) => f,
            Err(d) => {
                output::err(d.to_string());
                self.errors
                    .push(format!("{name}: not formatted: invalid HCL"));
                return Ok(());
            }
        };
        if formatted != src {
            if self.list {
                output::out(name)?;
            }
            if self.args.check {
                self.unformatted = true;
            }
            if let (true, Some(path)) = (self.write_file, path) {
                if let Err(e) = std::fs::write(path, &formatted) {
                    self.errors
                        .push(format!("Failed to write file {}: {e}", path.display()));
                }
            }
        }
        if self.write_stdout {
            output::out_raw(formatted.as_bytes())?;
        }
        Ok(())
    }
}
