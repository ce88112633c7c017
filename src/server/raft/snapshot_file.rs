//! The on-disk snapshot format and its crash-safe writing, under `<data_dir>/raft/snapshots/`.
//!
//! One file per snapshot, `snapshot-<key>.snap`, where `key` is the last included log index + 1
//! (0 for a snapshot of nothing), zero-padded so the newest sorts last. Layout:
//!
//! ```text
//! magic "NMDSNAP1" | meta_len u32 LE | meta (serde_json SnapshotMeta) | data_len u64 LE | data
//!   | checksum u64 LE (FNV-1a 64 of every byte before it)
//! ```
//!
//! A file is written as `<name>.tmp`, fsynced, renamed into place and the directory fsynced, so
//! a crash leaves either the old snapshot or the new one, never a torn file under the real name.
//! Reading checks lengths and the checksum and reports a corrupt file by path, never panics.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use openraft::{BasicNode, SnapshotMeta};

use super::RaftError;

pub type Meta = SnapshotMeta<u64, BasicNode>;

const MAGIC: &[u8; 8] = b"NMDSNAP1";
const PREFIX: &str = "snapshot-";
const SUFFIX: &str = ".snap";
const TMP_SUFFIX: &str = ".tmp";

/// The sort key of a snapshot: later snapshots have larger keys.
pub fn key_of(meta: &Meta) -> u64 {
    meta.last_log_id.map(|l| l.index + 1).unwrap_or(0)
}

fn file_name(key: u64) -> String {
    format!("{PREFIX}{key:020}{SUFFIX}")
}

fn parse_key(name: &str) -> Option<u64> {
    name.strip_prefix(PREFIX)?
        .strip_suffix(SUFFIX)?
        .parse()
        .ok()
}

/// FNV-1a 64: cheap, dependency-free corruption detection (not a defence against tampering).
fn checksum(bytes: &[u8]) -> u64 {
    checksum_more(0xcbf2_9ce4_8422_2325, bytes)
}

