//! The artifact getter against a local HTTP server started per test: every archive format,
//! every checksum form, go-getter's modes, and a 50 MB download that must stream.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use super::*;

/// What the test server answers for a path.
#[derive(Clone)]
enum Body {
    Bytes(Vec<u8>),
    /// `len` bytes of a repeating pattern, generated while sending (never held whole).
    Generated(usize),
}

fn pattern_chunk() -> Vec<u8> {
    (0..64 * 1024).map(|i| (i % 251) as u8).collect()
}

/// An HTTP/1.1 server on 127.0.0.1 serving `routes` (404 elsewhere) until the test process
/// ends; records each request line. Returns the base URL.
fn serve(routes: Vec<(&str, Body)>) -> (String, Arc<Mutex<Vec<String>>>) {
    let routes: BTreeMap<String, Body> = routes
        .into_iter()
        .map(|(p, b)| (p.to_string(), b))
        .collect();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().expect("clone"));
            let mut request = String::new();
            let _ = reader.read_line(&mut request);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok() && line != "\r\n" && !line.is_empty() {
                line.clear();
            }
            log.lock().unwrap().push(request.trim().to_string());
            let target = request.split(' ').nth(1).unwrap_or("/");
            let path = target.split('?').next().unwrap_or(target);
            let Some(body) = routes.get(path) else {
                let _ = s.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
                continue;
            };
            let len = match body {
                Body::Bytes(b) => b.len(),
                Body::Generated(n) => *n,
            };
            let head =
                format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n");
            if s.write_all(head.as_bytes()).is_err() {
                continue;
            }
            match body {
                Body::Bytes(b) => {
                    let _ = s.write_all(b);
                }
                Body::Generated(n) => {
                    let chunk = pattern_chunk();
                    let mut left = *n;
                    while left > 0 {
                        let k = left.min(chunk.len());
                        if s.write_all(&chunk[..k]).is_err() {
                            break;
                        }
                        left -= k;
                    }
                }
            }
        }
    });
    (format!("http://{addr}"), seen)
}

fn tar_bytes(files: &[(&str, &str)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, body) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o755);
        h.set_mtime(1_600_000_000);
        h.set_cksum();
        b.append_data(&mut h, name, body.as_bytes()).unwrap();
    }
    b.into_inner().unwrap()
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn bz2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut w =
        lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

