//! Evaluating a filter against an object's JSON, with go-bexpr's rules: the literal is coerced
//! to the kind of the field (bool, integer, float, string); `in`/`contains` look into lists,
//! map keys and substrings; a key missing from a map answers as the operator's "not present"
//! disposition, while a selector naming no field of a struct is an error.

use serde_json::Value;

use super::{Binding, Collection, Expr, Match, MatchOp, Selector};

/// Fields that are Go maps in Nomad's structs: a key missing from one of these is "not
/// present" rather than an error. JSON cannot tell a map from a struct, so the name decides.
const MAP_FIELDS: &[&str] = &[
    "Allocs",
    "Attributes",
    "CSIControllerPlugins",
    "CSINodePlugins",
    "CanaryMeta",
    "ClassEligibility",
    "ClassExhausted",
    "ClassFiltered",
    "Config",
    "ConstraintFiltered",
    "Context",
    "DimensionExhausted",
    "Drivers",
    "Env",
    "FailedTGAllocs",
    "Header",
    "HostNetworks",
    "HostVolumes",
    "Links",
    "Meta",
    "NodesAvailable",
    "Parameters",
    "QueuedAllocations",
    "QuotaExhausted",
    "Scores",
    "Summary",
    "TaggedAddresses",
    "TaskGroups",
    "TaskResources",
    "TaskStates",
    "Tasks",
    "Volumes",
];

/// A collection binding in scope: a name that stands for a path into the datum (a list
/// element, a map value) or for a value of its own (an index, a map key).
pub(super) enum Local {
    Path(String, Vec<String>),
    Value(String, Value),
}

pub(super) fn evaluate(
    expr: &Expr,
    datum: &Value,
    locals: &mut Vec<Local>,
) -> Result<bool, String> {
    match expr {
        Expr::Not(e) => Ok(!evaluate(e, datum, locals)?),
        Expr::And(a, b) => Ok(evaluate(a, datum, locals)? && evaluate(b, datum, locals)?),
        Expr::Or(a, b) => Ok(evaluate(a, datum, locals)? || evaluate(b, datum, locals)?),
        Expr::Match(m) => evaluate_match(m, datum, locals),
        Expr::Collection(c) => evaluate_collection(c, datum, locals),
    }
}

/// A resolved selector: the value, or `None` for a key a map lacks.
enum Found<'a> {
    Value(std::borrow::Cow<'a, Value>),
    Missing,
}

fn lookup<'a>(datum: &'a Value, sel: &Selector, locals: &[Local]) -> Result<Found<'a>, String> {
    let mut path = sel.path.clone();
    for local in locals.iter().rev() {
        match local {
            Local::Value(name, v) if path.first() == Some(name) => {
                if path.len() > 1 {
                    return Err(format!(
                        "/{name} references a {} so /{} is invalid",
                        kind_name(v),
                        path.join("/")
                    ));
                }
                return Ok(Found::Value(std::borrow::Cow::Owned(v.clone())));
            }
            Local::Path(name, prefix) if path.first() == Some(name) => {
                let mut full = prefix.clone();
                full.extend(path.drain(1..));
                path = full;
            }
            _ => {}
        }
    }
    walk(datum, &path).map(|f| match f {
        Some(v) => Found::Value(std::borrow::Cow::Borrowed(v)),
        None => Found::Missing,
    })
}

fn walk<'a>(datum: &'a Value, path: &[String]) -> Result<Option<&'a Value>, String> {
    let pointer = || format!("/{}", path.join("/"));
    let mut cur = datum;
    for (i, part) in path.iter().enumerate() {
        let in_map = i > 0 && MAP_FIELDS.contains(&path[i - 1].as_str());
        let last = i + 1 == path.len();
        cur = match cur {
            Value::Object(o) => match o.get(part) {
                Some(v) => v,
                None if in_map && last => return Ok(None),
                None if in_map => {
                    return Err(format!(
                        "{} at part {i}: couldn't find key {part:?}",
                        pointer()
                    ))
                }
                None => {
                    return Err(format!(
                        "{} at part {i}: couldn't find key: struct field with name {part:?}",
                        pointer()
                    ))
                }
            },
            Value::Array(a) => {
                let idx: usize = part.parse().map_err(|_| {
                    format!(
                        "{} at part {i}: couldn't find key: invalid index {part:?} for a slice",
                        pointer()
                    )
                })?;
                a.get(idx).ok_or_else(|| {
                    format!(
                        "{} at part {i}: couldn't find key: index {idx} out of range (length {})",
                        pointer(),
                        a.len()
                    )
                })?
            }
            // A nil map has no keys; a nil pointer has no fields.
            Value::Null if in_map && last => return Ok(None),
            other => {
                return Err(format!(
                    "{} at part {i}: invalid value kind: {}",
                    pointer(),
                    kind_name(other)
                ))
            }
        };
    }
    Ok(Some(cur))
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "ptr",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(n) if n.is_u64() => "uint64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

