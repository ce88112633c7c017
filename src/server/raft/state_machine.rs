//! openraft's state machine over the project's `Fsm`: applies committed entries in order and
//! builds, stores, serves and installs snapshots.
//!
//! The FSM itself is in memory; durability comes from snapshots (files written by
//! `snapshot_file.rs`) plus the raft log, which openraft replays from the snapshot's last log id
//! up to the persisted committed id at startup. This module owns the snapshot directory and the
//! adapter's bookkeeping (last applied log id, last membership); it must not touch the log store.

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use openraft::storage::RaftStateMachine;
use openraft::{
    AnyError, BasicNode, EntryPayload, ErrorSubject, ErrorVerb, LogId, RaftSnapshotBuilder,
    Snapshot, StorageError, StorageIOError, StoredMembership,
};

use super::log_store::AppliedHook;
use super::snapshot_file::{self, Meta};
use super::{RaftError, TypeConfig};
use crate::server::fsm::{ApplyResponse, Command, Fsm};

type Entry = openraft::Entry<TypeConfig>;
type StorageResult<T> = Result<T, StorageError<u64>>;

fn sto_err(
    subject: ErrorSubject<u64>,
    verb: ErrorVerb,
    msg: impl std::fmt::Display,
) -> StorageError<u64> {
    StorageIOError::new(subject, verb, AnyError::error(msg)).into()
}

/// The current snapshot: its bytes live in its file when there is a data dir (a snapshot of
/// a large state is gigabytes; keeping it in memory too would double the agent's footprint),
/// in memory otherwise (dev mode).
struct StoredSnapshot {
    meta: Meta,
    data: SnapshotData,
}

enum SnapshotData {
    Memory(Vec<u8>),
    File(PathBuf),
}

impl StoredSnapshot {
    /// The snapshot's bytes (read back from its file when it has one).
    fn bytes(&self) -> Result<Vec<u8>, RaftError> {
        match &self.data {
            SnapshotData::Memory(b) => Ok(b.clone()),
            SnapshotData::File(path) => snapshot_file::read(path).map(|(_, data)| data),
        }
    }
}

/// The current snapshot, shared by the state machine and the builders openraft runs in their
/// own tasks. The mutex also serialises the file writes, so a slow build can never replace a
/// newer installed snapshot.
struct SnapshotSlot {
    /// `<data_dir>/raft/snapshots`, or None in dev mode (snapshots then live only in memory).
    dir: Option<PathBuf>,
    current: Mutex<Option<Arc<StoredSnapshot>>>,
    /// openraft spawns snapshot builds detached, and `Raft::shutdown` does not wait for them.
    /// Each builder holds a read guard; `SnapshotGate::close` takes the write side and sets the
    /// flag, so after it returns no build writes into the data dir any more.
    closed: Arc<tokio::sync::RwLock<bool>>,
}

/// Lets the owner of the raft node stop snapshot writes at shutdown.
pub struct SnapshotGate {
    closed: Arc<tokio::sync::RwLock<bool>>,
}

impl SnapshotGate {
    /// Waits for in-flight snapshot builds and refuses later ones.
    pub async fn close(&self) {
        *self.closed.write().await = true;
    }
}

impl SnapshotSlot {
    fn current(&self) -> Option<Arc<StoredSnapshot>> {
        match self.current.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Persists and publishes a snapshot unless a newer one is already current.
    fn store(&self, meta: &Meta, data: &[u8]) -> Result<(), RaftError> {
        let mut current = match self.current.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(cur) = current.as_ref() {
            if snapshot_file::key_of(&cur.meta) > snapshot_file::key_of(meta) {
                return Ok(());
            }
        }
        let data = match &self.dir {
            Some(dir) => SnapshotData::File(snapshot_file::write(dir, meta, data)?),
            None => SnapshotData::Memory(data.to_vec()),
        };
        *current = Some(Arc::new(StoredSnapshot {
            meta: meta.clone(),
            data,
        }));
        Ok(())
    }
}

/// The `RaftStateMachine` implementation.
pub struct StateMachine {
    fsm: Arc<dyn Fsm>,
    last_applied: Option<LogId<u64>>,
    last_membership: StoredMembership<u64, BasicNode>,
    slot: Arc<SnapshotSlot>,
    /// Tells the log store which entries it no longer needs to keep in memory.
    applied_hook: Option<AppliedHook>,
}

impl StateMachine {
    /// Builds the adapter, loading the newest snapshot in `snapshot_dir` (if any) into `fsm`.
    /// Blocking: call it off the async runtime.
    pub fn open(fsm: Arc<dyn Fsm>, snapshot_dir: Option<&Path>) -> Result<StateMachine, RaftError> {
        let mut sm = StateMachine {
            fsm,
            last_applied: None,
            last_membership: StoredMembership::default(),
            slot: Arc::new(SnapshotSlot {
                dir: snapshot_dir.map(Path::to_path_buf),
                current: Mutex::new(None),
                closed: Arc::new(tokio::sync::RwLock::new(false)),
            }),
            applied_hook: None,
        };
        if let Some(dir) = snapshot_dir {
            if let Some((meta, data, path)) = snapshot_file::read_newest(dir)? {
                sm.fsm
                    .restore(&data)
                    .map_err(|reason| RaftError::CorruptSnapshot {
                        path: path.clone(),
                        reason,
                    })?;
                sm.last_applied = meta.last_log_id;
                sm.last_membership = meta.last_membership.clone();
                drop(data);
                // The file is already there: publish it without writing it again.
                let mut current = match sm.slot.current.lock() {
                    Ok(g) => g,
                    Err(poisoned) => poisoned.into_inner(),
                };
                *current = Some(Arc::new(StoredSnapshot {
                    meta,
                    data: SnapshotData::File(path),
                }));
            }
        }
        Ok(sm)
    }

