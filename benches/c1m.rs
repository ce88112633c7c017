//! End-to-end C1M-style benchmark alone (`cargo bench --bench scheduler` runs it after the
//! scheduler-only grid): see `common/e2e.rs`. Prints `key: value` lines, `placements_per_sec`
//! last. Scales: default 5,000 nodes, 1,000 jobs x 100 allocs; `QUICK=1` 1,000 nodes,
//! 200 jobs x 100; `C1M_FULL=1` 10,000 nodes, 10,000 jobs x 100 (1M placements);
//! `-- --nodes N --jobs N --count N` overrides.

#[path = "common/e2e.rs"]
mod e2e;

fn main() {
    let env = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    let (default, timeout_s) = if env("QUICK") {
        (e2e::QUICK, 600)
    } else if env("C1M_FULL") {
        (
            e2e::Scale {
                nodes: 10_000,
                jobs: 10_000,
                count: 100,
            },
            900,
        )
    } else {
        (e2e::DEFAULT, 600)
    };
    e2e::run_and_print(e2e::scale_from_args(default), timeout_s);
}
