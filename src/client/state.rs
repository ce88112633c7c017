//! The client's local state in redb at `<data_dir>/client/state.db`: every alloc this node
//! runs (as last received from the server) and, per task, its `TaskState` (with the local
//! task events) and the driver's `TaskHandle`. Written on every change with durable
//! commits, so an agent killed at any point (`kill -9`) restarts from what it last knew:
//! it re-attaches to the tasks whose handles are here instead of starting them again.
//!
//! Values are JSON. Task keys are `<alloc_id>/<task>`; alloc IDs never contain `/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use crate::api::{Allocation, TaskState};
use crate::drivers::TaskHandle;

const ALLOCS: TableDefinition<&str, &[u8]> = TableDefinition::new("allocs");
const TASKS: TableDefinition<&str, &[u8]> = TableDefinition::new("tasks");

/// The file under the client's state dir.
pub const STATE_FILE: &str = "state.db";

#[derive(Debug, thiserror::Error)]
#[error("client state {path}: {reason}")]
pub struct StateError {
    path: String,
    reason: String,
}

/// What the client keeps about one task between agent runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PersistedTask {
    pub state: TaskState,
    /// The running attempt's handle; `None` when no attempt runs.
    pub handle: Option<TaskHandle>,
}

/// An alloc restored at start, with its tasks by name.
#[derive(Debug, Clone)]
pub struct RestoredAlloc {
    pub alloc: Allocation,
    pub tasks: BTreeMap<String, PersistedTask>,
}

pub struct StateDb {
    db: Database,
    path: PathBuf,
}

impl std::fmt::Debug for StateDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateDb").field("path", &self.path).finish()
    }
}

fn task_key(alloc_id: &str, task: &str) -> String {
    format!("{alloc_id}/{task}")
}

