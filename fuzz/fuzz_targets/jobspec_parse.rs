//! Feeds arbitrary text through the jobspec pipeline a `nomad job run` takes: parse, then
//! the server-side defaults, then validation. Any panic is a bug (user input must never panic).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let vars = [("fuzz".to_string(), "1".to_string())];
    if let Ok(mut job) = nomad::jobspec::parse_str(src, "fuzz.nomad.hcl", &vars) {
        nomad::jobspec::canonicalize(&mut job);
        let _ = nomad::jobspec::validate(&job);
    }
});
