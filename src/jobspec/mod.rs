//! HCL2 jobspec -> api::Job.
