//! The raft log store: log entries, the vote, the committed log id and the last purged log id,
//! kept in one redb database (`<data_dir>/raft/raft.db`, or redb's in-memory backend in dev
//! mode so the code path is the same).
//!
//! Writes go through one writer thread, in the order openraft issues them. `append` puts the
//! entries in an in-memory cache (so they are readable at once, as openraft requires) and
//! queues them; the writer takes everything queued, writes it in one redb transaction, fsyncs
//! (`Durability::Immediate`) and only then reports the entries flushed. Appends that arrive
//! while a commit is in progress therefore share the next fsync (group commit), and raft's
//! core never waits on the disk. Truncate, purge, vote and flush wait for their commit.
//!
//! openraft reads every committed entry back to apply it; the cache answers those reads (and
//! replication's) without decoding, until an entry is both durable and applied. Older
//! entries are read from redb.
//!
//! Entries are stored as their JSON, Snappy-compressed behind a marker byte once they are
//! 512 bytes or more (a plan's allocs repeat the same keys and values, so the log writes and
//! fsyncs several times less); entries of older logs, plain JSON, still read.
//!
//! This module owns the redb file and nothing else; snapshots live in `state_machine.rs`.

// `StorageError<u64>` is the error type openraft's storage traits fix; it is large, and boxing
// it is not ours to choose.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{
    AnyError, ErrorSubject, ErrorVerb, LogId, LogState, RaftLogReader, StorageError,
    StorageIOError, Vote,
};
use redb::{Database, Durability, ReadableDatabase, ReadableTable, TableDefinition};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::sync::oneshot;

use super::{RaftError, TypeConfig};

type Entry = openraft::Entry<TypeConfig>;
type StorageResult<T> = Result<T, StorageError<u64>>;

/// Log index -> the entry as written by [`encode_entry`].
const LOGS: TableDefinition<u64, &[u8]> = TableDefinition::new("logs");
/// Small single values (vote, committed, last purged) as serde_json, keyed by name.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

const KEY_VOTE: &str = "vote";
const KEY_COMMITTED: &str = "committed";
const KEY_LAST_PURGED: &str = "last_purged";

/// Durable entries kept in the cache behind the applied index, for followers a little behind.
const CACHE_TAIL: u64 = 32;
/// Durable entries kept at most whatever the applied index says (a state machine that never
/// reports its progress must not make the cache grow without bound).
const CACHE_MAX: usize = 4096;
/// Most queued operations the writer puts in one transaction.
const MAX_BATCH: usize = 1024;

/// Entries appended recently: a contiguous run of indexes ending at the last appended entry.
#[derive(Default)]
struct Cache {
    entries: BTreeMap<u64, Entry>,
    /// Entries up to this index are in redb.
    durable: u64,
    /// Entries up to this index are applied to the state machine.
    applied: u64,
}

impl Cache {
    /// Drops the entries nobody is likely to read from memory again.
    fn trim(&mut self) {
        let keep_from = self.durable.min(self.applied.saturating_sub(CACHE_TAIL));
        while let Some((&first, _)) = self.entries.first_key_value() {
            let over = self.entries.len() > CACHE_MAX;
            if first > self.durable || (first > keep_from && !over) {
                break;
            }
            self.entries.pop_first();
        }
    }
}

/// Reports the state machine's progress to the log store, so the cache can let go of
/// applied entries.
#[derive(Clone)]
pub struct AppliedHook {
    cache: Arc<Mutex<Cache>>,
}