fn evaluate_match(m: &Match, datum: &Value, locals: &[Local]) -> Result<bool, String> {
    let value = match lookup(datum, &m.selector, locals)
        .map_err(|e| format!("error finding value in datum: {e}"))?
    {
        Found::Missing => return Ok(m.op.not_present()),
        Found::Value(v) => v,
    };
    let raw = m.value.as_deref().unwrap_or("");
    match m.op {
        MatchOp::Equal => equal(m, raw, &value),
        MatchOp::NotEqual => equal(m, raw, &value).map(|b| !b),
        MatchOp::In => contains(m, raw, &value),
        MatchOp::NotIn => contains(m, raw, &value).map(|b| !b),
        MatchOp::IsEmpty => is_empty(m, &value),
        MatchOp::IsNotEmpty => is_empty(m, &value).map(|b| !b),
        MatchOp::Matches => matches(m, &value),
        MatchOp::NotMatches => matches(m, &value).map(|b| !b),
        MatchOp::IsNil => Ok(value.is_null()),
        MatchOp::IsNotNil => Ok(!value.is_null()),
    }
}

/// The literal coerced to the kind of `field` and compared, as go-bexpr's primitive
/// equality: `None` when the kind has no primitive comparison.
fn primitive_eq(raw: &str, field: &Value) -> Option<Result<bool, String>> {
    let out = match field {
        Value::Bool(b) => parse_go_bool(raw)
            .map(|v| v == *b)
            .ok_or_else(|| format!("strconv.ParseBool: parsing {raw:?}: invalid syntax")),
        Value::Number(n) if n.is_f64() => raw
            .parse::<f64>()
            .map(|v| Some(v) == n.as_f64())
            .map_err(|_| format!("strconv.ParseFloat: parsing {raw:?}: invalid syntax")),
        Value::Number(n) => match n.as_i64() {
            Some(i) => parse_go_int(raw)
                .map(|v| v == i128::from(i))
                .ok_or_else(|| format!("strconv.ParseInt: parsing {raw:?}: invalid syntax")),
            None => parse_go_int(raw)
                .filter(|v| *v >= 0)
                .map(|v| Some(v) == n.as_u64().map(i128::from))
                .ok_or_else(|| format!("strconv.ParseUint: parsing {raw:?}: invalid syntax")),
        },
        Value::String(s) => Ok(s == raw),
        _ => return None,
    };
    Some(out.map_err(|e| format!("error getting match value in expression: {e}")))
}

fn equal(_m: &Match, raw: &str, field: &Value) -> Result<bool, String> {
    primitive_eq(raw, field).unwrap_or_else(|| {
        Err("unable to find suitable primitive comparison function for matching".to_string())
    })
}

fn contains(m: &Match, raw: &str, field: &Value) -> Result<bool, String> {
    match field {
        Value::Object(o) => Ok(o.contains_key(raw)),
        Value::Array(items) => {
            for item in items {
                match primitive_eq(raw, item) {
                    Some(Ok(true)) => return Ok(true),
                    // A literal that does not parse as this element's kind just does not
                    // match it (lists of mixed kinds).
                    Some(Ok(false)) | Some(Err(_)) => {}
                    None => {
                        return Err(format!(
                            "unable to find suitable primitive comparison function for \"in\" \
                             comparison in interface slice: {}",
                            kind_name(item)
                        ))
                    }
                }
            }
            Ok(false)
        }
        Value::String(s) => Ok(s.contains(raw)),
        // A nil list or map contains nothing.
        Value::Null => Ok(false),
        other => Err(format!(
            "cannot perform in/contains operations on type {} for selector: \"{}\"",
            kind_name(other),
            m.selector
        )),
    }
}

