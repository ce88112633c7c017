//! consul-template's "brain": the data of each lookup a template made, keyed by the lookup
//! (its dependency). The renderer fills it; the functions read it and record what they used
//! and what is still missing.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use crate::api::ServiceRegistration;

/// One lookup a template depends on, with consul-template's display names
/// (`nomad.service(web)`, `nomad.services`, `file(/path)`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dependency {
    /// `nomadService "[tag.]name[@region]"`, optionally `nomadService N "key" "..."`.
    NomadService {
        name: String,
        tag: String,
        region: String,
        /// `N|key` for rendezvous selection.
        choose: String,
    },
    /// `nomadServices ["@region"]`.
    NomadServices {
        region: String,
    },
    File(PathBuf),
}

impl fmt::Display for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dependency::NomadService {
                name,
                tag,
                region,
                choose,
            } => {
                let mut s = name.clone();
                if !tag.is_empty() {
                    s = format!("{tag}.{s}");
                }
                if !region.is_empty() {
                    s = format!("{s}@{region}");
                }
                if !choose.is_empty() {
                    s = format!("{s}:{choose}");
                }
                write!(f, "nomad.service({s})")
            }
            Dependency::NomadServices { region } if region.is_empty() => {
                write!(f, "nomad.services")
            }
            Dependency::NomadServices { region } => write!(f, "nomad.services(@{region})"),
            Dependency::File(p) => write!(f, "file({})", p.display()),
        }
    }
}

/// A service as `nomadService` returns it (consul-template's `NomadService`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServiceEntry {
    pub id: String,
    pub name: String,
    pub node: String,
    pub address: String,
    pub port: i64,
    pub datacenter: String,
    pub tags: Vec<String>,
    pub job_id: String,
    pub alloc_id: String,
}

/// The data behind one dependency.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    Services(Vec<ServiceEntry>),
    /// `nomadServices`: (name, tags) per service.
    ServiceList(Vec<(String, Vec<String>)>),
    /// File contents; None when the file does not exist (yet).
    File(Option<String>),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Brain {
    data: BTreeMap<Dependency, Data>,
}

impl Brain {
    pub fn remember(&mut self, dep: Dependency, data: Data) {
        self.data.insert(dep, data);
    }

    pub fn recall(&self, dep: &Dependency) -> Option<&Data> {
        self.data.get(dep)
    }

    pub fn forget(&mut self, dep: &Dependency) {
        self.data.remove(dep);
    }
}

/// What a `nomadService` query yields from the registrations of its service name: the tag
/// filter, then `choose`, then sorted by name (stable), tags sorted, as consul-template does.
pub fn select_services(
    dep: &Dependency,
    regs: Vec<ServiceRegistration>,
) -> Result<Vec<ServiceEntry>, String> {
    let Dependency::NomadService { tag, choose, .. } = dep else {
        return Ok(Vec::new());
    };
    let mut regs: Vec<ServiceRegistration> = regs
        .into_iter()
        .filter(|r| tag.is_empty() || r.tags.iter().any(|t| t == tag))
        .collect();
    if !choose.is_empty() {
        regs = crate::api::choose(regs, choose).map_err(str::to_string)?;
    }
    let mut out: Vec<ServiceEntry> = regs
        .into_iter()
        .map(|r| {
            let mut tags = r.tags;
            tags.sort();
            ServiceEntry {
                id: r.id,
                name: r.service_name,
                node: r.node_id,
                address: r.address,
                port: r.port as i64,
                datacenter: r.datacenter,
                tags,
                job_id: r.job_id,
                alloc_id: r.alloc_id,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// What `nomadServices` yields: each service name once with the union of its tags, by name.
pub fn list_services(regs: &[ServiceRegistration]) -> Vec<(String, Vec<String>)> {
    let mut by_name: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    for r in regs {
        by_name
            .entry(r.service_name.clone())
            .or_default()
            .extend(r.tags.iter().cloned());
    }
    by_name
        .into_iter()
        .map(|(n, t)| (n, t.into_iter().collect()))
        .collect()
}
