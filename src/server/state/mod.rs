//! In-memory MVCC state store: tables of Arc values in persistent maps, secondary indexes, a raft index per table.
