//! The scheduler configuration row (Nomad's `scheduler_config` table): one value, written by
//! the operator endpoint through raft, read by every scheduler run.

use std::sync::Arc;

use super::StateSnapshot;
use crate::api::SchedulerConfiguration;

/// Why a check-and-set write of the configuration did not apply.
pub const CAS_MISMATCH: &str = "scheduler configuration check-and-set index mismatch";

impl StateSnapshot {
    /// The stored configuration, if an operator (or the leader at start) ever wrote one.
    pub fn scheduler_config_stored(&self) -> Option<Arc<SchedulerConfiguration>> {
        self.scheduler_config.clone()
    }

    /// The configuration in force: the stored one or Nomad's defaults.
    pub fn scheduler_config(&self) -> SchedulerConfiguration {
        self.scheduler_config
            .as_deref()
            .cloned()
            .unwrap_or_default()
    }

    /// Stores `config` at `index`. With `cas = Some(i)` the write applies only when the
    /// stored `ModifyIndex` is `i` (0 matches "never written"), as Nomad's
    /// `SchedulerCASConfig`; otherwise `Err(CAS_MISMATCH)` and nothing changes.
    pub fn set_scheduler_config(
        &mut self,
        index: u64,
        config: &SchedulerConfiguration,
        cas: Option<u64>,
    ) -> Result<(), String> {
        let current = self.scheduler_config.as_deref();
        if let Some(want) = cas {
            let have = current.map(|c| c.modify_index).unwrap_or(0);
            if have != want {
                return Err(CAS_MISMATCH.to_string());
            }
        }
        let mut next = config.clone();
        next.create_index = current.map(|c| c.create_index).unwrap_or(index);
        next.modify_index = index;
        self.scheduler_config = Some(Arc::new(next));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cas_applies_only_on_matching_index() {
        let mut s = StateSnapshot::default();
        assert_eq!(s.scheduler_config().scheduler_algorithm, "binpack");
        let spread = SchedulerConfiguration {
            scheduler_algorithm: "spread".into(),
            ..Default::default()
        };
        assert_eq!(
            s.set_scheduler_config(5, &spread, Some(3)),
            Err(CAS_MISMATCH.to_string())
        );
        assert!(s.scheduler_config_stored().is_none());
        s.set_scheduler_config(5, &spread, Some(0)).expect("cas 0");
        let c = s.scheduler_config();
        assert_eq!((c.create_index, c.modify_index), (5, 5));
        s.set_scheduler_config(9, &SchedulerConfiguration::default(), None)
            .expect("plain set");
        let c = s.scheduler_config();
        assert_eq!((c.create_index, c.modify_index), (5, 9));
        assert_eq!(c.scheduler_algorithm, "binpack");
        assert!(s.set_scheduler_config(10, &c, Some(5)).is_err());
        s.set_scheduler_config(10, &c, Some(9))
            .expect("matching cas");
    }
}