fn is_empty(m: &Match, field: &Value) -> Result<bool, String> {
    match field {
        Value::Object(o) => Ok(o.is_empty()),
        Value::Array(a) => Ok(a.is_empty()),
        Value::String(s) => Ok(s.is_empty()),
        Value::Null => Ok(true),
        other => Err(format!(
            "cannot perform is-empty operations on type {} for selector: \"{}\"",
            kind_name(other),
            m.selector
        )),
    }
}

fn matches(m: &Match, field: &Value) -> Result<bool, String> {
    let Some(re) = &m.regex else {
        return Ok(false);
    };
    match field {
        Value::String(s) => Ok(re.is_match(s)),
        other => Err(format!(
            "value of type {} is not convertible to []byte",
            kind_name(other)
        )),
    }
}

fn evaluate_collection(
    c: &Collection,
    datum: &Value,
    locals: &mut Vec<Local>,
) -> Result<bool, String> {
    let (index, value, default) = match &c.binding {
        Binding::Default(d) => (None, None, Some(d)),
        Binding::Index(i) => (Some(i), None, None),
        Binding::Value(v) => (None, Some(v), None),
        Binding::IndexValue(i, v) => {
            if i == v {
                return Err(format!(
                    "{i:?} cannot be used as a placeholder for both the index and the value"
                ));
            }
            (Some(i), Some(v), None)
        }
    };
    let found = lookup(datum, &c.selector, locals)
        .map_err(|e| format!("error finding value in datum: {e}"))?;
    let target = match found {
        Found::Missing => return Ok(c.all),
        Found::Value(v) => v.into_owned(),
    };
    // The path the collection's elements live at, for bindings that stand for an element.
    let base: Vec<String> = match lookup_path(&c.selector, locals) {
        Some(p) => p,
        None => {
            return Err(format!("{} is not a list or a map", c.selector));
        }
    };
    let elements: Vec<(Value, String)> = match &target {
        Value::Array(a) => (0..a.len())
            .map(|i| (Value::from(i), i.to_string()))
            .collect(),
        Value::Object(o) => o
            .keys()
            .map(|k| (Value::String(k.clone()), k.clone()))
            .collect(),
        Value::Null => Vec::new(),
        _ => return Err(format!("{} is not a list or a map", c.selector)),
    };
    let is_map = target.is_object();
    for (key, part) in elements {
        let pushed = locals.len();
        let mut elem_path = base.clone();
        elem_path.push(part);
        if let Some(d) = default {
            if is_map {
                locals.push(Local::Value(d.clone(), key.clone()));
            } else {
                locals.push(Local::Path(d.clone(), elem_path.clone()));
            }
        }
        if let Some(i) = index {
            locals.push(Local::Value(i.clone(), key.clone()));
        }
        if let Some(v) = value {
            locals.push(Local::Path(v.clone(), elem_path));
        }
        let result = evaluate(&c.inner, datum, locals);
        locals.truncate(pushed);
        let result = result?;
        if result != c.all {
            return Ok(result);
        }
    }
    Ok(c.all)
}

/// The absolute path a selector stands for once bindings are expanded; `None` when it starts
/// with a binding that is a plain value (an index or a key), which has no elements.
fn lookup_path(sel: &Selector, locals: &[Local]) -> Option<Vec<String>> {
    let mut path = sel.path.clone();
    for local in locals.iter().rev() {
        match local {
            Local::Value(name, _) if path.first() == Some(name) => return None,
            Local::Path(name, prefix) if path.first() == Some(name) => {
                let mut full = prefix.clone();
                full.extend(path.drain(1..));
                path = full;
            }
            _ => {}
        }
    }
    Some(path)
}

/// Go's `strconv.ParseBool`.
fn parse_go_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then decimal, `0x`, `0o`/`0`, `0b`,
/// with `_` separators allowed after a base prefix.
fn parse_go_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.replace('_', ""))
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.replace('_', ""))
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.replace('_', ""))
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].replace('_', ""))
    } else {
        (10, lower.clone())
    };
    if digits.is_empty() || digits.starts_with('+') || digits.starts_with('-') {
        return None;
    }
    let n = i128::from_str_radix(&digits, radix).ok()?;
    let n = if neg { -n } else { n };
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&n)
        .then_some(n)
}