fn zst(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

fn artifact(source: &str) -> TaskArtifact {
    TaskArtifact {
        getter_source: Some(source.to_string()),
        ..Default::default()
    }
}

fn with_options(mut a: TaskArtifact, opts: &[(&str, &str)]) -> TaskArtifact {
    a.getter_options = Some(
        opts.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    a
}

/// A task dir and the shared alloc dir beside it, laid out as the client builds them.
pub(super) struct TestDirs {
    _root: tempfile::TempDir,
    pub(super) dirs: Dirs,
}

impl TestDirs {
    /// The task dir.
    pub(super) fn path(&self) -> &Path {
        &self.dirs.task_dir
    }
}

pub(super) fn task_dir() -> TestDirs {
    let root = tempfile::tempdir().unwrap();
    let dirs = Dirs {
        task_dir: root.path().join("web"),
        shared_alloc_dir: root.path().join("alloc"),
    };
    for sub in ["local", "secrets", "tmp"] {
        std::fs::create_dir_all(dirs.task_dir.join(sub)).unwrap();
    }
    std::fs::create_dir_all(dirs.shared_alloc_dir.join("data")).unwrap();
    TestDirs { _root: root, dirs }
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn sha256(data: &[u8]) -> String {
    checksum::hex(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, data).as_ref())
}

#[tokio::test]
async fn every_tar_flavour_unpacks_into_the_destination() {
    let tarball = tar_bytes(&[("bin/run.sh", "run\n"), ("etc/app.conf", "x=1\n")]);
    let routes = vec![
        ("/a.tar", Body::Bytes(tarball.clone())),
        ("/a.tar.gz", Body::Bytes(gz(&tarball))),
        ("/a.tgz", Body::Bytes(gz(&tarball))),
        ("/a.tar.bz2", Body::Bytes(bz2(&tarball))),
        ("/a.tbz2", Body::Bytes(bz2(&tarball))),
        ("/a.tar.xz", Body::Bytes(xz(&tarball))),
        ("/a.txz", Body::Bytes(xz(&tarball))),
        ("/a.tar.zst", Body::Bytes(zst(&tarball))),
        ("/a.tzst", Body::Bytes(zst(&tarball))),
    ];
    let names: Vec<&str> = routes.iter().map(|(p, _)| &p[1..]).collect();
    let (url, _) = serve(routes.clone());
    let task = task_dir();
    for name in names {
        let mut a = artifact(&format!("{url}/{name}"));
        a.relative_dest = Some(format!("local/{name}.d"));
        get(&task.dirs, &a)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let dir = task.path().join("local").join(format!("{name}.d"));
        assert_eq!(read(dir.join("bin/run.sh")), "run\n", "{name}");
        assert_eq!(read(dir.join("etc/app.conf")), "x=1\n", "{name}");
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.join("bin/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755, "{name}");
    }
    // the scratch download is gone
    assert_eq!(
        std::fs::read_dir(task.path().join("tmp")).unwrap().count(),
        0
    );
}

#[tokio::test]
async fn single_file_compressions_unpack_in_file_mode_only() {
    let body = b"compressed hello\n";
    let (url, _) = serve(vec![
        ("/c.txt.gz", Body::Bytes(gz(body))),
        ("/c.txt.bz2", Body::Bytes(bz2(body))),
        ("/c.txt.xz", Body::Bytes(xz(body))),
        ("/c.txt.zst", Body::Bytes(zst(body))),
        // two zstd frames back to back, as `cat a.zst b.zst` makes
        (
            "/two.zst",
            Body::Bytes([zst(b"one\n"), zst(b"two\n")].concat()),
        ),
    ]);
    let task = task_dir();
    for (ext, kind) in [
        ("gz", "gzip"),
        ("bz2", "bzip2"),
        ("xz", "xz"),
        ("zst", "zstd"),
    ] {
        let mut a = artifact(&format!("{url}/c.txt.{ext}"));
        a.getter_mode = Some("file".into());
        a.relative_dest = Some(format!("local/c-{ext}.txt"));
        get(&task.dirs, &a)
            .await
            .unwrap_or_else(|e| panic!("{ext}: {e}"));
        let out = task.path().join(format!("local/c-{ext}.txt"));
        assert_eq!(read(out.clone()), "compressed hello\n", "{ext}");
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o622, "go-getter's mode for {ext}");
        // the default mode ("any") unpacks into a directory, which these cannot
        let err = get(&task.dirs, &artifact(&format!("{url}/c.txt.{ext}")))
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!("getter subprocess failed: exit status 1: failed to download artifact: {kind}-compressed files can only unarchive to a single file")
        );
    }
    let mut a = artifact(&format!("{url}/two.zst"));
    a.getter_mode = Some("file".into());
    a.relative_dest = Some("local/two".into());
    get(&task.dirs, &a).await.unwrap();
    assert_eq!(read(task.path().join("local/two")), "one\ntwo\n");
}

#[tokio::test]
async fn archive_option_turns_unpacking_off_or_names_the_format() {
    let tarball = tar_bytes(&[("f.txt", "f\n")]);
    let (url, _) = serve(vec![
        ("/keep.tar.xz", Body::Bytes(xz(&tarball))),
        ("/download", Body::Bytes(bz2(&tarball))),
    ]);
    let task = task_dir();
    let keep = with_options(
        artifact(&format!("{url}/keep.tar.xz")),
        &[("archive", "false")],
    );
    get(&task.dirs, &keep).await.unwrap();
    assert!(task.path().join("local/keep.tar.xz").is_file());
    let named = with_options(
        artifact(&format!("{url}/download")),
        &[("archive", "tar.bz2")],
    );
    get(&task.dirs, &named).await.unwrap();
    assert_eq!(read(task.path().join("local/f.txt")), "f\n");
}

#[tokio::test]
async fn checksums_in_every_form_are_verified() {
    let body = b"checked artifact\n".to_vec();
    let sum = sha256(&body);
    let other = "00".repeat(32);
    let tgz = gz(&tar_bytes(&[("inner.txt", "inner\n")]));
    let tgz_sum = sha256(&tgz);
    let (url, _) = serve(vec![
        ("/rel/v1/app.txt", Body::Bytes(body.clone())),
        ("/rel/v1/bundle.tgz", Body::Bytes(tgz)),
        (
            "/rel/v1/SHA256SUMS",
            Body::Bytes(
                format!("{other}  other.txt\n{sum}  app.txt\n{tgz_sum} *bundle.tgz\n").into(),
            ),
        ),
        (
            "/rel/SUMS.bsd",
            Body::Bytes(
                format!("SHA256 (v1/other.txt) = {other}\nSHA256 (v1/app.txt) = {sum}\n").into(),
            ),
        ),
        (
            "/rel/v1/WRONG",
            Body::Bytes(format!("{other}  app.txt\n").into()),
        ),
    ]);
    let app = format!("{url}/rel/v1/app.txt");
    let md5 = {
        use md5::Digest as _;
        checksum::hex(&md5::Md5::digest(&body))
    };
    for spec in [
        format!("sha256:{sum}"),
        format!("SHA256:{sum}"),
        format!("md5:{md5}"),
        sum.clone(),
        format!("file:{url}/rel/v1/SHA256SUMS"),
        format!("file:{url}/rel/SUMS.bsd"),
    ] {
        let task = task_dir();
        let a = with_options(artifact(&app), &[("checksum", &spec)]);
        get(&task.dirs, &a)
            .await
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_eq!(
            read(task.path().join("local/app.txt")),
            "checked artifact\n",
            "{spec}"
        );
    }
    // an archive is checked before it is unpacked
    let task = task_dir();
    let a = with_options(
        artifact(&format!("{url}/rel/v1/bundle.tgz")),
        &[("checksum", &format!("file:{url}/rel/v1/SHA256SUMS"))],
    );
    get(&task.dirs, &a).await.unwrap();
    assert_eq!(read(task.path().join("local/inner.txt")), "inner\n");

    // failures, in go-getter's words behind Nomad's wrapper
    let prefix = "getter subprocess failed: exit status 1: failed to download artifact: ";
    let task = task_dir();
    let wrong = with_options(artifact(&app), &[("checksum", &format!("sha256:{other}"))]);
    let err = get(&task.dirs, &wrong).await.unwrap_err().to_string();
    let dest = task.path().join("local/app.txt");
    assert_eq!(
        err,
        format!("{prefix}Checksums did not match for {}.\nExpected: {other}\nGot: {sum}\n*sha256.digest", dest.display())
    );
    assert!(
        !dest.exists(),
        "a file that failed its checksum is not left behind"
    );
    // the BSD file names v1/app.txt relative to /rel: /other/app.txt is not in it
    let elsewhere = format!("{url}/other/app.txt");
    for (source, spec, want) in [
        (
            &app,
            format!("file:{url}/rel/v1/WRONG"),
            format!("Checksums did not match for {}", dest.display()),
        ),
        (
            &app,
            format!("file:{url}/rel/v1/MISSING"),
            "invalid checksum: Error downloading checksum file: bad response code: 404".to_string(),
        ),
        (
            &elsewhere,
            format!("file:{url}/rel/SUMS.bsd"),
            format!("invalid checksum: no checksum found in: {url}/rel/SUMS.bsd"),
        ),
        (
            &app,
            "sha256:zz".to_string(),
            "invalid checksum: invalid checksum: encoding/hex: invalid byte: U+007A 'z'"
                .to_string(),
        ),
        (
            &app,
            "crc32:00".to_string(),
            "invalid checksum: unsupported checksum type: crc32".to_string(),
        ),
    ] {
        let a = with_options(artifact(source), &[("checksum", &spec)]);
        let err = get(&task.dirs, &a).await.unwrap_err().to_string();
        assert!(err.starts_with(&format!("{prefix}{want}")), "{spec}: {err}");
    }
}

#[tokio::test]
async fn a_present_file_with_the_right_checksum_is_not_fetched_again() {
    let body = b"same\n".to_vec();
    let (url, seen) = serve(vec![("/same.txt", Body::Bytes(body.clone()))]);
    let task = task_dir();
    let a = with_options(
        artifact(&format!("{url}/same.txt")),
        &[("checksum", &format!("sha256:{}", sha256(&body)))],
    );
    get(&task.dirs, &a).await.unwrap();
    get(&task.dirs, &a).await.unwrap();
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn other_options_travel_in_the_query_and_filename_renames() {
    let (url, seen) = serve(vec![("/dl", Body::Bytes(b"renamed\n".to_vec()))]);
    let task = task_dir();
    let a = with_options(
        artifact(&format!("{url}/dl?z=9")),
        &[
            ("filename", "app.bin"),
            ("token", "a b"),
            ("archive", "false"),
        ],
    );
    get(&task.dirs, &a).await.unwrap();
    assert_eq!(read(task.path().join("local/app.bin")), "renamed\n");
    assert_eq!(seen.lock().unwrap()[0], "GET /dl?token=a+b&z=9 HTTP/1.1");
    let bad = with_options(artifact(&format!("{url}/dl")), &[("filename", "../x")]);
    assert!(get(&task.dirs, &bad)
        .await
        .unwrap_err()
        .to_string()
        .ends_with("filename query parameter contain path traversal"));
    let missing = get(&task.dirs, &artifact(&format!("{url}/nope")))
        .await
        .unwrap_err();
    assert!(
        missing.to_string().ends_with("bad response code: 404"),
        "{missing}"
    );
}

#[tokio::test]
async fn local_sources_absolute_file_url_and_relative_to_the_task_dir() {
    let src = tempfile::tempdir().unwrap();
    let task = task_dir();
    std::fs::write(src.path().join("conf.txt"), "x=1\n").unwrap();
    get(
        &task.dirs,
        &artifact(&src.path().join("conf.txt").display().to_string()),
    )
    .await
    .unwrap();
    assert_eq!(read(task.path().join("local/conf.txt")), "x=1\n");
    // a zip, by file:// URL, into a destination
    let zpath = src.path().join("z.zip");
    {
        let f = std::fs::File::create(&zpath).unwrap();
        let mut w = zip::ZipWriter::new(f);
        w.start_file("docs/readme.md", zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(b"# hi\n").unwrap();
        w.finish().unwrap();
    }
    let mut z = artifact(&format!("file://{}", zpath.display()));
    z.relative_dest = Some("local/z".into());
    get(&task.dirs, &z).await.unwrap();
    assert_eq!(read(task.path().join("local/z/docs/readme.md")), "# hi\n");
    // a relative path names a file in the task dir (here: one an earlier artifact fetched)
    std::fs::write(
        task.path().join("local/data.tar.bz2"),
        bz2(&tar_bytes(&[("d", "d\n")])),
    )
    .unwrap();
    let mut rel = artifact("local/data.tar.bz2");
    rel.relative_dest = Some("local/unpacked".into());
    get(&task.dirs, &rel).await.unwrap();
    assert_eq!(read(task.path().join("local/unpacked/d")), "d\n");
    // a directory is copied in mode any
    std::fs::create_dir_all(src.path().join("tree/sub")).unwrap();
    std::fs::write(src.path().join("tree/sub/f"), "f\n").unwrap();
    let mut tree = artifact(&src.path().join("tree").display().to_string());
    tree.relative_dest = Some("local/tree".into());
    get(&task.dirs, &tree).await.unwrap();
    assert_eq!(read(task.path().join("local/tree/sub/f")), "f\n");
}

#[tokio::test]
async fn unsupported_getters_and_bad_destinations_are_named() {
    let task = task_dir();
    for (source, scheme) in [
        ("git::https://example.com/repo", "git"),
        ("git@github.com:hashicorp/nomad.git", "git"),
        ("github.com/hashicorp/nomad", "git"),
        ("s3://bucket/key", "s3"),
        ("bucket.s3.amazonaws.com/key", "s3"),
    ] {
        let err = get(&task.dirs, &artifact(source)).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("getter subprocess failed: exit status 1: failed to download artifact: download not supported for scheme '{scheme}'"),
            "{source}"
        );
    }
    let mut a = artifact("/etc/hostname");
    a.relative_dest = Some("../x".into());
    let err = get(&task.dirs, &a).await.unwrap_err();
    assert!(matches!(err, ArtifactError::DestinationEscapes), "{err}");
    assert_eq!(
        err.to_string(),
        "artifact destination path escapes alloc directory"
    );
}

#[tokio::test]
async fn archives_with_dot_dot_entries_or_nothing_in_them_fail() {
    let mut raw = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(2);
    h.set_mode(0o644);
    // the tar crate refuses to write `..` through set_path; write the name bytes directly
    h.as_old_mut().name[..9].copy_from_slice(b"../escape");
    h.set_cksum();
    raw.append(&h, &b"x\n"[..]).unwrap();
    let evil = raw.into_inner().unwrap();
    let mut empty = tar::Builder::new(Vec::new());
    let mut dh = tar::Header::new_gnu();
    dh.set_entry_type(tar::EntryType::Directory);
    dh.set_size(0);
    dh.set_mode(0o755);
    dh.set_cksum();
    empty
        .append_data(&mut dh, "only-a-dir/", std::io::empty())
        .unwrap();
    let (url, _) = serve(vec![
        ("/evil.tar.xz", Body::Bytes(xz(&evil))),
        (
            "/empty.tar.zst",
            Body::Bytes(zst(&empty.into_inner().unwrap())),
        ),
    ]);
    let task = task_dir();
    let err = get(&task.dirs, &artifact(&format!("{url}/evil.tar.xz")))
        .await
        .unwrap_err();
    assert!(
        err.to_string().ends_with("entry contains '..': ../escape"),
        "{err}"
    );
    assert!(!task.path().join("escape").exists());
    let err = get(&task.dirs, &artifact(&format!("{url}/empty.tar.zst")))
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("empty archive: ") && msg.ends_with("/archive"),
        "{msg}"
    );
}

/// Peak resident memory of this process (Linux `VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[tokio::test]
async fn a_50_mb_artifact_streams_to_disk_without_being_held_in_memory() {
    const SIZE: usize = 50 * 1024 * 1024;
    // the expected sum, computed chunk by chunk like the server sends
    let chunk = pattern_chunk();
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
    let mut left = SIZE;
    while left > 0 {
        let k = left.min(chunk.len());
        ctx.update(&chunk[..k]);
        left -= k;
    }
    let sum = checksum::hex(ctx.finish().as_ref());
    let (url, _) = serve(vec![("/big.bin", Body::Generated(SIZE))]);
    let task = task_dir();
    let a = with_options(
        artifact(&format!("{url}/big.bin")),
        &[("checksum", &format!("sha256:{sum}"))],
    );
    // Reset the peak to the current RSS (Linux: write 5 to clear_refs), so the peak read
    // afterwards is what the download added.
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = peak_rss().expect("VmHWM");
    get(&task.dirs, &a).await.unwrap();
    let after = peak_rss().expect("VmHWM");
    assert_eq!(
        std::fs::metadata(task.path().join("local/big.bin"))
            .unwrap()
            .len(),
        SIZE as u64
    );
    let grown = after.saturating_sub(before);
    eprintln!(
        "50 MB download: peak RSS {} -> {} KiB (+{} KiB; peak reset: {reset})",
        before / 1024,
        after / 1024,
        grown / 1024
    );
    assert!(
        grown < 25 * 1024 * 1024,
        "peak RSS grew by {} KiB downloading 50 MB",
        grown / 1024
    );
}
