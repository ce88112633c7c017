//! go-getter's `checksum` option: `<type>:<hex>`, a bare `<hex>` whose length names the
//! type, or `file:<url>` naming a checksum file (BSD or GNU style) to read the sum from.
//! Files are hashed by streaming them from disk, never by holding them in memory.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// A hash algorithm go-getter accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashKind {
    Md5,
    Sha1,
    Sha256,
    Sha512,
}

impl HashKind {
    fn from_name(name: &str) -> Option<HashKind> {
        match name.to_ascii_lowercase().as_str() {
            "md5" => Some(HashKind::Md5),
            "sha1" => Some(HashKind::Sha1),
            "sha256" => Some(HashKind::Sha256),
            "sha512" => Some(HashKind::Sha512),
            _ => None,
        }
    }

    fn from_len(bytes: usize) -> Option<HashKind> {
        match bytes {
            16 => Some(HashKind::Md5),
            20 => Some(HashKind::Sha1),
            32 => Some(HashKind::Sha256),
            64 => Some(HashKind::Sha512),
            _ => None,
        }
    }

    /// The Go type go-getter's mismatch error prints (`%T` of the hash).
    fn go_type(self) -> &'static str {
        match self {
            HashKind::Md5 => "*md5.digest",
            HashKind::Sha1 => "*sha1.digest",
            HashKind::Sha256 => "*sha256.digest",
            HashKind::Sha512 => "*sha512.digest",
        }
    }
}

/// An expected checksum for one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChecksum {
    pub kind: HashKind,
    pub value: Vec<u8>,
    /// The file name a checksum-file line names ("" when the line names none).
    pub filename: String,
}

/// Why a `checksum` option could not be turned into a [`FileChecksum`]; the texts are
/// go-getter's (the caller adds its `invalid checksum: ` prefix).
#[derive(Debug, thiserror::Error)]
pub enum ChecksumSpecError {
    #[error("invalid checksum: {0}")]
    Hex(HexError),
    #[error("unsupported checksum type: {0}")]
    UnsupportedType(String),
    #[error("unknown type for checksum {0}")]
    UnknownLength(String),
    /// Fetching the `file:` URL failed.
    #[error("Error downloading checksum file: {0}")]
    Download(String),
    #[error("Error reading checksum file: {0}")]
    Read(std::io::Error),
    #[error("unexpected BSD-style-checksum filename format: {0}")]
    BsdFilename(String),
    /// No line of the checksum file is for the artifact.
    #[error("no checksum found in: {0}")]
    NotFound(String),
}

/// Go's `encoding/hex` errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HexError {
    #[error("encoding/hex: invalid byte: {}", go_rune(*.0))]
    InvalidByte(char),
    #[error("encoding/hex: odd length hex string")]
    OddLength,
}

/// Go's `%#U` of a rune: `U+0078 'x'`.
fn go_rune(c: char) -> String {
    if c.is_control() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("U+{:04X} '{c}'", c as u32)
    }
}

/// The file's checksum did not match: go-getter's `ChecksumError`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Checksums did not match for {}.\nExpected: {}\nGot: {}\n{}",
    file.display(),
    hex(expected),
    hex(actual),
    kind.go_type()
)]
pub struct ChecksumMismatch {
    pub file: PathBuf,
    pub kind: HashKind,
    pub expected: Vec<u8>,
    pub actual: Vec<u8>,
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Go's `hex.DecodeString`, with its error order (a bad byte before an odd length).
pub fn decode_hex(s: &str) -> Result<Vec<u8>, HexError> {
    let chars: Vec<char> = s.chars().collect();
    let digit = |c: char| c.to_digit(16).ok_or(HexError::InvalidByte(c));
    let mut out = Vec::with_capacity(chars.len() / 2);
    for pair in chars.chunks(2) {
        let hi = digit(pair[0])?;
        let Some(&lo) = pair.get(1) else {
            return Err(HexError::OddLength);
        };
        out.push((hi * 16 + digit(lo)?) as u8);
    }
    Ok(out)
}

/// `<type>:<hex>`.
pub fn from_type(
    kind: &str,
    value: &str,
    filename: &str,
) -> Result<FileChecksum, ChecksumSpecError> {
    let bytes = decode_hex(value).map_err(ChecksumSpecError::Hex)?;
    let kind = HashKind::from_name(kind)
        .ok_or_else(|| ChecksumSpecError::UnsupportedType(kind.to_string()))?;
    Ok(FileChecksum {
        kind,
        value: bytes,
        filename: filename.to_string(),
    })
}

/// A bare `<hex>`: the type is guessed from its length.
pub fn from_value(value: &str, filename: &str) -> Result<FileChecksum, ChecksumSpecError> {
    let bytes = decode_hex(value).map_err(ChecksumSpecError::Hex)?;
    let kind = HashKind::from_len(bytes.len())
        .ok_or_else(|| ChecksumSpecError::UnknownLength(value.to_string()))?;
    Ok(FileChecksum {
        kind,
        value: bytes,
        filename: filename.to_string(),
    })
}

/// How a `checksum` option reads, before any `file:` download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChecksumSpec {
    Inline(FileChecksum),
    /// `file:<url>`: the sum lives in a checksum file.
    File(String),
}

