//! go-getter's decompressors as Nomad configures them: which file extensions are archives,
//! and how each unpacks a downloaded file into a directory (`dir`) or into one file.
//!
//! Everything streams from the downloaded file to the destination. The quirks are
//! go-getter's and kept on purpose, since jobs written for Nomad rely on them: a single-file
//! compression (`.gz`, `.bz2`, `.xz`, `.zst`) unpacks only in `mode = "file"`, and its output
//! is created with mode 0622; tar entries that are not regular files or directories become
//! empty regular files (links are never followed or created); setuid/setgid bits are
//! dropped (Nomad's umask).

use std::fs::{File, FileTimes};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Nomad's umask for go-getter: strip setuid and setgid.
const UMASK: u32 = 0o6000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Archive {
    Bz2,
    Gz,
    Xz,
    Zst,
    Tar,
    TarBz2,
    TarGz,
    TarXz,
    TarZst,
    Zip,
}

/// go-getter's decompressor table: the `archive` option's values and the extensions
/// recognised at the end of a source's path.
const KEYS: &[(&str, Archive)] = &[
    ("bz2", Archive::Bz2),
    ("gz", Archive::Gz),
    ("xz", Archive::Xz),
    ("tar", Archive::Tar),
    ("tar.bz2", Archive::TarBz2),
    ("tar.gz", Archive::TarGz),
    ("tar.xz", Archive::TarXz),
    ("tar.zst", Archive::TarZst),
    ("tbz2", Archive::TarBz2),
    ("tgz", Archive::TarGz),
    ("txz", Archive::TarXz),
    ("tzst", Archive::TarZst),
    ("zip", Archive::Zip),
    ("zst", Archive::Zst),
];

/// The decompressor an `archive = "<key>"` option names.
pub fn by_key(key: &str) -> Option<Archive> {
    KEYS.iter().find(|(k, _)| *k == key).map(|(_, a)| *a)
}

/// The decompressor for the longest known extension `path` ends with (case-sensitive,
/// as go-getter matches).
pub fn detect(path: &str) -> Option<Archive> {
    KEYS.iter()
        .filter(|(k, _)| path.strip_suffix(k).is_some_and(|rest| rest.ends_with('.')))
        .max_by_key(|(k, _)| k.len())
        .map(|(_, a)| *a)
}

