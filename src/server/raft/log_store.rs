//! The raft log store: log entries, the vote, the committed log id and the last purged log id,
//! kept in one redb database (`<data_dir>/raft/raft.db`, or redb's in-memory backend in dev
//! mode so the code path is the same).
//!
//! redb is synchronous, so every read and write runs on tokio's blocking pool. openraft calls the
//! write methods one at a time (`&mut self`) and each returns only after its redb commit, so
//! writes are serialised as `RaftLogStorage` requires. Writes that openraft relies on being
//! durable (entries, vote, truncation, purge) commit with `Durability::Immediate` (fsync before
//! the method returns / the flush callback fires).
//!
//! This module owns the redb file and nothing else; snapshots live in `state_machine.rs`.

// `StorageError<u64>` is the error type openraft's storage traits fix; it is large, and boxing
// it is not ours to choose.
#![allow(clippy::result_large_err)]

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};
use std::path::Path;
use std::sync::Arc;

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{
    AnyError, ErrorSubject, ErrorVerb, LogId, LogState, RaftLogReader, StorageError,
    StorageIOError, Vote,
};
use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableDefinition};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{RaftError, TypeConfig};

type Entry = openraft::Entry<TypeConfig>;
type StorageResult<T> = Result<T, StorageError<u64>>;

/// Log index -> serde_json of `Entry`.
const LOGS: TableDefinition<u64, &[u8]> = TableDefinition::new("logs");
/// Small single values (vote, committed, last purged) as serde_json, keyed by name.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

const KEY_VOTE: &str = "vote";
const KEY_COMMITTED: &str = "committed";
const KEY_LAST_PURGED: &str = "last_purged";

/// The redb-backed log store. Cheap to clone: clones share one database, which is how the log
/// reader handed to replication tasks sees the entries the store appends.
#[derive(Clone)]
pub struct LogStore {
    db: Arc<Database>,
    /// Named in every error so a corrupt file can be found ("in-memory" without a data dir).
    location: Arc<str>,
}

impl LogStore {
    /// Opens (or creates) the log database at `path`, or an in-memory one when `path` is None.
    pub fn open(path: Option<&Path>) -> Result<LogStore, RaftError> {
        let (db, location) = match path {
            Some(path) => {
                let db = Database::create(path).map_err(|e| RaftError::LogStore {
                    path: path.display().to_string(),
                    source: e.into(),
                })?;
                (db, path.display().to_string())
            }
            None => {
                let db = Database::builder()
                    .create_with_backend(redb::backends::InMemoryBackend::new())
                    .map_err(|e| RaftError::LogStore {
                        path: "in-memory".to_string(),
                        source: e.into(),
                    })?;
                (db, "in-memory".to_string())
            }
        };
        let store = LogStore {
            db: Arc::new(db),
            location: location.into(),
        };
        // Create both tables up front so read transactions never meet a missing table.
        store
            .write_now(Durability::Immediate, |_, _| Ok(()))
            .map_err(|e| RaftError::LogStore {
                path: store.location.to_string(),
                source: e,
            })?;
        Ok(store)
    }

    /// Where the database lives, for messages.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Makes every earlier non-durable commit (the committed log id) durable. Called at shutdown.
    pub async fn flush(&self) -> StorageResult<()> {
        self.write(ErrorSubject::Store, Durability::Immediate, |_, _| Ok(()))
            .await
    }

    /// Runs one redb write transaction synchronously on the calling thread.
    fn write_now<F>(&self, durability: Durability, f: F) -> Result<(), redb::Error>
    where
        F: FnOnce(
            &mut redb::Table<u64, &[u8]>,
            &mut redb::Table<&str, &[u8]>,
        ) -> Result<(), redb::Error>,
    {
        let mut txn = self.db.begin_write()?;
        txn.set_durability(durability)?;
        {
            let mut logs = txn.open_table(LOGS)?;
            let mut meta = txn.open_table(META)?;
            f(&mut logs, &mut meta)?;
        }
        txn.commit()?;
        Ok(())
    }

    /// Runs one write transaction on the blocking pool and waits for its commit.
    async fn write<F>(
        &self,
        subject: ErrorSubject<u64>,
        durability: Durability,
        f: F,
    ) -> StorageResult<()>
    where
        F: FnOnce(
                &mut redb::Table<u64, &[u8]>,
                &mut redb::Table<&str, &[u8]>,
            ) -> Result<(), redb::Error>
            + Send
            + 'static,
    {
        let this = self.clone();
        let err_subject = subject.clone();
        let res = tokio::task::spawn_blocking(move || this.write_now(durability, f))
            .await
            .map_err(|e| self.io_err(subject, ErrorVerb::Write, e.to_string()))?;
        res.map_err(|e| self.io_err(err_subject, ErrorVerb::Write, e.to_string()))
    }

