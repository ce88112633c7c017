//! The artifact hook (Nomad's go-getter use): fetch each `artifact` into the task dir,
//! verify its checksum and unpack archives, following go-getter's `Client.Get` as Nomad
//! configures it.
//!
//! ```text
//!  source ─ detect (http(s) | local path) ─ archive? ─ yes: download to <task>/tmp/getter*/archive
//!                                          │               checksum, unpack into destination
//!                                          └─ no: mode any → file: destination/<name>
//!                                                 download, checksum (mode dir: no checksum)
//! ```
//! Options are go-getter's magic query parameters: `checksum` (`<type>:<hex>`, `<hex>`,
//! `file:<url>`), `archive` (`false` or a decompressor's key), `filename`; any other option
//! is sent along in the URL's query. `mode = "any" | "file" | "dir"`, `headers` and
//! `insecure` for http. The `destination` (default `local/`) is interpolated and resolved
//! as Nomad's `ClientPath` does (see `client_path`): relative to the task dir, and refused
//! only when it leaves both the task dir and the shared alloc dir, so `../alloc/data` and
//! `${NOMAD_ALLOC_DIR}/data` are fine.
//!
//! Downloads stream to disk and are hashed from disk: an artifact never sits in memory.
//! Local paths are this agent's extension (Nomad registers no `file` getter): absolute
//! paths, `file://` URLs, and relative paths resolved against the task dir as go-getter's
//! file detector resolves them against its working directory.

#[path = "artifact_checksum.rs"]
mod checksum;
#[path = "artifact_unpack.rs"]
mod unpack;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncWriteExt as _;

use self::checksum::{ChecksumMismatch, ChecksumSpec, ChecksumSpecError, FileChecksum};
use self::unpack::{Archive, UnpackError};
use super::client_path::Dirs;
use crate::api::TaskArtifact;

/// Nomad's default `artifact.http_read_timeout`.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Why an artifact could not be fetched, worded as Nomad's task event shows it.
#[derive(Debug, thiserror::Error)]
pub enum ArtifactError {
    /// Nomad's own check, before it runs go-getter (`getDestination`).
    #[error("artifact destination path escapes alloc directory")]
    DestinationEscapes,
    /// Nomad runs go-getter in a sandboxed subprocess and its events carry that wrapper
    /// around go-getter's error; users and tools match on the whole text.
    #[error("getter subprocess failed: exit status 1: failed to download artifact: {0}")]
    Getter(#[from] GetterError),
}

/// go-getter's errors, in its words.
#[derive(Debug, thiserror::Error)]
pub enum GetterError {
    #[error("download not supported for scheme '{0}'")]
    UnsupportedScheme(String),
    #[error("failed to parse source URL {0:?}: {1}")]
    BadUrl(String, String),
    #[error("bad response code: {0}")]
    BadResponse(u16),
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    #[error("invalid checksum: {0}")]
    InvalidChecksum(#[from] ChecksumSpecError),
    #[error(transparent)]
    ChecksumMismatch(#[from] ChecksumMismatch),
    #[error("checksum cannot be specified for directory download")]
    ChecksumOfDirectory,
    #[error("filename query parameter contain path traversal")]
    FilenameTraversal,
    #[error("copying of symlinks has been disabled")]
    SymlinkCopy,
    #[error(transparent)]
    Unpack(#[from] UnpackError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> GetterError + '_ {
    move |source| GetterError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The task's artifacts as Nomad's `api.TaskArtifact`s.
pub fn task_artifacts(artifacts: &Option<Value>) -> Vec<TaskArtifact> {
    artifacts
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// The artifact with its source, options, headers and destination interpolated, as Nomad's
/// getter replaces the task environment in each before fetching.
pub fn interpolated(a: &TaskArtifact, interpolate: impl Fn(&str) -> String) -> TaskArtifact {
    let map = |m: &Option<BTreeMap<String, String>>| {
        m.as_ref().map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), interpolate(v)))
                .collect::<BTreeMap<_, _>>()
        })
    };
    TaskArtifact {
        getter_source: a.getter_source.as_deref().map(&interpolate),
        getter_options: map(&a.getter_options),
        getter_headers: map(&a.getter_headers),
        relative_dest: a.relative_dest.as_deref().map(&interpolate),
        ..a.clone()
    }
}

/// Where an artifact comes from, after go-getter's detection.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Http(reqwest::Url),
    Local(PathBuf),
}

