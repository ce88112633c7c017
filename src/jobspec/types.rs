//! HCL type expressions (`list(string)`, `object({a = number})`) and go-cty's conversion of a
//! value to a type: what `variable` `type =` constraints and the `convert()` function need.
//! Values are JSON trees, so a JSON array stands for a cty tuple (or list/set) and an object
//! for a cty object (or map); the messages are cty's (`convert.MismatchMessage`).

use std::collections::BTreeMap;
use std::ops::Range;

use hcl_edit::expr::{Expression, ObjectKey};
use hcl_edit::Span;
use serde_json::{Map, Value};

use super::eval::{as_f64, float_value};

/// A cty type or type constraint (`Any` is cty.DynamicPseudoType).
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Any,
    String,
    Number,
    Bool,
    List(Box<Ty>),
    Set(Box<Ty>),
    Map(Box<Ty>),
    Object(BTreeMap<String, Ty>),
    Tuple(Vec<Ty>),
}

/// A type expression that is not one; the detail is hcl typeexpr's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeExprError {
    pub detail: String,
    pub span: Option<Range<usize>>,
}

pub const INVALID_TYPE_SUMMARY: &str = "Invalid type specification";

/// typeexpr.Type (`constraint == false`: variable types, where `any` is refused) or
/// typeexpr.TypeConstraint (`convert()`'s second argument).
pub fn parse_type(expr: &Expression, constraint: bool) -> Result<Ty, TypeExprError> {
    let err = |detail: String, span: Option<Range<usize>>| TypeExprError { detail, span };
    match expr {
        Expression::Variable(v) => {
            let kw = v.value().as_str();
            match kw {
                "bool" => Ok(Ty::Bool),
                "string" => Ok(Ty::String),
                "number" => Ok(Ty::Number),
                "any" if constraint => Ok(Ty::Any),
                "any" => Err(err(
                    format!("The keyword {kw:?} cannot be used in this type specification: an exact type is required."),
                    expr.span(),
                )),
                "list" | "map" | "set" => Err(err(
                    format!("The {kw} type constructor requires one argument specifying the element type."),
                    expr.span(),
                )),
                "object" => Err(err(
                    "The object type constructor requires one argument specifying the attribute types and values as a map.".to_string(),
                    expr.span(),
                )),
                "tuple" => Err(err(
                    "The tuple type constructor requires one argument specifying the element types as a list.".to_string(),
                    expr.span(),
                )),
                _ => Err(err(
                    format!("The keyword {kw:?} is not a valid type specification."),
                    expr.span(),
                )),
            }
        }
        Expression::FuncCall(call) if call.name.namespace.is_empty() => {
            let name = call.name.name.value().as_str();
            let args: Vec<&Expression> = call.args.iter().collect();
            match name {
                "bool" | "string" | "number" => {
                    return Err(err(
                        format!("Primitive type keyword {name:?} does not expect arguments."),
                        expr.span(),
                    ))
                }
                "any" => {
                    return Err(err(
                        format!("Type constraint keyword {name:?} does not expect arguments."),
                        expr.span(),
                    ))
                }
                _ => {}
            }
            if args.len() != 1 {
                let detail = match name {
                    "list" | "set" | "map" => format!(
                        "The {name} type constructor requires one argument specifying the element type."
                    ),
                    "object" => "The object type constructor requires one argument specifying the attribute types and values as a map.".to_string(),
                    "tuple" => "The tuple type constructor requires one argument specifying the element types as a list.".to_string(),
                    _ => format!("Keyword {name:?} is not a valid type constructor."),
                };
                return Err(err(detail, expr.span()));
            }
            let arg = args[0];
            match name {
                "list" => Ok(Ty::List(Box::new(parse_type(arg, constraint)?))),
                "set" => Ok(Ty::Set(Box::new(parse_type(arg, constraint)?))),
                "map" => Ok(Ty::Map(Box::new(parse_type(arg, constraint)?))),
                "object" => {
                    let Expression::Object(obj) = arg else {
                        return Err(err(
                            "Object type constructor requires a map whose keys are attribute names and whose values are the corresponding attribute types.".to_string(),
                            arg.span(),
                        ));
                    };
                    let mut attrs = BTreeMap::new();
                    for (k, v) in obj.iter() {
                        let key = match k {
                            ObjectKey::Ident(id) => id.value().as_str().to_string(),
                            ObjectKey::Expression(Expression::Variable(id)) => {
                                id.value().as_str().to_string()
                            }
                            ObjectKey::Expression(e) => {
                                return Err(err(
                                    "Object constructor map keys must be attribute names."
                                        .to_string(),
                                    e.span(),
                                ))
                            }
                        };
                        if attrs.contains_key(&key) {
                            return Err(err(
                                "Object constructor map keys must be unique.".to_string(),
                                k.span(),
                            ));
                        }
                        if let Expression::FuncCall(c) = v.expr() {
                            if c.name.name.value().as_str() == "optional" {
                                return Err(err(
                                    "Optional attribute modifier is only for type constraints, not for exact types.".to_string(),
                                    v.expr().span(),
                                ));
                            }
                        }
                        attrs.insert(key, parse_type(v.expr(), constraint)?);
                    }
                    Ok(Ty::Object(attrs))
                }
                "tuple" => {
                    let Expression::Array(items) = arg else {
                        return Err(err(
                            "Tuple type constructor requires a list of element types."
                                .to_string(),
                            arg.span(),
                        ));
                    };
                    items
                        .iter()
                        .map(|e| parse_type(e, constraint))
                        .collect::<Result<Vec<_>, _>>()
                        .map(Ty::Tuple)
                }
                _ => Err(err(
                    format!("Keyword {name:?} is not a valid type constructor."),
                    expr.span(),
                )),
            }
        }
        _ => Err(err(
            "A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string).".to_string(),
            expr.span(),
        )),
    }
}

