//! Large jobs: their groups are decoded and canonicalized on two threads, which must give
//! exactly what one pass gives, with every error in source order.

use super::*;
use crate::jobspec::presence::Presence;

fn big_job(groups: usize, broken: &[usize]) -> String {
    let mut s = String::from("variable \"v\" {\n  default = \"1\"\n}\njob \"big\" {\n");
    for g in 0..groups {
        let bad = if broken.contains(&g) {
            "    bogus = 1\n"
        } else {
            ""
        };
        s.push_str(&format!(
            "  group \"g{g}\" {{\n    count = {c}\n{bad}    scaling {{\n      max = 5\n    }}\n    task \"t\" {{\n      driver = \"docker\"\n      config {{\n        image = \"app:${{var.v}}\"\n      }}\n      service {{\n        name     = \"s{g}\"\n        provider = \"nomad\"\n      }}\n      template {{\n        data        = \"x\"\n        destination = \"local/x\"\n      }}\n    }}\n  }}\n",
            c = 1 + g % 3
        ));
    }
    s.push_str("}\n");
    s
}

#[test]
fn a_large_job_decodes_as_one_pass_does() {
    let src = big_job(80, &[]);
    let vars = Variables::default();
    let parallel = decode::decode(&src, "big.hcl", &vars, None).expect("decodes");
    // Recording presence keeps the decode on one thread.
    let (serial, _) = decode::decode_recording(&src, "big.hcl", &vars, None, Presence::recording())
        .expect("decodes");
    assert_eq!(parallel.task_groups.len(), 80);
    assert_eq!(parallel, serial);
    let names: Vec<&str> = parallel
        .task_groups
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    assert_eq!(names[0], "g0");
    assert_eq!(names[79], "g79");
}

#[test]
fn errors_in_both_halves_are_all_reported_in_order() {
    let err = parse_err(&big_job(80, &[3, 70]));
    let first = err.find("g3").expect("names the first broken group");
    let second = err.find("g70").expect("names the second broken group");
    assert!(first < second, "{err}");
    assert_eq!(err.matches("Unsupported argument").count(), 2, "{err}");
}

#[test]
fn a_large_job_canonicalizes_group_by_group_as_a_small_one_does() {
    let mut big = parse(&big_job(80, &[]));
    canonicalize(&mut big);
    for g in [0usize, 39, 40, 79] {
        let mut one = parse(&big_job(80, &[]));
        one.task_groups = vec![one.task_groups.swap_remove(g)];
        canonicalize(&mut one);
        assert_eq!(big.task_groups[g], one.task_groups[0], "group {g}");
    }
    let target = big.task_groups[79].scaling.as_ref().expect("scaling")["Target"].clone();
    assert_eq!(target["Group"], "g79");
    assert_eq!(target["Job"], "big");
}