    /// Report every applied index to the log store through `hook`.
    pub fn report_applied_to(&mut self, hook: AppliedHook) {
        self.applied_hook = Some(hook);
    }

    fn report_applied(&self) {
        if let (Some(hook), Some(last)) = (&self.applied_hook, self.last_applied) {
            hook.applied(last.index);
        }
    }

    /// The handle that stops snapshot writes at shutdown.
    pub fn gate(&self) -> SnapshotGate {
        SnapshotGate {
            closed: self.slot.closed.clone(),
        }
    }
}

/// What applying one batch produced.
struct Applied {
    responses: Vec<ApplyResponse>,
    last: Option<LogId<u64>>,
    /// The last membership entry in the batch, if any.
    membership: Option<StoredMembership<u64, BasicNode>>,
}

/// Applies a batch in log order: the commands as one run through the FSM, membership and
/// blank entries (which do not touch it) answered in place.
fn apply_batch(fsm: &dyn Fsm, entries: &[Entry]) -> Applied {
    let cmds: Vec<(u64, &Command)> = entries
        .iter()
        .filter_map(|e| match &e.payload {
            EntryPayload::Normal(cmd) => Some((e.log_id.index, &**cmd)),
            _ => None,
        })
        .collect();
    let mut applied = fsm.apply_all(&cmds).into_iter();
    let mut responses = Vec::with_capacity(entries.len());
    let mut membership = None;
    for entry in entries {
        let index = entry.log_id.index;
        let resp = match &entry.payload {
            EntryPayload::Normal(_) => ApplyResponse {
                index,
                ..applied.next().unwrap_or_default()
            },
            EntryPayload::Blank => ApplyResponse {
                index,
                error: String::new(),
            },
            EntryPayload::Membership(m) => {
                membership = Some(StoredMembership::new(Some(entry.log_id), m.clone()));
                ApplyResponse {
                    index,
                    error: String::new(),
                }
            }
        };
        responses.push(resp);
    }
    Applied {
        responses,
        last: entries.last().map(|e| e.log_id),
        membership,
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = SnapshotBuilder;

    async fn applied_state(
        &mut self,
    ) -> StorageResult<(Option<LogId<u64>>, StoredMembership<u64, BasicNode>)> {
        Ok((self.last_applied, self.last_membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> StorageResult<Vec<ApplyResponse>>
    where
        I: IntoIterator<Item = Entry> + Send,
        I::IntoIter: Send,
    {
        let entries: Vec<Entry> = entries.into_iter().collect();
        let Some(first) = entries.first().map(|e| e.log_id) else {
            return Ok(Vec::new());
        };
        // The FSM is synchronous and may take a while on a big batch: keep it off the
        // runtime's worker threads. A panic inside it becomes a storage error, not a crash.
        let fsm = self.fsm.clone();
        let Applied {
            responses,
            last,
            membership,
        } = tokio::task::spawn_blocking(move || apply_batch(fsm.as_ref(), &entries))
            .await
            .map_err(|e| sto_err(ErrorSubject::Apply(first), ErrorVerb::Write, e))?;
        if let Some(last) = last {
            self.last_applied = Some(last);
        }
        if let Some(m) = membership {
            self.last_membership = m;
        }
        self.report_applied();
        Ok(responses)
    }

    /// Takes the FSM's snapshot here, where no apply can run concurrently, so the bytes match
    /// `last_applied` exactly; the builder task then only writes the file.
    async fn get_snapshot_builder(&mut self) -> SnapshotBuilder {
        let fsm = self.fsm.clone();
        let data = tokio::task::spawn_blocking(move || fsm.snapshot())
            .await
            .map_err(|e| e.to_string());
        let open = self.slot.closed.clone().read_owned().await;
        SnapshotBuilder {
            open,
            data,
            last_applied: self.last_applied,
            last_membership: self.last_membership.clone(),
            slot: self.slot.clone(),
        }
    }

    async fn begin_receiving_snapshot(&mut self) -> StorageResult<Box<Cursor<Vec<u8>>>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &Meta,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> StorageResult<()> {
        let subject = ErrorSubject::Snapshot(Some(meta.signature()));
        let data = snapshot.into_inner();
        let fsm = self.fsm.clone();
        let slot = self.slot.clone();
        let m = meta.clone();
        // Restore first: a snapshot the FSM rejects must not become the one loaded at startup.
        tokio::task::spawn_blocking(move || -> Result<(), String> {
            fsm.restore(&data)
                .map_err(|e| format!("restoring snapshot {}: {e}", m.snapshot_id))?;
            slot.store(&m, &data).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| sto_err(subject.clone(), ErrorVerb::Write, e))?
        .map_err(|e| sto_err(subject, ErrorVerb::Write, e))?;
        self.last_applied = meta.last_log_id;
        self.last_membership = meta.last_membership.clone();
        self.report_applied();
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> StorageResult<Option<Snapshot<TypeConfig>>> {
        let Some(s) = self.slot.current() else {
            return Ok(None);
        };
        let meta = s.meta.clone();
        let data = tokio::task::spawn_blocking(move || s.bytes().map_err(|e| e.to_string()))
            .await
            .map_err(|e| e.to_string())
            .and_then(|r| r)
            .map_err(|e| {
                sto_err(
                    ErrorSubject::Snapshot(Some(meta.signature())),
                    ErrorVerb::Read,
                    e,
                )
            })?;
        Ok(Some(Snapshot {
            meta,
            snapshot: Box::new(Cursor::new(data)),
        }))
    }
}

/// Builds one snapshot from FSM bytes captured by `get_snapshot_builder`.
pub struct SnapshotBuilder {
    /// Held until the build is done; reads `true` if raft was shut down meanwhile.
    open: tokio::sync::OwnedRwLockReadGuard<bool>,
    data: Result<Vec<u8>, String>,
    last_applied: Option<LogId<u64>>,
    last_membership: StoredMembership<u64, BasicNode>,
    slot: Arc<SnapshotSlot>,
}

impl RaftSnapshotBuilder<TypeConfig> for SnapshotBuilder {
    async fn build_snapshot(&mut self) -> StorageResult<Snapshot<TypeConfig>> {
        if *self.open {
            return Err(sto_err(
                ErrorSubject::StateMachine,
                ErrorVerb::Write,
                "raft is shut down; snapshot not built",
            ));
        }
        let data = match &self.data {
            Ok(d) => d.clone(),
            Err(e) => {
                return Err(sto_err(
                    ErrorSubject::StateMachine,
                    ErrorVerb::Read,
                    format!("FSM snapshot failed: {e}"),
                ))
            }
        };
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let meta = Meta {
            last_log_id: self.last_applied,
            last_membership: self.last_membership.clone(),
            // Unique per build, so a follower can tell two snapshots at one index apart.
            snapshot_id: format!(
                "{}-{nanos}",
                self.last_applied.map(|l| l.index).unwrap_or(0)
            ),
        };
        let slot = self.slot.clone();
        let m = meta.clone();
        // The bytes go to the blocking task and come back, so they are never copied here.
        let data = tokio::task::spawn_blocking(move || {
            slot.store(&m, &data).map_err(|e| e.to_string())?;
            Ok::<_, String>(data)
        })
        .await
        .map_err(|e| {
            sto_err(
                ErrorSubject::Snapshot(Some(meta.signature())),
                ErrorVerb::Write,
                e,
            )
        })?
        .map_err(|e| {
            sto_err(
                ErrorSubject::Snapshot(Some(meta.signature())),
                ErrorVerb::Write,
                e,
            )
        })?;
        Ok(Snapshot {
            meta,
            snapshot: Box::new(Cursor::new(data)),
        })
    }
}
