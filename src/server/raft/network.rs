//! Raft's outbound transport. For now only `SingleNodeNetwork`: a server without peers, whose
//! RPCs to any other node fail as unreachable (openraft then backs off and retries, which is
//! harmless as a single voter never needs a reply). A tonic transport on the RPC port is meant
//! to be another `RaftNetworkFactory<TypeConfig>` passed to `RaftHandle::start_with_network`;
//! its server side calls `RaftHandle::{append_entries, vote, install_snapshot}`.

use openraft::error::{InstallSnapshotError, RPCError, RaftError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::BasicNode;

use super::TypeConfig;

/// Why an RPC could not be sent: this server has no transport to other servers.
#[derive(Debug, thiserror::Error)]
#[error("no raft transport to node {target} at {addr:?}: this server runs without peers")]
pub struct NoTransport {
    target: u64,
    addr: String,
}

/// The network factory of a server that has no peers.
#[derive(Debug, Clone, Default)]
pub struct SingleNodeNetwork;

impl RaftNetworkFactory<TypeConfig> for SingleNodeNetwork {
    type Network = UnreachablePeer;

    async fn new_client(&mut self, target: u64, node: &BasicNode) -> UnreachablePeer {
        UnreachablePeer {
            why: NoTransport {
                target,
                addr: node.addr.clone(),
            },
        }
    }
}

/// A connection to a peer that can never be reached.
pub struct UnreachablePeer {
    why: NoTransport,
}

impl UnreachablePeer {
    fn fail<E: std::error::Error>(&self) -> RPCError<u64, BasicNode, E> {
        RPCError::Unreachable(Unreachable::new(&self.why))
    }
}

impl RaftNetwork<TypeConfig> for UnreachablePeer {
    async fn append_entries(
        &mut self,
        _rpc: AppendEntriesRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, RPCError<u64, BasicNode, RaftError<u64>>> {
        Err(self.fail())
    }

    async fn install_snapshot(
        &mut self,
        _rpc: InstallSnapshotRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<
        InstallSnapshotResponse<u64>,
        RPCError<u64, BasicNode, RaftError<u64, InstallSnapshotError>>,
    > {
        Err(self.fail())
    }

    async fn vote(
        &mut self,
        _rpc: VoteRequest<u64>,
        _option: RPCOption,
    ) -> Result<VoteResponse<u64>, RPCError<u64, BasicNode, RaftError<u64>>> {
        Err(self.fail())
    }
}