/// Parses the `checksum` option; `filename` is the artifact's base name.
pub fn parse_spec(spec: &str, filename: &str) -> Result<ChecksumSpec, ChecksumSpecError> {
    match spec.split_once(':') {
        Some(("file", url)) => Ok(ChecksumSpec::File(url.to_string())),
        Some((kind, value)) => from_type(kind, value, filename).map(ChecksumSpec::Inline),
        None => from_value(spec, filename).map(ChecksumSpec::Inline),
    }
}

/// One line of a checksum file: BSD (`SHA256 (file) = <hex>`), GNU (`<hex>  file`,
/// `<hex> *file`) or a bare sum. `Ok(None)` for a blank line.
pub fn parse_line(line: &str) -> Result<Option<FileChecksum>, ChecksumSpecError> {
    let parts: Vec<&str> = line.split_whitespace().collect();
    match parts.as_slice() {
        [] => Ok(None),
        [kind, name, _, value] => {
            let Some(name) = name
                .strip_prefix('(')
                .and_then(|n| n.strip_suffix(')'))
                .filter(|n| !n.is_empty())
            else {
                return Err(ChecksumSpecError::BsdFilename(line.to_string()));
            };
            from_type(kind, value, name).map(Some)
        }
        [value, name] => from_value(value, name).map(Some),
        [value, ..] => from_value(value, "").map(Some),
    }
}

/// Finds the artifact's sum in a checksum file's text. `artifact_path` is the path part of
/// the artifact's URL (or its local path), `checksum_path` that of the checksum file's:
/// a line may name the artifact by base name (optionally `*`/`?`-prefixed), by its path
/// relative to the checksum file's directory (optionally `./`-prefixed) or absolutely.
/// The first usable line that names no file at all also counts, as in go-getter.
pub fn find_in_file(
    text: &str,
    artifact_path: &str,
    checksum_path: &str,
    checksum_url: &str,
) -> Result<FileChecksum, ChecksumSpecError> {
    let abs = clean(Path::new("/").join(artifact_path).as_path());
    let filename = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let checksum_dir = clean(
        Path::new("/")
            .join(checksum_path)
            .parent()
            .unwrap_or(Path::new("/")),
    );
    let rel = relative(&checksum_dir, &abs).display().to_string();
    let candidates = [
        filename.clone(),
        format!("*{filename}"),
        format!("?{filename}"),
        rel.clone(),
        format!("./{rel}"),
        abs.display().to_string(),
    ];
    for line in text.lines() {
        let Ok(Some(sum)) = parse_line(line) else {
            continue;
        };
        if sum.filename.is_empty() || candidates.contains(&sum.filename) {
            return Ok(sum);
        }
    }
    Err(ChecksumSpecError::NotFound(checksum_url.to_string()))
}

/// Go's `filepath.Clean` for absolute paths: `.` and `..` resolved lexically.
fn clean(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// Go's `filepath.Rel` between two clean absolute paths.
fn relative(base: &Path, target: &Path) -> PathBuf {
    let b: Vec<_> = base.components().collect();
    let t: Vec<_> = target.components().collect();
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// Hashes `file` from disk in chunks.
pub fn hash_file(kind: HashKind, file: &Path) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(file)?;
    let mut buf = vec![0u8; 64 * 1024];
    macro_rules! pump {
        ($update:expr) => {
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                $update(&buf[..n]);
            }
        };
    }
    Ok(match kind {
        HashKind::Md5 => {
            use md5::Digest as _;
            let mut h = md5::Md5::new();
            pump!(|b: &[u8]| h.update(b));
            h.finalize().to_vec()
        }
        HashKind::Sha1 | HashKind::Sha256 | HashKind::Sha512 => {
            let alg = match kind {
                HashKind::Sha1 => &aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY,
                HashKind::Sha256 => &aws_lc_rs::digest::SHA256,
                _ => &aws_lc_rs::digest::SHA512,
            };
            let mut ctx = aws_lc_rs::digest::Context::new(alg);
            pump!(|b: &[u8]| ctx.update(b));
            ctx.finish().as_ref().to_vec()
        }
    })
}

