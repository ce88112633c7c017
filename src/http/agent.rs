//! `/v1/agent/self`, `/v1/agent/health`, `/v1/agent/members`, `/v1/regions`,
//! `/v1/status/leader` and `/v1/status/peers`. None of them carry `X-Nomad-*` headers.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::error::HttpError;
use super::query::{need_server, Req};
use super::respond::{encode, json};
use super::{AgentInfo, HttpState};
use crate::server::Server;

fn get_only(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::GET {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

fn finish(out: Result<Response, HttpError>) -> Response {
    out.unwrap_or_else(IntoResponse::into_response)
}

pub async fn status_leader(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        let server = need_server(&st, &req)?;
        let leader = server.raft().leader_addr().unwrap_or_default();
        Ok(json(&leader, req.pretty(), None))
    })())
}

pub async fn status_peers(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        let server = need_server(&st, &req)?;
        Ok(json(&server.raft().peers(), req.pretty(), None))
    })())
}

/// This agent knows only its own region: there is no cross-region federation yet.
pub async fn regions(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        Ok(json(&[&st.agent.region], req.pretty(), None))
    })())
}

/// A cluster member as Nomad's `/v1/agent/members` prints it (its `api.AgentMember`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Member {
    /// `null` when the agent is not a server, like Go's empty `net.IP`.
    addr: Option<String>,
    // The gossip protocol versions: this agent does not run serf, so it advertises none (0).
    delegate_cur: u8,
    delegate_max: u8,
    delegate_min: u8,
    name: String,
    port: u16,
    protocol_cur: u8,
    protocol_max: u8,
    protocol_min: u8,
    status: String,
    tags: Option<BTreeMap<String, String>>,
}

fn split_host_port(addr: &str) -> (String, u16) {
    match addr.parse::<std::net::SocketAddr>() {
        Ok(sa) => (sa.ip().to_string(), sa.port()),
        Err(_) => match addr.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().unwrap_or(0)),
            None => (addr.to_string(), 0),
        },
    }
}

/// The member tags: the agent's own, with the ones Nomad always sets filled in from what
/// the agent reports elsewhere.
fn member_tags(agent: &AgentInfo) -> BTreeMap<String, String> {
    let mut tags = agent.member_tags.clone();
    let (rpc_ip, rpc_port) = split_host_port(&agent.rpc_addr);
    let defaults = [
        ("role", "nomad".to_string()),
        ("region", agent.region.clone()),
        ("dc", agent.datacenter.clone()),
        ("build", agent.version.clone()),
        ("port", rpc_port.to_string()),
        ("rpc_addr", rpc_ip),
    ];
    for (k, v) in defaults {
        tags.entry(k.to_string()).or_insert(v);
    }
    tags
}

fn local_member(agent: &AgentInfo) -> Member {
    let (addr, port) = split_host_port(&agent.serf_addr);
    Member {
        addr: Some(addr),
        delegate_cur: 0,
        delegate_max: 0,
        delegate_min: 0,
        name: format!("{}.{}", agent.node_name, agent.region),
        port,
        protocol_cur: 0,
        protocol_max: 0,
        protocol_min: 0,
        status: "alive".to_string(),
        tags: Some(member_tags(agent)),
    }
}

/// What Nomad prints for `member` on an agent that is not a server (a zero serf member).
fn no_member() -> Member {
    Member {
        addr: None,
        delegate_cur: 0,
        delegate_max: 0,
        delegate_min: 0,
        name: String::new(),
        port: 0,
        protocol_cur: 0,
        protocol_max: 0,
        protocol_min: 0,
        status: "none".to_string(),
        tags: None,
    }
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Members {
    members: Vec<Member>,
    #[serde(rename = "ServerDC")]
    server_dc: String,
    server_name: String,
    server_region: String,
}

pub async fn members(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        need_server(&st, &req)?;
        let body = Members {
            members: vec![local_member(&st.agent)],
            server_dc: st.agent.datacenter.clone(),
            server_name: st.agent.node_name.clone(),
            server_region: st.agent.region.clone(),
        };
        Ok(json(&body, req.pretty(), None))
    })())
}

#[derive(Serialize)]
struct AgentSelf<'a> {
    config: &'a serde_json::Value,
    member: Member,
    stats: BTreeMap<&'static str, BTreeMap<&'static str, String>>,
}

/// Go's GOARCH spelling of this machine's architecture.
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}

