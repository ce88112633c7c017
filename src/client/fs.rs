//! Browsing an alloc dir for `/v1/client/fs/*`, confined to it as Nomad's `AllocDir` does:
//! a path may not leave the alloc dir by `..` nor through a symlink that resolves outside
//! it, and file contents under a task's `secrets/` (or `private/`) dir are never read.
//!
//! Listings and stats are Nomad's `AllocFileInfo`: `FileMode` as Go's `FileMode.String()`,
//! `ModTime` as RFC 3339 with nanoseconds, `ContentType` sniffed from the first 512 bytes.

use std::fs::Metadata;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::task_runner::state::rfc3339;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FsError {
    /// 500, as Nomad answers it.
    #[error("Path escapes the alloc directory")]
    Escapes,
    #[error("Reading secret file prohibited: {0}")]
    Secret(String),
    #[error("Reading private file prohibited: {0}")]
    Private(String),
    /// 404.
    #[error("{op} {path}: no such file or directory")]
    NotFound { op: &'static str, path: String },
    /// 400.
    #[error("file {0:?} is a directory")]
    IsDir(String),
    #[error("{0}")]
    Io(String),
}

impl FsError {
    pub fn status(&self) -> u16 {
        match self {
            FsError::NotFound { .. } => 404,
            FsError::IsDir(_) => 400,
            FsError::Escapes | FsError::Secret(_) | FsError::Private(_) | FsError::Io(_) => 500,
        }
    }

    fn io(op: &'static str, path: &str, e: std::io::Error) -> FsError {
        if e.kind() == std::io::ErrorKind::NotFound {
            FsError::NotFound {
                op,
                path: path.to_string(),
            }
        } else {
            FsError::Io(format!("{op} {path}: {e}"))
        }
    }
}

/// Nomad's `AllocFileInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocFileInfo {
    pub name: String,
    pub is_dir: bool,
    pub size: i64,
    pub file_mode: String,
    pub mod_time: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content_type: String,
}

/// Whether `rel` climbs above the root by `..` (Nomad's `PathEscapesAllocViaRelative`).
pub fn escapes_lexically(rel: &str) -> bool {
    let mut depth: i64 = 0;
    for c in Path::new(rel).components() {
        match c {
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            Component::Normal(_) => depth += 1,
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    false
}

/// `root` joined with `rel` (which may start with `/`), after checking it stays inside
/// `root` both lexically and once symlinks are resolved. A path that does not exist yet
/// passes the symlink check as far as its existing ancestors go.
pub fn resolve(root: &Path, rel: &str) -> Result<PathBuf, FsError> {
    if escapes_lexically(rel) {
        return Err(FsError::Escapes);
    }
    let mut full = root.to_path_buf();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(p) => full.push(p),
            Component::ParentDir => {
                full.pop();
            }
            _ => {}
        }
    }
    let real_root = root
        .canonicalize()
        .map_err(|e| FsError::Io(format!("alloc dir: {e}")))?;
    let mut probe = full.as_path();
    loop {
        match probe.canonicalize() {
            Ok(real) => {
                if !real.starts_with(&real_root) {
                    return Err(FsError::Escapes);
                }
                return Ok(full);
            }
            Err(_) => match probe.parent() {
                Some(parent) if parent.starts_with(root) => probe = parent,
                _ => return Ok(full),
            },
        }
    }
}

/// Refuses reading under a task's `secrets/` or `private/` directory (case-insensitively,
/// as Nomad compares).
fn check_readable(root: &Path, full: &Path, rel: &str) -> Result<(), FsError> {
    let Ok(inside) = full.strip_prefix(root) else {
        return Err(FsError::Escapes);
    };
    let parts: Vec<String> = inside
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    if parts.len() >= 2 && parts[0] != "alloc" {
        match parts[1].as_str() {
            "secrets" => return Err(FsError::Secret(rel.to_string())),
            "private" => return Err(FsError::Private(rel.to_string())),
            _ => {}
        }
    }
    Ok(())
}

