//! `nomad version` (also `nomad -version`).

use crate::output;

pub fn run() -> anyhow::Result<i32> {
    output::out(version_string())?;
    Ok(0)
}

/// "Nomad v<version>", as Nomad's `FullVersionNumber` (no build date or revision is embedded
/// in this build).
pub fn version_string() -> String {
    format!("Nomad v{}", nomad::VERSION)
}
