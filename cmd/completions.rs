//! Shell completion scripts in `completions/` are generated from the clap command tree; this
//! test fails when they no longer match it. Regenerate with
//! `UPDATE_COMPLETIONS=1 cargo test --bin nomad completions`.

use clap::CommandFactory as _;
use clap_complete::Shell;

const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "nomad.bash"),
    (Shell::Zsh, "_nomad"),
    (Shell::Fish, "nomad.fish"),
    (Shell::PowerShell, "_nomad.ps1"),
    (Shell::Elvish, "nomad.elv"),
];

fn generate(shell: Shell) -> Vec<u8> {
    let mut cmd = crate::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "nomad", &mut buf);
    buf
}

#[test]
fn completions_are_up_to_date() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some_and(|v| v != "0");
    let mut stale = Vec::new();
    for (shell, file) in SHELLS {
        let want = generate(shell);
        let path = dir.join(file);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        if std::fs::read(&path).ok().as_deref() != Some(want.as_slice()) {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts {stale:?}; run `UPDATE_COMPLETIONS=1 cargo test --bin nomad completions`"
    );
}

#[test]
fn completions_know_the_commands_and_go_style_flags() {
    let bash = String::from_utf8(generate(Shell::Bash)).unwrap();
    for word in [
        "job",
        "alloc",
        "node",
        "eval",
        "server",
        "status",
        "--detach",
        "--address",
    ] {
        assert!(bash.contains(word), "bash completion lacks {word}");
    }
}
