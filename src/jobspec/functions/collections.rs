//! List, set and map functions.

use serde_json::{Map, Value};

use super::*;

// ---- collections --------------------------------------------------------------------------

pub(super) fn chunklist(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let size = int_arg(a, 1, "size")?;
    if size < 0 {
        return Err(arg_err(
            1,
            "size",
            "the size argument must be positive".into(),
        ));
    }
    if size == 0 {
        return Ok(Value::Array(vec![Value::Array(list)]));
    }
    Ok(Value::Array(
        list.chunks(size as usize)
            .map(|c| Value::Array(c.to_vec()))
            .collect(),
    ))
}

pub(super) fn coalesce(a: &[Value]) -> FnResult {
    a.iter()
        .find(|v| !matches!(v, Value::Null) && *v != &Value::String(String::new()))
        .cloned()
        .ok_or_else(|| FnError::Call("no non-null, non-empty-string arguments".into()))
}

pub(super) fn coalescelist(a: &[Value]) -> FnResult {
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::Array(items) if !items.is_empty() => return Ok(v.clone()),
            Value::Array(_) | Value::Null => {}
            _ => return Err(arg_err(i, "vals", "a list or tuple is required".into())),
        }
    }
    Err(FnError::Call("no non-null arguments".into()))
}

pub(super) fn compact(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    Ok(Value::Array(
        list.into_iter()
            .filter(|v| !matches!(v, Value::Null) && *v != Value::String(String::new()))
            .collect(),
    ))
}

pub(super) fn concat(a: &[Value]) -> FnResult {
    if a.is_empty() {
        return Err(FnError::Call("at least one argument is required".into()));
    }
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.extend(list_arg(a, i, "seqs")?);
    }
    Ok(Value::Array(out))
}

pub(super) fn distinct(list: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for v in list {
        if !out.iter().any(|o| eq(o, &v)) {
            out.push(v);
        }
    }
    out
}

pub(super) fn element(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let idx = int_arg(a, 1, "index")?;
    if list.is_empty() {
        return Err(FnError::Call(
            "cannot use element function with an empty list".into(),
        ));
    }
    if idx < 0 {
        return Err(FnError::Call(
            "cannot use element function with a negative index".into(),
        ));
    }
    Ok(list[idx as usize % list.len()].clone())
}

pub(super) fn flatten(a: &[Value]) -> FnResult {
    fn walk(v: Vec<Value>, out: &mut Vec<Value>) {
        for x in v {
            match x {
                Value::Array(inner) => walk(inner, out),
                other => out.push(other),
            }
        }
    }
    let mut out = Vec::new();
    walk(list_arg(a, 0, "list")?, &mut out);
    Ok(Value::Array(out))
}

pub(super) fn length(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Array(v) => Ok(Value::from(v.len())),
        Value::Object(m) => Ok(Value::from(m.len())),
        Value::Null => Err(arg_err(0, "value", "argument must not be null".into())),
        v => match value_to_string(v) {
            Some(st) => Ok(Value::from(st.chars().count())),
            None => Err(arg_err(
                0,
                "value",
                "collection or tuple type required".into(),
            )),
        },
    }
}

pub(super) fn lookup_fn(a: &[Value]) -> FnResult {
    if a.len() > 3 {
        return Err(FnError::Call(
            "lookup() takes no more than three arguments".into(),
        ));
    }
    let m = map_arg(a, 0, "inputMap")?;
    let key = str_arg(a, 1, "key")?;
    match (m.get(&key), a.get(2)) {
        (Some(v), _) => Ok(v.clone()),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(FnError::Call(format!("lookup failed to find key {key:?}"))),
    }
}

pub(super) fn merge(a: &[Value]) -> FnResult {
    let mut out = Map::new();
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::Null => {}
            Value::Object(m) => out.extend(m.clone()),
            _ => {
                return Err(arg_err(
                    i,
                    "maps",
                    "arguments must be maps or objects".into(),
                ))
            }
        }
    }
    Ok(Value::Object(out))
}

