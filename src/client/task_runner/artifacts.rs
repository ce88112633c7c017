//! The artifact hook (Nomad's go-getter use): fetch each `artifact` from http(s) or a local
//! path into the task dir, verify its checksum, and unpack archives.
//!
//! Sources and options follow go-getter as Nomad uses it: `options { checksum =
//! "sha256:<hex>" archive = "false" }`, `mode = "any" | "file" | "dir"`, `destination`
//! relative to the task dir (default `local/`), `headers` for http. Archives are recognised
//! by extension: `.tar`, `.tar.gz`/`.tgz`, `.gz`, `.zip`.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::api::TaskArtifact;

/// Nomad's default `artifact.http_read_timeout`.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30 * 60);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Archive {
    Tar,
    TarGz,
    Gz,
    Zip,
}

fn archive_kind(name: &str) -> Option<Archive> {
    let n = name.to_ascii_lowercase();
    if n.ends_with(".tar.gz") || n.ends_with(".tgz") {
        Some(Archive::TarGz)
    } else if n.ends_with(".tar") {
        Some(Archive::Tar)
    } else if n.ends_with(".gz") {
        Some(Archive::Gz)
    } else if n.ends_with(".zip") {
        Some(Archive::Zip)
    } else {
        None
    }
}

/// The task's artifacts as Nomad's `api.TaskArtifact`s.
pub fn task_artifacts(artifacts: &Option<Value>) -> Vec<TaskArtifact> {
    artifacts
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

/// `dest` under `task_dir`, refusing paths that climb out of it.
fn confined(task_dir: &Path, dest: &str) -> Result<PathBuf, String> {
    let rel = Path::new(dest);
    if rel.is_absolute() {
        return Err(format!(
            "artifact destination path escapes the task directory: {dest}"
        ));
    }
    let mut depth = 0i32;
    for c in rel.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return Err(format!(
                "artifact destination path escapes the task directory: {dest}"
            ));
        }
    }
    Ok(task_dir.join(rel))
}

/// The last path segment of a URL or path, without query.
fn base_name(source: &str) -> String {
    let no_query = source.split(['?', '#']).next().unwrap_or(source);
    no_query
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|s| !s.is_empty())
        .unwrap_or("artifact")
        .to_string()
}

/// Verify `data` against go-getter's `<type>:<hex>` checksum.
pub fn verify_checksum(data: &[u8], spec: &str) -> Result<(), String> {
    let (kind, want) = spec
        .split_once(':')
        .ok_or_else(|| format!("invalid checksum {spec:?}: expected <type>:<value>"))?;
    let got = match kind {
        "md5" => {
            use md5::Digest as _;
            hex(&md5::Md5::digest(data))
        }
        "sha1" => digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, data),
        "sha256" => digest(&aws_lc_rs::digest::SHA256, data),
        "sha512" => digest(&aws_lc_rs::digest::SHA512, data),
        other => return Err(format!("unsupported checksum type: {other}")),
    };
    if got.eq_ignore_ascii_case(want.trim()) {
        Ok(())
    } else {
        Err(format!(
            "checksums did not match: expected {} got {got}",
            want.trim()
        ))
    }
}

