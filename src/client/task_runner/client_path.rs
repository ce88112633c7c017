//! Where a task's files live from the client's side, and Nomad's `TaskEnv.ClientPath`: how a
//! path a job names (template and artifact destinations, template sources) becomes a host
//! path, and whether it escapes the task's sandbox. Paths are worked on lexically, as Go's
//! `filepath` does: symlinks are not resolved here.

use std::path::{Path, PathBuf};

use crate::client::template::funcs::clean_path as clean;

/// The two directories a task may write to: its own and the alloc's shared one.
#[derive(Debug, Clone)]
pub struct Dirs {
    /// `<alloc>/<task>`, the task's working directory.
    pub task_dir: PathBuf,
    /// `<alloc>/alloc`, the shared alloc dir (also inside the sandbox).
    pub shared_alloc_dir: PathBuf,
}

impl Dirs {
    /// Nomad's `checkEscape`: whether a path escapes both the task dir and the shared alloc
    /// dir.
    fn escapes(&self, p: &Path) -> bool {
        escapes_sandbox(&self.task_dir, p) && escapes_sandbox(&self.shared_alloc_dir, p)
    }

    /// Nomad's `TaskEnv.ClientPath` for an already interpolated path: a relative path is
    /// joined to the task dir, and so is an absolute one that escapes when `join_escape`
    /// (destinations: `/tmp` means the task's `tmp`, while `/<alloc>/alloc/x` stays as it
    /// is); the result is cleaned. Returns (path, escapes).
    pub fn client_path(&self, path: &str, join_escape: bool) -> (PathBuf, bool) {
        let p = Path::new(path);
        let joined = if !p.is_absolute() || (join_escape && self.escapes(p)) {
            self.task_dir.join(path.trim_start_matches('/'))
        } else {
            p.to_path_buf()
        };
        let clean = clean(&joined);
        let escapes = self.escapes(&clean);
        (clean, escapes)
    }
}

/// Nomad's `escapingfs.PathEscapesSandbox`: whether `path`, relative to `sandbox`, starts
/// with `..`. Like Nomad this also counts an entry whose name starts with `..` (such as
/// `..data`) right under the sandbox as an escape.
fn escapes_sandbox(sandbox: &Path, path: &Path) -> bool {
    let (sandbox, path) = (clean(sandbox), clean(path));
    match path.strip_prefix(&sandbox) {
        Ok(rel) => rel.to_string_lossy().starts_with(".."),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs() -> Dirs {
        Dirs {
            task_dir: "/tmp/testAlloc/testTask".into(),
            shared_alloc_dir: "/tmp/testAlloc/alloc".into(),
        }
    }

    /// Nomad's `TestTaskEnv_ClientPath` cases (after interpolation), and more.
    #[test]
    fn client_paths_join_relative_and_escaping_paths_and_detect_escapes() {
        let d = dirs();
        for (input, join, want, escapes) in [
            ("/tmp", true, "/tmp/testAlloc/testTask/tmp", false),
            ("/tmp", false, "/tmp", true),
            ("..", true, "/tmp/testAlloc", true),
            (
                "../alloc/somefile",
                true,
                "/tmp/testAlloc/alloc/somefile",
                false,
            ),
            (
                "/tmp/testAlloc/alloc/somefile",
                false,
                "/tmp/testAlloc/alloc/somefile",
                false,
            ),
            (
                "/tmp/testAlloc/alloc/somefile",
                true,
                "/tmp/testAlloc/alloc/somefile",
                false,
            ),
            (
                "/tmp/testAlloc/testTask/local/x",
                true,
                "/tmp/testAlloc/testTask/local/x",
                false,
            ),
            ("local/", true, "/tmp/testAlloc/testTask/local", false),
            ("", true, "/tmp/testAlloc/testTask", false),
            (
                "./local/../secrets/s",
                true,
                "/tmp/testAlloc/testTask/secrets/s",
                false,
            ),
            ("../other/x", true, "/tmp/testAlloc/other/x", true),
            ("../../etc/passwd", true, "/tmp/etc/passwd", true),
            // An absolute path that escapes is joined to the task dir (Go's Join cleans the
            // whole), then checked again.
            ("/etc/../../passwd", true, "/tmp/testAlloc/passwd", true),
            (
                "/tmp/testAlloc/alloc/../../x",
                true,
                "/tmp/testAlloc/testTask/tmp/x",
                false,
            ),
            // Go's prefix check on the relative path: `..data` counts as an escape.
            ("..data", true, "/tmp/testAlloc/testTask/..data", true),
            ("../alloc/..data", true, "/tmp/testAlloc/alloc/..data", true),
            (
                "local/..data",
                true,
                "/tmp/testAlloc/testTask/local/..data",
                false,
            ),
        ] {
            let (path, esc) = d.client_path(input, join);
            assert_eq!(
                (path.display().to_string(), esc),
                (want.to_string(), escapes),
                "{input:?} join={join}"
            );
        }
    }
}
