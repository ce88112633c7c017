//! Nomad-native service discovery (`service { provider = "nomad" }`): the registrations the
//! clients write and `/v1/services`, `/v1/service/<name>` read.

use serde::{Deserialize, Serialize};

/// Nomad's `ServiceRegistration`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ServiceRegistration {
    pub address: String,
    #[serde(rename = "AllocID")]
    pub alloc_id: String,
    pub create_index: u64,
    pub datacenter: String,
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub modify_index: u64,
    pub namespace: String,
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub port: i32,
    pub service_name: String,
    pub tags: Vec<String>,
}

impl ServiceRegistration {
    /// Nomad's `HashWith`: the rendezvous-hashing weight of this registration for `key`
    /// (used by `?choose=N|key`).
    pub fn hash_with(&self, key: &str) -> String {
        let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
        ctx.update(&(self.port as i64 as u64).to_be_bytes());
        for part in [
            &self.alloc_id,
            &self.id,
            &self.namespace,
            &self.address,
            &self.service_name,
        ] {
            ctx.update(part.as_bytes());
        }
        for tag in &self.tags {
            ctx.update(tag.as_bytes());
        }
        ctx.update(key.as_bytes());
        ctx.finish()
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// One service in a namespace's listing: its name and the union of its tags.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ServiceRegistrationStub {
    pub service_name: String,
    pub tags: Vec<String>,
}

/// `GET /v1/services`: per namespace, its services.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ServiceRegistrationListStub {
    pub namespace: String,
    pub services: Vec<ServiceRegistrationStub>,
}

/// Nomad's `MakeAllocServiceID`: `_nomad-task-<alloc>-<task or group-<group>>-<name>-<port>`.
pub fn alloc_service_id(alloc_id: &str, task: &str, name: &str, port_label: &str) -> String {
    format!("_nomad-task-{alloc_id}-{task}-{name}-{port_label}")
}

/// The error text for a malformed `?choose=`.
pub const ERR_MALFORMED_CHOOSE: &str = "Parameter for choose must be in form '<number>|<key>'";

/// Nomad's `choose`: a stable subset of `n` registrations for `key`, by rendezvous hashing.
pub fn choose(
    services: Vec<ServiceRegistration>,
    parameter: &str,
) -> Result<Vec<ServiceRegistration>, &'static str> {
    let (n, key) = parameter.split_once('|').ok_or(ERR_MALFORMED_CHOOSE)?;
    let n: usize = n.parse().map_err(|_| ERR_MALFORMED_CHOOSE)?;
    if key.is_empty() {
        return Err(ERR_MALFORMED_CHOOSE);
    }
    let mut weighted: Vec<(String, ServiceRegistration)> = services
        .into_iter()
        .map(|s| (s.hash_with(key), s))
        .collect();
    weighted.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(weighted.into_iter().take(n).map(|(_, s)| s).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(id: &str, port: i32) -> ServiceRegistration {
        ServiceRegistration {
            id: id.into(),
            service_name: "web".into(),
            namespace: "default".into(),
            address: "10.0.0.1".into(),
            port,
            ..Default::default()
        }
    }

    #[test]
    fn choose_is_stable_per_key_and_validates_its_parameter() {
        let all: Vec<_> = (0..5).map(|i| reg(&format!("s{i}"), 8000 + i)).collect();
        let a = choose(all.clone(), "2|alloc-a").expect("choose");
        let again = choose(all.iter().rev().cloned().collect(), "2|alloc-a").expect("choose");
        assert_eq!(a.len(), 2);
        assert_eq!(a, again, "order of the input does not matter");
        assert_eq!(choose(all.clone(), "9|k").expect("choose").len(), 5);
        for bad in ["2", "x|k", "2|", ""] {
            assert_eq!(choose(all.clone(), bad), Err(ERR_MALFORMED_CHOOSE), "{bad}");
        }
    }

    #[test]
    fn hash_is_sha256_hex() {
        let h = reg("s", 1).hash_with("k");
        assert_eq!(h.len(), 64);
        assert!(h.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(h, reg("s", 2).hash_with("k"));
    }

    #[test]
    fn ids_follow_nomads_shape() {
        assert_eq!(
            alloc_service_id("0dfb", "group-web", "web", "http"),
            "_nomad-task-0dfb-group-web-web-http"
        );
    }
}