impl Source {
    /// The path part go-getter matches extensions and file names against.
    fn path(&self) -> String {
        match self {
            Source::Http(u) => u.path().to_string(),
            Source::Local(p) => p.display().to_string(),
        }
    }

    fn base_name(&self) -> String {
        let p = self.path();
        Path::new(&p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".".to_string())
    }
}

/// go-getter's detectors, reduced to the getters this agent has: forced getters
/// (`git::...`) and hosts its detectors send to git, s3 or gcs are named as unsupported.
fn detect(source: &str, task_dir: &Path) -> Result<Source, GetterError> {
    if let Some((forced, _)) = source.split_once("::") {
        if !matches!(forced, "http" | "https" | "file") {
            return Err(GetterError::UnsupportedScheme(forced.to_string()));
        }
    }
    let source = source.split_once("::").map_or(source, |(_, s)| s);
    if let Some((scheme, _)) = source.split_once("://") {
        return match scheme {
            "http" | "https" => reqwest::Url::parse(source)
                .map(Source::Http)
                .map_err(|e| GetterError::BadUrl(source.to_string(), e.to_string())),
            "file" => Ok(Source::Local(PathBuf::from(
                source.trim_start_matches("file://"),
            ))),
            other => Err(GetterError::UnsupportedScheme(other.to_string())),
        };
    }
    for (prefix, getter) in [
        ("git@", "git"),
        ("github.com/", "git"),
        ("gitlab.com/", "git"),
        ("bitbucket.org/", "git"),
    ] {
        if source.starts_with(prefix) {
            return Err(GetterError::UnsupportedScheme(getter.to_string()));
        }
    }
    if source.contains(".amazonaws.com/") {
        return Err(GetterError::UnsupportedScheme("s3".to_string()));
    }
    if source.contains("googleapis.com/") {
        return Err(GetterError::UnsupportedScheme("gcs".to_string()));
    }
    let path = Path::new(source);
    Ok(Source::Local(if path.is_absolute() {
        path.to_path_buf()
    } else {
        task_dir.join(path)
    }))
}

/// Adds the options that are not go-getter's own to the URL's query, as Nomad builds the
/// getter URL (and go-getter then strips its magic parameters): sorted by key, an option
/// replacing a query parameter of the same name.
fn with_query(mut url: reqwest::Url, options: &BTreeMap<String, String>) -> reqwest::Url {
    let extra: Vec<_> = options
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "checksum" | "archive" | "filename"))
        .collect();
    if extra.is_empty() {
        return url;
    }
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !options.contains_key(k.as_ref()))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    pairs.extend(extra.into_iter().map(|(k, v)| (k.clone(), v.clone())));
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    url.query_pairs_mut().clear().extend_pairs(pairs);
    url
}

/// Go's `strconv.ParseBool` saying false.
fn go_false(s: &str) -> bool {
    matches!(s, "0" | "f" | "F" | "false" | "FALSE" | "False")
}

/// How go-getter fetches: `file` puts one file at the destination, `dir` fills the
/// destination directory, `any` lets the source decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Any,
    File,
    Dir,
}

/// Streams the source into the file `dst` (created or truncated, parents made).
async fn download(
    src: &Source,
    dst: &Path,
    headers: &BTreeMap<String, String>,
    insecure: bool,
) -> Result<(), GetterError> {
    if let Some(parent) = dst.parent() {
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(io_err(parent))?;
    }
    match src {
        Source::Local(path) => {
            let meta = tokio::fs::symlink_metadata(path)
                .await
                .map_err(io_err(path))?;
            if meta.file_type().is_symlink() {
                return Err(GetterError::SymlinkCopy);
            }
            tokio::fs::copy(path, dst).await.map_err(io_err(path))?;
            Ok(())
        }
        Source::Http(url) => {
            let mut resp = http_get(url, headers, insecure).await?;
            let status = resp.status().as_u16();
            if status != 200 && status != 206 {
                return Err(GetterError::BadResponse(status));
            }
            let mut out = tokio::fs::File::create(dst).await.map_err(io_err(dst))?;
            while let Some(chunk) = resp.chunk().await? {
                out.write_all(&chunk).await.map_err(io_err(dst))?;
            }
            out.flush().await.map_err(io_err(dst))?;
            Ok(())
        }
    }
}

