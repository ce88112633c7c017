use super::*;

fn broker() -> EvalBroker {
    let b = EvalBroker::new(
        EvalBrokerConfig::default(),
        Arc::new(TokioClock::new(1_000 * crate::api::SECOND)),
    );
    b.set_enabled(true);
    b
}

fn ev(id: &str, job: &str, priority: i32, create_index: u64) -> Evaluation {
    Evaluation {
        id: id.into(),
        namespace: "default".into(),
        job_id: job.into(),
        r#type: "service".into(),
        priority,
        create_index,
        modify_index: create_index,
        status: "pending".into(),
        ..Default::default()
    }
}

const SHORT: Duration = Duration::from_millis(10);

async fn take(b: &EvalBroker, types: &[&str]) -> Option<(Evaluation, String)> {
    b.dequeue(types, SHORT).await.expect("enabled")
}

#[tokio::test(start_paused = true)]
async fn priority_then_create_index() {
    let b = broker();
    b.enqueue(ev("low", "a", 10, 1));
    b.enqueue(ev("high-new", "b", 80, 5));
    b.enqueue(ev("high-old", "c", 80, 3));
    b.enqueue(ev("batch", "d", 100, 1).clone_with_type("batch"));
    assert_eq!(b.stats().total_ready, 4);
    let mut order = Vec::new();
    while let Some((e, token)) = take(&b, &["service"]).await {
        b.ack(&e.id, &token).expect("ack");
        order.push(e.id);
    }
    assert_eq!(order, vec!["high-old", "high-new", "low"]);
    let (e, _) = take(&b, &["service", "batch"]).await.expect("batch eval");
    assert_eq!(e.id, "batch");
}

trait WithType {
    fn clone_with_type(self, t: &str) -> Self;
}
impl WithType for Evaluation {
    fn clone_with_type(mut self, t: &str) -> Self {
        self.r#type = t.into();
        self
    }
}

#[tokio::test(start_paused = true)]
async fn dequeue_waits_for_enqueue_and_times_out() {
    let b = Arc::new(broker());
    assert!(b
        .dequeue(&["service"], Duration::from_secs(5))
        .await
        .expect("ok")
        .is_none());
    let b2 = b.clone();
    let waiter = tokio::spawn(async move { b2.dequeue(&["service"], Duration::ZERO).await });
    tokio::task::yield_now().await;
    b.enqueue(ev("e1", "a", 50, 1));
    let got = waiter.await.expect("join").expect("enabled").expect("eval");
    assert_eq!(got.0.id, "e1");
    assert_eq!(b.outstanding("e1"), Some(got.1));
}

#[tokio::test(start_paused = true)]
async fn one_outstanding_per_job_newest_pending_kept() {
    let b = broker();
    b.enqueue(ev("e1", "job", 50, 1));
    b.enqueue(ev("e2", "job", 50, 2));
    b.enqueue(ev("e3", "job", 50, 3));
    let s = b.stats();
    assert_eq!((s.total_ready, s.total_pending), (1, 2));
    let (e, token) = take(&b, &["service"]).await.expect("e1");
    assert_eq!(e.id, "e1");
    assert!(
        take(&b, &["service"]).await.is_none(),
        "job already outstanding"
    );
    b.ack("e1", &token).expect("ack");
    // The leader is woken to reap what the ack superseded.
    tokio::time::timeout(Duration::from_secs(1), b.cancelable_ready())
        .await
        .expect("cancelable signalled");
    let (e, _) = take(&b, &["service"]).await.expect("newest");
    assert_eq!(e.id, "e3");
    let cancel: Vec<_> = b.cancelable(10).into_iter().map(|e| e.id).collect();
    assert_eq!(cancel, vec!["e2"]);
}

#[tokio::test(start_paused = true)]
async fn ack_and_nack_check_tokens() {
    let b = broker();
    b.enqueue(ev("e1", "a", 50, 1));
    let (_, token) = take(&b, &["service"]).await.expect("e1");
    assert_eq!(
        b.ack("e1", "wrong"),
        Err(EvalBrokerError::TokenMismatch("e1".into()))
    );
    assert_eq!(
        b.nack("nope", &token),
        Err(EvalBrokerError::NotOutstanding("nope".into()))
    );
    b.ack("e1", &token).expect("ack");
    assert_eq!(
        b.ack("e1", &token),
        Err(EvalBrokerError::NotOutstanding("e1".into()))
    );
    let s = b.stats();
    assert_eq!((s.total_ready, s.total_unacked), (0, 0));
}

