//! `nomad alloc fs [options] <allocation> [<path>]`: list a directory, stat or print a file
//! of an allocation's directory, or tail/follow it.

use anyhow::anyhow;
use nomad::api::client::{Client, Origin};
use nomad::api::Allocation;
use nomad::client::fs::AllocFileInfo;

use super::logs::last_lines;
use super::target;
use crate::meta::GlobalArgs;
use crate::output::{self, format_list, ibytes};

const DEFAULT_TAIL_LINES: i64 = 10;
const BYTES_PER_LINE: i64 = 120;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Machine friendly output: sizes in bytes.
    #[arg(short = 'H')]
    pub machine: bool,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Use a random allocation from the specified job ID or prefix.
    #[arg(long)]
    pub job: bool,
    /// With -job, only allocations of this task group.
    #[arg(long, default_value = "")]
    pub group: String,
    /// Show file stat information instead of displaying the file, or listing the directory.
    #[arg(long)]
    pub stat: bool,
    /// Causes the output to not stop, and instead continuously output new lines.
    #[arg(short = 'f')]
    pub follow: bool,
    /// Show the files contents with offsets relative to the end of the file.
    #[arg(long)]
    pub tail: bool,
    /// Sets the tail location in best-efforted number of lines relative to the end.
    #[arg(short = 'n', default_value_t = -1, allow_negative_numbers = true)]
    pub lines: i64,
    /// Sets the tail location in number of bytes relative to the end.
    #[arg(short = 'c', default_value_t = -1, allow_negative_numbers = true)]
    pub bytes: i64,
    /// The allocation ID or prefix (the job with -job).
    pub alloc: Option<String>,
    /// The path inside the allocation directory.
    pub path: Option<String>,
}

fn size(f: &AllocFileInfo, machine: bool) -> String {
    if machine {
        f.size.to_string()
    } else {
        ibytes(f.size.max(0) as u64)
    }
}

fn name(f: &AllocFileInfo) -> String {
    if f.is_dir {
        format!("{}/", f.name)
    } else {
        f.name.clone()
    }
}

pub fn stat_table(f: &AllocFileInfo, machine: bool) -> String {
    format_list(&[
        "Mode|Size|Modified Time|Content Type|Name".to_string(),
        format!(
            "{}|{}|{}|{}|{}",
            f.file_mode,
            size(f, machine),
            output::format_rfc3339(&f.mod_time),
            f.content_type,
            name(f)
        ),
    ])
}

pub fn ls_table(files: &[AllocFileInfo], machine: bool) -> String {
    let mut rows = vec!["Mode|Size|Modified Time|Name".to_string()];
    rows.extend(files.iter().map(|f| {
        format!(
            "{}|{}|{}|{}",
            f.file_mode,
            size(f, machine),
            output::format_rfc3339(&f.mod_time),
            name(f)
        )
    }));
    format_list(&rows)
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let Some(arg) = args.alloc.as_deref() else {
        let what = if args.job {
            "A job ID"
        } else {
            "An allocation ID"
        };
        output::err(format!("{what} is required"));
        output::err("For additional help try 'nomad alloc fs -help'");
        return Ok(1);
    };
    let client = g.client()?;
    let alloc_id = if args.job {
        target::random_job_alloc(&client, g, arg, &args.group).await?
    } else {
        arg.to_string()
    };
    let alloc = target::resolve(&client, &alloc_id, args.verbose).await?;
    let path = args.path.clone().unwrap_or_else(|| "/".to_string());
    let file = client
        .fs_stat(&alloc.id, &path)
        .await
        .map_err(|e| anyhow!("{e}"))?;
    if args.stat {
        output::out(stat_table(&file, args.machine))?;
        return Ok(0);
    }
    if file.is_dir {
        let files = client
            .fs_ls(&alloc.id, &path)
            .await
            .map_err(|e| anyhow!("Error listing alloc dir: {e}"))?;
        output::out(ls_table(&files, args.machine))?;
        return Ok(0);
    }
    print_file(&client, args, &alloc, &path, file.size).await
}

