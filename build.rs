//! Links the `nomad` binary as a position-dependent executable on Linux.
//!
//! The binary is also the per-task supervisor (`nomad executor`). As a PIE, the loader
//! relocates ~1.7 MB of `.data.rel.ro` at every start, which turns those pages into private
//! copies that stay resident in every supervisor. Linked at a fixed address, the same data
//! is clean file-backed memory the supervisor can drop (`src/executor/trim.rs`), which keeps
//! it under 2 MB resident. Go links Nomad the same way (non-PIE) on linux/amd64.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bin=nomad=-no-pie");
    }
}