fn stats(
    agent: &AgentInfo,
    server: Option<&Server>,
) -> BTreeMap<&'static str, BTreeMap<&'static str, String>> {
    let mut out = BTreeMap::new();
    if let Some(server) = server {
        let leader = server.is_leader();
        let leader_addr = server.raft().leader_addr().unwrap_or_default();
        let peers = server.raft().peers();
        let snap = server.state().snapshot();
        out.insert(
            "nomad",
            BTreeMap::from([
                ("server", "true".to_string()),
                ("leader", leader.to_string()),
                ("leader_addr", leader_addr),
                (
                    "bootstrap",
                    (server.config().bootstrap_expect <= 1).to_string(),
                ),
                ("known_regions", "1".to_string()),
            ]),
        );
        let last_contact = if leader {
            "0".to_string()
        } else {
            format!("{:?}", server.raft().last_contact())
        };
        out.insert(
            "raft",
            BTreeMap::from([
                ("applied_index", snap.latest_index().to_string()),
                (
                    "state",
                    if leader { "Leader" } else { "Follower" }.to_string(),
                ),
                ("last_contact", last_contact),
                ("num_peers", peers.len().saturating_sub(1).to_string()),
            ]),
        );
    }
    if agent.client_enabled {
        let mut client = BTreeMap::from([("known_servers", agent.known_servers.join(","))]);
        if let Some(node_id) = &agent.client_node_id {
            client.insert("node_id", node_id.clone());
            if let Some(server) = server {
                let live = server
                    .state()
                    .snapshot()
                    .allocs_for_node(node_id)
                    .iter()
                    .filter(|a| !a.terminal())
                    .count();
                client.insert("num_allocations", live.to_string());
            }
        }
        out.insert("client", client);
    }
    let cpus = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    out.insert(
        "runtime",
        BTreeMap::from([
            ("arch", go_arch().to_string()),
            ("cpu_count", cpus.to_string()),
            ("kernel.name", std::env::consts::OS.to_string()),
        ]),
    );
    out
}

pub async fn agent_self(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        let member = if st.server.is_some() {
            local_member(&st.agent)
        } else {
            no_member()
        };
        let body = AgentSelf {
            config: &st.agent.config,
            member,
            stats: stats(&st.agent, st.server.as_ref()),
        };
        Ok(json(&body, req.pretty(), None))
    })())
}

#[derive(Debug, Serialize)]
struct HealthAgent {
    message: String,
    ok: bool,
}

#[derive(Debug, Default, Serialize)]
struct Health {
    #[serde(skip_serializing_if = "Option::is_none")]
    client: Option<HealthAgent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    server: Option<HealthAgent>,
}

fn bad(message: &str) -> Option<HealthAgent> {
    Some(HealthAgent {
        message: message.to_string(),
        ok: false,
    })
}

fn ok() -> Option<HealthAgent> {
    Some(HealthAgent {
        message: "ok".to_string(),
        ok: true,
    })
}

/// Nomad's health check: `?type=client|server` (repeatable) asks about one role and fails
/// if that role is not enabled; an unhealthy answer is a 500 whose text is the JSON.
pub async fn health(State(st): State<HttpState>, req: Req) -> Response {
    finish((|| {
        get_only(&req)?;
        let mut h = Health::default();
        let types: Vec<&str> = req
            .params
            .iter()
            .filter(|(k, _)| k == "type")
            .map(|(_, v)| v.as_str())
            .collect();
        let (mut want_client, mut want_server) = (true, true);
        if req.has("type") {
            want_client = types.contains(&"client");
            want_server = types.contains(&"server");
            if want_client {
                h.client = bad("client not enabled");
            }
            if want_server {
                h.server = bad("server not enabled");
            }
        }
        if want_client && st.agent.client_enabled {
            h.client = if st.agent.known_servers.is_empty() {
                bad("no known servers")
            } else {
                ok()
            };
        }
        if let (true, Some(server)) = (want_server, &st.server) {
            h.server = match server.raft().leader_addr() {
                Some(l) if !l.is_empty() => ok(),
                _ => bad("no leader"),
            };
        }
        let healthy = [&h.client, &h.server]
            .iter()
            .all(|a| a.as_ref().is_none_or(|a| a.ok));
        if healthy {
            return Ok(json(&h, req.pretty(), None));
        }
        let text = encode(&h, false)?;
        Err(HttpError::Internal(
            String::from_utf8_lossy(&text).into_owned(),
        ))
    })())
}