/// Why unpacking failed; the texts are go-getter's.
#[derive(Debug, thiserror::Error)]
pub enum UnpackError {
    #[error("{0}-compressed files can only unarchive to a single file")]
    SingleFileOnly(&'static str),
    #[error("empty archive: {}", .0.display())]
    Empty(PathBuf),
    #[error("expected a single file: {}", .0.display())]
    ExpectedSingle(PathBuf),
    #[error("expected a single file, got multiple: {}", .0.display())]
    GotMultiple(PathBuf),
    #[error("entry contains '..': {0}")]
    DotDot(String),
    #[error("Error opening a {kind} reader for {}: {source}", src.display())]
    OpenReader {
        kind: &'static str,
        src: PathBuf,
        source: io::Error,
    },
    #[error("{0}")]
    Zip(#[from] zip::result::ZipError),
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Unpacks the downloaded `src` into `dst`: a directory when `dir`, else one file.
pub fn decompress(kind: Archive, dst: &Path, src: &Path, dir: bool) -> Result<(), UnpackError> {
    let single = |name: &'static str| {
        if dir {
            return Err(UnpackError::SingleFileOnly(name));
        }
        if let Some(parent) = dst.parent() {
            mkdir_all(parent, 0o755)?;
        }
        Ok(BufReader::new(File::open(src)?))
    };
    match kind {
        Archive::Gz => copy_to(
            dst,
            flate2::bufread::MultiGzDecoder::new(single("gzip")?),
            0o622,
        ),
        Archive::Bz2 => copy_to(
            dst,
            bzip2::bufread::MultiBzDecoder::new(single("bzip2")?),
            0o622,
        ),
        Archive::Xz => copy_to(dst, lzma_rust2::XzReader::new(single("xz")?, true), 0o622),
        Archive::Zst => {
            let frames = ZstdFrames::new(single("zstd")?).map_err(UnpackError::Io)?;
            copy_to(dst, frames, 0o622)
        }
        Archive::Tar => untar(open_for_tar(dst, src, dir)?, dst, src, dir),
        Archive::TarGz => {
            let f = open_for_tar(dst, src, dir)?;
            untar(flate2::bufread::MultiGzDecoder::new(f), dst, src, dir)
        }
        Archive::TarBz2 => {
            let f = open_for_tar(dst, src, dir)?;
            untar(bzip2::bufread::MultiBzDecoder::new(f), dst, src, dir)
        }
        Archive::TarXz => {
            let f = open_for_tar(dst, src, dir)?;
            untar(lzma_rust2::XzReader::new(f, true), dst, src, dir)
        }
        Archive::TarZst => {
            let f = open_for_tar(dst, src, dir)?;
            let frames = ZstdFrames::new(f).map_err(|source| UnpackError::OpenReader {
                kind: "zstd",
                src: src.to_path_buf(),
                source,
            })?;
            untar(frames, dst, src, dir)
        }
        Archive::Zip => unzip(dst, src, dir),
    }
}

fn open_for_tar(dst: &Path, src: &Path, dir: bool) -> Result<BufReader<File>, UnpackError> {
    let make = if dir { Some(dst) } else { dst.parent() };
    if let Some(d) = make {
        mkdir_all(d, 0o755)?;
    }
    Ok(BufReader::with_capacity(64 * 1024, File::open(src)?))
}

fn mkdir_all(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(mode & !UMASK)
        .create(path)
}

/// go-getter's `copyReader`: create or truncate `dst`, copy, then chmod to `mode`
/// (a partial file is removed).
fn copy_to(dst: &Path, mut src: impl Read, mode: u32) -> Result<(), UnpackError> {
    use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
    let mode = mode & 0o7777 & !UMASK;
    let mut out = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(dst)?;
    if let Err(e) = io::copy(&mut src, &mut out) {
        drop(out);
        let _ = std::fs::remove_file(dst);
        return Err(e.into());
    }
    std::fs::set_permissions(dst, std::fs::Permissions::from_mode(mode))?;
    Ok(())
}

/// go-getter's `containsDotDot`: a `..` path element, split on either slash.
fn contains_dot_dot(name: &str) -> bool {
    name.split(['/', '\\']).any(|part| part == "..")
}

fn set_times(path: &Path, mtime: Option<SystemTime>) -> io::Result<()> {
    let t = mtime.unwrap_or_else(SystemTime::now);
    File::open(path)?.set_times(FileTimes::new().set_accessed(t).set_modified(t))
}

fn header_mtime(h: &tar::Header) -> Option<SystemTime> {
    h.mtime()
        .ok()
        .filter(|m| *m > 0)
        .map(|m| UNIX_EPOCH + Duration::from_secs(m))
}

/// go-getter's `untar` over an uncompressed view of the archive.
fn untar(input: impl Read, dst: &Path, src: &Path, dir: bool) -> Result<(), UnpackError> {
    let mut archive = tar::Archive::new(input);
    let mut done = false;
    let mut dirs: Vec<(PathBuf, u32, Option<SystemTime>)> = Vec::new();
    for entry in archive.entries()? {
        let mut entry = entry?;
        let kind = entry.header().entry_type();
        if matches!(
            kind,
            tar::EntryType::XGlobalHeader | tar::EntryType::XHeader
        ) {
            continue;
        }
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let mut path = dst.to_path_buf();
        if dir {
            if contains_dot_dot(&name) {
                return Err(UnpackError::DotDot(name));
            }
            path = dst.join(name.trim_start_matches('/'));
        }
        let mode = entry.header().mode().unwrap_or(0o644);
        let mtime = header_mtime(entry.header());
        if kind.is_dir() {
            if !dir {
                return Err(UnpackError::ExpectedSingle(src.to_path_buf()));
            }
            mkdir_all(&path, 0o755)?;
            dirs.push((path, mode, mtime));
            continue;
        }
        if let Some(parent) = path.parent() {
            if !parent.exists() {
                mkdir_all(parent, 0o755)?;
            }
        }
        if !dir && done {
            return Err(UnpackError::GotMultiple(src.to_path_buf()));
        }
        done = true;
        if kind.is_file() || kind == tar::EntryType::Continuous {
            copy_to(&path, &mut entry, mode)?;
        } else {
            // Links and devices: go-getter writes the (empty) entry body as a plain file.
            copy_to(&path, io::empty(), mode)?;
        }
        set_times(&path, mtime)?;
    }
    if !done {
        return Err(UnpackError::Empty(src.to_path_buf()));
    }
    for (path, mode, mtime) in dirs {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            &path,
            std::fs::Permissions::from_mode(mode & 0o7777 & !UMASK),
        )?;
        set_times(&path, mtime)?;
    }
    Ok(())
}

/// go-getter's zip decompressor (zip needs random access, so it reads the file directly).
fn unzip(dst: &Path, src: &Path, dir: bool) -> Result<(), UnpackError> {
    let make = if dir { Some(dst) } else { dst.parent() };
    if let Some(d) = make {
        mkdir_all(d, 0o755)?;
    }
    let mut z = zip::ZipArchive::new(BufReader::new(File::open(src)?))?;
    if z.is_empty() {
        return Err(UnpackError::Empty(src.to_path_buf()));
    }
    if !dir && z.len() > 1 {
        return Err(UnpackError::ExpectedSingle(src.to_path_buf()));
    }
    for i in 0..z.len() {
        let mut f = z.by_index(i)?;
        let name = f.name().to_string();
        let mut path = dst.to_path_buf();
        if dir {
            if contains_dot_dot(&name) {
                return Err(UnpackError::DotDot(name));
            }
            path = dst.join(name.trim_start_matches('/'));
        }
        if f.is_dir() {
            if !dir {
                return Err(UnpackError::ExpectedSingle(src.to_path_buf()));
            }
            mkdir_all(&path, 0o755)?;
            continue;
        }
        if dir {
            if let Some(parent) = path.parent() {
                mkdir_all(parent, 0o755)?;
            }
        }
        let mode = f.unix_mode().unwrap_or(0o666);
        copy_to(&path, &mut f, mode)?;
    }
    Ok(())
}

/// Every frame of a zstd stream in turn (skippable frames skipped), as klauspost's
/// decoder reads it; ruzstd's `StreamingDecoder` stops after one frame.
struct ZstdFrames<R: BufRead> {
    input: R,
    decoder: ruzstd::decoding::FrameDecoder,
    /// A frame's header has been read and its content is not yet drained.
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(input: R) -> io::Result<Self> {
        let mut frames = ZstdFrames {
            input,
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
        };
        frames.start_frame()?;
        Ok(frames)
    }