/// Go's `FileMode.String()`: type and special-bit letters, then `rwxrwxrwx`.
pub fn go_file_mode(meta: &Metadata) -> String {
    let ft = meta.file_type();
    let mode = meta.permissions().mode();
    let mut s = String::new();
    if ft.is_dir() {
        s.push('d');
    }
    if ft.is_symlink() {
        s.push('L');
    }
    if ft.is_block_device() {
        s.push('D');
    }
    if ft.is_fifo() {
        s.push('p');
    }
    if ft.is_socket() {
        s.push('S');
    }
    if mode & 0o4000 != 0 {
        s.push('u');
    }
    if mode & 0o2000 != 0 {
        s.push('g');
    }
    if ft.is_char_device() {
        s.push('c');
    }
    if mode & 0o1000 != 0 {
        s.push('t');
    }
    if s.is_empty() {
        s.push('-');
    }
    for (i, ch) in "rwxrwxrwx".chars().enumerate() {
        let bit = 1 << (8 - i);
        s.push(if mode & bit != 0 { ch } else { '-' });
    }
    s
}

fn mod_time(meta: &Metadata) -> String {
    let nanos = meta
        .mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(meta.mtime_nsec());
    rfc3339(nanos)
}

/// A small part of Go's `http.DetectContentType`: text when the sniffed bytes are UTF-8
/// without control bytes, else binary; `.json` files are JSON.
pub fn content_type(path: &Path, head: &[u8]) -> String {
    if path.extension().is_some_and(|e| e == "json") {
        return "application/json".to_string();
    }
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        // A character cut off by the 512-byte window is still text.
        Err(e) => e.error_len().is_none(),
    };
    let control = head
        .iter()
        .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b));
    if head.is_empty() || (utf8 && !control) {
        "text/plain; charset=utf-8".to_string()
    } else {
        "application/octet-stream".to_string()
    }
}

fn info(name: String, meta: &Metadata) -> AllocFileInfo {
    AllocFileInfo {
        name,
        is_dir: meta.is_dir(),
        size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
        file_mode: go_file_mode(meta),
        mod_time: mod_time(meta),
        content_type: String::new(),
    }
}

fn display(rel: &str) -> String {
    if rel.is_empty() {
        "/".to_string()
    } else {
        rel.to_string()
    }
}

/// `ls`: the directory's entries (not following symlinks), sorted by name.
pub fn list(root: &Path, rel: &str) -> Result<Vec<AllocFileInfo>, FsError> {
    let full = resolve(root, rel)?;
    let entries = std::fs::read_dir(&full).map_err(|e| FsError::io("open", &display(rel), e))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| FsError::Io(e.to_string()))?;
        let meta = entry
            .metadata()
            .map_err(|e| FsError::io("lstat", &display(rel), e))?;
        out.push(info(
            entry.file_name().to_string_lossy().into_owned(),
            &meta,
        ));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// `stat`: one file (following symlinks inside the alloc dir), with its content type.
pub fn stat(root: &Path, rel: &str) -> Result<AllocFileInfo, FsError> {
    let full = resolve(root, rel)?;
    let meta = std::fs::metadata(&full).map_err(|e| FsError::io("stat", &display(rel), e))?;
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "/".to_string());
    let mut i = info(name, &meta);
    i.content_type = if meta.is_dir() {
        "application/octet-stream".to_string()
    } else {
        let mut head = Vec::new();
        if let Ok(f) = std::fs::File::open(&full) {
            let _ = f.take(512).read_to_end(&mut head);
        }
        content_type(&full, &head)
    };
    Ok(i)
}

/// Opens a regular file for reading at `offset`; returns it with its current size.
pub fn open_at(root: &Path, rel: &str, offset: u64) -> Result<(std::fs::File, u64), FsError> {
    let full = resolve(root, rel)?;
    check_readable(root, &full, rel)?;
    let meta = std::fs::metadata(&full).map_err(|e| FsError::io("open", &display(rel), e))?;
    if meta.is_dir() {
        return Err(FsError::IsDir(rel.to_string()));
    }
    let mut f = std::fs::File::open(&full).map_err(|e| FsError::io("open", &display(rel), e))?;
    f.seek(SeekFrom::Start(offset))
        .map_err(|e| FsError::Io(format!("can't seek to offset {offset}: {e}")))?;
    Ok((f, meta.len()))
}