impl StateDb {
    /// Opens (or creates) the database in `state_dir`.
    pub fn open(state_dir: &Path) -> Result<StateDb, StateError> {
        let path = state_dir.join(STATE_FILE);
        let db = Database::create(&path).map_err(|e| StateError {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let state = StateDb { db, path };
        // Both tables exist from the start, so reads never meet a missing table.
        state.write(|_, _| Ok(()))?;
        Ok(state)
    }

    fn err(&self, e: impl std::fmt::Display) -> StateError {
        StateError {
            path: self.path.display().to_string(),
            reason: e.to_string(),
        }
    }

    fn write<F>(&self, f: F) -> Result<(), StateError>
    where
        F: FnOnce(
            &mut redb::Table<&str, &[u8]>,
            &mut redb::Table<&str, &[u8]>,
        ) -> Result<(), redb::Error>,
    {
        let run = || -> Result<(), redb::Error> {
            let txn = self.db.begin_write()?;
            {
                let mut allocs = txn.open_table(ALLOCS)?;
                let mut tasks = txn.open_table(TASKS)?;
                f(&mut allocs, &mut tasks)?;
            }
            txn.commit()?;
            Ok(())
        };
        run().map_err(|e| self.err(e))
    }

    pub fn put_alloc(&self, alloc: &Allocation) -> Result<(), StateError> {
        let bytes = serde_json::to_vec(alloc).map_err(|e| self.err(e))?;
        self.write(|allocs, _| {
            allocs.insert(alloc.id.as_str(), bytes.as_slice())?;
            Ok(())
        })
    }

    pub fn put_task(
        &self,
        alloc_id: &str,
        task: &str,
        state: &PersistedTask,
    ) -> Result<(), StateError> {
        let bytes = serde_json::to_vec(state).map_err(|e| self.err(e))?;
        let key = task_key(alloc_id, task);
        self.write(|_, tasks| {
            tasks.insert(key.as_str(), bytes.as_slice())?;
            Ok(())
        })
    }

    /// Forgets an alloc and all its tasks.
    pub fn delete_alloc(&self, alloc_id: &str) -> Result<(), StateError> {
        let prefix = format!("{alloc_id}/");
        self.write(|allocs, tasks| {
            allocs.remove(alloc_id)?;
            let keys: Vec<String> = tasks
                .range(prefix.as_str()..)?
                .map(|r| r.map(|(k, _)| k.value().to_string()))
                .take_while(|k| k.as_ref().map_or(true, |k| k.starts_with(&prefix)))
                .collect::<Result<_, _>>()?;
            for k in keys {
                tasks.remove(k.as_str())?;
            }
            Ok(())
        })
    }

    /// Every stored alloc with its tasks. Entries that do not decode are skipped with a
    /// warning: a damaged record must not keep the client from starting.
    pub fn load(&self) -> Result<Vec<RestoredAlloc>, StateError> {
        type Loaded = (Vec<RestoredAlloc>, Vec<String>);
        let read = || -> Result<Loaded, redb::Error> {
            let txn = self.db.begin_read()?;
            let mut out: BTreeMap<String, RestoredAlloc> = BTreeMap::new();
            let mut orphans = Vec::new();
            for entry in txn.open_table(ALLOCS)?.iter()? {
                let (k, v) = entry?;
                match serde_json::from_slice::<Allocation>(v.value()) {
                    Ok(alloc) => {
                        out.insert(
                            k.value().to_string(),
                            RestoredAlloc {
                                alloc,
                                tasks: BTreeMap::new(),
                            },
                        );
                    }
                    Err(e) => {
                        tracing::warn!(alloc_id = k.value(), error = %e, "skipping unreadable alloc in client state")
                    }
                }
            }
            for entry in txn.open_table(TASKS)?.iter()? {
                let (k, v) = entry?;
                let Some((alloc_id, task)) = k.value().split_once('/') else {
                    continue;
                };
                let Some(restored) = out.get_mut(alloc_id) else {
                    // Written by a runner still finishing when its alloc was forgotten.
                    orphans.push(k.value().to_string());
                    continue;
                };
                match serde_json::from_slice::<PersistedTask>(v.value()) {
                    Ok(t) => {
                        restored.tasks.insert(task.to_string(), t);
                    }
                    Err(e) => {
                        tracing::warn!(task = k.value(), error = %e, "skipping unreadable task in client state")
                    }
                }
            }
            Ok((out.into_values().collect(), orphans))
        };
        let (restored, orphans) = read().map_err(|e| self.err(e))?;
        if !orphans.is_empty() {
            self.write(|_, tasks| {
                for k in &orphans {
                    tasks.remove(k.as_str())?;
                }
                Ok(())
            })?;
        }
        Ok(restored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TASK_STATE_RUNNING;

    #[test]
    fn allocs_and_tasks_survive_reopening_and_deletes_remove_both() {
        let tmp = tempfile::tempdir().unwrap();
        let alloc = |id: &str| Allocation {
            id: id.into(),
            client_status: "running".into(),
            ..Default::default()
        };
        let task = PersistedTask {
            state: TaskState {
                state: TASK_STATE_RUNNING.into(),
                restarts: 2,
                ..Default::default()
            },
            handle: None,
        };
        {
            let db = StateDb::open(tmp.path()).unwrap();
            db.put_alloc(&alloc("a1")).unwrap();
            db.put_alloc(&alloc("a2")).unwrap();
            db.put_task("a1", "web", &task).unwrap();
            db.put_task("a1", "sidecar", &PersistedTask::default())
                .unwrap();
            db.put_task("a2", "web", &task).unwrap();
            // A task whose alloc is unknown is not restored.
            db.put_task("a3", "web", &task).unwrap();
            db.delete_alloc("a2").unwrap();
        }
        let db = StateDb::open(tmp.path()).unwrap();
        let restored = db.load().unwrap();
        assert_eq!(restored.len(), 1);
        assert_eq!(restored[0].alloc.id, "a1");
        assert_eq!(
            restored[0].tasks.keys().collect::<Vec<_>>(),
            vec!["sidecar", "web"]
        );
        assert_eq!(restored[0].tasks["web"], task);
        drop(db);
        // The orphaned task of a3 was pruned by the load.
        let db = StateDb::open(tmp.path()).unwrap();
        db.put_alloc(&alloc("a3")).unwrap();
        let restored = db.load().unwrap();
        let a3 = restored.iter().find(|r| r.alloc.id == "a3").unwrap();
        assert!(a3.tasks.is_empty());
    }
}