impl Ty {
    /// The type cty gives a value (`cty.Value.Type()`): arrays are tuples, objects objects.
    pub fn implied(v: &Value) -> Ty {
        match v {
            Value::Null => Ty::Any,
            Value::Bool(_) => Ty::Bool,
            Value::Number(_) => Ty::Number,
            Value::String(_) => Ty::String,
            Value::Array(items) => Ty::Tuple(items.iter().map(Ty::implied).collect()),
            Value::Object(m) => {
                Ty::Object(m.iter().map(|(k, v)| (k.clone(), Ty::implied(v))).collect())
            }
        }
    }

    fn is_primitive(&self) -> bool {
        matches!(self, Ty::String | Ty::Number | Ty::Bool)
    }

    /// cty's Type.FriendlyName.
    pub fn friendly_name(&self) -> String {
        match self {
            Ty::Any => "dynamic".to_string(),
            Ty::String => "string".to_string(),
            Ty::Number => "number".to_string(),
            Ty::Bool => "bool".to_string(),
            Ty::List(e) => format!("list of {}", e.friendly_name()),
            Ty::Set(e) => format!("set of {}", e.friendly_name()),
            Ty::Map(e) => format!("map of {}", e.friendly_name()),
            Ty::Object(_) => "object".to_string(),
            Ty::Tuple(_) => "tuple".to_string(),
        }
    }

    /// cty's Type.FriendlyNameForConstraint.
    pub fn constraint_name(&self) -> String {
        match self {
            Ty::Any => "any type".to_string(),
            Ty::List(e) => format!("list of {}", e.elem_constraint_name()),
            Ty::Set(e) => format!("set of {}", e.elem_constraint_name()),
            Ty::Map(e) => format!("map of {}", e.elem_constraint_name()),
            other => other.friendly_name(),
        }
    }

    fn elem_constraint_name(&self) -> String {
        match self {
            Ty::Any => "any single type".to_string(),
            other => other.constraint_name(),
        }
    }
}

/// Why a conversion failed: `typed` for a mismatch of types (which cty reports with the path
/// of the element), not for a value that does not parse (`"x"` to number).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ConvError {
    msg: String,
    typed: bool,
}

fn mismatch(got: &Ty, want: &Ty) -> ConvError {
    ConvError {
        msg: mismatch_message(got, want),
        typed: true,
    }
}

/// cty's convert.MismatchMessage for the shapes JSON values can have.
fn mismatch_message(got: &Ty, want: &Ty) -> String {
    match (got, want) {
        (Ty::Tuple(_), Ty::List(e)) if **e == Ty::Any => {
            "all list elements must have the same type".to_string()
        }
        (Ty::Tuple(_), Ty::Set(e)) if **e == Ty::Any => {
            "all set elements must have the same type".to_string()
        }
        (Ty::Object(_), Ty::Map(e)) if **e == Ty::Any => {
            "all map elements must have the same type".to_string()
        }
        _ if got.is_primitive() != want.is_primitive() || *want == Ty::String => format!(
            "{} required, but have {}",
            want.friendly_name(),
            got.friendly_name()
        ),
        (Ty::Bool, Ty::Number) | (Ty::Number, Ty::Bool) => format!(
            "{} required, but have {}",
            want.friendly_name(),
            got.friendly_name()
        ),
        _ => format!("{} required", want.constraint_name()),
    }
}

/// convert.Convert(value, ty), with cty's error message on failure.
pub fn convert(v: &Value, ty: &Ty) -> Result<Value, String> {
    conv(v, ty).map_err(|e| e.msg)
}