async fn http_get(
    url: &reqwest::Url,
    headers: &BTreeMap<String, String>,
    insecure: bool,
) -> Result<reqwest::Response, GetterError> {
    let client = reqwest::Client::builder()
        .timeout(HTTP_TIMEOUT)
        .danger_accept_invalid_certs(insecure)
        .build()?;
    let mut req = client.get(url.clone());
    for (k, v) in headers {
        req = req.header(k, v);
    }
    Ok(req.send().await?)
}

/// Copies a local directory tree (mode `dir` on a directory source), refusing symlinks.
fn copy_dir(src: &Path, dst: &Path) -> Result<(), GetterError> {
    std::fs::create_dir_all(dst).map_err(io_err(dst))?;
    for entry in std::fs::read_dir(src).map_err(io_err(src))? {
        let entry = entry.map_err(io_err(src))?;
        let from = entry.path();
        let to = dst.join(entry.file_name());
        let kind = entry.file_type().map_err(io_err(&from))?;
        if kind.is_symlink() {
            return Err(GetterError::SymlinkCopy);
        } else if kind.is_dir() {
            copy_dir(&from, &to)?;
        } else {
            std::fs::copy(&from, &to).map_err(io_err(&from))?;
        }
    }
    Ok(())
}

/// The checksum the `checksum` option asks for, reading a `file:` checksum file first.
async fn resolve_checksum(
    spec: &str,
    src: &Source,
    task_dir: &Path,
    scratch: &Path,
    headers: &BTreeMap<String, String>,
    insecure: bool,
) -> Result<FileChecksum, ChecksumSpecError> {
    let url = match checksum::parse_spec(spec, &src.base_name())? {
        ChecksumSpec::Inline(sum) => return Ok(sum),
        ChecksumSpec::File(url) => url,
    };
    let download_err = |e: GetterError| ChecksumSpecError::Download(e.to_string());
    let sums = detect(&url, task_dir).map_err(download_err)?;
    let file = scratch.join(format!("checksum-{}", sums.base_name()));
    download(&sums, &file, headers, insecure)
        .await
        .map_err(download_err)?;
    let text = tokio::fs::read_to_string(&file)
        .await
        .map_err(ChecksumSpecError::Read)?;
    let _ = tokio::fs::remove_file(&file).await;
    checksum::find_in_file(&text, &src.path(), &sums.path(), &url)
}

/// Hashes `file` off the async threads and compares it with `sum`.
async fn verify(sum: &FileChecksum, file: &Path) -> Result<(), GetterError> {
    let (sum, path) = (sum.clone(), file.to_path_buf());
    tokio::task::spawn_blocking(move || sum.verify(&path))
        .await
        .expect("checksum task")
        .map_err(io_err(file))??;
    Ok(())
}

/// Download one artifact (already [`interpolated`]) to its destination.
pub async fn get(dirs: &Dirs, a: &TaskArtifact) -> Result<(), ArtifactError> {
    let (dest, escapes) = dirs.client_path(a.relative_dest.as_deref().unwrap_or("local/"), true);
    if escapes {
        return Err(ArtifactError::DestinationEscapes);
    }
    let task_dir = dirs.task_dir.as_path();
    let mode = match a.getter_mode.as_deref() {
        Some("file") => Mode::File,
        Some("dir") => Mode::Dir,
        _ => Mode::Any,
    };
    fetch(
        task_dir,
        a.getter_source.as_deref().unwrap_or_default(),
        &dest,
        mode,
        &a.getter_options.clone().unwrap_or_default(),
        &a.getter_headers.clone().unwrap_or_default(),
        a.getter_insecure.unwrap_or(false),
    )
    .await?;
    Ok(())
}

