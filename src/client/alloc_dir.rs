//! Nomad's alloc directory layout:
//!
//! ```text
//! <data_dir>/alloc/<alloc_id>/
//!   alloc/{data,logs,tmp}        shared by the group's tasks (NOMAD_ALLOC_DIR)
//!   <task>/{local,secrets,tmp}   per task (NOMAD_TASK_DIR = local, NOMAD_SECRETS_DIR)
//! ```

use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocDir {
    pub root: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskDir {
    pub dir: PathBuf,
    pub local: PathBuf,
    pub secrets: PathBuf,
    pub tmp: PathBuf,
}

impl AllocDir {
    pub fn new(root: PathBuf) -> Self {
        AllocDir { root }
    }

    /// `<alloc_dir>/alloc`, NOMAD_ALLOC_DIR.
    pub fn shared(&self) -> PathBuf {
        self.root.join("alloc")
    }

    pub fn logs(&self) -> PathBuf {
        self.shared().join("logs")
    }

    pub fn task(&self, task: &str) -> TaskDir {
        let dir = self.root.join(task);
        TaskDir {
            local: dir.join("local"),
            secrets: dir.join("secrets"),
            tmp: dir.join("tmp"),
            dir,
        }
    }

    /// Creates the shared directories (idempotent).
    pub fn build(&self) -> io::Result<()> {
        for sub in ["data", "logs", "tmp"] {
            create_dir(&self.shared().join(sub), 0o777)?;
        }
        Ok(())
    }

    /// Creates one task's directories (idempotent). Secrets are private to the task user.
    pub fn build_task(&self, task: &str) -> io::Result<TaskDir> {
        let t = self.task(task);
        create_dir(&t.dir, 0o777)?;
        create_dir(&t.local, 0o777)?;
        create_dir(&t.tmp, 0o777)?;
        create_dir(&t.secrets, 0o700)?;
        Ok(t)
    }
}

fn create_dir(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}