    /// Runs a read on the blocking pool.
    async fn read<T, F>(&self, subject: ErrorSubject<u64>, f: F) -> StorageResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&LogStore) -> StorageResult<T> + Send + 'static,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || f(&this))
            .await
            .map_err(|e| self.io_err(subject, ErrorVerb::Read, e.to_string()))?
    }

    fn io_err(
        &self,
        subject: ErrorSubject<u64>,
        verb: ErrorVerb,
        msg: String,
    ) -> StorageError<u64> {
        let msg = format!("raft log store {}: {msg}", self.location);
        StorageIOError::new(subject, verb, AnyError::error(msg)).into()
    }

    fn read_meta<T: DeserializeOwned>(&self, key: &str) -> StorageResult<Option<T>> {
        let subject = || match key {
            KEY_VOTE => ErrorSubject::Vote,
            _ => ErrorSubject::Store,
        };
        let read = || -> Result<Option<Vec<u8>>, redb::Error> {
            let txn = self.db.begin_read()?;
            let meta = txn.open_table(META)?;
            Ok(meta.get(key)?.map(|v| v.value().to_vec()))
        };
        let bytes = read().map_err(|e| self.io_err(subject(), ErrorVerb::Read, e.to_string()))?;
        match bytes {
            None => Ok(None),
            Some(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                self.io_err(
                    subject(),
                    ErrorVerb::Read,
                    format!("corrupt {key:?} record: {e}"),
                )
            }),
        }
    }

    /// Reads entries with index in `range`, in order, stopping at the first gap.
    fn read_entries(&self, range: (Bound<u64>, Bound<u64>)) -> StorageResult<Vec<Entry>> {
        let subject = || ErrorSubject::Logs;
        let raw = (|| -> Result<Vec<(u64, Vec<u8>)>, redb::Error> {
            let txn = self.db.begin_read()?;
            let logs = txn.open_table(LOGS)?;
            let mut out = Vec::new();
            for item in logs.range::<u64>(range)? {
                let (k, v) = item?;
                out.push((k.value(), v.value().to_vec()));
            }
            Ok(out)
        })()
        .map_err(|e| self.io_err(subject(), ErrorVerb::Read, e.to_string()))?;

        let mut entries = Vec::with_capacity(raw.len());
        for (index, bytes) in raw {
            let entry: Entry = serde_json::from_slice(&bytes).map_err(|e| {
                self.io_err(
                    ErrorSubject::LogIndex(index),
                    ErrorVerb::Read,
                    format!("corrupt log entry at index {index}: {e}"),
                )
            })?;
            if entry.log_id.index != index {
                return Err(self.io_err(
                    ErrorSubject::LogIndex(index),
                    ErrorVerb::Read,
                    format!(
                        "log entry stored at index {index} says index {}",
                        entry.log_id.index
                    ),
                ));
            }
            entries.push(entry);
        }
        Ok(entries)
    }

    fn last_entry(&self) -> StorageResult<Option<Entry>> {
        let last = (|| -> Result<Option<u64>, redb::Error> {
            let txn = self.db.begin_read()?;
            let logs = txn.open_table(LOGS)?;
            let last = logs.last()?.map(|(k, _)| k.value());
            Ok(last)
        })()
        .map_err(|e| self.io_err(ErrorSubject::Logs, ErrorVerb::Read, e.to_string()))?;
        match last {
            None => Ok(None),
            Some(index) => Ok(self
                .read_entries((Bound::Included(index), Bound::Included(index)))?
                .pop()),
        }
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<Vec<u8>, redb::Error> {
    // Serialising our own plain data types cannot fail; map it anyway rather than panic.
    serde_json::to_vec(value).map_err(|e| redb::Error::Io(std::io::Error::other(e)))
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + Send>(
        &mut self,
        range: RB,
    ) -> StorageResult<Vec<Entry>> {
        let bounds = (range.start_bound().cloned(), range.end_bound().cloned());
        self.read(ErrorSubject::Logs, move |s| s.read_entries(bounds))
            .await
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> StorageResult<LogState<TypeConfig>> {
        self.read(ErrorSubject::Logs, |s| {
            let last_purged_log_id: Option<LogId<u64>> = s.read_meta(KEY_LAST_PURGED)?;
            let last_log_id = match s.last_entry()? {
                Some(entry) => Some(entry.log_id),
                None => last_purged_log_id,
            };
            Ok(LogState {
                last_purged_log_id,
                last_log_id,
            })
        })
        .await
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<u64>) -> StorageResult<()> {
        let vote = *vote;
        self.write(ErrorSubject::Vote, Durability::Immediate, move |_, meta| {
            meta.insert(KEY_VOTE, to_json(&vote)?.as_slice())?;
            Ok(())
        })
        .await
    }

    async fn read_vote(&mut self) -> StorageResult<Option<Vote<u64>>> {
        self.read(ErrorSubject::Vote, |s| s.read_meta(KEY_VOTE))
            .await
    }

    /// Not fsynced: it is rewritten on every commit, openraft does not need it durable (a stale
    /// value only means fewer entries are re-applied at startup, and the leader commits the rest
    /// again), and the next durable commit (an append, or `flush` at shutdown) persists it.
    async fn save_committed(&mut self, committed: Option<LogId<u64>>) -> StorageResult<()> {
        self.write(ErrorSubject::Store, Durability::None, move |_, meta| {
            meta.insert(KEY_COMMITTED, to_json(&committed)?.as_slice())?;
            Ok(())
        })
        .await
    }

    async fn read_committed(&mut self) -> StorageResult<Option<LogId<u64>>> {
        self.read(ErrorSubject::Store, |s| {
            Ok(s.read_meta::<Option<LogId<u64>>>(KEY_COMMITTED)?.flatten())
        })
        .await
    }

    async fn append<I>(&mut self, entries: I, callback: LogFlushed<TypeConfig>) -> StorageResult<()>
    where
        I: IntoIterator<Item = Entry> + Send,
        I::IntoIter: Send,
    {
        let mut encoded = Vec::new();
        for entry in entries {
            let bytes = serde_json::to_vec(&entry).map_err(|e| {
                self.io_err(
                    ErrorSubject::Log(entry.log_id),
                    ErrorVerb::Write,
                    e.to_string(),
                )
            })?;
            encoded.push((entry.log_id.index, bytes));
        }
        let res = self
            .write(ErrorSubject::Logs, Durability::Immediate, move |logs, _| {
                for (index, bytes) in &encoded {
                    logs.insert(*index, bytes.as_slice())?;
                }
                Ok(())
            })
            .await;
        // The commit above was fsynced, so the entries are durable before openraft hears so.
        match res {
            Ok(()) => {
                callback.log_io_completed(Ok(()));
                Ok(())
            }
            Err(e) => {
                callback.log_io_completed(Err(std::io::Error::other(e.to_string())));
                Err(e)
            }
        }
    }

    async fn truncate(&mut self, log_id: LogId<u64>) -> StorageResult<()> {
        self.write(
            ErrorSubject::Log(log_id),
            Durability::Immediate,
            move |logs, _| {
                logs.retain_in::<u64, _>(log_id.index.., |_, _| false)?;
                Ok(())
            },
        )
        .await
    }

    async fn purge(&mut self, log_id: LogId<u64>) -> StorageResult<()> {
        self.write(
            ErrorSubject::Log(log_id),
            Durability::Immediate,
            move |logs, meta| {
                // Record the purge point first, in the same transaction, so the log state stays
                // consistent whatever happens to the deletion.
                meta.insert(KEY_LAST_PURGED, to_json(&log_id)?.as_slice())?;
                logs.retain_in::<u64, _>(..=log_id.index, |_, _| false)?;
                Ok(())
            },
        )
        .await
    }
}

/// Test-only access to raw records, to simulate corruption.
#[cfg(test)]
impl LogStore {
    pub(crate) fn overwrite_raw_entry(&self, index: u64, bytes: &[u8]) -> Result<(), redb::Error> {
        let bytes = bytes.to_vec();
        self.write_now(Durability::Immediate, move |logs, _| {
            logs.insert(index, bytes.as_slice())?;
            Ok(())
        })
    }

    pub(crate) fn first_index(&self) -> Result<Option<u64>, redb::Error> {
        let txn = self.db.begin_read()?;
        let logs = txn.open_table(LOGS)?;
        let first = logs.first()?.map(|(k, _)| k.value());
        Ok(first)
    }
}