pub(super) fn range(a: &[Value]) -> FnResult {
    let n: Vec<f64> = (0..a.len())
        .map(|i| num_arg(a, i, "params"))
        .collect::<Result<_, _>>()?;
    let (start, end, step) = match n.as_slice() {
        [e] => (0.0, *e, 1.0),
        [st, e] => (*st, *e, if e >= st { 1.0 } else { -1.0 }),
        [st, e, sp] => (*st, *e, *sp),
        _ => {
            return Err(FnError::Call(
                "must have one, two, or three arguments".into(),
            ))
        }
    };
    if step == 0.0 {
        return Err(FnError::Call("step must not be zero".into()));
    }
    if (step > 0.0 && start > end) || (step < 0.0 && start < end) {
        return Err(FnError::Call(
            "step must be positive when start is less than end, negative otherwise".into(),
        ));
    }
    let mut out = Vec::new();
    let mut x = start;
    while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
        if out.len() >= 1024 {
            return Err(FnError::Call("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step".into()));
        }
        out.push(float_value(x));
        x += step;
    }
    Ok(Value::Array(out))
}

pub(super) fn setop(a: &[Value], intersect: bool) -> FnResult {
    let mut acc = distinct(list_arg(a, 0, "first_set")?);
    for i in 1..a.len() {
        let other = list_arg(a, i, "other_sets")?;
        if intersect {
            acc.retain(|v| other.iter().any(|o| eq(o, v)));
        } else {
            acc = distinct(acc.into_iter().chain(other).collect());
        }
    }
    Ok(Value::Array(acc))
}

pub(super) fn slice(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let st = int_arg(a, 1, "start_index")?;
    let en = int_arg(a, 2, "end_index")?;
    if st < 0 {
        return Err(arg_err(
            1,
            "start_index",
            "must be greater than or equal to 0".into(),
        ));
    }
    if en as usize > list.len() || en < 0 {
        return Err(arg_err(
            2,
            "end_index",
            "must be less than or equal to length".into(),
        ));
    }
    if st > en {
        return Err(arg_err(
            1,
            "start_index",
            "must be less than or equal to end_index".into(),
        ));
    }
    Ok(Value::Array(list[st as usize..en as usize].to_vec()))
}

pub(super) fn sort(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let mut out = Vec::with_capacity(list.len());
    for v in &list {
        out.push(
            value_to_string(v)
                .ok_or_else(|| arg_err(0, "list", "given list element must not be null".into()))?,
        );
    }
    out.sort();
    Ok(Value::Array(out.into_iter().map(s).collect()))
}

pub(super) fn zipmap(a: &[Value]) -> FnResult {
    let keys = list_arg(a, 0, "keys")?;
    let vals = list_arg(a, 1, "values")?;
    if keys.len() != vals.len() {
        return Err(FnError::Call(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            vals.len()
        )));
    }
    let mut m = Map::new();
    for (k, v) in keys.iter().zip(vals) {
        let k =
            value_to_string(k).ok_or_else(|| arg_err(0, "keys", "keys must be strings".into()))?;
        m.insert(k, v);
    }
    Ok(Value::Object(m))
}

/// Every combination of one element from each list, in order.
pub(super) fn setproduct(a: &[Value]) -> FnResult {
    if a.len() < 2 {
        return Err(FnError::Call("at least two arguments are required".into()));
    }
    let mut acc: Vec<Vec<Value>> = vec![Vec::new()];
    for i in 0..a.len() {
        let list = list_arg(a, i, "sets")?;
        acc = acc
            .into_iter()
            .flat_map(|row| {
                list.iter().map(move |v| {
                    let mut r = row.clone();
                    r.push(v.clone());
                    r
                })
            })
            .collect();
    }
    Ok(Value::Array(acc.into_iter().map(Value::Array).collect()))
}
