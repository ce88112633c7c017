//! `nomad alloc status -stats`: the detailed "Memory Stats" and "CPU Stats" tables of a
//! task's resource usage, one column per measured value (sorted by name), as Nomad prints.

use serde_json::Value;

use crate::output::{format_list, ibytes};

fn measured(v: &Value) -> Vec<String> {
    let mut m: Vec<String> = v
        .get("Measured")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    m.sort();
    m
}

fn u(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn pct(v: &Value, key: &str) -> String {
    format!("{:.2}%", v.get(key).and_then(Value::as_f64).unwrap_or(0.0))
}

/// The tables for one task's `ResourceUsage`; empty when nothing is measured.
pub fn verbose_resource_usage(usage: &Value) -> String {
    let mut out = String::new();
    if let Some(mem) = usage.get("MemoryStats").filter(|m| !measured(m).is_empty()) {
        let names = measured(mem);
        let values: Vec<String> = names
            .iter()
            .filter_map(|n| {
                let key = match n.as_str() {
                    "RSS" => "RSS",
                    "Cache" => "Cache",
                    "Swap" => "Swap",
                    "Usage" => "Usage",
                    "Max Usage" => "MaxUsage",
                    "Kernel Usage" => "KernelUsage",
                    "Kernel Max Usage" => "KernelMaxUsage",
                    _ => return None,
                };
                Some(ibytes(u(mem, key)))
            })
            .collect();
        out.push_str("Memory Stats\n");
        out.push_str(&format_list(&[names.join("|"), values.join("|")]));
        out.push_str("\n\n");
    }
    if let Some(cpu) = usage.get("CpuStats").filter(|c| !measured(c).is_empty()) {
        let names = measured(cpu);
        let values: Vec<String> = names
            .iter()
            .filter_map(|n| match n.as_str() {
                "Percent" => Some(pct(cpu, "Percent")),
                "Throttled Periods" => Some(u(cpu, "ThrottledPeriods").to_string()),
                "Throttled Time" => Some(u(cpu, "ThrottledTime").to_string()),
                "User Mode" => Some(pct(cpu, "UserMode")),
                "System Mode" => Some(pct(cpu, "SystemMode")),
                _ => None,
            })
            .collect();
        out.push_str("CPU Stats\n");
        out.push_str(&format_list(&[names.join("|"), values.join("|")]));
    }
    out.trim_end_matches('\n').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_follow_the_measured_lists() {
        let usage = json!({
            "MemoryStats": {"RSS": 1708032, "Swap": 0, "Measured": ["RSS", "Swap"]},
            "CpuStats": {"Percent": 1.5, "SystemMode": 0.25, "UserMode": 1.25,
                         "Measured": ["System Mode", "User Mode", "Percent"]}
        });
        let text = verbose_resource_usage(&usage);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Memory Stats");
        assert!(lines[1].starts_with("RSS") && lines[1].contains("Swap"));
        assert!(lines[2].starts_with("1.6 MiB") && lines[2].ends_with("0 B"));
        assert_eq!(lines[3], "");
        assert_eq!(lines[4], "CPU Stats");
        assert!(lines[5].starts_with("Percent") && lines[5].ends_with("User Mode"));
        assert!(lines[6].starts_with("1.50%") && lines[6].ends_with("1.25%"));
        assert_eq!(verbose_resource_usage(&json!({})), "");
    }
}
