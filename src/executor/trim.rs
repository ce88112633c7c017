//! Keeps the supervisor's resident set to what its loop uses. It is the whole `nomad`
//! binary re-executed: starting it faults in code and read-only data (and the kernel maps
//! 64 KB around every fault) that the poll loop never touches again. Once the task runs,
//! the page-table entries of clean, read-only file mappings are dropped (the pages stay in
//! the page cache, shared with the agent); the loop faults back in what it uses. The same
//! happens a second after a control request is served (`Supervisor::keep_trimmed`), as
//! decoding and answering one faults in as much code again as the idle loop needs. Writable mappings and read-only ones holding
//! private copies (RELRO data the loader relocated) are left alone: dropping those would
//! lose their contents.

/// One mapping from /proc/self/smaps: its range and whether it may be dropped.
struct Mapping {
    start: usize,
    end: usize,
    clean_read_only_file: bool,
}

fn header(line: &str) -> Option<Mapping> {
    let mut parts = line.split_whitespace();
    let (start, end) = parts.next()?.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    let perms = parts.next()?;
    if perms.len() != 4 {
        return None;
    }
    let path = parts.nth(3).unwrap_or("");
    Some(Mapping {
        start,
        end,
        clean_read_only_file: perms.as_bytes()[1] != b'w' && path.starts_with('/'),
    })
}

fn release(m: &Mapping) {
    if !m.clean_read_only_file || m.end <= m.start {
        return;
    }
    let (addr, len) = (m.start as *mut libc::c_void, m.end - m.start);
    // SAFETY: the range is a whole read-only, file-backed private mapping of this process
    // without anonymous (copied) pages: dropping its PTEs only means refaulting the same
    // file contents on the next access.
    unsafe {
        libc::madvise(addr, len, libc::MADV_DONTNEED);
    }
}

/// Drops the resident pages of clean read-only file mappings (see the module docs).
pub fn drop_startup_pages() {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return;
    };
    let mut current: Option<Mapping> = None;
    for line in smaps.lines() {
        if let Some(anon) = line.strip_prefix("Anonymous:") {
            if anon.trim() != "0 kB" {
                if let Some(m) = current.as_mut() {
                    m.clean_read_only_file = false;
                }
            }
        } else if let Some(m) = line
            .split_whitespace()
            .next()
            .filter(|f| f.contains('-') && !f.ends_with(':'))
            .and_then(|_| header(line))
        {
            if let Some(prev) = current.replace(m) {
                release(&prev);
            }
        }
    }
    if let Some(last) = current {
        release(&last);
    }
    drop(smaps);
    // SAFETY: returns freed heap memory to the kernel; malloc_trim takes the arena locks.
    unsafe { libc::malloc_trim(0) };
}