/// go-getter's `Client.Get` for one source into `dest`.
async fn fetch(
    task_dir: &Path,
    source: &str,
    dest: &Path,
    mut mode: Mode,
    options: &BTreeMap<String, String>,
    headers: &BTreeMap<String, String>,
    insecure: bool,
) -> Result<(), GetterError> {
    let src = match detect(source, task_dir)? {
        Source::Http(url) => Source::Http(with_query(url, options)),
        local => local,
    };
    let archive = match options.get("archive").map(String::as_str) {
        Some(v) if go_false(v) => None,
        Some(v) if !v.is_empty() => unpack::by_key(v),
        _ => unpack::detect(&src.path()),
    };
    // go-getter's scratch space lives in TMPDIR, which Nomad points at the task's tmp dir.
    let tmp_root = Some(task_dir.join("tmp"))
        .filter(|t| t.is_dir())
        .unwrap_or_else(std::env::temp_dir);
    let scratch = tempfile::Builder::new()
        .prefix("getter")
        .tempdir_in(&tmp_root)
        .map_err(io_err(&tmp_root))?;
    let mut dst = dest.to_path_buf();
    // With an archive, download it to scratch and unpack into the destination afterwards.
    let mut unpack_into: Option<(Archive, PathBuf, bool)> = None;
    if let Some(kind) = archive {
        unpack_into = Some((kind, dst, mode != Mode::File));
        dst = scratch.path().join("archive");
        mode = Mode::File;
    }
    let sum = match options.get("checksum").filter(|c| !c.is_empty()) {
        Some(spec) => {
            Some(resolve_checksum(spec, &src, task_dir, scratch.path(), headers, insecure).await?)
        }
        None => None,
    };
    if mode == Mode::Any {
        mode = match &src {
            Source::Http(u) if u.path().ends_with('/') => Mode::Dir,
            Source::Local(p) if p.is_dir() => Mode::Dir,
            _ => Mode::File,
        };
        if mode == Mode::File {
            let name = match options.get("filename").filter(|f| !f.is_empty()) {
                Some(f) => f.clone(),
                None => src.base_name(),
            };
            if name.split(['/', '\\']).any(|p| p == "..") {
                return Err(GetterError::FilenameTraversal);
            }
            dst = dst.join(name);
        }
    }
    if mode == Mode::Dir {
        if sum.is_some() {
            return Err(GetterError::ChecksumOfDirectory);
        }
        return match &src {
            Source::Local(path) => {
                let (path, dst) = (path.clone(), dst.clone());
                tokio::task::spawn_blocking(move || copy_dir(&path, &dst))
                    .await
                    .expect("copy task")
            }
            // With X-Terraform-Get disabled (as Nomad sets it), an http directory
            // download is only a request whose status is checked.
            Source::Http(url) => {
                let resp = http_get(url, headers, insecure).await?;
                let status = resp.status().as_u16();
                if !(200..300).contains(&status) {
                    return Err(GetterError::BadResponse(status));
                }
                Ok(())
            }
        };
    }
    // A file already there with the right checksum is not fetched again.
    let present = match &sum {
        Some(sum) if dst.is_file() => verify(sum, &dst).await.is_ok(),
        _ => false,
    };
    if !present {
        download(&src, &dst, headers, insecure).await?;
        if let Some(sum) = &sum {
            if let Err(e) = verify(sum, &dst).await {
                if unpack_into.is_none() {
                    let _ = tokio::fs::remove_file(&dst).await;
                }
                return Err(e);
            }
        }
    }
    if let Some((kind, into, dir)) = unpack_into {
        tokio::task::spawn_blocking(move || unpack::decompress(kind, &into, &dst, dir))
            .await
            .expect("unpack task")?;
    }
    drop(scratch);
    Ok(())
}

#[cfg(test)]
#[path = "artifact_dest_tests.rs"]
mod dest_tests;
#[cfg(test)]
#[path = "artifacts_tests.rs"]
mod tests;