impl AppliedHook {
    pub fn applied(&self, index: u64) {
        let mut cache = lock(&self.cache);
        cache.applied = cache.applied.max(index);
        cache.trim();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

type Done = oneshot::Sender<Result<(), String>>;

/// One queued write.
enum Op {
    Append {
        entries: Vec<Entry>,
        callback: LogFlushed<TypeConfig>,
    },
    /// Not durable on its own (see `save_committed`); only the last one of a batch is written.
    Committed(Option<LogId<u64>>),
    Vote(Vote<u64>, Done),
    Truncate(LogId<u64>, Done),
    Purge(LogId<u64>, Done),
    Flush(Done),
}

/// The writer thread and the way to reach it; the last `LogStore` clone to go stops the
/// thread and waits for it, so the database file is closed once the store is dropped.
struct Writer {
    tx: Mutex<Option<mpsc::Sender<Op>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Drop for Writer {
    fn drop(&mut self) {
        lock(&self.tx).take();
        if let Some(t) = lock(&self.thread).take() {
            let _ = t.join();
        }
    }
}

/// The redb-backed log store. Cheap to clone: clones share one database, cache and writer,
/// which is how the log reader handed to replication tasks sees the entries the store appends.
#[derive(Clone)]
pub struct LogStore {
    db: Arc<Database>,
    /// Named in every error so a corrupt file can be found ("in-memory" without a data dir).
    location: Arc<str>,
    cache: Arc<Mutex<Cache>>,
    writer: Arc<Writer>,
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
        let db = Arc::new(db);
        let location: Arc<str> = location.into();
        let store_err = |source: redb::Error| RaftError::LogStore {
            path: location.to_string(),
            source,
        };
        // Create both tables up front so read transactions never meet a missing table.
        write_txn(&db, Durability::Immediate, |_, _| Ok(())).map_err(store_err)?;
        let cache = Arc::new(Mutex::new(Cache::default()));
        let (tx, rx) = mpsc::channel();
        let thread = {
            let (db, cache) = (db.clone(), cache.clone());
            std::thread::Builder::new()
                .name("raft-log-writer".into())
                .spawn(move || writer_loop(&db, &cache, rx))
                .map_err(|e| store_err(redb::Error::Io(e)))?
        };
        Ok(LogStore {
            db,
            location,
            cache,
            writer: Arc::new(Writer {
                tx: Mutex::new(Some(tx)),
                thread: Mutex::new(Some(thread)),
            }),
        })
    }

    /// Where the database lives, for messages.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The handle the state machine reports applied indexes through.
    pub fn applied_hook(&self) -> AppliedHook {
        AppliedHook {
            cache: self.cache.clone(),
        }
    }

    /// Makes every earlier write durable, including the non-durable committed log id. Called
    /// at shutdown.
    pub async fn flush(&self) -> StorageResult<()> {
        self.wait_for(ErrorSubject::Store, Op::Flush).await
    }

    fn send(&self, op: Op) -> Result<(), Op> {
        match lock(&self.writer.tx).as_ref() {
            Some(tx) => tx.send(op).map_err(|e| e.0),
            None => Err(op),
        }
    }

    /// Queues an operation that reports its commit and waits for it.
    async fn wait_for(
        &self,
        subject: ErrorSubject<u64>,
        op: impl FnOnce(Done) -> Op,
    ) -> StorageResult<()> {
        let (done, rx) = oneshot::channel();
        if self.send(op(done)).is_err() {
            return Err(self.io_err(subject, ErrorVerb::Write, "writer stopped".to_string()));
        }
        match rx.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(self.io_err(subject, ErrorVerb::Write, e)),
            Err(_) => Err(self.io_err(subject, ErrorVerb::Write, "writer stopped".to_string())),
        }
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

    /// The cached entries of `[start, end)` and the index the cache starts at: everything in
    /// the range below it has to come from redb. None when the cache is empty.
    fn cached(&self, start: u64, end: u64) -> Option<(u64, Vec<Entry>)> {
        let cache = lock(&self.cache);
        let first = *cache.entries.first_key_value()?.0;
        let from = start.max(first);
        let got = if from < end {
            cache
                .entries
                .range(from..end)
                .map(|(_, e)| e.clone())
                .collect()
        } else {
            Vec::new()
        };
        Some((first, got))
    }

    /// Reads the entries with index in `range`, in order: the cached part from memory, the
    /// part before the cache from redb. The cache is read first:
    /// whatever it has dropped since is durable in redb by then.
    fn read_entries(&self, range: (Bound<u64>, Bound<u64>)) -> StorageResult<Vec<Entry>> {
        let (start, end) = bounds(range);
        let (redb_end, cached) = match self.cached(start, end) {
            Some((first, cached)) => (first.min(end), cached),
            None => (end, Vec::new()),
        };
        let mut entries = if start < redb_end {
            self.read_stored(start, redb_end)?
        } else {
            Vec::new()
        };
        entries.extend(cached);
        Ok(entries)
    }

    /// Reads and decodes the stored entries of `[start, end)`.
    fn read_stored(&self, start: u64, end: u64) -> StorageResult<Vec<Entry>> {
        let subject = || ErrorSubject::Logs;
        let raw = (|| -> Result<Vec<(u64, Vec<u8>)>, redb::Error> {
            let txn = self.db.begin_read()?;
            let logs = txn.open_table(LOGS)?;
            let mut out = Vec::new();
            for item in logs.range::<u64>(start..end)? {
                let (k, v) = item?;
                out.push((k.value(), v.value().to_vec()));
            }
            Ok(out)
        })()
        .map_err(|e| self.io_err(subject(), ErrorVerb::Read, e.to_string()))?;

        let mut entries = Vec::with_capacity(raw.len());
        for (index, bytes) in raw {
            let entry = decode_entry(&bytes).map_err(|e| {
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

    fn last_log_id(&self) -> StorageResult<Option<LogId<u64>>> {
        if let Some((_, e)) = lock(&self.cache).entries.last_key_value() {
            return Ok(Some(e.log_id));
        }
        let last = (|| -> Result<Option<u64>, redb::Error> {
            let txn = self.db.begin_read()?;
            let logs = txn.open_table(LOGS)?;
            let last = logs.last()?.map(|(k, _)| k.value());
            Ok(last)
        })()
        .map_err(|e| self.io_err(ErrorSubject::Logs, ErrorVerb::Read, e.to_string()))?;
        match last {
            None => Ok(None),
            Some(index) => Ok(self.read_stored(index, index + 1)?.pop().map(|e| e.log_id)),
        }
    }
}

/// `[start, end)` of a range of log indexes.
fn bounds(range: (Bound<u64>, Bound<u64>)) -> (u64, u64) {
    let start = match range.0 {
        Bound::Included(s) => s,
        Bound::Excluded(s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.1 {
        Bound::Included(e) => e.saturating_add(1),
        Bound::Excluded(e) => e,
        Bound::Unbounded => u64::MAX,
    };
    (start, end)
}

/// Runs one redb write transaction on the calling thread.
fn write_txn<F>(db: &Database, durability: Durability, f: F) -> Result<(), redb::Error>
where
    F: FnOnce(
        &mut redb::Table<u64, &[u8]>,
        &mut redb::Table<&str, &[u8]>,
    ) -> Result<(), redb::Error>,
{
    let mut txn = db.begin_write()?;
    txn.set_durability(durability)?;
    {
        let mut logs = txn.open_table(LOGS)?;
        let mut meta = txn.open_table(META)?;
        f(&mut logs, &mut meta)?;
    }
    txn.commit()?;
    Ok(())
}

/// The writer thread: takes whatever is queued, writes it in one transaction, commits
/// (durably unless it only moved the committed marker), then answers every operation of
/// the batch. Exits when every sender is gone.
fn writer_loop(db: &Database, cache: &Mutex<Cache>, rx: mpsc::Receiver<Op>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(op) => batch.push(op),
                Err(_) => break,
            }
        }
        let durable = batch.iter().any(|op| !matches!(op, Op::Committed(_)));
        let last_committed = batch.iter().rposition(|op| matches!(op, Op::Committed(_)));
        let res = write_txn(
            db,
            if durable {
                Durability::Immediate
            } else {
                Durability::None
            },
            |logs, meta| {
                for (i, op) in batch.iter().enumerate() {
                    match op {
                        Op::Append { entries, .. } => {
                            for e in entries {
                                logs.insert(e.log_id.index, encode_entry(e)?.as_slice())?;
                            }
                        }
                        Op::Committed(c) if Some(i) == last_committed => {
                            meta.insert(KEY_COMMITTED, to_json(c)?.as_slice())?;
                        }
                        Op::Committed(_) | Op::Flush(_) => {}
                        Op::Vote(v, _) => {
                            meta.insert(KEY_VOTE, to_json(v)?.as_slice())?;
                        }
                        Op::Truncate(log_id, _) => {
                            logs.retain_in::<u64, _>(log_id.index.., |_, _| false)?;
                        }
                        Op::Purge(log_id, _) => {
                            // The purge point first, in the same transaction, so the log
                            // state stays consistent whatever happens to the deletion.
                            meta.insert(KEY_LAST_PURGED, to_json(log_id)?.as_slice())?;
                            logs.retain_in::<u64, _>(..=log_id.index, |_, _| false)?;
                        }
                    }
                }
                Ok(())
            },
        );
        if res.is_ok() {
            let mut c = lock(cache);
            for op in &batch {
                match op {
                    Op::Append { entries, .. } => {
                        if let Some(last) = entries.last() {
                            c.durable = last.log_id.index;
                        }
                    }
                    Op::Truncate(log_id, _) => {
                        c.durable = c.durable.min(log_id.index.saturating_sub(1));
                    }
                    _ => {}
                }
            }
            c.trim();
        }
        let err = res.err().map(|e| e.to_string());
        for op in batch {
            let result = match &err {
                None => Ok(()),
                Some(e) => Err(e.clone()),
            };
            match op {
                // The commit above was fsynced, so the entries are durable before openraft
                // hears so.
                Op::Append { callback, .. } => {
                    callback.log_io_completed(result.map_err(std::io::Error::other))
                }
                Op::Committed(_) => {}
                Op::Vote(_, done)
                | Op::Truncate(_, done)
                | Op::Purge(_, done)
                | Op::Flush(done) => {
                    let _ = done.send(result);
                }
            }
        }
    }
}

/// Marks an entry stored as Snappy-compressed JSON. A plain JSON entry starts with `{`, so
/// logs written before entries were compressed read back unchanged.
const SNAPPY: u8 = 1;
/// Entries shorter than this are stored as plain JSON: they would hardly shrink.
const COMPRESS_FROM: usize = 512;
/// Largest entry a stored length may claim; anything bigger is corruption, not an entry.
const MAX_ENTRY_BYTES: usize = 1 << 30;

/// An entry as stored: its JSON, Snappy-compressed behind a [`SNAPPY`] byte when that is
/// long enough to be worth it. A plan's allocs repeat the same keys and values, so its JSON
/// shrinks several times over, and the log writes and fsyncs that much less.
fn encode_entry(entry: &Entry) -> Result<Vec<u8>, redb::Error> {
    let json = to_json(entry)?;
    if json.len() < COMPRESS_FROM {
        return Ok(json);
    }
    let mut out = vec![0; 1 + snap::raw::max_compress_len(json.len())];
    out[0] = SNAPPY;
    let n = snap::raw::Encoder::new()
        .compress(&json, &mut out[1..])
        .map_err(|e| redb::Error::Io(std::io::Error::other(e)))?;
    out.truncate(1 + n);
    Ok(out)
}

/// Reads an entry written by [`encode_entry`] (or plain JSON from before compression).
fn decode_entry(bytes: &[u8]) -> Result<Entry, String> {
    match bytes.split_first() {
        Some((&SNAPPY, compressed)) => {
            let len = snap::raw::decompress_len(compressed).map_err(|e| e.to_string())?;
            if len > MAX_ENTRY_BYTES {
                return Err(format!("compressed entry claims {len} bytes"));
            }
            let json = snap::raw::Decoder::new()
                .decompress_vec(compressed)
                .map_err(|e| e.to_string())?;
            serde_json::from_slice(&json).map_err(|e| e.to_string())
        }
        _ => serde_json::from_slice(bytes).map_err(|e| e.to_string()),
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
        let bounds_ = (range.start_bound().cloned(), range.end_bound().cloned());
        // The common case (entries just committed) is all in memory: no thread hop. The cache
        // is a contiguous run ending at the last entry, so once it starts at or before the
        // range, what it holds of the range is all there is.
        let (start, end) = bounds(bounds_);
        if let Some((first, cached)) = self.cached(start, end) {
            if first <= start {
                return Ok(cached);
            }
        }
        self.read(ErrorSubject::Logs, move |s| s.read_entries(bounds_))
            .await
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> StorageResult<LogState<TypeConfig>> {
        self.read(ErrorSubject::Logs, |s| {
            let last_purged_log_id: Option<LogId<u64>> = s.read_meta(KEY_LAST_PURGED)?;
            let last_log_id = s.last_log_id()?.or(last_purged_log_id);
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
        self.wait_for(ErrorSubject::Vote, |done| Op::Vote(vote, done))
            .await
    }

    async fn read_vote(&mut self) -> StorageResult<Option<Vote<u64>>> {
        self.read(ErrorSubject::Vote, |s| s.read_meta(KEY_VOTE))
            .await
    }

    /// Not fsynced on its own: it is rewritten on every commit, openraft does not need it
    /// durable (a stale value only means fewer entries are re-applied at startup, and the
    /// leader commits the rest again), and the next durable commit (an append, or `flush` at
    /// shutdown) persists it. Not waited for either: the writer applies it in order.
    async fn save_committed(&mut self, committed: Option<LogId<u64>>) -> StorageResult<()> {
        self.send(Op::Committed(committed)).map_err(|_| {
            self.io_err(
                ErrorSubject::Store,
                ErrorVerb::Write,
                "writer stopped".to_string(),
            )
        })
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
        let entries: Vec<Entry> = entries.into_iter().collect();
        {
            let mut cache = lock(&self.cache);
            for e in &entries {
                cache.entries.insert(e.log_id.index, e.clone());
            }
        }
        match self.send(Op::Append { entries, callback }) {
            Ok(()) => Ok(()),
            Err(op) => {
                if let Op::Append { callback, .. } = op {
                    callback.log_io_completed(Err(std::io::Error::other("log writer stopped")));
                }
                Err(self.io_err(
                    ErrorSubject::Logs,
                    ErrorVerb::Write,
                    "writer stopped".to_string(),
                ))
            }
        }
    }

    async fn truncate(&mut self, log_id: LogId<u64>) -> StorageResult<()> {
        lock(&self.cache).entries.split_off(&log_id.index);
        self.wait_for(ErrorSubject::Log(log_id), |done| Op::Truncate(log_id, done))
            .await
    }

    async fn purge(&mut self, log_id: LogId<u64>) -> StorageResult<()> {
        self.wait_for(ErrorSubject::Log(log_id), |done| Op::Purge(log_id, done))
            .await?;
        let mut cache = lock(&self.cache);
        let keep = cache.entries.split_off(&(log_id.index + 1));
        cache.entries = keep;
        Ok(())
    }
}

/// Test-only access to raw records, to simulate corruption.
#[cfg(test)]
impl LogStore {
    pub(crate) fn overwrite_raw_entry(&self, index: u64, bytes: &[u8]) -> Result<(), redb::Error> {
        lock(&self.cache).entries.clear();
        write_txn(&self.db, Durability::Immediate, |logs, _| {
            logs.insert(index, bytes)?;
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

#[cfg(test)]
mod codec_tests {
    use std::sync::Arc;

    use openraft::{CommittedLeaderId, EntryPayload, LogId};

    use super::*;
    use crate::api::Evaluation;
    use crate::server::fsm::Command;

    fn entry(index: u64, evals: usize) -> Entry {
        let evals = (0..evals)
            .map(|i| Evaluation {
                id: format!("eval-{i}"),
                job_id: "web".into(),
                status: "complete".into(),
                ..Default::default()
            })
            .collect();
        Entry {
            log_id: LogId::new(CommittedLeaderId::new(1, 0), index),
            payload: EntryPayload::Normal(Arc::new(Command::EvalUpsert { evals })),
        }
    }

    fn same(a: &Entry, b: &Entry) -> bool {
        serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
    }

    #[test]
    fn large_entries_are_stored_compressed_and_read_back() {
        let e = entry(7, 50);
        let json = to_json(&e).unwrap();
        let stored = encode_entry(&e).unwrap();
        assert_eq!(stored[0], SNAPPY);
        assert!(
            stored.len() * 3 < json.len(),
            "{} bytes stored for {} of JSON",
            stored.len(),
            json.len()
        );
        assert!(same(&decode_entry(&stored).unwrap(), &e));
    }

    #[test]
    fn small_entries_and_entries_of_older_logs_are_plain_json() {
        let small = entry(3, 0);
        let stored = encode_entry(&small).unwrap();
        assert_eq!(stored, to_json(&small).unwrap());
        assert!(same(&decode_entry(&stored).unwrap(), &small));
        // A log written before compression holds every entry as plain JSON.
        let large = entry(4, 50);
        let old = to_json(&large).unwrap();
        assert!(same(&decode_entry(&old).unwrap(), &large));
    }

    #[test]
    fn corrupt_compressed_entries_are_errors() {
        let mut stored = encode_entry(&entry(5, 50)).unwrap();
        stored.truncate(stored.len() / 2);
        assert!(decode_entry(&stored).is_err());
        // A length header claiming more than any entry holds.
        let huge = [SNAPPY, 0xff, 0xff, 0xff, 0xff, 0x0f];
        let err = decode_entry(&huge).unwrap_err();
        assert!(err.contains("claims"), "{err}");
        assert!(decode_entry(&[SNAPPY]).is_err());
    }
}
