//! Tests of the raft layer against a tiny recording FSM.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use openraft::testing::{StoreBuilder, Suite};

use super::*;

/// Records every applied command as (index, job id), and counts restores.
#[derive(Default)]
struct RecordingFsm {
    applied: Mutex<Vec<(u64, String)>>,
    restores: AtomicUsize,
}

impl RecordingFsm {
    fn applied(&self) -> Vec<(u64, String)> {
        self.applied.lock().unwrap().clone()
    }
}

impl Fsm for RecordingFsm {
    fn apply(&self, index: u64, cmd: &Command) -> ApplyResponse {
        let id = match cmd {
            Command::JobDeregister { job_id, .. } => job_id.clone(),
            other => format!("{other:?}"),
        };
        self.applied.lock().unwrap().push((index, id));
        ApplyResponse {
            // Deliberately wrong: the adapter must overwrite it with the log index.
            index: 0,
            error: String::new(),
        }
    }
    fn snapshot(&self) -> Vec<u8> {
        serde_json::to_vec(&*self.applied.lock().unwrap()).unwrap()
    }
    fn restore(&self, data: &[u8]) -> Result<(), String> {
        let v: Vec<(u64, String)> = serde_json::from_slice(data).map_err(|e| e.to_string())?;
        *self.applied.lock().unwrap() = v;
        self.restores.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    fn last_applied(&self) -> u64 {
        self.applied
            .lock()
            .unwrap()
            .last()
            .map(|(i, _)| *i)
            .unwrap_or(0)
    }
}

fn cmd(n: u64) -> Command {
    Command::JobDeregister {
        namespace: "default".into(),
        job_id: format!("job-{n}"),
        purge: false,
        eval: None,
        time: n as i64,
    }
}

fn config(dir: Option<&Path>) -> RaftConfig {
    RaftConfig::new(1, "127.0.0.1:4647", dir.map(Path::to_path_buf))
}

async fn start(cfg: RaftConfig, fsm: &Arc<RecordingFsm>) -> RaftHandle {
    let t = Instant::now();
    let h = RaftHandle::start(cfg, fsm.clone())
        .await
        .expect("raft starts");
    let mut lead = h.leadership();
    tokio::time::timeout(Duration::from_secs(5), lead.wait_for(|l| *l))
        .await
        .expect("becomes leader")
        .expect("watch open");
    println!("time from start to leader: {:?}", t.elapsed());
    h
}

async fn propose_n(h: &RaftHandle, range: std::ops::Range<u64>) -> Vec<u64> {
    let mut indexes = Vec::new();
    for n in range {
        let resp = h.propose(cmd(n)).await.expect("propose");
        assert_eq!(resp.error, "");
        indexes.push(resp.index);
    }
    indexes
}

#[tokio::test]
async fn in_memory_node_leads_and_applies_proposals_in_order_at_their_log_index() {
    let fsm = Arc::new(RecordingFsm::default());
    let h = start(config(None), &fsm).await;
    assert!(h.is_leader());
    assert!(
        *h.leadership().borrow(),
        "a fresh receiver reads the current leadership"
    );
    assert_eq!(h.leader_addr().as_deref(), Some("127.0.0.1:4647"));
    assert_eq!(h.peers(), vec!["127.0.0.1:4647".to_string()]);
    assert_eq!(h.last_contact(), Duration::ZERO);

    let indexes = propose_n(&h, 0..20).await;
    assert!(indexes.windows(2).all(|w| w[1] == w[0] + 1), "{indexes:?}");
    let applied = fsm.applied();
    let want: Vec<(u64, String)> = indexes
        .iter()
        .enumerate()
        .map(|(n, i)| (*i, format!("job-{n}")))
        .collect();
    assert_eq!(applied, want);
    assert_eq!(h.stats().applied_index, *indexes.last().unwrap());

    h.shutdown().await.unwrap();
    assert!(
        !*h.leadership().borrow(),
        "leadership reads false after shutdown"
    );
    match h.propose(cmd(99)).await {
        Err(RaftError::Fatal(f)) => assert!(matches!(*f, Fatal::Stopped), "{f}"),
        other => panic!("propose after shutdown: {other:?}"),
    }
    h.shutdown().await.expect("shutdown is idempotent");
}

#[tokio::test]
async fn restart_with_same_data_dir_replays_the_log_and_continues_at_the_next_index() {
    let dir = tempfile::tempdir().unwrap();
    let fsm1 = Arc::new(RecordingFsm::default());
    let h = start(config(Some(dir.path())), &fsm1).await;
    let first = propose_n(&h, 0..7).await;
    h.shutdown().await.unwrap();
    drop(h);

    let fsm2 = Arc::new(RecordingFsm::default());
    let h = start(config(Some(dir.path())), &fsm2).await;
    assert_eq!(fsm2.applied(), fsm1.applied(), "state rebuilt from the log");
    assert_eq!(fsm2.restores.load(Ordering::SeqCst), 0, "no snapshot yet");
    let next = propose_n(&h, 7..8).await[0];
    assert!(next > *first.last().unwrap());
    assert_eq!(h.stats().last_log_index, next);
    assert_eq!(fsm2.applied().last(), Some(&(next, "job-7".to_string())));
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn entries_beyond_a_stale_committed_marker_are_applied_after_restart() {
    use openraft::storage::RaftLogStorage;
    use openraft::RaftLogReader;

    let dir = tempfile::tempdir().unwrap();
    let fsm1 = Arc::new(RecordingFsm::default());
    let h = start(config(Some(dir.path())), &fsm1).await;
    let indexes = propose_n(&h, 0..6).await;
    h.shutdown().await.unwrap();
    drop(h);

    // As after a crash before the (non-fsynced) committed marker reached disk.
    {
        let mut store = LogStore::open(Some(&dir.path().join("raft/raft.db"))).unwrap();
        let entry = store
            .try_get_log_entries(indexes[1]..=indexes[1])
            .await
            .unwrap();
        store.save_committed(Some(entry[0].log_id)).await.unwrap();
        store.flush().await.unwrap();
    }
    let fsm2 = Arc::new(RecordingFsm::default());
    let h = start(config(Some(dir.path())), &fsm2).await;
    h.inner
        .raft
        .wait(Some(Duration::from_secs(5)))
        .metrics(
            |m| m.last_applied.map(|l| l.index) >= Some(indexes[5]),
            "re-commit",
        )
        .await
        .expect("the leader commits the rest again");
    assert_eq!(fsm2.applied(), fsm1.applied());
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn snapshot_is_built_logs_purged_and_restart_restores_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Some(dir.path()));
    cfg.snapshot_logs = 10;
    let fsm1 = Arc::new(RecordingFsm::default());
    let h = start(cfg.clone(), &fsm1).await;
    propose_n(&h, 0..25).await;
    let m = h
        .inner
        .raft
        .wait(Some(Duration::from_secs(10)))
        .metrics(
            |m| m.snapshot.is_some() && m.purged.is_some() && m.purged == m.snapshot,
            "snapshot built and purged",
        )
        .await
        .expect("snapshot and purge");
    let snap_index = m.snapshot.unwrap().index;
    assert!(snap_index >= 10, "snapshot at {snap_index}");
    let first = {
        let store = h.inner.log_store.lock().unwrap();
        store.as_ref().unwrap().first_index().unwrap()
    };
    assert!(first.is_none_or(|f| f > snap_index), "first log {first:?}");
    let snaps: Vec<_> = std::fs::read_dir(dir.path().join("raft/snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    h.shutdown().await.unwrap();
    drop(h);

    let fsm2 = Arc::new(RecordingFsm::default());
    let h = start(cfg, &fsm2).await;
    assert_eq!(
        fsm2.restores.load(Ordering::SeqCst),
        1,
        "restored from the snapshot"
    );
    assert_eq!(
        fsm2.applied(),
        fsm1.applied(),
        "snapshot + log replay = old state"
    );
    let next = propose_n(&h, 25..26).await[0];
    assert_eq!(fsm2.applied().last(), Some(&(next, "job-25".to_string())));
    h.shutdown().await.unwrap();
}

#[tokio::test]
async fn corrupt_snapshot_file_fails_start_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Some(dir.path()));
    cfg.snapshot_logs = 5;
    let fsm = Arc::new(RecordingFsm::default());
    let h = start(cfg.clone(), &fsm).await;
    propose_n(&h, 0..8).await;
    h.inner
        .raft
        .wait(Some(Duration::from_secs(10)))
        .metrics(|m| m.snapshot.is_some(), "snapshot")
        .await
        .unwrap();
    h.shutdown().await.unwrap();
    drop(h);

    let snap_dir = dir.path().join("raft/snapshots");
    let path = std::fs::read_dir(&snap_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();

    let err = RaftHandle::start(cfg, Arc::new(RecordingFsm::default()))
        .await
        .err()
        .expect("start fails");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn corrupt_log_entry_fails_start_naming_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(Some(dir.path()));
    let fsm = Arc::new(RecordingFsm::default());
    let h = start(cfg.clone(), &fsm).await;
    let indexes = propose_n(&h, 0..3).await;
    h.shutdown().await.unwrap();
    drop(h);

    let db = dir.path().join("raft/raft.db");
    {
        let store = LogStore::open(Some(&db)).unwrap();
        store.overwrite_raw_entry(indexes[1], b"{not json").unwrap();
    }
    let err = RaftHandle::start(cfg, Arc::new(RecordingFsm::default()))
        .await
        .err()
        .expect("start fails");
    let msg = err.to_string();
    assert!(msg.contains(&db.display().to_string()), "{msg}");
    assert!(msg.contains(&format!("index {}", indexes[1])), "{msg}");
}

#[tokio::test]
async fn garbage_database_file_fails_start_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("raft/raft.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::write(&db, vec![0xabu8; 8192]).unwrap();
    let err = RaftHandle::start(config(Some(dir.path())), Arc::new(RecordingFsm::default()))
        .await
        .err()
        .expect("start fails");
    assert!(matches!(err, RaftError::LogStore { .. }), "{err}");
    assert!(err.to_string().contains(&db.display().to_string()), "{err}");
}

#[tokio::test]
async fn changed_advertised_address_is_updated_in_the_membership() {
    let dir = tempfile::tempdir().unwrap();
    let fsm = Arc::new(RecordingFsm::default());
    let h = start(config(Some(dir.path())), &fsm).await;
    h.shutdown().await.unwrap();
    drop(h);
    let mut cfg = config(Some(dir.path()));
    cfg.addr = "127.0.0.1:5647".into();
    let h = start(cfg, &Arc::new(RecordingFsm::default())).await;
    assert_eq!(h.peers(), vec!["127.0.0.1:5647".to_string()]);
    h.shutdown().await.unwrap();
}

struct TempStores;

impl StoreBuilder<TypeConfig, LogStore, StateMachine, tempfile::TempDir> for TempStores {
    async fn build(
        &self,
    ) -> Result<(tempfile::TempDir, LogStore, StateMachine), StorageError<u64>> {
        let io = |e: RaftError| -> StorageError<u64> {
            openraft::StorageIOError::<u64>::write(openraft::AnyError::error(e.to_string())).into()
        };
        let dir = tempfile::tempdir().map_err(|e| {
            io(RaftError::Io {
                path: "tempdir".into(),
                source: e,
            })
        })?;
        let ls = LogStore::open(Some(&dir.path().join("raft.db"))).map_err(io)?;
        let sm = StateMachine::open(
            Arc::new(RecordingFsm::default()),
            Some(&dir.path().join("snapshots")),
        )
        .map_err(io)?;
        Ok((dir, ls, sm))
    }
}

#[test]
fn openraft_storage_suite_passes() {
    Suite::test_all(TempStores).expect("openraft storage suite");
}

#[tokio::test]
async fn time_from_start_to_leader_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    for (what, data_dir) in [
        ("in-memory", None),
        ("fresh data dir", Some(dir.path())),
        ("restart of that data dir", Some(dir.path())),
    ] {
        let t = Instant::now();
        let h = RaftHandle::start(config(data_dir), Arc::new(RecordingFsm::default()))
            .await
            .unwrap();
        let to_return = t.elapsed();
        let mut lead = h.leadership();
        lead.wait_for(|l| *l).await.unwrap();
        println!(
            "{what}: start returned after {to_return:?}, leader after {:?}",
            t.elapsed()
        );
        // `start` waits for a single voter's election, so it is leader on return.
        assert!(h.is_leader());
        h.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn remove_server_drops_another_member_by_address_but_never_this_one() {
    let fsm = Arc::new(RecordingFsm::default());
    let h = start(config(None), &fsm).await;
    // A failed server that was added to the membership (as a learner: with no transport it
    // could never vote, and a second unreachable voter would stop commits).
    h.inner
        .raft
        .add_learner(2, BasicNode::new("10.0.0.2:4647"), false)
        .await
        .expect("add learner");
    let has = |h: &RaftHandle, id: u64| {
        h.metrics()
            .membership_config
            .membership()
            .nodes()
            .any(|(n, _)| *n == id)
    };
    assert!(has(&h, 2));
    assert!(!h.remove_server("127.0.0.1:4647").await.expect("self"));
    assert!(h.remove_server("10.0.0.2:4647").await.expect("remove"));
    assert!(!has(&h, 2));
    assert!(!h.remove_server("10.0.0.2:4647").await.expect("again"));
    assert_eq!(h.peers(), vec!["127.0.0.1:4647".to_string()]);
    // Still leader and committing.
    propose_n(&h, 0..2).await;
    h.shutdown().await.unwrap();
}