fn conv(v: &Value, ty: &Ty) -> Result<Value, ConvError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let got = Ty::implied(v);
    let value_err = |msg: &str| ConvError {
        msg: msg.to_string(),
        typed: false,
    };
    match ty {
        Ty::Any => Ok(v.clone()),
        Ty::String => match v {
            Value::String(_) => Ok(v.clone()),
            Value::Number(n) => Ok(Value::String(n.to_string())),
            Value::Bool(b) => Ok(Value::String(b.to_string())),
            _ => Err(mismatch(&got, ty)),
        },
        Ty::Number => match v {
            Value::Number(_) => Ok(v.clone()),
            Value::String(s) => parse_number(s)
                .map(float_value)
                .ok_or_else(|| value_err("a number is required")),
            _ => Err(mismatch(&got, ty)),
        },
        Ty::Bool => match v {
            Value::Bool(_) => Ok(v.clone()),
            Value::String(s) => match s.as_str() {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ if s.eq_ignore_ascii_case("true") => Err(value_err(
                    "a bool is required; to convert from string, use lowercase \"true\"",
                )),
                _ if s.eq_ignore_ascii_case("false") => Err(value_err(
                    "a bool is required; to convert from string, use lowercase \"false\"",
                )),
                _ => Err(value_err("a bool is required")),
            },
            _ => Err(mismatch(&got, ty)),
        },
        Ty::List(e) | Ty::Set(e) => {
            let Value::Array(items) = v else {
                return Err(mismatch(&got, ty));
            };
            let elem = if **e == Ty::Any {
                match unify(items.iter()) {
                    Some(t) => t,
                    None => return Err(mismatch(&got, ty)),
                }
            } else {
                (**e).clone()
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(conv(item, &elem).map_err(|err| at_element(err, &format!("{i}")))?);
            }
            if matches!(ty, Ty::Set(_)) {
                out = set_order(out);
            }
            Ok(Value::Array(out))
        }
        Ty::Map(e) => {
            let Value::Object(m) = v else {
                return Err(mismatch(&got, ty));
            };
            let elem = if **e == Ty::Any {
                match unify(m.values()) {
                    Some(t) => t,
                    None => return Err(mismatch(&got, ty)),
                }
            } else {
                (**e).clone()
            };
            let mut out = Map::new();
            for (k, item) in m {
                out.insert(
                    k.clone(),
                    conv(item, &elem).map_err(|err| at_element(err, &format!("{k:?}")))?,
                );
            }
            Ok(Value::Object(out))
        }
        Ty::Object(attrs) => {
            let Value::Object(m) = v else {
                return Err(mismatch(&got, ty));
            };
            let missing: Vec<&String> = attrs.keys().filter(|k| !m.contains_key(*k)).collect();
            if !missing.is_empty() {
                return Err(ConvError {
                    msg: missing_attrs(&missing),
                    typed: true,
                });
            }
            let mut out = Map::new();
            for (k, aty) in attrs {
                let item = &m[k];
                let c = conv(item, aty).map_err(|err| ConvError {
                    msg: if err.typed {
                        format!("attribute {k:?}: {}", err.msg)
                    } else {
                        err.msg
                    },
                    typed: err.typed,
                })?;
                out.insert(k.clone(), c);
            }
            Ok(Value::Object(out))
        }
        Ty::Tuple(elems) => {
            let Value::Array(items) = v else {
                return Err(mismatch(&got, ty));
            };
            if items.len() != elems.len() {
                return Err(mismatch(&got, ty));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, (item, ety)) in items.iter().zip(elems).enumerate() {
                out.push(conv(item, ety).map_err(|err| at_element(err, &format!("{i}")))?);
            }
            Ok(Value::Array(out))
        }
    }
}

fn at_element(err: ConvError, key: &str) -> ConvError {
    if err.typed {
        ConvError {
            msg: format!("element {key}: {}", err.msg),
            typed: true,
        }
    } else {
        err
    }
}

fn missing_attrs(missing: &[&String]) -> String {
    match missing {
        [one] => format!("attribute {one:?} is required"),
        [a, b] => format!("attributes {a:?} and {b:?} are required"),
        many => {
            let mut s = String::new();
            for (i, m) in many.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                if i == many.len() - 1 {
                    s.push_str("and ");
                }
                s.push_str(&format!("{m:?}"));
            }
            format!("attributes {s} are required")
        }
    }
}

/// cty.ParseNumberVal: a decimal number, optionally signed and with an exponent.
fn parse_number(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let ok = !body.is_empty()
        && body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !ok {
        return None;
    }
    as_f64(&Value::String(s.to_string())).filter(|f| f.is_finite())
}

