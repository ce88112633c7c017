//! The service registrations table (Nomad's `service_registrations`): written by clients
//! through the FSM, removed when their alloc stops or their node goes down.

use std::sync::Arc;

use super::{StateSnapshot, Table};
use crate::api::ServiceRegistration;

impl StateSnapshot {
    /// Every registration in `ns` (`None` / `"*"`: all namespaces), in ID order.
    pub fn services(&self, ns: Option<&str>) -> Vec<Arc<ServiceRegistration>> {
        self.services
            .values()
            .filter(|r| super::ns_matches(ns, &r.namespace))
            .cloned()
            .collect()
    }

    /// The registrations of one service name in one namespace.
    pub fn services_by_name(&self, ns: &str, name: &str) -> Vec<Arc<ServiceRegistration>> {
        self.services
            .values()
            .filter(|r| r.namespace == ns && r.service_name == name)
            .cloned()
            .collect()
    }

    pub fn service_by_id(&self, id: &str) -> Option<Arc<ServiceRegistration>> {
        self.services.get(id).cloned()
    }

    pub fn services_for_alloc(&self, alloc_id: &str) -> Vec<Arc<ServiceRegistration>> {
        self.services
            .values()
            .filter(|r| r.alloc_id == alloc_id)
            .cloned()
            .collect()
    }

    /// Insert or refresh registrations. An unchanged registration keeps its indexes, so a
    /// client re-sending its view does not wake every watcher.
    pub(crate) fn upsert_services(&mut self, index: u64, regs: &[ServiceRegistration]) {
        let mut changed = false;
        for r in regs {
            let mut r = r.clone();
            match self.services.get(&r.id) {
                Some(old) => {
                    r.create_index = old.create_index;
                    r.modify_index = old.modify_index;
                    if **old == r {
                        continue;
                    }
                    r.modify_index = index;
                }
                None => {
                    r.create_index = index;
                    r.modify_index = index;
                }
            }
            self.services.insert(r.id.clone(), Arc::new(r));
            changed = true;
        }
        if changed {
            self.touch(Table::Services, index);
        }
    }

    /// Remove one registration; false if it did not exist in `ns`.
    pub(crate) fn delete_service(&mut self, index: u64, ns: &str, id: &str) -> bool {
        if self.services.get(id).is_none_or(|r| r.namespace != ns) {
            return false;
        }
        self.services.remove(id);
        self.touch(Table::Services, index);
        true
    }

    /// Remove every registration matching `pred`.
    pub(crate) fn delete_services_where(
        &mut self,
        index: u64,
        pred: impl Fn(&ServiceRegistration) -> bool,
    ) {
        let ids: Vec<String> = self
            .services
            .values()
            .filter(|r| pred(r))
            .map(|r| r.id.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        for id in ids {
            self.services.remove(&id);
        }
        self.touch(Table::Services, index);
    }
}

#[cfg(test)]
mod tests {
    use crate::api::*;
    use crate::server::fsm::{Command, Fsm};
    use crate::server::state::{StateSnapshot, StateStore, Table};

    fn reg(id: &str, alloc: &str, node: &str) -> ServiceRegistration {
        ServiceRegistration {
            id: id.into(),
            service_name: "web".into(),
            namespace: "default".into(),
            alloc_id: alloc.into(),
            node_id: node.into(),
            port: 8080,
            ..Default::default()
        }
    }

    #[test]
    fn registrations_follow_their_allocs_and_nodes() {
        let store = StateStore::new();
        let apply = |i: u64, c: Command| assert_eq!(store.apply(i, &c).error, "");
        apply(
            2,
            Command::NodeRegister {
                node: Node {
                    id: "n1".into(),
                    status: NODE_STATUS_READY.into(),
                    ..Default::default()
                },
                time: 0,
            },
        );
        let alloc = Allocation {
            id: "a1".into(),
            namespace: "default".into(),
            job_id: "j".into(),
            node_id: "n1".into(),
            desired_status: ALLOC_DESIRED_RUN.into(),
            client_status: ALLOC_CLIENT_RUNNING.into(),
            ..Default::default()
        };
        apply(
            3,
            Command::ApplyPlan {
                job: None,
                stopped: vec![],
                placed: vec![std::sync::Arc::new(alloc.clone())],
                evals: vec![],
                time: 0,
                deployment: None,
                deployment_updates: vec![],
            },
        );
        apply(
            4,
            Command::ServiceRegistrationUpsert {
                services: vec![reg("s1", "a1", "n1"), reg("s2", "a2", "n2")],
            },
        );
        let s = store.snapshot();
        assert_eq!(s.services_by_name("default", "web").len(), 2);
        assert_eq!(s.service_by_id("s1").expect("s1").create_index, 4);
        assert_eq!(s.table_index(Table::Services), 4);

        // Re-sending the same view changes nothing (no index bump).
        apply(
            5,
            Command::ServiceRegistrationUpsert {
                services: vec![reg("s1", "a1", "n1")],
            },
        );
        assert_eq!(store.snapshot().table_index(Table::Services), 4);

        // Survives a snapshot round trip.
        let restored = StateSnapshot::from_bytes(&store.snapshot().to_bytes()).expect("restore");
        assert_eq!(restored.services(None).len(), 2);

        // The alloc finishing removes its registration; the node going down the rest there.
        apply(
            6,
            Command::AllocClientUpdate {
                allocs: vec![Allocation {
                    client_status: ALLOC_CLIENT_COMPLETE.into(),
                    ..alloc
                }],
                evals: vec![],
                time: 0,
            },
        );
        assert!(store.snapshot().service_by_id("s1").is_none());
        assert!(store.snapshot().service_by_id("s2").is_some());
        apply(
            7,
            Command::NodeRegister {
                node: Node {
                    id: "n2".into(),
                    status: NODE_STATUS_READY.into(),
                    ..Default::default()
                },
                time: 0,
            },
        );
        apply(
            8,
            Command::NodeUpdateStatus {
                node_id: "n2".into(),
                status: NODE_STATUS_DOWN.into(),
                evals: vec![],
                time: 0,
            },
        );
        assert!(store.snapshot().services(None).is_empty());
        assert_eq!(
            store
                .apply(
                    9,
                    &Command::ServiceRegistrationDelete {
                        namespace: "default".into(),
                        id: "s1".into()
                    }
                )
                .error,
            "service registration not found"
        );
    }
}
