//! `format` and `formatlist`: Go fmt verbs as cty implements them.

use serde_json::Value;

use super::*;
use crate::jobspec::eval::as_bool;

// ---- format -------------------------------------------------------------------------------

pub(super) fn format_fn(a: &[Value]) -> FnResult {
    let f = str_arg(a, 0, "format")?;
    format_str(&f, &a[1..]).map(s).map_err(FnError::Call)
}

/// cty's fmt verbs: %v %#v %t %d %b %o %x %X %e %E %f %g %G %s %q %%, with flags `+-# 0`,
/// width, precision and `[n]` explicit argument indexes.
pub fn format_str(f: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let chars: Vec<char> = f.chars().collect();
    let (mut i, mut next, mut reordered) = (0usize, 0usize, false);
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let (mut plus, mut minus, mut sharp, mut zero, mut space) =
            (false, false, false, false, false);
        while i < chars.len() && "+-# 0".contains(chars[i]) {
            match chars[i] {
                '+' => plus = true,
                '-' => minus = true,
                '#' => sharp = true,
                '0' => zero = true,
                _ => space = true,
            }
            i += 1;
        }
        if i + 2 < chars.len() && chars[i] == '[' {
            let close = chars[i..].iter().position(|c| *c == ']').map(|p| p + i);
            let Some(close) = close else {
                return Err("unclosed argument index".into());
            };
            let idx: String = chars[i + 1..close].iter().collect();
            next = idx
                .parse::<usize>()
                .map_err(|_| "invalid argument index".to_string())?
                .saturating_sub(1);
            i = close + 1;
            reordered = true;
        }
        let num = |i: &mut usize| -> Option<usize> {
            let st = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            chars[st..*i].iter().collect::<String>().parse().ok()
        };
        let width = num(&mut i);
        let prec = if i < chars.len() && chars[i] == '.' {
            i += 1;
            Some(num(&mut i).unwrap_or(0))
        } else {
            None
        };
        let Some(&verb) = chars.get(i) else {
            return Err("invalid format string: trailing %".into());
        };
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            return Err(format!("not enough arguments for %{verb} at {}", i - 1));
        };
        next += 1;
        let num_of = |v: &Value| {
            as_f64(v).ok_or_else(|| {
                format!(
                    "unsupported value for \"%{verb}\" at {}: number required",
                    i - 1
                )
            })
        };
        let mut body = match verb {
            'v' if sharp => serde_json::to_string(arg).map_err(|e| e.to_string())?,
            'v' => match arg {
                Value::Null => "null".into(),
                Value::Array(_) | Value::Object(_) => {
                    serde_json::to_string(arg).map_err(|e| e.to_string())?
                }
                v => value_to_string(v).unwrap_or_default(),
            },
            's' => value_to_string(arg).ok_or_else(|| {
                format!("unsupported value for \"%s\" at {}: string required", i - 1)
            })?,
            'q' => serde_json::to_string(&value_to_string(arg).ok_or("string required")?)
                .map_err(|e| e.to_string())?,
            't' => as_bool(arg)
                .ok_or_else(|| format!("unsupported value for \"%t\" at {}: bool required", i - 1))?
                .to_string(),
            'd' | 'b' | 'o' | 'x' | 'X' => {
                let n = num_of(arg)?;
                if n.fract() != 0.0 {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: an integer is required",
                        i - 1
                    ));
                }
                let (neg, u) = (n < 0.0, n.abs() as u64);
                let digits = match verb {
                    'b' => format!("{u:b}"),
                    'o' => format!("{u:o}"),
                    'x' => format!("{u:x}"),
                    'X' => format!("{u:X}"),
                    _ => u.to_string(),
                };
                sign(neg, plus, space) + &digits
            }
            'e' | 'E' | 'f' | 'g' | 'G' => {
                let n = num_of(arg)?;
                let p = prec.unwrap_or(6);
                let body = match verb {
                    'f' => format!("{:.p$}", n.abs()),
                    'e' => go_exp(n.abs(), p, 'e'),
                    'E' => go_exp(n.abs(), p, 'E'),
                    _ => float_value(n.abs()).to_string(),
                };
                sign(n < 0.0, plus, space) + &body
            }
            _ => {
                return Err(format!(
                    "unrecognized format character {verb:?} at offset {}",
                    i - 1
                ))
            }
        };
        if let (Some(p), 's' | 'v') = (prec, verb) {
            body = body.chars().take(p).collect();
        }
        let w = width.unwrap_or(0);
        let n = body.chars().count();
        if n < w {
            let pad = w - n;
            if minus {
                body.push_str(&" ".repeat(pad));
            } else if zero && "dbboxXeEfgG".contains(verb) {
                let at = if body.starts_with(['-', '+', ' ']) {
                    1
                } else {
                    0
                };
                body.insert_str(at, &"0".repeat(pad));
            } else {
                body.insert_str(0, &" ".repeat(pad));
            }
        }
        out.push_str(&body);
    }
    // As in Go's fmt, explicit argument indexes switch off the unused-argument check.
    if !reordered && next < args.len() {
        return Err(format!(
            "too many arguments; only {next} used by format string"
        ));
    }
    Ok(out)
}

pub(super) fn sign(neg: bool, plus: bool, space: bool) -> String {
    if neg {
        "-".into()
    } else if plus {
        "+".into()
    } else if space {
        " ".into()
    } else {
        String::new()
    }
}

/// Go's %e: at least two exponent digits, with a sign.
pub(super) fn go_exp(n: f64, p: usize, e: char) -> String {
    let r = format!("{n:.p$e}");
    let (mant, exp) = r.split_once('e').unwrap_or((&r, "0"));
    let (es, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mant}{e}{es}{digits:0>2}")
}

pub(super) fn formatlist(a: &[Value]) -> FnResult {
    let f = str_arg(a, 0, "format")?;
    let mut n: Option<usize> = None;
    for (i, v) in a.iter().enumerate().skip(1) {
        if let Value::Array(items) = v {
            match n {
                Some(m) if m != items.len() => {
                    return Err(arg_err(i, "args", format!("argument {i} has length {}, which is inconsistent with argument 1 of length {m}", items.len())));
                }
                _ => n = Some(items.len()),
            }
        }
    }
    let n = n.unwrap_or(1);
    let mut out = Vec::with_capacity(n);
    for row in 0..n {
        let args: Vec<Value> = a[1..]
            .iter()
            .map(|v| match v {
                Value::Array(items) => items[row].clone(),
                other => other.clone(),
            })
            .collect();
        out.push(s(format_str(&f, &args).map_err(|e| {
            FnError::Call(format!("error on format iteration {row}: {e}"))
        })?));
    }
    Ok(Value::Array(out))
}
