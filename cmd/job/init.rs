//! `nomad job init [-short] [file]`: write an example job file.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::anyhow;

use crate::jobspec;
use crate::output;

/// Nomad's default name for `job init`.
pub const DEFAULT_INIT_NAME: &str = "example.nomad.hcl";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// If the short flag is set, a minimal jobspec without comments is emitted.
    #[arg(long)]
    pub short: bool,
    /// Where to write the example (default "example.nomad.hcl").
    pub filename: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<i32> {
    let path = args
        .filename
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_INIT_NAME));
    let name = path.display().to_string();
    match std::fs::metadata(&path) {
        Ok(_) => return Err(anyhow!("Job '{name}' already exists")),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(anyhow!("Failed to stat '{name}': {e}"))
        }
        Err(_) => {}
    }
    write_new(&path, jobspec::init_job(args.short))
        .map_err(|e| anyhow!("Failed to write '{name}': {e}"))?;
    output::out(format!("Example job file written to {name}"))?;
    Ok(0)
}

/// Create the file (never overwrite: another process may have made it since the check).
fn write_new(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o660);
    }
    let mut f = opts.open(path)?;
    f.write_all(contents.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_once_then_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.nomad.hcl");
        let args = Args {
            short: true,
            filename: Some(path.clone()),
        };
        assert_eq!(run(&args).unwrap(), 0);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            jobspec::init_job(true)
        );
        let err = run(&args).unwrap_err().to_string();
        assert_eq!(err, format!("Job '{}' already exists", path.display()));
    }
}
