//! Signal names as Nomad's jobspecs write them (`kill_signal = "SIGTERM"`).

use std::str::FromStr;

use nix::sys::signal::Signal;

use super::DriverError;

/// `"SIGTERM"`, `"TERM"`, `"sigterm"` or `"15"`; empty means SIGINT, the default Nomad's
/// executor uses when a task sets no `kill_signal`.
pub fn parse_signal(name: &str) -> Result<Signal, DriverError> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Ok(Signal::SIGINT);
    }
    if let Ok(n) = trimmed.parse::<i32>() {
        return Signal::try_from(n).map_err(|_| DriverError::UnknownSignal(name.to_string()));
    }
    let upper = trimmed.to_ascii_uppercase();
    let full = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    Signal::from_str(&full).map_err(|_| DriverError::UnknownSignal(name.to_string()))
}

/// `"SIGTERM"` for 15; the number as text when unknown.
pub fn signal_name(sig: i32) -> String {
    Signal::try_from(sig)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| sig.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_numbers() {
        assert_eq!(parse_signal("").unwrap(), Signal::SIGINT);
        assert_eq!(parse_signal("SIGTERM").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal("hup").unwrap(), Signal::SIGHUP);
        assert_eq!(parse_signal("9").unwrap(), Signal::SIGKILL);
        assert!(parse_signal("SIGNOPE").is_err());
        assert_eq!(signal_name(15), "SIGTERM");
    }
}
