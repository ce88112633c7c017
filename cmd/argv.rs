//! Go-style flags -> clap. Nomad's CLI uses Go's `flag` package, where every flag takes one
//! dash (`-detach`, `-address=http://..`); users and scripts type them that way, and `--detach`
//! works too. clap only knows `--long`, so single-dash long flags get a second dash here.
//!
//! A single dash followed by exactly one character (`-f`, `-n 5`, `-t`) is a short flag and is
//! left alone, as are negative numbers (`-1`), a bare `-` (stdin) and everything after `--`.

use std::ffi::OsString;

/// Normalise the whole argv (program name first).
pub fn normalize<I>(args: I) -> Vec<OsString>
where
    I: IntoIterator<Item = OsString>,
{
    let mut out = Vec::new();
    let mut passthrough = false;
    for (i, arg) in args.into_iter().enumerate() {
        if i == 0 || passthrough {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            passthrough = true;
            out.push(arg);
            continue;
        }
        out.push(match arg.to_str() {
            Some(s) => OsString::from(normalize_one(s)),
            // Non-UTF-8 can only be a value (paths); flag names are ASCII.
            None => arg,
        });
    }
    out
}

fn normalize_one(arg: &str) -> String {
    let Some(rest) = arg.strip_prefix('-') else {
        return arg.to_string();
    };
    if rest.starts_with('-') {
        return arg.to_string();
    }
    let name = rest.split('=').next().unwrap_or("");
    let is_long =
        name.chars().count() > 1 && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if is_long {
        format!("-{arg}")
    } else {
        arg.to_string()
    }
}

/// Go's flag package takes `-detach=true` / `-detach=false` for boolean flags; clap's switches
/// take no value. Given the long names of the switches, `--name=true` becomes `--name` and
/// `--name=false` is dropped (the switch's default is off). Runs after [`normalize`].
pub fn boolean_values(args: Vec<OsString>, switches: &[String]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut passthrough = false;
    for arg in args {
        if passthrough || arg == "--" {
            passthrough = true;
            out.push(arg);
            continue;
        }
        let parsed = arg.to_str().and_then(|s| {
            let (name, value) = s.strip_prefix("--")?.split_once('=')?;
            if !switches.iter().any(|sw| sw == name) {
                return None;
            }
            match value {
                "true" | "1" | "t" | "T" | "TRUE" | "True" => Some(Some(format!("--{name}"))),
                "false" | "0" | "f" | "F" | "FALSE" | "False" => Some(None),
                _ => None,
            }
        });
        match parsed {
            Some(Some(flag)) => out.push(OsString::from(flag)),
            Some(None) => {}
            None => out.push(arg),
        }
    }
    out
}

/// Long names of every switch (flag without a value) anywhere in the command tree.
pub fn switch_names(cmd: &clap::Command) -> Vec<String> {
    let mut names = Vec::new();
    collect_switches(cmd, &mut names);
    names.sort();
    names.dedup();
    names
}

fn collect_switches(cmd: &clap::Command, names: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        if matches!(arg.get_action(), clap::ArgAction::SetTrue) {
            if let Some(long) = arg.get_long() {
                names.push(long.to_string());
            }
        }
    }
    for sub in cmd.get_subcommands() {
        collect_switches(sub, names);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Vec<String> {
        let mut v = vec![OsString::from("nomad")];
        v.extend(args.iter().map(OsString::from));
        normalize(v)
            .into_iter()
            .skip(1)
            .map(|s| s.into_string().unwrap())
            .collect()
    }

    #[test]
    fn single_dash_long_flags_get_a_second_dash() {
        assert_eq!(
            norm(&[
                "job",
                "run",
                "-detach",
                "-address=http://1.2.3.4:4646",
                "x.hcl"
            ]),
            [
                "job",
                "run",
                "--detach",
                "--address=http://1.2.3.4:4646",
                "x.hcl"
            ]
        );
        assert_eq!(
            norm(&["job", "run", "-check-index", "5", "-var", "a=-b"]),
            ["job", "run", "--check-index", "5", "--var", "a=-b"]
        );
    }

    #[test]
    fn double_dash_and_short_flags_are_untouched() {
        assert_eq!(
            norm(&["alloc", "logs", "--stderr", "-f", "-n", "5", "-c", "100", "a1"]),
            ["alloc", "logs", "--stderr", "-f", "-n", "5", "-c", "100", "a1"]
        );
        assert_eq!(norm(&["-t", "-"]), ["-t", "-"]);
    }

    #[test]
    fn numbers_and_args_after_double_dash_stay() {
        assert_eq!(norm(&["-n", "-1"]), ["-n", "-1"]);
        assert_eq!(norm(&["-10"]), ["-10"]);
        assert_eq!(
            norm(&["x", "--", "-detach", "-la"]),
            ["x", "--", "-detach", "-la"]
        );
    }

    #[test]
    fn boolean_switches_accept_go_style_values() {
        let switches = vec!["detach".to_string(), "verbose".to_string()];
        let args: Vec<OsString> = [
            "nomad",
            "--detach=true",
            "--verbose=false",
            "--region=false",
            "--",
            "--detach=false",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let got: Vec<String> = boolean_values(args, &switches)
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect();
        assert_eq!(
            got,
            [
                "nomad",
                "--detach",
                "--region=false",
                "--",
                "--detach=false"
            ]
        );
    }

    #[test]
    fn go_style_help_and_version_work() {
        assert_eq!(norm(&["-help"]), ["--help"]);
        assert_eq!(norm(&["-version"]), ["--version"]);
        assert_eq!(norm(&["-h"]), ["-h"]);
        assert_eq!(norm(&["agent", "-dev"]), ["agent", "--dev"]);
    }
}
