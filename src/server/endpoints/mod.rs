//! Server endpoints as plain async fns over the server core: each validates, stamps times and
//! IDs (so the FSM stays deterministic), proposes one `Command`, and answers with the index.

pub mod job;
pub mod node;

/// Nomad's warning list format (`helper.MergeMultierrorWarnings`): "1 warning:\n\n* a".
pub fn format_warnings(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let noun = if warnings.len() == 1 {
        "warning"
    } else {
        "warnings"
    };
    let items: Vec<String> = warnings.iter().map(|w| format!("* {w}")).collect();
    format!("{} {noun}:\n\n{}", warnings.len(), items.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_format_like_nomad() {
        assert_eq!(format_warnings(&[]), "");
        assert_eq!(format_warnings(&["a".into()]), "1 warning:\n\n* a");
        assert_eq!(
            format_warnings(&["a".into(), "b".into()]),
            "2 warnings:\n\n* a\n* b"
        );
    }
}