fn digest(alg: &'static aws_lc_rs::digest::Algorithm, data: &[u8]) -> String {
    hex(aws_lc_rs::digest::digest(alg, data).as_ref())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Fetch the bytes of `source` (already interpolated).
async fn fetch(
    source: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<Vec<u8>, String> {
    if let Some((scheme, _)) = source.split_once("::") {
        return Err(format!(
            "unsupported artifact getter {scheme:?}: only http(s) and local files are available"
        ));
    }
    if source.starts_with("http://") || source.starts_with("https://") {
        let client = reqwest::Client::builder()
            .timeout(HTTP_TIMEOUT)
            .build()
            .map_err(|e| e.to_string())?;
        let mut req = client.get(source);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let resp = req.send().await.map_err(|e| e.to_string())?;
        let status = resp.status();
        if !status.is_success() {
            return Err(format!("bad response code: {}", status.as_u16()));
        }
        return resp
            .bytes()
            .await
            .map(|b| b.to_vec())
            .map_err(|e| e.to_string());
    }
    let path = source.strip_prefix("file://").unwrap_or(source);
    if !Path::new(path).is_absolute() {
        return Err(format!(
            "unsupported artifact source {source:?}: use an http(s) URL or an absolute path"
        ));
    }
    let path = path.to_string();
    tokio::task::spawn_blocking(move || std::fs::read(&path).map_err(|e| format!("{path}: {e}")))
        .await
        .map_err(|e| e.to_string())?
}

fn unpack(kind: &Archive, data: &[u8], dir: &Path, single_name: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    match kind {
        Archive::Tar => tar::Archive::new(data)
            .unpack(dir)
            .map_err(|e| format!("error unpacking tar: {e}")),
        Archive::TarGz => tar::Archive::new(flate2::read::GzDecoder::new(data))
            .unpack(dir)
            .map_err(|e| format!("error unpacking tar.gz: {e}")),
        Archive::Gz => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(data)
                .read_to_end(&mut out)
                .map_err(|e| format!("error decompressing gzip: {e}"))?;
            let name = single_name.strip_suffix(".gz").unwrap_or(single_name);
            std::fs::write(dir.join(name), out).map_err(|e| e.to_string())
        }
        Archive::Zip => {
            let mut z = zip::ZipArchive::new(std::io::Cursor::new(data))
                .map_err(|e| format!("error reading zip: {e}"))?;
            for i in 0..z.len() {
                let mut f = z
                    .by_index(i)
                    .map_err(|e| format!("error reading zip: {e}"))?;
                let Some(rel) = f.enclosed_name() else {
                    return Err(format!("zip entry {:?} escapes the destination", f.name()));
                };
                let target = dir.join(rel);
                if f.is_dir() {
                    std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
                    continue;
                }
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                let mut out = std::fs::File::create(&target).map_err(|e| e.to_string())?;
                std::io::copy(&mut f, &mut out).map_err(|e| e.to_string())?;
                #[cfg(unix)]
                if let Some(mode) = f.unix_mode() {
                    use std::os::unix::fs::PermissionsExt as _;
                    let _ = std::fs::set_permissions(
                        &target,
                        std::fs::Permissions::from_mode(mode & 0o7777),
                    );
                }
            }
            Ok(())
        }
    }
}

/// Download one artifact (source already interpolated) into the task dir.
pub async fn get(task_dir: &Path, a: &TaskArtifact, source: &str) -> Result<(), String> {
    let dest = confined(task_dir, a.relative_dest.as_deref().unwrap_or("local/"))?;
    let options = a.getter_options.clone().unwrap_or_default();
    let headers = a.getter_headers.clone().unwrap_or_default();
    let data = fetch(source, &headers).await?;
    if let Some(sum) = options.get("checksum") {
        verify_checksum(&data, sum)?;
    }
    let name = base_name(source);
    let archive = if options.get("archive").map(String::as_str) == Some("false") {
        None
    } else {
        archive_kind(&name)
    };
    let mode = a.getter_mode.clone().unwrap_or_else(|| "any".to_string());
    let dest_for_blocking = dest.clone();
    tokio::task::spawn_blocking(move || -> Result<(), String> {
        match (mode.as_str(), archive) {
            ("file", _) => {
                if let Some(parent) = dest_for_blocking.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                std::fs::write(&dest_for_blocking, &data).map_err(|e| e.to_string())
            }
            (_, Some(kind)) => unpack(&kind, &data, &dest_for_blocking, &name),
            ("dir", None) => Err(format!(
                "mode \"dir\" needs an archive, and {name:?} is not one"
            )),
            (_, None) => {
                std::fs::create_dir_all(&dest_for_blocking).map_err(|e| e.to_string())?;
                std::fs::write(dest_for_blocking.join(&name), &data).map_err(|e| e.to_string())
            }
        }
    })
    .await
    .map_err(|e| e.to_string())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_of_each_type() {
        let data = b"hello\n";
        for (spec, ok) in [
            ("md5:b1946ac92492d2347c6235b4d2611184", true),
            ("sha1:f572d396fae9206628714fb2ce00f72e94f2258f", true),
            (
                "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
                true,
            ),
            ("sha256:00", false),
        ] {
            assert_eq!(verify_checksum(data, spec).is_ok(), ok, "{spec}");
        }
        assert!(verify_checksum(data, "crc32:1")
            .unwrap_err()
            .contains("unsupported"));
        assert!(verify_checksum(data, "nocolon")
            .unwrap_err()
            .contains("invalid checksum"));
    }

    #[test]
    fn destinations_stay_inside_the_task_dir() {
        let d = Path::new("/t");
        assert_eq!(confined(d, "local/").unwrap(), PathBuf::from("/t/local/"));
        assert_eq!(
            confined(d, "local/../x").unwrap(),
            PathBuf::from("/t/local/../x")
        );
        assert!(confined(d, "../x").is_err());
        assert!(confined(d, "/etc").is_err());
    }

    #[test]
    fn names_and_archive_kinds() {
        assert_eq!(base_name("https://h/a/b.tar.gz?x=1"), "b.tar.gz");
        assert_eq!(archive_kind("b.TGZ"), Some(Archive::TarGz));
        assert_eq!(archive_kind("x.zip"), Some(Archive::Zip));
        assert_eq!(archive_kind("x.bin"), None);
    }

    #[tokio::test]
    async fn local_files_tarballs_and_zips_are_fetched_and_unpacked() {
        let src = tempfile::tempdir().unwrap();
        let task = tempfile::tempdir().unwrap();
        // a plain file
        std::fs::write(src.path().join("conf.txt"), "x=1\n").unwrap();
        let plain = TaskArtifact {
            getter_source: Some(src.path().join("conf.txt").display().to_string()),
            ..Default::default()
        };
        get(task.path(), &plain, plain.getter_source.as_deref().unwrap())
            .await
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(task.path().join("local/conf.txt")).unwrap(),
            "x=1\n"
        );
        // a tar.gz with a nested file
        let tgz = src.path().join("bundle.tar.gz");
        {
            let f = std::fs::File::create(&tgz).unwrap();
            let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
            let mut b = tar::Builder::new(gz);
            let mut h = tar::Header::new_gnu();
            h.set_size(3);
            h.set_mode(0o755);
            h.set_cksum();
            b.append_data(&mut h, "bin/run.sh", &b"hi\n"[..]).unwrap();
            b.into_inner().unwrap().finish().unwrap();
        }
        let a = TaskArtifact {
            relative_dest: Some("local/app".into()),
            ..Default::default()
        };
        let source = format!("file://{}", tgz.display());
        get(task.path(), &a, &source).await.unwrap();
        assert_eq!(
            std::fs::read_to_string(task.path().join("local/app/bin/run.sh")).unwrap(),
            "hi\n"
        );
        // archive = "false" keeps it packed
        let keep = TaskArtifact {
            getter_options: Some([("archive".to_string(), "false".to_string())].into()),
            ..Default::default()
        };
        get(task.path(), &keep, &source).await.unwrap();
        assert!(task.path().join("local/bundle.tar.gz").is_file());
        // a zip
        let zpath = src.path().join("z.zip");
        {
            let f = std::fs::File::create(&zpath).unwrap();
            let mut w = zip::ZipWriter::new(f);
            w.start_file("docs/readme.md", zip::write::SimpleFileOptions::default())
                .unwrap();
            std::io::Write::write_all(&mut w, b"# hi\n").unwrap();
            w.finish().unwrap();
        }
        let za = TaskArtifact::default();
        get(task.path(), &za, zpath.to_str().unwrap())
            .await
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(task.path().join("local/docs/readme.md")).unwrap(),
            "# hi\n"
        );
        // a bad checksum fails and names both sums
        let bad = TaskArtifact {
            getter_options: Some([("checksum".to_string(), "md5:00".to_string())].into()),
            ..Default::default()
        };
        let err = get(task.path(), &bad, zpath.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(
            err.starts_with("checksums did not match: expected 00 got "),
            "{err}"
        );
        // unsupported getters are named
        let err = get(task.path(), &za, "git::https://example.com/repo")
            .await
            .unwrap_err();
        assert!(err.contains("unsupported artifact getter \"git\""), "{err}");
    }
}
