//! Exec and stats for `mock_driver`, as Nomad's mock driver does them: an exec runs the
//! task's `exec_command { ... }` block (the same keys as the task's own command) instead of
//! a real program, except the command `showinput`, which echoes whether a TTY was asked for
//! and everything read from stdin. Stats report a random RSS.

use bytes::Bytes;
use rand::Rng;
use serde_json::Value;

use super::exec_stream::{ExecInput, ExecOutput, ExecSession};
use super::mock::{MockCommand, MockTaskConfig, Output};
use super::stats::{ResourceUsage, TaskResourceUsage, MEASURED_RSS};
use super::{DriverError, TaskConfig};

/// The task's `exec_command` block, if it has one.
pub fn exec_command(cfg: &TaskConfig) -> Result<Option<MockCommand>, DriverError> {
    let block = match cfg.config.get("exec_command") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items.first().cloned(),
        Some(v) => Some(v.clone()),
    };
    let Some(Value::Object(map)) = block else {
        return Err(DriverError::InvalidConfig(
            "\"exec_command\" must be a block".to_string(),
        ));
    };
    let sub = TaskConfig {
        config: map.into_iter().collect(),
        ..Default::default()
    };
    Ok(Some(MockTaskConfig::parse(&sub)?.command))
}

async fn emit(
    session: &ExecSession,
    out: &Output,
    wrap: fn(Bytes) -> ExecOutput,
) -> Result<(), ()> {
    if out.string.is_empty() {
        return Ok(());
    }
    for i in 0..=out.repeat {
        if i > 0 {
            tokio::time::sleep(out.repeat_every).await;
        }
        let chunk = wrap(Bytes::copy_from_slice(out.string.as_bytes()));
        session.output.send(chunk).await.map_err(|_| ())?;
    }
    Ok(())
}

/// Reads stdin until it closes (or the caller hangs up).
async fn read_stdin(session: &mut ExecSession) -> Vec<u8> {
    let mut stdin = Vec::new();
    while let Some(msg) = session.input.recv().await {
        match msg {
            ExecInput::Stdin(b) => stdin.extend_from_slice(&b),
            ExecInput::StdinClose => break,
            ExecInput::Resize { .. } => {}
        }
    }
    stdin
}

pub async fn run_exec(cfg: &TaskConfig, mut session: ExecSession) -> Result<i32, DriverError> {
    if session.command.len() == 1 && session.command[0] == "showinput" {
        let stdin = read_stdin(&mut session).await;
        let text = format!(
            "TTY: {}\nStdin:\n{}\n",
            session.tty,
            String::from_utf8_lossy(&stdin)
        );
        let _ = session
            .output
            .send(ExecOutput::Stdout(Bytes::from(text)))
            .await;
        return Ok(0);
    }
    let Some(cmd) = exec_command(cfg)? else {
        return Err(DriverError::InvalidConfig(
            "no exec command is configured".to_string(),
        ));
    };
    let outputs = async {
        let _ = tokio::join!(
            emit(&session, &cmd.stdout, ExecOutput::Stdout),
            emit(&session, &cmd.stderr, ExecOutput::Stderr),
        );
        tokio::time::sleep(cmd.run_for).await;
    };
    outputs.await;
    Ok(cmd.exit_code)
}

pub fn stats(now: i64) -> TaskResourceUsage {
    let mut usage = ResourceUsage::default();
    usage.memory_stats.rss = u64::from(rand::rng().random::<u32>());
    usage.memory_stats.measured = vec![MEASURED_RSS.to_string()];
    TaskResourceUsage {
        resource_usage: usage,
        timestamp: now,
        pids: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cfg(exec: Value) -> TaskConfig {
        TaskConfig {
            config: [("exec_command".to_string(), exec)].into(),
            ..Default::default()
        }
    }

    async fn collect(
        cfg: &TaskConfig,
        command: &str,
        tty: bool,
        stdin: &[u8],
    ) -> (Result<i32, DriverError>, String, String) {
        let (session, tx, mut rx) = ExecSession::new(vec![command.to_string()], tty);
        tx.send(ExecInput::Stdin(Bytes::copy_from_slice(stdin)))
            .await
            .expect("send");
        tx.send(ExecInput::StdinClose).await.expect("send");
        let res = run_exec(cfg, session).await;
        let (mut out, mut err) = (String::new(), String::new());
        while let Ok(chunk) = rx.try_recv() {
            match chunk {
                ExecOutput::Stdout(b) => out.push_str(&String::from_utf8_lossy(&b)),
                ExecOutput::Stderr(b) => err.push_str(&String::from_utf8_lossy(&b)),
            }
        }
        (res, out, err)
    }

    #[tokio::test]
    async fn runs_the_exec_command_block() {
        let c = cfg(
            json!([{"stdout_string": "hi\n", "stdout_repeat": 1, "stderr_string": "e", "exit_code": 4}]),
        );
        let (res, out, err) = collect(&c, "anything", false, b"").await;
        assert_eq!(res, Ok(4));
        assert_eq!(out, "hi\nhi\n");
        assert_eq!(err, "e");
    }

    #[tokio::test]
    async fn showinput_echoes_tty_and_stdin() {
        let (res, out, _) = collect(&TaskConfig::default(), "showinput", true, b"abc").await;
        assert_eq!(res, Ok(0));
        assert_eq!(out, "TTY: true\nStdin:\nabc\n");
    }

    #[tokio::test]
    async fn without_exec_command_it_fails() {
        let (res, _, _) = collect(&TaskConfig::default(), "ls", false, b"").await;
        assert_eq!(
            res,
            Err(DriverError::InvalidConfig(
                "no exec command is configured".to_string()
            ))
        );
    }
}
