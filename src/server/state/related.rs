//! Related evaluations (Nomad's `EvalsRelatedToID`): the evals an eval reaches through its
//! next, previous and blocked links, followed transitively, for
//! `GET /v1/evaluation/:id?related=true`. Read-only over the snapshot.

use std::collections::{HashSet, VecDeque};

use super::StateSnapshot;
use crate::api::EvaluationStub;

impl StateSnapshot {
    /// Stubs of every eval linked to `id`, directly or through other linked evals, in
    /// breadth-first order (each eval's links taken next, previous, blocked), without `id`
    /// itself. Links to evals no longer in state are skipped; empty when `id` is unknown.
    pub fn evals_related_to(&self, id: &str) -> Vec<EvaluationStub> {
        let Some(start) = self.evals.get(id) else {
            return Vec::new();
        };
        let mut related = Vec::new();
        let mut todo: VecDeque<&str> = start.related_ids().collect();
        // Seeded with the requested eval so a link back to it does not list it.
        let mut done: HashSet<&str> = HashSet::from([start.id.as_str()]);
        while let Some(current) = todo.pop_front() {
            if done.contains(current) {
                continue;
            }
            let Some(eval) = self.evals.get(current) else {
                continue;
            };
            todo.extend(eval.related_ids());
            related.push(EvaluationStub::from_eval(eval));
            done.insert(eval.id.as_str());
        }
        related
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Evaluation;

    /// An eval `id` with its (next, previous, blocked) links; "" for none.
    fn eval(id: &str, next: &str, previous: &str, blocked: &str) -> Evaluation {
        Evaluation {
            id: id.into(),
            namespace: "default".into(),
            job_id: "web".into(),
            status: "complete".into(),
            next_eval: next.into(),
            previous_eval: previous.into(),
            blocked_eval: blocked.into(),
            ..Default::default()
        }
    }

    fn ids(stubs: &[EvaluationStub]) -> Vec<&str> {
        stubs.iter().map(|s| s.id.as_str()).collect()
    }

    /// a -> b (next) -> c (next), b blocked -> d, c back to b (previous), d to a missing eval
    /// and back to a: a cycle through every link kind.
    fn chain() -> StateSnapshot {
        let mut s = StateSnapshot::default();
        s.upsert_eval(1, eval("a", "b", "", ""));
        s.upsert_eval(2, eval("b", "c", "a", "d"));
        s.upsert_eval(3, eval("c", "", "b", ""));
        s.upsert_eval(4, eval("d", "gone", "a", ""));
        s.upsert_eval(5, eval("lonely", "", "", ""));
        s
    }

    #[test]
    fn related_evals_are_walked_breadth_first_through_every_link() {
        let s = chain();
        assert_eq!(ids(&s.evals_related_to("a")), ["b", "c", "d"]);
        // From the middle: next (c), previous (a), blocked (d), in that order.
        assert_eq!(ids(&s.evals_related_to("b")), ["c", "a", "d"]);
        // c reaches d only through b, so d comes after b's other link a.
        assert_eq!(ids(&s.evals_related_to("c")), ["b", "a", "d"]);
        assert_eq!(ids(&s.evals_related_to("d")), ["a", "b", "c"]);
    }

    #[test]
    fn related_evals_leave_out_the_eval_itself_and_missing_or_unknown_ids() {
        let s = chain();
        // d links to "gone", which is not in state; the cycle back to d does not list it.
        let from_d = s.evals_related_to("d");
        assert!(!ids(&from_d).contains(&"d") && !ids(&from_d).contains(&"gone"));
        assert!(s.evals_related_to("lonely").is_empty());
        assert!(s.evals_related_to("nope").is_empty());
    }

    #[test]
    fn a_related_eval_is_listed_as_its_stub() {
        let s = chain();
        let from_a = s.evals_related_to("a");
        let b = s.eval_by_id("b").expect("b");
        assert_eq!(from_a.first(), Some(&EvaluationStub::from_eval(&b)));
        assert_eq!(from_a.first().map(|st| st.modify_index), Some(2));
    }
}