#[tokio::test(start_paused = true)]
async fn nack_redelivers_with_delay_then_fails() {
    let b = broker();
    b.enqueue(ev("e1", "a", 50, 1));
    // First delivery, nacked: re-enqueued after the 1s initial delay.
    let (_, t) = take(&b, &["service"]).await.expect("1st");
    b.nack("e1", &t).expect("nack");
    assert_eq!(b.stats().total_waiting, 1);
    assert!(take(&b, &["service"]).await.is_none());
    tokio::time::advance(Duration::from_secs(1)).await;
    let (_, t) = take(&b, &["service"]).await.expect("2nd");
    // Second nack: 20s.
    b.nack("e1", &t).expect("nack");
    tokio::time::advance(Duration::from_secs(19)).await;
    assert!(take(&b, &["service"]).await.is_none());
    tokio::time::advance(Duration::from_secs(1)).await;
    let (_, t) = take(&b, &["service"]).await.expect("3rd");
    // Third delivery reached the limit: it goes to the failed queue.
    b.nack("e1", &t).expect("nack");
    assert!(take(&b, &["service"]).await.is_none());
    let (e, _) = take(&b, &[FAILED_QUEUE]).await.expect("failed queue");
    assert_eq!(e.id, "e1");
}

#[tokio::test(start_paused = true)]
async fn nack_timeout_redelivers() {
    let b = broker();
    b.enqueue(ev("e1", "a", 50, 1));
    let (_, t) = take(&b, &["service"]).await.expect("1st");
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        b.ack("e1", &t),
        Err(EvalBrokerError::NackTimeoutReached("e1".into()))
    );
    assert_eq!(
        b.ack("e1", &t),
        Err(EvalBrokerError::NotOutstanding("e1".into()))
    );
    // Timed out = nacked once: back after the initial nack delay.
    tokio::time::advance(Duration::from_secs(1)).await;
    let (e, t2) = take(&b, &["service"]).await.expect("redelivered");
    assert_eq!(e.id, "e1");
    assert_ne!(t, t2);
    // Pausing the nack timeout keeps it outstanding past the timeout.
    b.pause_nack_timeout("e1", &t2).expect("pause");
    tokio::time::advance(Duration::from_secs(120)).await;
    assert_eq!(b.outstanding("e1"), Some(t2.clone()));
    b.resume_nack_timeout("e1", &t2).expect("resume");
    b.ack("e1", &t2).expect("ack");
}

#[tokio::test(start_paused = true)]
async fn blocked_dequeuer_wakes_at_nack_timeout() {
    let b = Arc::new(broker());
    b.enqueue(ev("e1", "a", 50, 1));
    let (_, _t) = take(&b, &["service"]).await.expect("1st");
    let b2 = b.clone();
    let waiter = tokio::spawn(async move { b2.dequeue(&["service"], Duration::ZERO).await });
    // 60s nack timeout + 1s re-enqueue delay; paused time auto-advances to each deadline.
    let got = waiter.await.expect("join").expect("enabled").expect("eval");
    assert_eq!(got.0.id, "e1");
}

#[tokio::test(start_paused = true)]
async fn wait_until_delays_eval() {
    let b = broker();
    let mut e = ev("e1", "a", 50, 1);
    e.wait_until = 1_000 * crate::api::SECOND + 30 * crate::api::SECOND;
    b.enqueue(e);
    assert_eq!(b.stats().total_waiting, 1);
    assert!(take(&b, &["service"]).await.is_none());
    tokio::time::advance(Duration::from_secs(30)).await;
    assert_eq!(
        take(&b, &["service"]).await.map(|(e, _)| e.id),
        Some("e1".into())
    );
}

#[tokio::test(start_paused = true)]
async fn disabling_flushes_and_wakes_dequeuers() {
    let b = Arc::new(broker());
    b.enqueue(ev("e1", "a", 50, 1));
    b.enqueue(ev("e2", "a", 50, 2));
    let b2 = b.clone();
    let waiter = tokio::spawn(async move { b2.dequeue(&["batch"], Duration::ZERO).await });
    tokio::task::yield_now().await;
    b.set_enabled(false);
    assert_eq!(
        waiter.await.expect("join"),
        Err(EvalBrokerError::NotEnabled)
    );
    assert_eq!(b.stats(), BrokerStats::default());
    b.enqueue(ev("e3", "b", 50, 3));
    assert_eq!(b.stats().total_ready, 0, "disabled broker drops evals");
    b.set_enabled(true);
    b.enqueue(ev("e3", "b", 50, 3));
    assert_eq!(b.stats().total_ready, 1);
}

#[tokio::test(start_paused = true)]
async fn reblocked_eval_requeues_on_ack() {
    let b = broker();
    b.enqueue(ev("e1", "a", 50, 1));
    let (e, t) = take(&b, &["service"]).await.expect("e1");
    b.enqueue_with_token(e, &t);
    assert_eq!(b.stats().total_ready, 0);
    b.ack("e1", &t).expect("ack");
    assert_eq!(
        take(&b, &["service"]).await.map(|(e, _)| e.id),
        Some("e1".into())
    );
}