fn io_err(path: &Path, source: std::io::Error) -> RaftError {
    RaftError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn corrupt(path: &Path, reason: impl Into<String>) -> RaftError {
    RaftError::CorruptSnapshot {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// FNV-1a 64 continued over more bytes (`checksum` is this from the offset basis).
fn checksum_more(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Writes a snapshot file's bytes to `out` piece by piece, so the (possibly multi-GB) data
/// is never copied into a second buffer.
fn encode_to(out: &mut impl Write, meta: &Meta, data: &[u8]) -> std::io::Result<()> {
    let meta_json = serde_json::to_vec(meta).map_err(std::io::Error::other)?;
    // A snapshot meta is a few hundred bytes; u32 is ample and checked on read.
    let meta_len = (meta_json.len() as u32).to_le_bytes();
    let data_len = (data.len() as u64).to_le_bytes();
    let mut sum = 0xcbf2_9ce4_8422_2325;
    for piece in [MAGIC.as_slice(), &meta_len, &meta_json, &data_len, data] {
        out.write_all(piece)?;
        sum = checksum_more(sum, piece);
    }
    out.write_all(&sum.to_le_bytes())
}

/// Decodes and verifies a snapshot file's bytes, reusing the buffer for the data; `path`
/// only names the file in errors.
fn decode(path: &Path, mut bytes: Vec<u8>) -> Result<(Meta, Vec<u8>), RaftError> {
    let (meta, range) = decode_ref(path, &bytes)?;
    bytes.truncate(range.end);
    bytes.drain(..range.start);
    Ok((meta, bytes))
}

/// Checks a snapshot file's bytes; returns its meta and where its data lies.
fn decode_ref(path: &Path, bytes: &[u8]) -> Result<(Meta, std::ops::Range<usize>), RaftError> {
    let fixed = MAGIC.len() + 4 + 8 + 8;
    if bytes.len() < fixed {
        return Err(corrupt(
            path,
            format!("file too short ({} bytes)", bytes.len()),
        ));
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(corrupt(path, "not a nomad-rs raft snapshot (bad magic)"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut sum_bytes = [0u8; 8];
    sum_bytes.copy_from_slice(sum);
    if checksum(body) != u64::from_le_bytes(sum_bytes) {
        return Err(corrupt(path, "checksum mismatch"));
    }
    let mut pos = MAGIC.len();
    let mut len4 = [0u8; 4];
    len4.copy_from_slice(&body[pos..pos + 4]);
    let meta_len = u32::from_le_bytes(len4) as usize;
    pos += 4;
    if body.len() < pos + meta_len + 8 {
        return Err(corrupt(
            path,
            "metadata length runs past the end of the file",
        ));
    }
    let meta: Meta = serde_json::from_slice(&body[pos..pos + meta_len])
        .map_err(|e| corrupt(path, format!("bad metadata: {e}")))?;
    pos += meta_len;
    let mut len8 = [0u8; 8];
    len8.copy_from_slice(&body[pos..pos + 8]);
    pos += 8;
    let data_len = u64::from_le_bytes(len8);
    if (body.len() - pos) as u64 != data_len {
        return Err(corrupt(
            path,
            format!(
                "data length {data_len} does not match the file ({} bytes left)",
                body.len() - pos
            ),
        ));
    }
    Ok((meta, pos..body.len()))
}

/// Writes a snapshot atomically into `dir` and removes every older snapshot file there.
/// Returns the path written.
pub fn write(dir: &Path, meta: &Meta, data: &[u8]) -> Result<PathBuf, RaftError> {
    fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let key = key_of(meta);
    let path = dir.join(file_name(key));
    let tmp = dir.join(format!("{}{TMP_SUFFIX}", file_name(key)));
    {
        let f = fs::File::create(&tmp).map_err(|e| io_err(&tmp, e))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
        encode_to(&mut w, meta, data).map_err(|e| io_err(&tmp, e))?;
        let f = w.into_inner().map_err(|e| io_err(&tmp, e.into_error()))?;
        f.sync_all().map_err(|e| io_err(&tmp, e))?;
    }
    fs::rename(&tmp, &path).map_err(|e| io_err(&path, e))?;
    sync_dir(dir)?;
    remove_older_than(dir, key)?;
    Ok(path)
}

fn sync_dir(dir: &Path) -> Result<(), RaftError> {
    let d = fs::File::open(dir).map_err(|e| io_err(dir, e))?;
    d.sync_all().map_err(|e| io_err(dir, e))
}

/// Snapshot files in `dir` as (key, path), unordered. Leftover temp files are removed: they
/// are from a write that crashed before its rename.
fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>, RaftError> {
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir, e)),
    };
    let mut out = Vec::new();
    for item in rd {
        let item = item.map_err(|e| io_err(dir, e))?;
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(PREFIX) && name.ends_with(TMP_SUFFIX) {
            fs::remove_file(item.path()).map_err(|e| io_err(&item.path(), e))?;
        } else if let Some(key) = parse_key(name) {
            out.push((key, item.path()));
        }
    }
    Ok(out)
}

fn remove_older_than(dir: &Path, key: u64) -> Result<(), RaftError> {
    for (k, path) in list(dir)? {
        if k < key {
            fs::remove_file(&path).map_err(|e| io_err(&path, e))?;
        }
    }
    Ok(())
}

/// Reads the newest snapshot in `dir`, if any. A corrupt newest file is an error naming it.
pub fn read_newest(dir: &Path) -> Result<Option<(Meta, Vec<u8>, PathBuf)>, RaftError> {
    let Some((_, path)) = list(dir)?.into_iter().max_by_key(|(k, _)| *k) else {
        return Ok(None);
    };
    let (meta, data) = read(&path)?;
    Ok(Some((meta, data, path)))
}

/// Reads and verifies one snapshot file.
pub fn read(path: &Path) -> Result<(Meta, Vec<u8>), RaftError> {
    let bytes = fs::read(path).map_err(|e| io_err(path, e))?;
    decode(path, bytes)
}

#[cfg(test)]
mod tests {
    use openraft::{CommittedLeaderId, LogId, Membership, StoredMembership};

    use super::*;

    fn meta(index: u64) -> Meta {
        let log_id = LogId::new(CommittedLeaderId::new(1, 1), index);
        Meta {
            last_log_id: Some(log_id),
            last_membership: StoredMembership::new(Some(log_id), Membership::new(vec![], None)),
            snapshot_id: format!("s{index}"),
        }
    }

    #[test]
    fn write_then_read_newest_round_trips_and_drops_older_files() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &meta(3), b"three").unwrap();
        let p = write(dir.path(), &meta(9), b"nine").unwrap();
        let (m, data, path) = read_newest(dir.path()).unwrap().unwrap();
        assert_eq!(m, meta(9));
        assert_eq!(data, b"nine");
        assert_eq!(path, p);
        assert_eq!(list(dir.path()).unwrap().len(), 1);
    }

    #[test]
    fn every_kind_of_damage_is_reported_with_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &meta(5), b"payload").unwrap();
        let good = fs::read(&path).unwrap();
        let damaged: Vec<Vec<u8>> = vec![
            Vec::new(),
            good[..good.len() - 3].to_vec(),
            [b"XXXXXXXX".as_slice(), &good[8..]].concat(),
            {
                let mut b = good.clone();
                b[20] ^= 0xff;
                b
            },
        ];
        for bytes in damaged {
            fs::write(&path, &bytes).unwrap();
            let err = read_newest(dir.path()).unwrap_err();
            assert!(matches!(err, RaftError::CorruptSnapshot { .. }), "{err}");
            assert!(
                err.to_string().contains(&path.display().to_string()),
                "{err}"
            );
        }
    }

    #[test]
    fn leftover_temp_files_are_removed_and_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("snapshot-00000000000000000007.snap.tmp");
        fs::write(&tmp, b"half written").unwrap();
        assert!(read_newest(dir.path()).unwrap().is_none());
        assert!(!tmp.exists());
    }
}