/// Reads up to `limit` bytes (all when `None`) from `offset`.
pub fn read_at(
    root: &Path,
    rel: &str,
    offset: u64,
    limit: Option<u64>,
) -> Result<Vec<u8>, FsError> {
    let (f, _) = open_at(root, rel, offset)?;
    let mut buf = Vec::new();
    let res = match limit {
        Some(n) => f.take(n).read_to_end(&mut buf),
        None => {
            let mut f = f;
            f.read_to_end(&mut buf)
        }
    };
    res.map_err(|e| FsError::Io(e.to_string()))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc_dir() -> tempfile::TempDir {
        let d = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(d.path().join("alloc/logs")).expect("mkdir");
        std::fs::create_dir_all(d.path().join("web/secrets")).expect("mkdir");
        std::fs::create_dir_all(d.path().join("web/local")).expect("mkdir");
        std::fs::write(d.path().join("web/local/a.txt"), "hello\n").expect("write");
        std::fs::write(d.path().join("web/secrets/token"), "s3cret").expect("write");
        d
    }

    #[test]
    fn dotdot_cannot_leave_the_alloc_dir() {
        let d = alloc_dir();
        assert_eq!(resolve(d.path(), "../etc/passwd"), Err(FsError::Escapes));
        assert_eq!(resolve(d.path(), "/web/../../x"), Err(FsError::Escapes));
        assert_eq!(
            resolve(d.path(), "web/../alloc/logs").expect("inside"),
            d.path().join("alloc/logs")
        );
        assert_eq!(resolve(d.path(), "/").expect("root"), d.path());
    }

    #[test]
    fn symlinks_out_of_the_alloc_dir_are_refused() {
        let d = alloc_dir();
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("f"), "x").expect("write");
        std::os::unix::fs::symlink(outside.path(), d.path().join("web/local/out"))
            .expect("symlink");
        std::os::unix::fs::symlink("a.txt", d.path().join("web/local/in")).expect("symlink");
        assert_eq!(resolve(d.path(), "web/local/out/f"), Err(FsError::Escapes));
        assert_eq!(
            read_at(d.path(), "web/local/out/f", 0, None),
            Err(FsError::Escapes)
        );
        // A link that stays inside is fine.
        assert_eq!(
            read_at(d.path(), "web/local/in", 0, None).expect("reads"),
            b"hello\n"
        );
        // Not-yet-existing files below an escaping link still escape.
        assert_eq!(
            resolve(d.path(), "web/local/out/new"),
            Err(FsError::Escapes)
        );
    }

    #[test]
    fn secrets_can_be_listed_but_not_read() {
        let d = alloc_dir();
        let ls = list(d.path(), "web/secrets").expect("lists");
        assert_eq!(ls[0].name, "token");
        assert_eq!(
            read_at(d.path(), "web/secrets/token", 0, None),
            Err(FsError::Secret("web/secrets/token".to_string()))
        );
        assert!(matches!(
            read_at(d.path(), "WEB/Secrets/token", 0, None),
            Err(FsError::Secret(_))
        ));
    }

    #[test]
    fn list_stat_and_read_at() {
        let d = alloc_dir();
        let ls = list(d.path(), "/").expect("lists");
        let names: Vec<&str> = ls.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["alloc", "web"]);
        assert!(ls[0].is_dir);
        assert!(ls[0].file_mode.starts_with('d'));
        let st = stat(d.path(), "web/local/a.txt").expect("stats");
        assert_eq!(st.size, 6);
        assert_eq!(st.content_type, "text/plain; charset=utf-8");
        assert!(st.mod_time.ends_with('Z'));
        assert_eq!(
            read_at(d.path(), "web/local/a.txt", 1, Some(3)).expect("reads"),
            b"ell"
        );
        assert_eq!(
            read_at(d.path(), "web/local", 0, None),
            Err(FsError::IsDir("web/local".to_string()))
        );
        let missing = stat(d.path(), "nope").expect_err("missing");
        assert_eq!(missing.status(), 404);
        assert_eq!(missing.to_string(), "stat nope: no such file or directory");
    }

    #[test]
    fn file_modes_print_like_go() {
        let d = alloc_dir();
        let p = d.path().join("web/local/a.txt");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        assert_eq!(
            go_file_mode(&std::fs::metadata(&p).expect("meta")),
            "-rw-r-----"
        );
        let dir = d.path().join("web/tmp");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        assert_eq!(
            go_file_mode(&std::fs::metadata(&dir).expect("meta")),
            "dtrwxrwxrwx"
        );
    }
}
