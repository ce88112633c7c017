//! Host facts read from text files: memory (/proc/meminfo), the OS release (/etc/os-release,
//! /etc/debian_version), the device a path is stored on and the cgroup mode
//! (/proc/self/mounts), the host id (DMI, /etc/machine-id) and the bridge module
//! (/sys/module, /proc/modules, modules.builtin, modules.dep).
//!
//! Each fact is a pure parser over the file's text plus a [`HostFiles`] reader that finds the
//! files under a root, `/` on a real host and a fixture tree in tests. A missing or odd file
//! yields "unknown" (an empty or absent value), never an error: a node that cannot read
//! /etc/os-release still registers.

use std::path::{Path, PathBuf};

/// Where the host's files live.
#[derive(Debug, Clone)]
pub struct HostFiles {
    root: PathBuf,
}

impl HostFiles {
    pub fn host() -> Self {
        HostFiles::under("/")
    }

    /// Reads every file below `root` instead of `/` (fixtures).
    pub fn under(root: impl Into<PathBuf>) -> Self {
        HostFiles { root: root.into() }
    }

    fn path(&self, abs: &str) -> PathBuf {
        self.root.join(abs.trim_start_matches('/'))
    }

    fn read(&self, abs: &str) -> Option<String> {
        std::fs::read_to_string(self.path(abs)).ok()
    }

    /// `memory.totalbytes`: MemTotal; None when unreadable or zero.
    pub fn mem_total_bytes(&self) -> Option<u64> {
        parse_mem_total(&self.read("/proc/meminfo")?)
    }

    /// (`os.name`, `os.version`).
    pub fn os_release(&self) -> (String, String) {
        let (id, version) = parse_os_release(&self.read("/etc/os-release").unwrap_or_default());
        // Debian's point release is in /etc/debian_version; that is the version Nomad reports.
        if id == "debian" {
            if let Some(point) = self
                .read("/etc/debian_version")
                .as_deref()
                .and_then(debian_point_release)
            {
                return (id, point);
            }
        }
        (id, version)
    }

    /// `unique.host_id`: DMI's product UUID when readable (root only), else /etc/machine-id
    /// as a UUID.
    pub fn host_id(&self) -> Option<String> {
        let dmi = self
            .read("/sys/class/dmi/id/product_uuid")
            .map(|s| s.trim().to_ascii_lowercase())
            .filter(|s| !s.is_empty());
        dmi.or_else(|| machine_id_uuid(&self.read("/etc/machine-id")?))
    }

    /// `os.cgroups.version`: "2" on a unified hierarchy, "1" on a legacy or hybrid one, None
    /// without cgroups.
    pub fn cgroups_version(&self) -> Option<&'static str> {
        cgroups_version(&self.read("/proc/self/mounts")?)
    }

    /// `unique.storage.volume`: the device of the filesystem holding `path` (a canonical
    /// path), as `df` names it.
    pub fn storage_device(&self, path: &Path) -> String {
        mount_source(&self.read("/proc/self/mounts").unwrap_or_default(), path).unwrap_or_default()
    }

    /// Whether the kernel has the bridge module, loaded, built in or installable (the
    /// places Nomad looks, in its order): then the node offers `bridge` network mode.
    pub fn bridge_module(&self, kernel_release: &str) -> bool {
        let modules = format!("/lib/modules/{kernel_release}");
        self.path("/sys/module/bridge").is_dir()
            || self
                .read("/proc/modules")
                .is_some_and(|t| module_loaded(&t, "bridge"))
            || self
                .read(&format!("{modules}/modules.builtin"))
                .is_some_and(|t| module_builtin(&t, "bridge"))
            || self
                .read(&format!("{modules}/modules.dep"))
                .is_some_and(|t| module_installable(&t, "bridge"))
    }
}

pub(crate) fn parse_mem_total(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb.saturating_mul(1024))
        .filter(|b| *b > 0)
}

/// (ID, VERSION_ID) of os-release(5), unquoted.
pub(crate) fn parse_os_release(text: &str) -> (String, String) {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
            .unwrap_or_default()
    };
    (field("ID"), field("VERSION_ID"))
}

/// "12.11" from /etc/debian_version; None for testing/sid's "trixie/sid".
pub(crate) fn debian_point_release(text: &str) -> Option<String> {
    let v = text.trim();
    v.starts_with(|c: char| c.is_ascii_digit())
        .then(|| v.to_string())
}

/// A 32-hex-digit machine id as 8-4-4-4-12.
pub(crate) fn machine_id_uuid(text: &str) -> Option<String> {
    let id = text.trim().to_ascii_lowercase();
    if id.len() != 32 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    Some(format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    ))
}

/// A mounts(5) field with its octal escapes (`\040` for a space) undone.
fn unescape_mount_field(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).and_then(|d| {
            let s = std::str::from_utf8(d).ok()?;
            u8::from_str_radix(s, 8).ok()
        });
        match (bytes[i], octal) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 4;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// (source, mountpoint, fstype) per line of /proc/self/mounts.
fn mounts(text: &str) -> impl Iterator<Item = (String, String, &str)> {
    text.lines().filter_map(|l| {
        let mut f = l.split_whitespace();
        let source = unescape_mount_field(f.next()?);
        let target = unescape_mount_field(f.next()?);
        Some((source, target, f.next()?))
    })
}

/// The source of the innermost mount holding `path`; of stacked mounts, the last one.
pub(crate) fn mount_source(mounts_text: &str, path: &Path) -> Option<String> {
    mounts(mounts_text)
        .filter(|(_, target, _)| path.starts_with(target))
        .max_by_key(|(_, target, _)| Path::new(target).components().count())
        .map(|(source, _, _)| source)
}

pub(crate) fn cgroups_version(mounts_text: &str) -> Option<&'static str> {
    let mut v1 = false;
    for (_, target, fstype) in mounts(mounts_text) {
        if target == "/sys/fs/cgroup" && fstype == "cgroup2" {
            return Some("2");
        }
        v1 |= fstype == "cgroup";
    }
    v1.then_some("1")
}

/// Whether /proc/modules lists `name`.
pub(crate) fn module_loaded(proc_modules: &str, name: &str) -> bool {
    proc_modules
        .lines()
        .any(|l| l.split_whitespace().next() == Some(name))
}

/// Whether modules.builtin lists `.../<name>.ko`.
pub(crate) fn module_builtin(modules_builtin: &str, name: &str) -> bool {
    let file = format!("/{name}.ko");
    modules_builtin.lines().any(|l| l.trim().ends_with(&file))
}

/// Whether modules.dep has an entry for `.../<name>.ko` (or `.ko.xz`).
pub(crate) fn module_installable(modules_dep: &str, name: &str) -> bool {
    let (plain, xz) = (format!("/{name}.ko"), format!("/{name}.ko.xz"));
    modules_dep.lines().any(|l| {
        l.split_once(':')
            .is_some_and(|(m, _)| m.ends_with(&plain) || m.ends_with(&xz))
    })
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