/// The single type cty's unification finds for the elements of a collection built with an
/// `any` element type: their common type if they agree, string if they are all primitives,
/// `None` when they cannot be unified.
fn unify<'v>(items: impl Iterator<Item = &'v Value>) -> Option<Ty> {
    let mut types: Vec<Ty> = Vec::new();
    for v in items {
        if v.is_null() {
            continue;
        }
        let t = Ty::implied(v);
        if !types.contains(&t) {
            types.push(t);
        }
    }
    match types.len() {
        0 => Some(Ty::Any),
        1 => types.pop(),
        _ if types.iter().all(Ty::is_primitive) => Some(Ty::String),
        // cty also unifies structural values of compatible shapes; job files rarely mix
        // shapes in one list, so those are reported as not unifiable.
        _ => None,
    }
}

/// cty set order: numbers ascending, strings lexically, duplicates removed.
fn set_order(mut items: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    if items.iter().all(Value::is_number) {
        items.sort_by(|a, b| {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            x.total_cmp(&y)
        });
    } else if items.iter().all(Value::is_string) {
        items.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    }
    for v in items {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ty(src: &str, constraint: bool) -> Result<Ty, String> {
        let expr = hcl_edit::parser::parse_expr(src).expect("expression parses");
        parse_type(&expr, constraint).map_err(|e| e.detail)
    }

    #[test]
    fn type_expressions() {
        assert_eq!(ty("string", false), Ok(Ty::String));
        assert_eq!(
            ty("list(map(number))", false),
            Ok(Ty::List(Box::new(Ty::Map(Box::new(Ty::Number)))))
        );
        assert_eq!(
            ty("object({a = string, b = tuple([bool])})", false),
            Ok(Ty::Object(BTreeMap::from([
                ("a".to_string(), Ty::String),
                ("b".to_string(), Ty::Tuple(vec![Ty::Bool])),
            ])))
        );
        assert_eq!(ty("list(any)", true), Ok(Ty::List(Box::new(Ty::Any))));
        assert_eq!(
            ty("any", false).unwrap_err(),
            "The keyword \"any\" cannot be used in this type specification: an exact type is required."
        );
        assert_eq!(
            ty("strng", false).unwrap_err(),
            "The keyword \"strng\" is not a valid type specification."
        );
        assert_eq!(
            ty("list", false).unwrap_err(),
            "The list type constructor requires one argument specifying the element type."
        );
        assert_eq!(
            ty("lst(string)", false).unwrap_err(),
            "Keyword \"lst\" is not a valid type constructor."
        );
        assert_eq!(
            ty("\"string\"", false).unwrap_err(),
            "A type specification is either a primitive type keyword (bool, number, string) or a complex type constructor call, like list(string)."
        );
    }

    #[test]
    fn conversions_follow_cty() {
        let t = |s: &str| ty(s, true).expect("type parses");
        assert_eq!(convert(&json!(5), &t("string")), Ok(json!("5")));
        assert_eq!(convert(&json!("5"), &t("number")), Ok(json!(5)));
        assert_eq!(convert(&json!("1.5"), &t("number")), Ok(json!(1.5)));
        assert_eq!(
            convert(&json!("x"), &t("number")),
            Err("a number is required".to_string())
        );
        assert_eq!(
            convert(&json!(true), &t("number")),
            Err("number required, but have bool".to_string())
        );
        assert_eq!(convert(&json!("1"), &t("bool")), Ok(json!(true)));
        assert_eq!(
            convert(&json!("True"), &t("bool")),
            Err("a bool is required; to convert from string, use lowercase \"true\"".to_string())
        );
        assert_eq!(
            convert(&json!([1, "a"]), &t("list(string)")),
            Ok(json!(["1", "a"]))
        );
        assert_eq!(
            convert(&json!([[1]]), &t("list(number)")),
            Err("element 0: number required, but have tuple".to_string())
        );
        assert_eq!(
            convert(&json!({"a": 1}), &t("list(string)")),
            Err("list of string required".to_string())
        );
        assert_eq!(
            convert(&json!({"a": 1}), &t("string")),
            Err("string required, but have object".to_string())
        );
        assert_eq!(
            convert(&json!(["b", "a", "b"]), &t("set(string)")),
            Ok(json!(["a", "b"]))
        );
        assert_eq!(
            convert(&json!({"a": 1, "x": 2}), &t("object({a = string})")),
            Ok(json!({"a": "1"}))
        );
        assert_eq!(
            convert(&json!({}), &t("object({a = string, b = number})")),
            Err("attributes \"a\" and \"b\" are required".to_string())
        );
        assert_eq!(
            convert(&json!({"a": [1]}), &t("object({a = number})")),
            Err("attribute \"a\": number required, but have tuple".to_string())
        );
        assert_eq!(
            convert(&json!(["a", "b"]), &t("tuple([string])")),
            Err("tuple required".to_string())
        );
        assert_eq!(
            convert(&json!([1, {}]), &t("list(any)")),
            Err("all list elements must have the same type".to_string())
        );
        assert_eq!(convert(&json!(null), &t("number")), Ok(json!(null)));
    }
}