    /// Reads the next data frame's header; at the end of the input there is none.
    fn start_frame(&mut self) -> io::Result<()> {
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        self.in_frame = false;
        while !self.input.fill_buf()?.is_empty() {
            match self.decoder.reset(&mut self.input) {
                Ok(()) => {
                    self.in_frame = true;
                    return Ok(());
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    io::copy(
                        &mut (&mut self.input).take(u64::from(length)),
                        &mut io::sink(),
                    )?;
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        }
        Ok(())
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        while self.in_frame {
            while self.decoder.can_collect() == 0 && !self.decoder.is_finished() {
                self.decoder
                    .decode_blocks(&mut self.input, BlockDecodingStrategy::UptoBlocks(1))
                    .map_err(io::Error::other)?;
            }
            let n = self.decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            self.start_frame()?;
        }
        Ok(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_the_longest_known_suffix() {
        for (name, want) in [
            ("a/b.tar.gz", Some(Archive::TarGz)),
            ("b.tgz", Some(Archive::TarGz)),
            ("b.gz", Some(Archive::Gz)),
            ("b.tar.bz2", Some(Archive::TarBz2)),
            ("b.tbz2", Some(Archive::TarBz2)),
            ("b.bz2", Some(Archive::Bz2)),
            ("b.tar.xz", Some(Archive::TarXz)),
            ("b.txz", Some(Archive::TarXz)),
            ("b.xz", Some(Archive::Xz)),
            ("b.tar.zst", Some(Archive::TarZst)),
            ("b.tzst", Some(Archive::TarZst)),
            ("b.zst", Some(Archive::Zst)),
            ("b.zip", Some(Archive::Zip)),
            ("b.tar", Some(Archive::Tar)),
            ("b.TGZ", None),
            ("bgz", None),
            ("b.bin", None),
        ] {
            assert_eq!(detect(name), want, "{name}");
        }
        assert_eq!(by_key("tar.xz"), Some(Archive::TarXz));
        assert_eq!(by_key("true"), None);
    }

    #[test]
    fn dot_dot_elements_are_found_on_either_slash() {
        assert!(contains_dot_dot("../x"));
        assert!(contains_dot_dot("a\\..\\x"));
        assert!(!contains_dot_dot("a/..b/x"));
    }
}
