use super::*;
use crate::server::events_from::for_command;
use crate::server::fsm::{Command, Fsm};
use crate::server::state::{NodeDrainUpdate, StateStore};

fn job(id: &str, ns: &str) -> Job {
    Job {
        id: id.to_string(),
        name: id.to_string(),
        namespace: ns.to_string(),
        r#type: "service".to_string(),
        ..Default::default()
    }
}

/// Apply `cmd` at `index` and return the events it yields.
fn apply(s: &StateStore, index: u64, cmd: Command) -> EventBatch {
    let before = s.snapshot();
    assert!(s.apply(index, &cmd).error.is_empty());
    for_command(&cmd, index, &before, &s.snapshot())
}

fn kinds(b: &EventBatch) -> Vec<(&'static str, &'static str, String)> {
    b.events
        .iter()
        .map(|e| (e.topic, e.r#type, e.key.clone()))
        .collect()
}

#[test]
fn job_register_and_node_drain_events() {
    let s = StateStore::new();
    let reg = apply(
        &s,
        1,
        Command::JobRegister {
            job: job("web", "default"),
            eval: None,
            submit_time: 0,
        },
    );
    assert_eq!(
        kinds(&reg),
        vec![("Job", "JobRegistered", "web".to_string())]
    );
    let node = Node {
        id: "n1".to_string(),
        secret_id: "secret".to_string(),
        ..Default::default()
    };
    let reg = apply(&s, 2, Command::NodeRegister { node, time: 0 });
    assert_eq!(
        kinds(&reg),
        vec![("Node", "NodeRegistration", "n1".to_string())]
    );
    let drain = apply(
        &s,
        3,
        Command::NodeUpdateDrain {
            updates: vec![NodeDrainUpdate {
                node_id: "n1".to_string(),
                ..Default::default()
            }],
            evals: Vec::new(),
            time: 0,
        },
    );
    assert_eq!(kinds(&drain), vec![("Node", "NodeDrain", "n1".to_string())]);
    let text = serde_json::to_string(&drain).expect("json");
    assert!(text.starts_with(
        r#"{"Events":[{"FilterKeys":null,"Index":3,"Key":"n1","Namespace":"","Payload":{"Node":{"#
    ));
    assert!(!text.contains("secret"), "SecretID is stripped");
    assert!(text.ends_with(r#""Topic":"Node","Type":"NodeDrain"}],"Index":3}"#));
}

#[test]
fn purged_job_event_carries_the_job_as_it_was() {
    let s = StateStore::new();
    let reg = Command::JobRegister {
        job: job("web", "default"),
        eval: None,
        submit_time: 0,
    };
    s.apply(1, &reg);
    let purge = apply(
        &s,
        2,
        Command::JobDeregister {
            namespace: "default".to_string(),
            job_id: "web".to_string(),
            purge: true,
            eval: None,
            time: 0,
        },
    );
    assert_eq!(
        kinds(&purge),
        vec![("Job", "JobDeregistered", "web".to_string())]
    );
}

fn batch(index: u64, key: &str, ns: &str) -> EventBatch {
    EventBatch {
        index,
        events: vec![Event {
            filter_keys: Some(vec!["parent".to_string()]),
            index,
            key: key.to_string(),
            namespace: ns.to_string(),
            payload: Payload::Job(Arc::new(job(key, ns))),
            topic: TOPIC_JOB,
            r#type: "JobRegistered",
        }],
    }
}

#[test]
fn filters_by_topic_key_filter_key_and_namespace() {
    let b = batch(1, "web", "default");
    let e = &b.events[0];
    assert!(EventFilter::parse(&[], "default").matches(e));
    assert!(EventFilter::parse(&["Job"], "default").matches(e));
    assert!(EventFilter::parse(&["Job:web"], "default").matches(e));
    assert!(EventFilter::parse(&["Job:parent"], "default").matches(e));
    assert!(!EventFilter::parse(&["Job:api"], "default").matches(e));
    assert!(!EventFilter::parse(&["Node"], "default").matches(e));
    assert!(!EventFilter::parse(&["*"], "prod").matches(e));
    assert!(EventFilter::parse(&["*:*"], "*").matches(e));
}

#[tokio::test]
async fn replay_from_index_then_live_and_slow_subscribers_are_dropped() {
    let broker = EventBroker::new();
    for i in 1..=3 {
        broker.publish(batch(i, "web", "default"));
    }
    let mut from2 = broker.subscribe(2);
    assert_eq!(from2.next().await.map(|b| b.index), Ok(2));
    assert_eq!(from2.next().await.map(|b| b.index), Ok(3));
    broker.publish(batch(4, "web", "default"));
    assert_eq!(from2.next().await.map(|b| b.index), Ok(4));

    let mut all = broker.subscribe(0);
    assert_eq!(all.next().await.map(|b| b.index), Ok(1));

    let mut slow = broker.subscribe(u64::MAX);
    for i in 5..(5 + LIVE_BACKLOG as u64 + 10) {
        broker.publish(batch(i, "web", "default"));
    }
    assert_eq!(slow.next().await.err(), Some(SubscriptionError::TooSlow));
    let ring = broker.ring.lock().map(|r| r.len()).unwrap_or(0);
    assert_eq!(ring, RING_SIZE, "the buffer stays bounded");
}
