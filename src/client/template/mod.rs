//! A Go text/template engine with consul-template's function library, as Nomad's
//! `template` block renders it.
//!
//! ```text
//!  source ─ lexer ─ tokens ─ parse ─ Tree ─ exec(data, Funcs) ─ output
//!                                             └─ funcs: builtins + consul-template ones;
//!                                                data lookups (nomadService, file) go
//!                                                through a `Brain` that records what
//!                                                was used and what is still missing
//! ```
//! Like consul-template, execution never blocks: a lookup that has no data yet returns an
//! empty value and is recorded as missing; the caller fetches the missing data, stores it in
//! the brain and renders again. The set of lookups used is what a watcher watches.
//!
//! This module owns no I/O beyond `file` reads (confined to the sandbox) and `sockaddr`'s
//! reads of the host's interfaces and routes, and knows nothing of the task runner.

pub mod brain;
pub mod exec;
pub mod funcs;
pub mod gofmt;
mod ifaddr;
pub mod lexer;
pub mod parse;
mod sockaddr;
mod toml;
mod value;
mod yaml;
mod yaml_decode;

#[cfg(test)]
mod tests;

pub use brain::{Brain, Dependency, ServiceEntry};
pub use value::Value;

/// Why a template could not be parsed or executed; the texts follow Go's
/// (`template: NAME:LINE: ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("{0}")]
    Parse(String),
    #[error("{0}")]
    Exec(String),
}

/// Options consul-template sets per template.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub left_delim: String,
    pub right_delim: String,
    /// `error_on_missing_key`: missing map keys fail instead of printing `<no value>`.
    pub err_missing_key: bool,
}

/// A parsed template, ready to execute any number of times.
pub struct Template {
    name: String,
    tree: parse::Tree,
    err_missing_key: bool,
}

impl Template {
    /// Parses `src` with consul-template's function names known.
    pub fn parse(name: &str, src: &str, opts: &Options) -> Result<Template, TemplateError> {
        let tree = parse::parse(
            name,
            src,
            &opts.left_delim,
            &opts.right_delim,
            &funcs::is_known,
        )?;
        Ok(Template {
            name: name.to_string(),
            tree,
            err_missing_key: opts.err_missing_key,
        })
    }

    /// Renders with `data` as dot and `ctx` for the data functions.
    pub fn execute(&self, data: &Value, ctx: &funcs::Context<'_>) -> Result<String, TemplateError> {
        let mut out = String::new();
        exec::Exec::new(&self.name, &self.tree, ctx, self.err_missing_key).run(
            &self.tree.root,
            data,
            &mut out,
        )?;
        Ok(out)
    }
}
