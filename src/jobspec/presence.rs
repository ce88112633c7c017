//! Which attributes and blocks a job file set, for printing the job the way Nomad's api
//! structs do before canonicalization (`output`): a field the file left unset is a Go nil
//! pointer there, while the decoded `api::Job` holds plain values or merged defaults.
//!
//! Paths name HCL structure, not JSON: a body's path is its parent's path, `/`, the block
//! type and its index among the blocks of that type in the parent (`/job.0/group.2`).
//! Attributes and block types are recorded under their body's path (`/job.0/group.2/count`,
//! `/job.0/group.2/restart`).

use std::collections::{HashMap, HashSet};

use hcl_edit::structure::{Block, Body};
use serde_json::Value;

/// The presence record of one decode; empty unless the decoder was asked to keep it.
#[derive(Debug, Default)]
pub struct Presence {
    enabled: bool,
    set: HashSet<String>,
    /// The path of each body being decoded, keyed by its address: the walk hands bodies to
    /// `Decoder::content` without their position, and they all outlive the decode.
    bodies: HashMap<usize, String>,
    /// Decoded values of blocks that `api::Job` merges away (job-level `reschedule` and
    /// `migrate` live in every group there), keyed by the block's path.
    values: HashMap<String, Value>,
}

fn key(body: &Body) -> usize {
    body as *const Body as usize
}

impl Presence {
    pub fn recording() -> Self {
        Presence {
            enabled: true,
            ..Presence::default()
        }
    }

    pub fn is_recording(&self) -> bool {
        self.enabled
    }

    /// Records what `body` holds: its attributes, and its blocks (which become bodies with
    /// paths of their own).
    pub(super) fn record<'b>(
        &mut self,
        body: &Body,
        attrs: impl Iterator<Item = &'b str>,
        blocks: impl Iterator<Item = &'b Block>,
    ) {
        if !self.enabled {
            return;
        }
        let path = self.bodies.get(&key(body)).cloned().unwrap_or_default();
        for a in attrs {
            self.set.insert(format!("{path}/{a}"));
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for b in blocks {
            let ty = b.ident.value().as_str();
            let i = seen.entry(ty).or_insert(0);
            let own = format!("{path}/{ty}.{i}");
            self.set.insert(format!("{path}/{ty}"));
            self.set.insert(own.clone());
            self.bodies.insert(key(&b.body), own);
            *i += 1;
        }
    }

    /// `copy` stands for `original` from now on (a job block whose `dynamic` blocks were
    /// expanded into a copy before decoding).
    pub(super) fn alias(&mut self, original: &Body, copy: &Body) {
        if let Some(path) = self.bodies.get(&key(original)).cloned() {
            self.bodies.insert(key(copy), path);
        }
    }

    /// Keeps the decoded value of the block whose body is `body`.
    pub(super) fn keep_value(&mut self, body: &Body, value: Option<Value>) {
        if !self.enabled {
            return;
        }
        if let (Some(path), Some(v)) = (self.bodies.get(&key(body)), value) {
            self.values.insert(path.clone(), v);
        }
    }

    /// Whether the file set `path`: an attribute, a block type or one block (`/job.0/task.1`).
    pub fn has(&self, path: &str) -> bool {
        self.set.contains(path)
    }

    pub fn value(&self, path: &str) -> Option<&Value> {
        self.values.get(path)
    }

    /// Marks `path` as set: for tests that build a record by hand.
    #[cfg(test)]
    pub fn insert(&mut self, path: &str) {
        self.set.insert(path.to_string());
    }
}
