//! Boolean filter expressions: the language of go-bexpr, which Nomad takes as `?filter=` on its
//! list endpoints and as `-filter` on `eval list`, `eval delete`, `node status`, `deployment
//! list` and `service info`.
//!
//! ```text
//! Status == "running" and Meta.env != prod
//! "web" in Tags or Name matches "^api-"
//! not (Job.Type is empty) and any TaskGroups as tg { tg.Count == 3 }
//! ```
//!
//! Nomad evaluates the expression against each full object (a Job, not its list stub) by Go
//! reflection; here it is evaluated against the object's JSON, which carries the same field
//! names. A selector names a field path (`Meta.env`, `Meta["a.b"]`, `Tags.0`, or a JSON pointer
//! `"/Meta/env"`); the right-hand value is coerced to the type of the field it is compared with,
//! as go-bexpr does (`Count == "3"` and `Count == 3` are the same test).

mod eval;
mod parse;
#[cfg(test)]
mod tests;

use regex::Regex;

/// A parsed filter, ready to evaluate against many objects.
#[derive(Debug, Clone)]
pub struct Filter {
    expr: Expr,
}

impl Filter {
    /// Parse `source`. The error is the text Nomad wraps as "failed to read filter expression:
    /// ..." (a position `line:col (offset)` and what was expected).
    pub fn parse(source: &str) -> Result<Filter, String> {
        parse::parse(source).map(|expr| Filter { expr })
    }

    /// Whether `datum` (an object serialised to JSON) passes. Errors are selectors that name no
    /// field of the object, or comparisons its field types do not allow.
    pub fn matches(&self, datum: &serde_json::Value) -> Result<bool, String> {
        eval::evaluate(&self.expr, datum, &mut Vec::new())
    }

    /// Serialise `item` and test it.
    pub fn matches_item<T: serde::Serialize>(&self, item: &T) -> Result<bool, String> {
        let datum = serde_json::to_value(item).map_err(|e| e.to_string())?;
        self.matches(&datum)
    }
}

/// Keep the items of `items` that pass `filter` (all of them with no filter), stopping at the
/// first evaluation error as Nomad's paginator does.
pub fn filter_items<T: serde::Serialize>(
    items: Vec<T>,
    filter: Option<&Filter>,
) -> Result<Vec<T>, String> {
    let Some(f) = filter else {
        return Ok(items);
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        if f.matches_item(&item)? {
            out.push(item);
        }
    }
    Ok(out)
}

#[derive(Debug, Clone)]
enum Expr {
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Match(Match),
    Collection(Collection),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MatchOp {
    Equal,
    NotEqual,
    /// `value in Selector` and `Selector contains value`.
    In,
    NotIn,
    IsEmpty,
    IsNotEmpty,
    Matches,
    NotMatches,
    IsNil,
    IsNotNil,
}

impl MatchOp {
    /// The result when the selector names a key a map lacks: nothing equals, and nothing is in,
    /// a missing key; a missing key is empty and nil.
    fn not_present(self) -> bool {
        matches!(
            self,
            MatchOp::NotEqual
                | MatchOp::NotIn
                | MatchOp::IsEmpty
                | MatchOp::NotMatches
                | MatchOp::IsNil
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Selector {
    pointer: bool,
    path: Vec<String>,
}

impl std::fmt::Display for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.path.join(if self.pointer { "/" } else { "." }))
    }
}

#[derive(Debug, Clone)]
struct Match {
    selector: Selector,
    op: MatchOp,
    /// The literal as written (unquoted); absent for the `is ...` operators.
    value: Option<String>,
    /// The compiled pattern of `matches`.
    regex: Option<Regex>,
}

#[derive(Debug, Clone)]
enum Binding {
    /// `as v`: the element of a list, the key of a map.
    Default(String),
    /// `as i, _`
    Index(String),
    /// `as _, v`
    Value(String),
    /// `as i, v`
    IndexValue(String, String),
}

#[derive(Debug, Clone)]
struct Collection {
    all: bool,
    selector: Selector,
    binding: Binding,
    inner: Box<Expr>,
}
