//! Artifacts through the real agent: a raw_exec task gets files from a local HTTP server
//! (checksums verified, archives of every format go-getter knows unpacked) before it
//! starts; a wrong checksum fails the task with Nomad's "Failed Artifact Download" event
//! and go-getter's wording.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use crate::harness::*;

/// Serves each route's body for every GET (404 elsewhere) until the test ends; returns
/// the base URL.
fn serve(routes: Vec<(&str, Vec<u8>)>) -> String {
    let routes: BTreeMap<String, Vec<u8>> = routes
        .into_iter()
        .map(|(p, b)| (p.to_string(), b))
        .collect();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
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
            let target = request.split(' ').nth(1).unwrap_or("/");
            let path = target.split('?').next().unwrap_or(target);
            match routes.get(path) {
                Some(body) => {
                    let _ = write!(
                        s,
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = s.write_all(body);
                }
                None => {
                    let _ = s.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                }
            }
        }
    });
    format!("http://{addr}")
}

const GREETING: &str = "hello artifact\n";
/// sha256 of GREETING.
const GREETING_SHA256: &str = "51bc0fc1f19104fa6e89ce50be9aa1f57c3346c1ca51ab49f5f00e14ce8f8076";

fn greeting_job(url: &str, checksum: &str) -> String {
    format!(
        r#"job "fetch" {{
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {{
    restart {{
      attempts = 0
      mode     = "fail"
    }}
    reschedule {{
      attempts  = 0
      unlimited = false
    }}
    task "t" {{
      driver = "raw_exec"
      artifact {{
        source = "{url}/greeting.txt"
        options {{
          checksum = "{checksum}"
        }}
      }}
      config {{
        command = "/bin/cat"
        args    = ["local/greeting.txt"]
      }}
    }}
  }}
}}
"#
    )
}

fn run(agent: &Agent, hcl: &str) {
    agent.run_detached("fetch.nomad.hcl", hcl);
}

fn finished(agent: &Agent) -> serde_json::Value {
    agent.wait_alloc("fetch", "task finished", |a| {
        a["ClientStatus"] == "complete" || a["ClientStatus"] == "failed"
    })
}

#[test]
fn an_http_artifact_lands_in_local_before_the_task_starts() {
    let url = serve(vec![("/greeting.txt", GREETING.into())]);
    let agent = Agent::dev();
    run(
        &agent,
        &greeting_job(&url, &format!("sha256:{GREETING_SHA256}")),
    );
    let alloc = finished(&agent);
    let events = alloc["TaskStates"]["t"]["Events"].to_string();
    assert_eq!(alloc["ClientStatus"], "complete", "{events}");
    assert!(events.contains("Downloading Artifacts"), "{events}");
    let id = alloc["ID"].as_str().expect("id");
    let logs = agent.nomad(&["alloc", "logs", id, "t"]);
    assert_exit(&logs, 0);
    assert_eq!(stdout(&logs), GREETING);
}

#[test]
fn a_wrong_checksum_fails_the_task_with_go_getters_wording() {
    let url = serve(vec![("/greeting.txt", GREETING.into())]);
    let agent = Agent::dev();
    run(&agent, &greeting_job(&url, "md5:0123"));
    let alloc = agent.wait_alloc("fetch", "task failed", |a| a["ClientStatus"] == "failed");
    let events = alloc["TaskStates"]["t"]["Events"]
        .as_array()
        .expect("events")
        .clone();
    let failed = events
        .iter()
        .find(|e| e["Type"] == "Failed Artifact Download")
        .unwrap_or_else(|| panic!("no download failure in {events:?}"));
    let msg = failed["DisplayMessage"].as_str().expect("message");
    // Nomad's event text: the artifact, the getter's wrapper, go-getter's ChecksumError.
    let want_start = format!(
        "failed to download artifact \"{url}/greeting.txt\": getter subprocess failed: exit status 1: failed to download artifact: Checksums did not match for "
    );
    assert!(msg.starts_with(&want_start), "{msg}");
    let got: String = {
        use md5::Digest as _;
        md5::Md5::digest(GREETING.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert!(
        msg.ends_with(&format!(
            "/t/local/greeting.txt.\nExpected: 0123\nGot: {got}\n*md5.digest"
        )),
        "{msg}"
    );
    assert_eq!(failed["Details"]["download_error"], msg);
    let status = agent.nomad(&["alloc", "status", alloc["ID"].as_str().expect("id")]);
    assert!(
        stdout(&status).contains("Failed Artifact Download"),
        "{}",
        stdout(&status)
    );
}

fn tar_of(files: &[(&str, &str)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, body) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, body.as_bytes()).expect("tar");
    }
    b.into_inner().expect("tar")
}

fn bz2(data: &[u8]) -> Vec<u8> {
    let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    e.write_all(data).expect("bz2");
    e.finish().expect("bz2")
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut w =
        lzma_rust2::XzWriter::new(Vec::new(), lzma_rust2::XzOptions::with_preset(1)).expect("xz");
    w.write_all(data).expect("xz");
    w.finish().expect("xz")
}

fn zst(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

fn sha256(data: &[u8]) -> String {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, data)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn bzip2_xz_and_zstd_archives_unpack_and_a_checksum_file_is_honoured() {
    let tbz = bz2(&tar_of(&[("bz/one.txt", "one\n")]));
    let txz = xz(&tar_of(&[("xz/two.txt", "two\n")]));
    let tzst = zst(&tar_of(&[("zst/three.txt", "three\n")]));
    let sums = format!(
        "{}  app.tar.bz2\n{}  app.tar.xz\n{}  app.tar.zst\n",
        sha256(&tbz),
        sha256(&txz),
        sha256(&tzst)
    );
    let url = serve(vec![
        ("/rel/app.tar.bz2", tbz),
        ("/rel/app.tar.xz", txz),
        ("/rel/app.tar.zst", tzst),
        ("/rel/SHA256SUMS", sums.into_bytes()),
        ("/single/four.txt.xz", xz(b"four\n")),
    ]);
    let artifact = |name: &str| {
        format!(
            r#"      artifact {{
        source      = "{url}/rel/{name}"
        destination = "local/unpacked"
        options {{
          checksum = "file:{url}/rel/SHA256SUMS"
        }}
      }}
"#
        )
    };
    let hcl = format!(
        r#"job "fetch" {{
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {{
    restart {{
      attempts = 0
      mode     = "fail"
    }}
    reschedule {{
      attempts  = 0
      unlimited = false
    }}
    task "t" {{
      driver = "raw_exec"
{}{}{}      artifact {{
        source      = "{url}/single/four.txt.xz"
        mode        = "file"
        destination = "local/four.txt"
      }}
      config {{
        command = "/bin/sh"
        args    = ["-c", "cat local/unpacked/bz/one.txt local/unpacked/xz/two.txt local/unpacked/zst/three.txt local/four.txt"]
      }}
    }}
  }}
}}
"#,
        artifact("app.tar.bz2"),
        artifact("app.tar.xz"),
        artifact("app.tar.zst"),
    );
    let agent = Agent::dev();
    run(&agent, &hcl);
    let alloc = finished(&agent);
    let events = alloc["TaskStates"]["t"]["Events"].to_string();
    assert_eq!(alloc["ClientStatus"], "complete", "{events}");
    let logs = agent.nomad(&["alloc", "logs", alloc["ID"].as_str().expect("id"), "t"]);
    assert_exit(&logs, 0);
    assert_eq!(stdout(&logs), "one\ntwo\nthree\nfour\n");
}