impl FileChecksum {
    /// Hashes `file` and compares; a file that cannot be read is an I/O error.
    pub fn verify(&self, file: &Path) -> Result<Result<(), ChecksumMismatch>, std::io::Error> {
        let actual = hash_file(self.kind, file)?;
        if actual == self.value {
            return Ok(Ok(()));
        }
        Ok(Err(ChecksumMismatch {
            file: file.to_path_buf(),
            kind: self.kind,
            expected: self.value.clone(),
            actual,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_of_each_form() {
        let sum = |s: &str| match parse_spec(s, "a.txt").unwrap() {
            ChecksumSpec::Inline(c) => c,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            sum("md5:b1946ac92492d2347c6235b4d2611184").kind,
            HashKind::Md5
        );
        assert_eq!(
            sum("SHA1:f572d396fae9206628714fb2ce00f72e94f2258f").kind,
            HashKind::Sha1
        );
        // a bare sum's length names its type
        assert_eq!(sum(&"ab".repeat(32)).kind, HashKind::Sha256);
        assert_eq!(sum(&"ab".repeat(64)).kind, HashKind::Sha512);
        assert_eq!(
            parse_spec("file:https://h/SHA256SUMS", "a").unwrap(),
            ChecksumSpec::File("https://h/SHA256SUMS".into())
        );
        for (spec, err) in [
            ("crc32:00", "unsupported checksum type: crc32"),
            (
                "md5:xy",
                "invalid checksum: encoding/hex: invalid byte: U+0078 'x'",
            ),
            (
                "md5:abc",
                "invalid checksum: encoding/hex: odd length hex string",
            ),
            ("abcd", "unknown type for checksum abcd"),
        ] {
            assert_eq!(
                parse_spec(spec, "a").unwrap_err().to_string(),
                err,
                "{spec}"
            );
        }
    }

    #[test]
    fn checksum_file_lines_match_the_artifact_by_name_or_path() {
        let sha = "ab".repeat(32);
        let other = "cd".repeat(32);
        let gnu = format!("{other}  other.tgz\n{sha} *app.tgz\n");
        let found = find_in_file(&gnu, "/rel/v1/app.tgz", "/rel/v1/SUMS", "u").unwrap();
        assert_eq!(hex(&found.value), sha);
        let bsd = format!("SHA256 (other.tgz) = {other}\nSHA256 (v1/app.tgz) = {sha}\n");
        let found = find_in_file(&bsd, "/rel/v1/app.tgz", "/rel/SUMS", "u").unwrap();
        assert_eq!(
            (found.kind, hex(&found.value)),
            (HashKind::Sha256, sha.clone())
        );
        let dotted = format!("{sha}  ./v1/app.tgz\n");
        assert!(find_in_file(&dotted, "/rel/v1/app.tgz", "/rel/SUMS", "u").is_ok());
        // a line naming no file counts for any artifact
        let bare = format!("\n{sha}\n");
        assert!(find_in_file(&bare, "/x/app.tgz", "/SUMS", "u").is_ok());
        assert_eq!(
            find_in_file(
                &format!("{other}  other.tgz\n"),
                "/app.tgz",
                "/SUMS",
                "http://h/SUMS"
            )
            .unwrap_err()
            .to_string(),
            "no checksum found in: http://h/SUMS"
        );
    }

    #[test]
    fn a_mismatch_prints_like_go_getter() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hello");
        std::fs::write(&f, "hello\n").unwrap();
        let good = from_type("md5", "b1946ac92492d2347c6235b4d2611184", "").unwrap();
        assert!(good.verify(&f).unwrap().is_ok());
        let bad = from_type("md5", "0123", "").unwrap();
        let err = bad.verify(&f).unwrap().unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "Checksums did not match for {}.\nExpected: 0123\nGot: b1946ac92492d2347c6235b4d2611184\n*md5.digest",
                f.display()
            )
        );
        for (kind, want) in [
            (HashKind::Sha1, "f572d396fae9206628714fb2ce00f72e94f2258f"),
            (
                HashKind::Sha256,
                "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
            ),
        ] {
            assert_eq!(hex(&hash_file(kind, &f).unwrap()), want);
        }
    }
}
