//! openraft glue: redb log store, snapshots, the single-node (and later multi-node) raft.