async fn print_file(
    client: &Client,
    args: &Args,
    alloc: &Allocation,
    path: &str,
    size: i64,
) -> anyhow::Result<i32> {
    if !args.tail {
        if args.follow {
            follow(client, &alloc.id, path, Origin::Start, 0, None)
                .await
                .map_err(|e| anyhow!("Error reading file: {e:#}"))?;
        } else {
            let body = client
                .fs_cat(&alloc.id, path)
                .await
                .map_err(|e| anyhow!("Error reading file: {e}"))?;
            output::out_raw(&body)?;
        }
        return Ok(0);
    }
    if args.lines != -1 && args.bytes != -1 {
        output::err("Both -n and -c are not allowed");
        return Ok(1);
    }
    if args.lines < -1 || args.bytes < -1 {
        output::err("Invalid size is specified");
        return Ok(1);
    }
    let (mut offset, lines) = if args.lines != -1 {
        (args.lines * BYTES_PER_LINE, Some(args.lines))
    } else if args.bytes != -1 {
        (args.bytes, None)
    } else {
        (
            DEFAULT_TAIL_LINES * BYTES_PER_LINE,
            Some(DEFAULT_TAIL_LINES),
        )
    };
    offset = offset.min(size);
    if args.follow {
        follow(client, &alloc.id, path, Origin::End, offset, lines)
            .await
            .map_err(|e| anyhow!("Error tailing file: {e:#}"))?;
        return Ok(0);
    }
    let mut stream = client
        .fs_stream(&alloc.id, path, Origin::End, offset, false)
        .await
        .map_err(|e| anyhow!("Error tailing file: {e}"))?;
    let mut buf = Vec::new();
    while let Some(f) = stream
        .next_frame()
        .await
        .map_err(|e| anyhow!("Error tailing file: {e}"))?
    {
        buf.extend_from_slice(&f.data);
    }
    let shown = match lines {
        Some(n) => last_lines(&buf, n.max(0) as usize),
        None => &buf[..],
    };
    output::out_raw(shown)?;
    Ok(0)
}

/// Streams the file until Ctrl-C; with `lines`, the first batch is cut to its last lines.
async fn follow(
    client: &Client,
    alloc_id: &str,
    path: &str,
    origin: Origin,
    offset: i64,
    lines: Option<i64>,
) -> anyhow::Result<()> {
    let mut stream = client
        .fs_stream(alloc_id, path, origin, offset, true)
        .await?;
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    let mut first = lines;
    loop {
        tokio::select! {
            _ = &mut interrupted => return Ok(()),
            frame = stream.next_frame() => {
                let Some(frame) = frame? else { return Ok(()) };
                match first.take() {
                    Some(n) => output::out_raw(last_lines(&frame.data, n.max(0) as usize))?,
                    None => output::out_raw(&frame.data)?,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, dir: bool, size: i64) -> AllocFileInfo {
        AllocFileInfo {
            name: name.into(),
            is_dir: dir,
            size,
            file_mode: if dir { "drwxrwxrwx" } else { "-rw-r--r--" }.into(),
            mod_time: "2026-12-02T13:13:41Z".into(),
            content_type: String::new(),
        }
    }

    #[test]
    fn ls_table_matches_nomads_layout() {
        let t = ls_table(
            &[file("alloc", true, 4096), file("out.txt", false, 2048)],
            false,
        );
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("Mode"));
        assert!(lines[0].contains("Size") && lines[0].ends_with("Name"));
        assert!(lines[1].starts_with("drwxrwxrwx") && lines[1].ends_with("alloc/"));
        assert!(lines[2].contains("2.0 KiB") && lines[2].ends_with("out.txt"));
        let machine = ls_table(&[file("out.txt", false, 2048)], true);
        assert!(machine.contains("2048"));
    }
}
